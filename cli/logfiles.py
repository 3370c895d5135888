"""`logs import`, `logs rebuild`: the JSON Lines log format (or a Parquet lake) in, and the projections."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from loom.cli.app import app
from loom.cli.common import AsJson, Db, fails_cleanly, id_summary, open_store, out, plural, print_json, progress_bar
from loom.cli.exporting import (
    Bot,
    Branches,
    Finished,
    Game,
    LakeIds,
    Players,
    Since,
    SkipDuplicates,
    Until,
    import_lake_command,
    selection,
)
from loom.events.base import LoomError
from loom.replay.export import Selection
from loom.replay.fingerprint import Duplicates
from loom.replay.logfile import import_file
from loom.replay.projector import rebuild


@app.command("import")
@fails_cleanly
def import_command(
    file: Annotated[Path | None, typer.Argument(help="A JSON Lines log; '-' reads stdin.", show_default=False)] = None,
    db: Db = None,
    as_json: AsJson = False,
    lake: Annotated[Path | None, typer.Option("--lake", help="Load the games of a Parquet lake instead.")] = None,
    lake_ids: LakeIds = None,
    game: Game = None,
    since: Since = None,
    until: Until = None,
    bot: Bot = None,
    players: Players = None,
    finished: Finished = False,
    branches: Branches = True,
    skip_duplicates: SkipDuplicates = False,
) -> None:
    """Check every event of a log file (or a lake) against the rules and store its games, all or nothing; a game
    stored already is refused (or skipped, with --skip-duplicates)."""
    chosen = selection(lake_ids or [], game, since, until, bot, players, finished, branches)
    if lake is not None or file is None or chosen != Selection():
        import_lake_command(file, lake, chosen, db, as_json, skip_duplicates)
        return
    try:
        handle = sys.stdin if str(file) == "-" else file.open(encoding="utf-8")
    except OSError as error:
        raise LoomError(f"cannot read {file}: {error.strerror}") from None
    total = None if handle is sys.stdin else _lines_of(file)
    with handle, open_store(db) as store, progress_bar("importing lines", total) as advance:
        guard = Duplicates(store.db, skip=skip_duplicates)
        try:
            ids = import_file(store, handle, duplicates=guard, progress=advance)
        except UnicodeDecodeError:
            raise LoomError(f"{file} is not UTF-8 text") from None
        except LoomError as error:
            raise LoomError(f"{file}: {error}; nothing was imported") from None
    if as_json:
        print_json({"ids": ids, "skipped": guard.skipped} if skip_duplicates else {"ids": ids})
        return
    skipped = f" ({plural(guard.skipped, 'duplicate')} skipped)" if guard.skipped else ""
    out.print(
        f"imported {plural(len(ids), 'game')}: {id_summary(ids)}{skipped}" if ids else f"imported no game{skipped}"
    )


def _lines_of(file: Path) -> int | None:
    """How many lines the file holds (counted in C, a block at a time): the progress bar's total."""
    try:
        with file.open("rb") as raw:
            return sum(block.count(b"\n") for block in iter(lambda: raw.read(1 << 20), b""))
    except OSError:
        return None  # the import's own open says why


@app.command("rebuild")
@fails_cleanly
def rebuild_command(db: Db = None) -> None:
    """Recompute the projections (results, turn facts, game facts) of every game from its events."""
    with open_store(db) as store, progress_bar("rebuilding", store.count("games")) as progress:
        count = rebuild(store, progress)
    out.print(f"rebuilt the projections of {count} games")
