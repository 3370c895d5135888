"""The Parquet lake (docs/lake.md): a store's tables as a hive-partitioned dataset (game, month) any tool reads.

A lake is a directory that only ever gains files. An export writes its files, named after a run id of its own, into
a hidden staging directory of the lake, then moves them into place, the games table's last: a lake reader sees a
game's row only once its other rows are in. So several writers (processes, machines sharing the directory) may add
to one lake at once, and nothing ever rewrites a file another run wrote. The lake's games are read before an export
chooses its own, so a game already in the lake is not written again.

Reading a lake back (`logs import --lake`) goes through an in-memory DuckDB whose views over the Parquet files carry
the store's table names: the export's own reads (replay/export.py) turn its games into log lines, and the log import
(replay/logfile.py) checks every event against the rules and stores them, all or nothing.
"""

from __future__ import annotations

import os
import shutil
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from loom.events.base import LoomError
from loom.replay import queries
from loom.replay.columns import select_list, tables
from loom.replay.connection import MEMORY, Connection
from loom.replay.export import LAST_ID, Selection, choose, pages
from loom.replay.fingerprint import Duplicates
from loom.replay.logfile import import_file
from loom.replay.projector import project
from loom.replay.records import NewGame
from loom.replay.store import Store
from loom.replay.writing import add_games

STAGING = ".staging-"
"""The prefix of a run's hidden directory in the lake while it writes (readers' globs never reach it)."""
_GLOB = frozenset("*?[]{}")
IDS = ".ids"
"""The hidden folder of a lake's reserved id blocks (a simulation's, docs/lake.md): a file per block, named by its
first id (ten digits), holding its last."""
RESERVE_TRIES = 100


class LakeError(LoomError):
    """A lake directory that cannot be read or written, or whose games are not this store's."""


@dataclass(frozen=True, slots=True)
class LakeWrite:
    """What an export added to a lake: its run id, the games chosen, those added, and the files (relative to the
    lake)."""

    run: str
    chosen: int
    games: int
    files: tuple[str, ...]
    behind: int = 0
    """Chosen games left out because the projector had not brought them (or a game they branch from) to their last
    event: a lake never rewrites a game, so it takes a game's facts whole or not at all."""


def files_of(lake: Path, table: str) -> str:
    """The glob of a lake table's Parquet files, as DuckDB's read_parquet takes it."""
    return str(lake / table / "**" / "*.parquet")


def has_files(lake: Path, table: str) -> bool:
    """Whether the lake holds any file of the table."""
    return next((lake / table).glob("**/*.parquet"), None) is not None


def _checked(lake: Path) -> Path:
    if _GLOB.intersection(str(lake)):
        raise LakeError(f"a lake's path may not hold any of {''.join(sorted(_GLOB))}: {lake}")
    if lake.exists() and not lake.is_dir():
        raise LakeError(f"{lake} is a file, not a lake directory")
    return lake


def write_lake(store: Store, lake: Path, selection: Selection) -> LakeWrite:
    """Add the selected games (and the games they branch from) that the lake lacks; nothing old is rewritten. A game
    the projector has not brought to its last event is left out (counted in `behind`); on a writable store the
    projector catches up first."""
    lake = _checked(lake)
    if (lake / IDS).is_dir():
        raise LakeError(
            f"lake {lake} holds simulated games (logs simulate --lake), whose ids are its own: export a store's games "
            "to a lake of their own"
        )
    if not store.read_only:
        project(store)  # a lake takes a game's facts whole: the projector finishes them first where it may write
    db = store.db
    if has_files(lake, "games"):
        db.all(queries.lake_games(files_of(lake, "games")))
    else:
        db.all(queries.NO_LAKE_GAMES)
    try:
        clash = db.one(queries.OTHER_STORES_GAME)
        if clash is not None:
            raise LakeError(
                f"game {clash[0]} of lake {lake} is not game {clash[0]} of {store.path}: a lake holds the games of one "
                "store (export another store's games to a lake of their own)"
            )
        chosen = choose(db, selection, with_ancestors=True)
        db.all(queries.LEAVE_OUT_LAKE_GAMES)
        new = int(db.one(queries.EXPORT_COUNT)[0])
        db.all(queries.LEAVE_OUT_BEHIND)
        count = int(db.one(queries.EXPORT_COUNT)[0])
        run = uuid.uuid4().hex
        if count == 0:
            return LakeWrite(run, chosen, 0, (), new - count)
        return LakeWrite(run, chosen, count, _write_run(db, lake, run), new - count)
    finally:
        db.all(queries.DROP_EXPORT_CHOSEN)
        db.all(queries.DROP_LAKE_GAMES)


