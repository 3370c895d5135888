"""`logs export`, `logs import`, `logs rebuild`: the JSON Lines log format and the projections."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from loom.cli.app import app
from loom.cli.common import AsJson, Db, fails_cleanly, open_store, out, print_json
from loom.events.base import LoomError
from loom.replay.logfile import export_lines, import_file
from loom.replay.projections import rebuild


@app.command("export")
@fails_cleanly
def export_command(
    game_id: Annotated[int, typer.Argument(help="The game's id.")],
    output: Annotated[Path | None, typer.Option("--output", "-o", help="The file (default: stdout).")] = None,
    db: Db = None,
) -> None:
    """Write a game as a JSON Lines log (docs/log-format.md)."""
    with open_store(db, read_only=True) as store:
        lines = list(export_lines(store, game_id))
    text = "\n".join(lines) + "\n"
    if output is None:
        sys.stdout.write(text)
        return
    try:
        output.write_text(text, encoding="utf-8")
    except OSError as error:
        raise LoomError(f"cannot write {output}: {error.strerror}") from None
    out.print(f"wrote game {game_id} ({len(lines) - 1} events) to {escape(str(output))}")


@app.command("import")
@fails_cleanly
def import_command(
    file: Annotated[Path, typer.Argument(help="A JSON Lines log; '-' reads stdin.")],
    db: Db = None,
    as_json: AsJson = False,
) -> None:
    """Check every event of a log file against the rules and store its games, all or nothing."""
    try:
        handle = sys.stdin if str(file) == "-" else file.open(encoding="utf-8")
    except OSError as error:
        raise LoomError(f"cannot read {file}: {error.strerror}") from None
    with handle, open_store(db) as store:
        try:
            ids = import_file(store, handle)
        except UnicodeDecodeError:
            raise LoomError(f"{file} is not UTF-8 text") from None
        except LoomError as error:
            raise LoomError(f"{file}: {error}; nothing was imported") from None
    if as_json:
        print_json({"ids": ids})
    else:
        out.print(f"imported {len(ids)} game{'s' if len(ids) != 1 else ''}: ids {', '.join(map(str, ids))}")


@contextmanager
def projecting(games: int, what: str) -> Iterator[Callable[[int], None]]:
    """A progress bar of the projector's games on a terminal (none elsewhere): what to tell of each batch."""
    with Progress(
        TextColumn(f"[bold]{what}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=out,
        disable=not out.is_terminal,
        transient=True,
    ) as progress:
        task = progress.add_task("games", total=games)
        yield lambda done: progress.advance(task, done)


@app.command("rebuild")
@fails_cleanly
def rebuild_command(db: Db = None) -> None:
    """Recompute the projections (results, turn facts, game facts) of every game from its events."""
    with open_store(db) as store, projecting(store.count("games"), "rebuilding") as progress:
        count = rebuild(store, progress)
    out.print(f"rebuilt the projections of {count} games")
