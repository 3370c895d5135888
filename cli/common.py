"""What every command shares: the --db and --json options, consoles, and errors as one line with exit code 2."""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from loom.events.base import LoomError
from loom.replay.readers import open_reading
from loom.replay.store import DEFAULT_DB, Store
from loom.replay.workers import Stopped, held_signals, sigterm_stops

F = TypeVar("F", bound=Callable[..., Any])

# Text from logs and from the user is never markup: every message escapes it (rich.markup.escape), and neither
# console turns `:name:` codes into emoji.
out = Console(highlight=False, emoji=False)
err = Console(stderr=True, highlight=False, soft_wrap=True, emoji=False)


@contextmanager
def progress_bar(what: str, total: int | None) -> Iterator[Callable[[int], None]]:
    """A bar of `total` steps (games, lines; None if not known) on stderr, drawn only on a terminal and gone when
    done: `advance(n)` moves it."""
    with Progress(
        TextColumn(f"[bold]{what}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=err,
        disable=not err.is_terminal,
        transient=True,
    ) as progress:
        task = progress.add_task(what, total=total)

        def advance(done: int) -> None:
            with held_signals():  # Ctrl-C must not leave the bar's lock taken: its refresh thread waits for it
                progress.advance(task, done)

        yield advance


Db = Annotated[
    Path | None,
    typer.Option(
        "--db", envvar="LOGS_DB", help=f"The DuckDB file (default: $LOGS_DB, else ./{DEFAULT_DB}).", show_default=False
    ),
]
AsJson = Annotated[bool, typer.Option("--json", help="Print JSON instead of tables.")]


INTERRUPTED = "Query interrupted"
"""What DuckDB raises (a RuntimeError) when Ctrl-C comes during one of its statements: an interruption as any other."""


def fails_cleanly(fn: F) -> F:
    """Turn Loom's errors into one line on stderr and exit code 2, never a traceback. SIGTERM stops a command as
    Ctrl-C does (its half-written work dropped), with one line and exit code 143."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            with sigterm_stops():
                return fn(*args, **kwargs)
        except LoomError as error:
            err.print(f"error: {error}", markup=False)
            raise typer.Exit(2) from None
        except Stopped:
            err.print("stopped; nothing half-written was kept")
            raise typer.Exit(143) from None
        except KeyboardInterrupt:
            err.print("interrupted; nothing half-written was kept")
            raise typer.Exit(130) from None
        except RuntimeError as error:
            if str(error) != INTERRUPTED:
                raise
            err.print("interrupted; nothing half-written was kept")
            raise typer.Exit(130) from None

    return wrapper  # type: ignore[return-value]


def open_store(db: Path | None, *, read_only: bool = False, threads: int | None = None) -> Store:
    """The store at --db; `threads` for DuckDB (analytics use every core).

    To read a file a running server holds, the copy it publishes is opened instead, and one line says so; a write
    is refused with the file's one-line locked error."""
    if not read_only:
        return Store.open(db, threads=threads)
    reading = open_reading(db, threads=threads)
    if reading.note:
        err.print(reading.note, markup=False)
    return reading.store


def write_page(path: Path, html: str) -> None:
    """Write a page whole or not at all: a failed write leaves no half-written file behind."""
    partial = path.with_name(f".{path.name}.partial")
    try:
        partial.write_text(html, encoding="utf-8")
        partial.replace(path)
    except OSError as error:
        partial.unlink(missing_ok=True)
        raise LoomError(f"cannot write {path}: {error.strerror}") from None


def print_json(data: Any) -> None:
    """JSON on stdout, plain (no colour), for scripts."""
    typer.echo(json.dumps(data, indent=2, ensure_ascii=False, default=str))


def id_summary(ids: list[int]) -> str:
    """Game ids in a few words: `ids 1 to 500` when consecutive, else the first and last few (--json lists them)."""
    if not ids:
        return "no ids"
    if len(ids) == 1:
        return f"id {ids[0]}"
    if ids == list(range(ids[0], ids[0] + len(ids))):
        return f"ids {ids[0]} to {ids[-1]}"
    if len(ids) <= 8:
        return f"ids {', '.join(map(str, ids))}"
    return f"ids {', '.join(map(str, ids[:3]))}, ..., {', '.join(map(str, ids[-3:]))} (--json lists them all)"


def plural(count: int, noun: str) -> str:
    """`1 game`, `2 games`."""
    return f"{count:,} {noun}{'' if count == 1 else 's'}"