def _write_run(db: Connection, lake: Path, run: str, cancelled: Path | None = None) -> tuple[str, ...]:
    """Write the chosen games' rows into the run's staging directory, then move every file into place (unless the
    file `cancelled` exists by then: the files are dropped)."""
    staging = lake / f"{STAGING}{run}"
    try:
        staging.mkdir(parents=True)
        for table in queries.LAKE_TABLES:
            db.all(queries.copy_to_lake(table, str(staging / table), f"part-{run}"))
        if cancelled is not None and cancelled.exists():
            return ()
        moved = []
        for table in sorted(queries.LAKE_TABLES, key=lambda name: name == "games"):  # games last: the rest is in
            for file in sorted((staging / table).glob("**/*.parquet")):
                target = lake / file.relative_to(staging)
                target.parent.mkdir(parents=True, exist_ok=True)
                os.rename(file, target)  # the run id in its name is the run's own: no other file has it
                moved.append(str(target.relative_to(lake)))
    except OSError as error:
        raise LakeError(f"cannot write lake {lake}: {error.strerror}") from None
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return tuple(moved)


def open_lake(lake: Path, threads: int | None = None) -> Connection:
    """An in-memory DuckDB with a view per lake table (games, seats, events, results, the facts) over the lake's
    files, named and typed as a store's, and the view `projected`: every lake game's facts reach its last event."""
    lake = _checked(lake)
    if not has_files(lake, "games"):
        raise LakeError(f"no lake at {lake}: it holds no games/**/*.parquet (logs export --format parquet makes one)")
    db = Connection.open(MEMORY, read_only=False)
    try:
        if threads:
            db.set_threads(threads)
        for table in queries.LAKE_TABLES:
            if has_files(lake, table):
                db.all(queries.lake_view(table, files_of(lake, table), _columns(db, table, files_of(lake, table))))
            else:  # a lake of games without a row there (no finished game has results): the store's empty table
                db.all(queries.empty_lake_view(table))
        db.all(queries.LAKE_PROJECTED)
    except BaseException:
        db.close()
        raise
    return db


def _columns(db: Connection, table: str, files: str) -> str:
    """The store's columns of `table` as a SELECT list over the lake's files, a column they lack (written before
    schema 5 added it: a game's fingerprint and tags) as NULL."""
    if table != "games":
        return select_list(table)
    present = {row[0] for row in db.all(queries.lake_columns(files))}
    return ", ".join(
        c.name if c.name in present else f"NULL::{queries.sql_type(c.kind)} AS {c.name}" for c in tables()[table]
    )


def lake_store(lake: Path, threads: int | None = None) -> Store:
    """The lake as a read-only Store for the readers that take one (the dashboard's report): its queries run
    unchanged over the lake's views (open_lake), nothing is replayed."""
    return Store(open_lake(lake, threads), read_only=True)


