"""What the security tests share: recorded games of every game as log lines, row counts of a store, card names in a
described state, and the checks of a clean refusal."""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from loom.engine.registry import get_game
from loom.replay.logfile import export_lines
from loom.replay.simulate import simulate
from loom.replay.store import Store

GAMES = ["motto", "moirai", "moorea", "stones-of-fate"]
TABLES = ("games", "seats", "events", "snapshots", "results", "turn_facts", "game_facts")


def recorded_lines(path: Path, game: str, seed: int = 12) -> list[str]:
    """A three-player game of `game` (greedy against random) simulated into the file `path` and exported."""
    with Store.open(path) as store:
        (game_id,) = simulate(store, get_game(game), 1, ["greedy", "random", "random"], seed=seed)
        return list(export_lines(store, game_id))


def rows(store: Store) -> dict[str, int]:
    """How many rows each of Loom's tables holds."""
    return {table: store.con.execute(f"SELECT count(*) FROM {table}").fetchall()[0][0] for table in TABLES}


def rows_in(path: Path) -> dict[str, int]:
    """`rows` of the store at `path`, opened read-only."""
    with Store.open(path, read_only=True) as store:
        return rows(store)


def card_names(data: Any) -> set[str]:
    """Every string in a described state (card names, and the words every view shares)."""
    if isinstance(data, dict):
        return set().union(*(card_names(value) for value in data.values())) if data else set()
    if isinstance(data, list):
        return set().union(*(card_names(value) for value in data)) if data else set()
    return {data} if isinstance(data, str) else set()


WORD = re.compile(r"[\w-]+")


def named_in(text: str, names: Iterable[str]) -> set[str]:
    """The names that occur in `text` as whole words (`hut` is not in `hut-1`, nor `the-sun` in `the-sunrise`). A name
    of word characters and hyphens alone is whole where it is a whole run of them: the text's runs are found once."""
    names = set(names)
    plain = {name for name in names if WORD.fullmatch(name)}
    found = plain & set(WORD.findall(text)) if plain else set()
    rest = names - plain
    return found | {name for name in rest if re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text)}


def one_line_refusal(stderr: str) -> bool:
    """Whether a command's stderr is one line `error: ...`, with no traceback and no Python object's repr."""
    return (
        stderr.count("\n") == 1
        and stderr.startswith("error: ")
        and "Traceback" not in stderr
        and "<object" not in stderr
    )


def one_line_error(text: str) -> bool:
    """Whether an error's text is one clean line."""
    return "\n" not in text.strip() and "Traceback" not in text and "<object" not in text and bool(text.strip())


def logs(*args: str | Path) -> tuple[int, str, str]:
    """`logs ARGS` through typer's runner: exit code, stdout, and stderr (with the exception that escaped, if one
    did, so a failing test says which)."""
    from typer.testing import CliRunner

    from loom.cli.main import app

    result = CliRunner().invoke(app, [str(a) for a in args])
    escaped = result.exception if result.exception and not isinstance(result.exception, SystemExit) else None
    return result.exit_code, result.stdout, result.stderr + (f"[escaped: {escaped!r:.300}]" if escaped else "")
