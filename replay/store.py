"""The event store: one DuckDB file, append-only events with an expected sequence, games, snapshots, projections.

`Store` is the one door to the database: everything outside replay/ reads and writes through its methods, and SQL
lives only in replay/queries.py. The work is done by a module per job, which this class only gathers:

  * replay/connection.py: opening the file, transactions, Arrow inserts, errors a user can act on;
  * replay/migrations.py: creating, checking and upgrading the schema (replay/schema.py's tables);
  * replay/reading.py: games, seats, results, a game's lineage and events, a position's rows;
  * replay/writing.py: new games and appends, each one transaction of Arrow batches, whole or not at all;
  * replay/projection_tables.py, replay/analysis_tables.py, replay/report_tables.py: the projections, the analysis
    of `logs analyse`, and the dashboard's queries (the facts are kept by replay/projector.py).
"""

from __future__ import annotations

import glob
import os
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from loom.replay import analysis_tables, migrations, queries, reading, report_tables, writing
from loom.replay.connection import DEFAULT_DB, MEMORY, ConcurrencyError, Connection, StoreError, default_db
from loom.replay.migrations import SCHEMA_VERSION
from loom.replay.reading import CHUNK, ROWS_KEPT, KeptRows, UnknownGameId
from loom.replay.records import (
    EventColumns,
    GameInfo,
    GameKind,
    KeyMoment,
    NewGame,
    ResultInfo,
    Seat,
    Segment,
    StoredResult,
    WinChance,
)
from loom.replay.report_tables import ChosenGames
from loom.replay.snapshots import Snapshot

if TYPE_CHECKING:
    import duckdb
    import pandas as pd

    from loom.events.base import Event

__all__ = [
    "DEFAULT_DB",
    "MEMORY",
    "SCHEMA_VERSION",
    "CHUNK",
    "ROWS_KEPT",
    "ChosenGames",
    "ConcurrencyError",
    "EventColumns",
    "GameInfo",
    "KeyMoment",
    "NewGame",
    "ResultInfo",
    "Seat",
    "Snapshot",
    "Store",
    "StoreError",
    "StoredResult",
    "UnknownGameId",
    "WinChance",
    "default_db",
]