def import_lake(
    store: Store, lake: Path, selection: Selection, *, skip_duplicates: bool = False
) -> dict[int, int | None]:
    """Load the selected games of a lake into the store, every event checked by the rules, all or nothing; each lake
    game's id mapped to its new id (a branch comes in as a game of its own, its parent's prefix included).

    A game the store holds already is refused, or with `skip_duplicates` left out (mapped to None)."""
    db = open_lake(lake)
    try:
        if choose(db, selection) == 0:
            raise LakeError(f"no game of lake {lake} matches")
        lake_ids: list[int] = []

        def lines() -> Iterator[str]:
            for page in pages(db):
                for game_id, game_lines in page:
                    lake_ids.append(game_id)
                    for line in game_lines:
                        yield line + "\n"

        guard = Duplicates(store.db, skip=skip_duplicates, name=lambda index: f"lake game {lake_ids[index]}")
        new_ids = import_file(store, lines(), duplicates=guard)
    finally:
        db.close()
    kept = [lake_id for index, lake_id in enumerate(lake_ids) if index not in guard.left_out]
    mapping: dict[int, int | None] = dict.fromkeys(lake_ids)
    mapping.update(zip(kept, new_ids, strict=True))
    return mapping


# --- Simulations writing straight into a lake (replay/cluster.py): reserved ids, a chunk's files --------------------


def reserve_ids(lake: Path, count: int) -> int:
    """Reserve `count` consecutive game ids in the lake for a simulation, past every id it holds or has reserved;
    the first. Writers at the same time (processes, machines sharing the folder) never get overlapping blocks."""
    lake = _checked(lake)
    folder = lake / IDS
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for _ in range(RESERVE_TRIES):
            first = _next_free_id(lake, folder)
            last = first + count - 1
            if last > LAST_ID:
                raise LakeError(f"lake {lake} has no room for {count} more games: its ids would pass {LAST_ID}")
            # Every block is reserved from the one after the last block seen, so two writers that saw the same
            # blocks claim the same name: link() makes the name exist whole, with its last id, or fails.
            claim = folder / f".claim-{uuid.uuid4().hex}"
            claim.write_text(f"{last}\n")
            try:
                os.link(claim, folder / f"{first:010d}")
            except FileExistsError:
                continue
            finally:
                claim.unlink(missing_ok=True)
            return first
    except OSError as error:
        raise LakeError(f"cannot reserve ids in lake {lake}: {error.strerror}") from None
    raise LakeError(f"cannot reserve ids in lake {lake}: {RESERVE_TRIES} other writers took them first")


def _next_free_id(lake: Path, folder: Path) -> int:
    """One past the largest id the lake's games and reserved blocks hold."""
    reserved = max((int(path.read_text()) for path in folder.iterdir() if path.name.isdigit()), default=0)
    held = 0
    if has_files(lake, "games"):
        db = Connection.open(MEMORY, read_only=False)
        try:
            held = int(db.one(queries.lake_max_id(files_of(lake, "games")))[0])
        finally:
            db.close()
    return max(reserved, held) + 1


CANCELLED = ".cancelled-"
"""The prefix of the file that tells a simulation's tasks still running to drop their files (docs/lake.md)."""


def cancelled_file(lake: Path, run: str) -> Path:
    """The file whose presence cancels a simulation run: its tasks then move no file into the lake."""
    return lake / f"{CANCELLED}{run}"


def write_games(
    lake: Path, new: Sequence[NewGame], first_id: int, run: str, cancelled: Path | None = None
) -> tuple[str, ...]:
    """Add new games to the lake under the ids from `first_id` (reserved), as an export of them would write them, in
    files named after `run` (unique to this call), unless the file `cancelled` exists once they are written; the
    files, relative to the lake."""
    lake = _checked(lake)
    store = Store.open(MEMORY, threads=1)  # a worker's cores are its tasks': one thread each
    try:
        add_games(store.db, new, first_id=first_id)
        store.db.all(queries.CHOOSE_EVERY_GAME)
        return _write_run(store.db, lake, run, cancelled)
    finally:
        store.close()


def discard_run(lake: Path, run: str) -> None:
    """Remove what a stopped simulation run left hidden in the lake (its tasks' staging folders, its cancel file),
    once none of its tasks runs any more."""
    for folder in lake.glob(f"{STAGING}{run}-*"):
        shutil.rmtree(folder, ignore_errors=True)
    cancelled_file(lake, run).unlink(missing_ok=True)