class Store:
    """A Loom database. One connection per process; `cursor()` gives another thread its own store."""

    def __init__(self, db: Connection, *, read_only: bool = False, rows: KeptRows | None = None) -> None:
        self.db = db
        self.path = db.path
        self.read_only = read_only
        # Every store keeps the game rows it reads (reading.KeptRows), shared with its cursors: a replayed position
        # then costs one query. A read-only store's games cannot change while it is open (DuckDB locks the file
        # against every writer); a writable store's kept rows may fall behind (they stay true, only older), so it
        # reads the file where the newest row matters and forgets a game's row when it appends to it.
        self.rows = rows if rows is not None else KeptRows()

    @classmethod
    def open(cls, path: str | Path | None = None, *, read_only: bool = False, threads: int | None = None) -> Store:
        """Open (creating if needed, unless read_only) the database at `path` (default: `default_db()`).

        A read-only store runs DuckDB on one thread unless `threads` says otherwise: its reads are point lookups
        (a game, its events), which one thread answers faster than several. Analytics may ask for more.
        """
        db = Connection.open(str(path or default_db()), read_only=read_only)
        try:
            migrations.ensure_schema(db, read_only)
        except BaseException:
            db.close()  # leave the file unlocked for whoever comes next
            raise
        threads = threads or (1 if read_only else None)
        if threads:
            db.set_threads(threads)
        store = cls(db, read_only=read_only and db.path != MEMORY)
        # A server's journals (replay/journal.py, `<db>.journal` and its shards' `<db>.journal.1`...) left behind are
        # moved in first; the module (and the games' rules it may need) is imported only when there is one.
        if db.path != MEMORY and _journals_beside(db.path):
            from loom.replay import journal

            if read_only and journal.pending(db.path):
                # A server stopped before its journal was moved in: moved in first (the file's one-line locked
                # error if another process holds it), then read.
                store.close()
                journal.move_in(db.path)
                return cls.open(path, read_only=True, threads=threads)
            try:
                journal.recover(store)
            except BaseException:
                store.close()
                raise
        return store

    def cursor(self) -> Store:
        """The same database on a connection of its own, for another thread."""
        return Store(self.db.cursor(), read_only=self.read_only, rows=self.rows)

    @property
    def con(self) -> duckdb.DuckDBPyConnection:
        """The raw DuckDB connection: only for tests and benchmarks that look at what is stored."""
        return self.db.con

    def close(self) -> None:
        """Close the connection; the file is unlocked."""
        self.db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """All or nothing: roll back on any error. Nested uses join the outermost transaction."""
        with self.db.transaction():
            yield

    # --- Reading -------------------------------------------------------------------------------------------------

    def game(self, game_id: int) -> GameInfo:
        """The game with this id and its seats; UnknownGameId if none."""
        return reading.game(self.db, game_id)

    def game_row(self, game_id: int) -> GameInfo:
        """The game with this id as the file has it now, without its seats; UnknownGameId if none.

        One query, none for a game a read-only store keeps (its games cannot change)."""
        if self.read_only:
            return self.rows.get(self.db, game_id).info
        return reading.game_row(self.db, game_id)

    def kept_row(self, game_id: int) -> GameInfo:
        """The game's row as this store last read it (read now, with its neighbours', if it was not kept).

        Never wrong, but in a writable store possibly behind the file: its last seq, turns and status may have moved
        on since (see reading.KeptRows); `game_row` reads the newest."""
        return self.rows.get(self.db, game_id).info

    def games(self, game: str | None = None, limit: int = 20) -> list[GameInfo]:
        """The newest games first, optionally of one game kind (seats not loaded)."""
        return reading.games(self.db, queries.GAMES, [game, game, limit])

    def find_games(
        self,
        *,
        game: str | None = None,
        status: str | None = None,
        source: str | None = None,
        parent: int | None = None,
        before: int | None = None,
        limit: int = 50,
    ) -> list[GameInfo]:
        """The games of a kind, status, source or parent (any, if None), with ids below `before`, newest first,
        with their seats."""
        params = [value for value in (game, status, source, parent, before) for _ in range(2)] + [limit]
        return reading.with_seats(self.db, reading.games(self.db, queries.FIND_GAMES, params))

    def children(self, game_id: int) -> list[GameInfo]:
        """The branches forked directly from this game."""
        return reading.games(self.db, queries.CHILDREN, [game_id])

    def results(self, game_id: int) -> list[ResultInfo]:
        """The results projection of a finished game (empty for an open one)."""
        return reading.results(self.db, game_id)

    def winners(self, game_ids: Sequence[int]) -> dict[int, list[int]]:
        """Winning seats of many games at once."""
        return dict(self.db.all(queries.WINNERS_OF, [list(game_ids)]))

    def lineage(self, info: GameInfo) -> list[Segment]:
        """The segments (game id, after seq, up to seq) whose events make up this game, oldest first."""
        return reading.lineage(self.db, info)

    def load(self, game_id: int, *, after: int = 0, upto: int | None = None) -> list[Event]:
        """The game's events with seq in (after, upto], its parents' prefix included; without `upto`, every event the
        file has now. One query for a root game whose row is kept."""
        info = self.kept_row(game_id)
        return reading.load(self.db, game_id, after=after, upto=upto, info=info, kept=self.rows)

    def load_many(self, game_ids: Iterable[int], *, chunk: int = CHUNK) -> Iterator[tuple[GameInfo, list[Event]]]:
        """Each game's row (without seats) and every event of it, in the order of `game_ids`, read `chunk` games at a
        time: two queries per chunk (the rows, then all their events). UnknownGameId for an id with no game."""
        return reading.load_many(self.db, game_ids, self.rows, chunk)

    def read_position(
        self, info: GameInfo, bound: str, limit: int, rules_version: int
    ) -> tuple[Snapshot | None, list[Event]]:
        """The newest snapshot before a bound, if worth it, and the events after it, in one query (see
        reading.read_position)."""
        return reading.read_position(self.db, info, bound, limit, rules_version, self.rows)

    def all_games(self) -> list[GameKind]:
        """(id, game, fork seq) of every game."""
        return reading.all_games(self.db)

    def count(self, table: str) -> int:
        """How many rows a table of the store has."""
        return int(self.db.one(queries.count_rows(table))[0])

    def meta(self, key: str) -> str | None:
        """A value kept in the meta table, if any."""
        row = self.db.one(queries.META_VALUE, [key])
        return None if row is None else str(row[0])

    # --- Writing -------------------------------------------------------------------------------------------------

    def add_games(self, new: Sequence[NewGame]) -> list[int]:
        """Store new games with their events, snapshots and results in one transaction; their ids in order."""
        return writing.add_games(self.db, new)

    def append(
        self,
        game_id: int,
        events: EventColumns,
        *,
        expected_seq: int,
        turns: int,
        status: str,
        snapshots: Sequence[Snapshot] = (),
        results: Sequence[ResultInfo] = (),
    ) -> int:
        """Append events numbered from `expected_seq + 1`; the new last seq (facts are the projector's job).

        Fails with ConcurrencyError, writing nothing, if the game's last seq is no longer `expected_seq`.
        """
        self.rows.forget(game_id)  # after the write too: a reader may have kept the row meanwhile (true, but older)
        try:
            return writing.append(
                self.db,
                game_id,
                events,
                expected_seq=expected_seq,
                turns=turns,
                status=status,
                snapshots=snapshots,
                results=results,
            )
        finally:
            self.rows.forget(game_id)

    def set_meta(self, key: str, value: str) -> None:
        """Keep a new value in the meta table."""
        with self.db.written():
            self.db.run(queries.INSERT_META, [key, value])

    def repair_branch_seats(self) -> None:
        """Give every branch stored without seats (by Loom before issue 12) its parent's."""
        migrations.repair_branch_seats(self.db)
        self.rows.forget()  # their rows' player counts changed

    def games_behind(self) -> int:
        """How many games have events the facts projections do not cover yet (replay/projector.py)."""
        return int(self.db.one(queries.COUNT_BEHIND)[0])

    # --- Win chances and key moments (logs analyse) --------------------------------------------------------------

    def replace_analysis(self, game_id: int, chances: Sequence[WinChance], moments: Sequence[KeyMoment]) -> None:
        """A game's win-chance curve and its key moments, replacing its earlier ones."""
        analysis_tables.replace_analysis(self.db, game_id, chances, moments)

    def win_chances(self, game_id: int) -> list[WinChance]:
        """The stored win-chance curve of a game, by seq and seat."""
        return analysis_tables.win_chances(self.db, game_id)

    def key_moments(self, game_id: int) -> list[KeyMoment]:
        """The stored key moments of a game, by seq."""
        return analysis_tables.key_moments(self.db, game_id)

    def win_chance_frame(self, game_id: int) -> pd.DataFrame:
        """The stored win-chance curve of a game as a DataFrame, a column per field of WinChance."""
        return analysis_tables.win_chance_frame(self.db, game_id)

    def key_moment_frame(self, game_id: int) -> pd.DataFrame:
        """The stored key moments of a game as a DataFrame, a column per field of KeyMoment."""
        return analysis_tables.key_moment_frame(self.db, game_id)

    # --- The dashboard -------------------------------------------------------------------------------------------

    def choose_games(
        self, game: str, since: datetime | None = None, bot: str | None = None, self_play: bool = False
    ) -> ChosenGames:
        """The finished root games of one kind for a report (since a date, with a bot, self-play only), to run its
        queries over."""
        return ChosenGames(self.db, game, since, bot, self_play)

    def report_behind(self, game: str | None = None) -> int:
        """How many finished root games (of one kind, or any) the projector has not reached: a report leaves them
        out."""
        return int(self.db.one(queries.REPORT_BEHIND, [game, game])[0])

    def recorded_kinds(self) -> list[str]:
        """The kinds of game with a finished root game recorded, by name."""
        return report_tables.recorded_kinds(self.db)


def _journals_beside(db_path: str) -> bool:
    """Whether a server's journal (its own, or a shard's) lies beside the database file."""
    path = Path(db_path)
    return os.path.exists(f"{db_path}.journal") or any(path.parent.glob(glob.escape(path.name) + ".journal.*"))
