"""The event store: one DuckDB file, append-only events with an expected sequence, games, snapshots, results.

Writes go in batches through Arrow tables inside one transaction, so a batch is stored whole or not at all.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import duckdb

from engine.registry import get_game
from events.base import Event, LoomError
from events.registry import decode_payload_text
from replay import queries
from replay.facts import Facts
from replay.snapshots import SNAPSHOT_EVERY

SCHEMA_VERSION = 2
if TYPE_CHECKING:
    import pyarrow as pa

DEFAULT_DB = "loom.duckdb"
MEMORY = ":memory:"


class StoreError(LoomError):
    """The database cannot be opened or written: locked, missing, not a Loom database."""


class UnknownGameId(LoomError):
    """No game has this id."""


class ConcurrencyError(LoomError):
    """An append expected a sequence number that another writer has already moved past."""


def default_db() -> str:
    """`LOGS_DB` if set, else ./loom.duckdb (DESIGN.md, storage)."""
    return os.environ.get("LOGS_DB") or DEFAULT_DB


@dataclass(frozen=True, slots=True)
class Seat:
    """Who played a seat; `bot` is None for a person."""

    name: str
    bot: str | None = None


@dataclass(frozen=True, slots=True)
class GameInfo:
    """A row of the games table with its seats."""

    id: int
    game: str
    players: int
    status: str
    source: str
    parent_id: int | None
    fork_seq: int | None
    last_seq: int
    turns: int
    seed: int
    rules_version: int
    created_at: datetime
    seats: tuple[Seat, ...] = ()


@dataclass(frozen=True, slots=True)
class ResultInfo:
    """A row of the results projection."""

    seat: int
    score: int
    rank: int
    winner: bool
    breakdown: str


@dataclass(slots=True)
class EventColumns:
    """Events to store, column by column (what Arrow wants): seq, turn, actor, type, schema version, payload JSON."""

    seq: list[int] = field(default_factory=list)
    turn: list[int] = field(default_factory=list)
    actor: list[int | None] = field(default_factory=list)
    type: list[str] = field(default_factory=list)
    version: list[int] = field(default_factory=list)
    payload: list[str] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.seq)


@dataclass(slots=True)
class NewGame:
    """A game to store: its row, seats, events (as stored rows) and projections."""

    game: str
    seats: Sequence[Seat]
    source: str
    seed: int
    rules_version: int
    events: EventColumns = field(default_factory=EventColumns)
    status: str = "open"
    turns: int = 0
    parent_id: int | None = None
    fork_seq: int | None = None
    snapshots: list[tuple[int, int, str]] = field(default_factory=list)  # (seq, turn, state JSON)
    results: list[tuple[int, int, int, bool, str]] = field(default_factory=list)  # seat, score, rank, winner, json
    facts: Facts = field(default_factory=Facts)


def _friendly(error: duckdb.Error, path: str) -> StoreError:
    text = str(error)
    if "Could not set lock" in text:
        pid = re.search(r"PID (\d+)", text)
        owner = f" (pid {pid.group(1)})" if pid else ""
        return StoreError(f"database {path} is locked by another process{owner}; wait for it to finish and retry")
    if "not a valid DuckDB database" in text:
        return StoreError(f"{path} is not a DuckDB database")
    if "No such file or directory" in text or "Cannot open file" in text:
        return StoreError(f"cannot open database {path}: no such file or directory")
    first_line = text.splitlines()[0] if text else type(error).__name__
    return StoreError(f"database {path}: {first_line}")


class Store:
    """A Loom database. One connection per process; use `cursor()` for another thread."""

    def __init__(self, con: duckdb.DuckDBPyConnection, path: str) -> None:
        self.con = con
        self.path = path
        self._depth = 0

    @classmethod
    def open(cls, path: str | Path | None = None, *, read_only: bool = False, threads: int | None = None) -> Store:
        """Open (creating if needed, unless read_only) the database at `path` (default: `default_db()`).

        A read-only store runs DuckDB on one thread unless `threads` says otherwise: its reads are point lookups
        (a game, its events), which one thread answers faster than several. Analytics may ask for more.
        """
        path = str(path or default_db())
        if read_only and path != MEMORY and not Path(path).exists():
            raise StoreError(f"no Loom database at {path}; record games first (logs simulate, logs import)")
        if not read_only and path != MEMORY and _is_empty_file(path):
            Path(path).unlink()  # an empty file (touch, mktemp) holds nothing: DuckDB makes the database in its place
        try:
            con = duckdb.connect(path, read_only=read_only and path != MEMORY)
        except duckdb.Error as error:
            raise _friendly(error, path) from None
        store = cls(con, path)
        try:
            store._ensure_schema(read_only)
        except BaseException:
            con.close()  # leave the file unlocked for whoever comes next
            raise
        threads = threads or (1 if read_only else None)
        if threads:
            con.execute(f"SET threads = {int(threads)}")
        return store

    def _ensure_schema(self, read_only: bool) -> None:
        foreign = StoreError(f"{self.path} is a DuckDB database but not a Loom store; give another --db")
        try:
            if not self.con.execute(queries.TABLE_EXISTS).fetchall()[0][0]:
                if self.con.execute(queries.USER_TABLES).fetchall()[0][0]:  # someone else's data: never write in it
                    raise foreign
                if read_only:
                    raise StoreError(f"{self.path} is not a Loom database")
                from replay.schema import create_schema  # the ORM is loaded only to create a database

                with self.transaction():
                    create_schema(self.con)
                    self.con.execute(queries.VIEWS)
                return
            row = _first(self.con.execute(queries.SCHEMA_VERSION).fetchall())
        except (duckdb.BinderException, duckdb.CatalogException):
            raise foreign from None  # a table `meta` of someone else's, without Loom's columns
        except duckdb.Error as error:
            raise _friendly(error, self.path) from None
        if row is None:
            raise foreign  # Loom writes its schema version in the transaction that creates its tables
        if row[0] == "1" and not read_only:
            self._upgrade_from_1()
        elif row[0] != str(SCHEMA_VERSION):
            raise StoreError(f"{self.path} has schema version {row[0]}; this Loom reads {SCHEMA_VERSION}")
        if not read_only and self._one(queries.SEATLESS_GAMES, [])[0]:
            self.repair_branch_seats()

    def _upgrade_from_1(self) -> None:
        """Schema 2 adds the per-turn and analysis projections; `logs rebuild` fills them for games already stored."""
        from replay.schema import create_missing_tables

        with self._written():
            create_missing_tables(self.con)
            self.con.execute(queries.SET_SCHEMA_VERSION, [str(SCHEMA_VERSION)])

    def close(self) -> None:
        """Close the connection; the file is unlocked."""
        self.con.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """All or nothing: roll back on any error. Nested uses join the outermost transaction."""
        if self._depth:
            self._depth += 1
            try:
                yield
            finally:
                self._depth -= 1
            return
        self.con.execute("BEGIN TRANSACTION")
        self._depth = 1
        try:
            yield
        except BaseException as error:
            with suppress(duckdb.Error):  # a failed rollback commits nothing either; the first error is the news
                self.con.execute("ROLLBACK")
            cause = _first_cause(error)
            if cause is error:
                raise
            raise cause from None
        finally:
            self._depth = 0
        try:
            self.con.execute("COMMIT")
        except duckdb.Error as error:
            with suppress(duckdb.Error):  # DuckDB has usually rolled back already
                self.con.execute("ROLLBACK")
            if _lost_race(error):
                message = f"another writer changed the same games; nothing was written ({error})"
                raise ConcurrencyError(message) from None
            raise _friendly(error, self.path) from None  # a full disk, say: not another writer's doing

    @contextmanager
    def _written(self) -> Iterator[None]:
        """A transaction whose database errors are StoreErrors that say their cause, never a traceback."""
        try:
            with self.transaction():
                yield
        except duckdb.Error as error:
            raise _friendly(error, self.path) from None

    # --- Reading -----------------------------------------------------------------------------------------------------

    def _one(self, sql: str, params: Sequence[Any]) -> Any:
        try:
            return _first(self.con.execute(sql, params).fetchall())
        except duckdb.Error as error:
            raise _friendly(error, self.path) from None

    def _all(self, sql: str, params: Sequence[Any]) -> list[Any]:
        try:
            return self.con.execute(sql, params).fetchall()
        except duckdb.Error as error:
            raise _friendly(error, self.path) from None

    def game(self, game_id: int) -> GameInfo:
        """The game with this id and its seats; UnknownGameId if none."""
        info = self.game_row(game_id)
        return replace(info, seats=tuple(Seat(name, bot) for _, name, bot in self._all(queries.SEATS, [game_id])))

    def game_row(self, game_id: int) -> GameInfo:
        """The game with this id, without its seats (one query); UnknownGameId if none."""
        row = self._one(queries.GAME, [game_id])
        if row is None:
            raise UnknownGameId(f"no game with id {game_id} in {self.path}")
        return GameInfo(*row)

    def games(self, game: str | None = None, limit: int = 20) -> list[GameInfo]:
        """The newest games first, optionally of one game kind (seats not loaded)."""
        return [GameInfo(*row) for row in self._all(queries.GAMES, [game, game, limit])]

    def children(self, game_id: int) -> list[GameInfo]:
        """The branches forked directly from this game."""
        return [GameInfo(*row) for row in self._all(queries.CHILDREN, [game_id])]

    def results(self, game_id: int) -> list[ResultInfo]:
        """The results projection of a finished game (empty for an open one)."""
        return [ResultInfo(*row) for row in self._all(queries.RESULTS, [game_id])]

    def winners(self, game_ids: Sequence[int]) -> dict[int, list[int]]:
        """Winning seats of many games at once."""
        return dict(self._all(queries.WINNERS_OF, [list(game_ids)]))

    def lineage(self, info: GameInfo) -> list[tuple[int, int, int]]:
        """The segments (game id, after seq, up to seq) whose events make up this game, oldest first."""
        get_game(info.game)  # its event types are registered when its rules are loaded
        segments = []
        upto = info.last_seq
        while True:
            after = info.fork_seq or 0
            segments.append((info.id, after, upto))
            if info.parent_id is None:
                return segments[::-1]
            upto = min(upto, after)  # a branch may fork inside its parent's own shared prefix
            info = self.game_row(info.parent_id)

    def load(self, game_id: int, *, after: int = 0, upto: int | None = None) -> list[Event]:
        """The game's events with seq in (after, upto], its parents' prefix included."""
        out: list[Event] = []
        for owner, lo, hi in self.lineage(self.game_row(game_id)):
            lo, hi = max(lo, after), hi if upto is None else min(hi, upto)
            if lo >= hi:
                continue
            for seq, turn, actor, type_name, version, payload in self._all(queries.EVENTS, [owner, lo, hi]):
                out.append(Event(game_id, seq, turn, actor, decode_payload_text(type_name, payload, version)))
        return out

    def read_position(
        self, info: GameInfo, bound: str, limit: int, rules_version: int
    ) -> tuple[tuple[int, int, str] | None, list[Event]]:
        """The newest snapshot (seq, turn, state JSON) before a bound, if worth it, and the events after it.

        `bound` is "turn" (before the start of turn `limit`) or "seq" (up to event `limit`). A short game is
        cheaper to fold from its start than to look for a snapshot first.
        """
        segments = self.lineage(info)
        snapshot = None
        if info.last_seq > 2 * SNAPSHOT_EVERY:
            sql, params = queries.lineage_rows(queries.SNAPSHOT_COLUMNS, "snapshots", segments, bound, limit)
            usable = [row[:3] for row in self._all(sql, params) if row[3] == rules_version]
            snapshot = max(usable, default=None)
        after = snapshot[0] if snapshot else 0
        sql, params = queries.lineage_rows(queries.EVENT_COLUMNS, "events", segments, bound, limit, after)
        rows = sorted(self._all(sql, params))  # by seq: cheaper here than an ORDER BY in DuckDB
        events = [
            Event(info.id, seq, turn, actor, decode_payload_text(kind, payload, version))
            for seq, turn, actor, kind, version, payload in rows
        ]
        return snapshot, events

    def all_games(self) -> list[tuple[int, str, int | None]]:
        """(id, game, fork seq) of every game."""
        return self._all(queries.ALL_GAMES, [])

    # --- Writing -----------------------------------------------------------------------------------------------------

    def add_games(self, new: Sequence[NewGame]) -> list[int]:
        """Store new games with their events, snapshots and results in one transaction; their ids in order."""
        if not all(g.seats for g in new):
            raise ValueError("every game is stored with its seats")  # a bug, not the user's: a seatless game breaks all
        try:
            with self.transaction():
                first = self.con.execute(queries.NEXT_GAME_ID).fetchall()[0][0]
                ids = list(range(first, first + len(new)))
                self._insert_games(ids, new)
        except duckdb.Error as error:
            raise _friendly(error, self.path) from None
        return ids

    def append(
        self,
        game_id: int,
        events: EventColumns,
        *,
        expected_seq: int,
        turns: int,
        status: str,
        snapshots: Sequence[tuple[int, int, str]] = (),
        results: Sequence[tuple[int, int, int, bool, str]] = (),
        facts: Facts | None = None,
    ) -> int:
        """Append events numbered from `expected_seq + 1`; the new last seq.

        Fails with ConcurrencyError, writing nothing, if the game's last seq is no longer `expected_seq`.
        """
        if events.seq != list(range(expected_seq + 1, expected_seq + 1 + len(events))):
            raise ValueError("events must be numbered from expected_seq + 1 without gaps")
        last = expected_seq + len(events)
        try:
            with self.transaction():
                current = _first(self.con.execute(queries.LAST_SEQ, [game_id]).fetchall())
                if current is None:
                    raise UnknownGameId(f"no game with id {game_id} in {self.path}")
                if current[0] != expected_seq:
                    raise ConcurrencyError(
                        f"game {game_id} is at event {current[0]}, not {expected_seq}; reload it and try again"
                    )
                self.con.execute(queries.UPDATE_PROGRESS, [last, turns, status, game_id, expected_seq])
                self._insert("new_events", queries.INSERT_EVENTS, _event_table([game_id] * len(events), events))
                if snapshots:
                    version = self.game_row(game_id).rules_version
                    rows = [(game_id, *snapshot) for snapshot in snapshots]
                    self._insert("new_snapshots", queries.INSERT_SNAPSHOTS, _snapshot_table(rows, version))
                self._insert("new_results", queries.INSERT_RESULTS, _result_table([(game_id, *r) for r in results]))
                if facts is not None:
                    self._insert_facts([game_id], [self._merged(game_id, facts)])
        except duckdb.ConstraintException:
            raise ConcurrencyError(f"game {game_id} was appended to by another writer; nothing was written") from None
        except duckdb.Error as error:
            raise _friendly(error, self.path) from None
        return last

    def repair_branch_seats(self) -> None:
        """Give every branch stored without seats (by Loom before issue 12) its parent's: done when a store is opened
        for writing, so every door sees a branch's seats."""
        with self._written():
            while self.con.execute(queries.COPY_PARENT_SEATS).fetchall()[0][0]:
                pass  # a branch of a seatless branch gets its seats in the round after its parent's
            self.con.execute(queries.COUNT_PLAYERS)

    def replace_results(self, rows: Sequence[tuple[int, int, int, int, bool, str]]) -> None:
        """Rebuild the results projection from scratch with these (game, seat, score, rank, winner, json) rows."""
        with self._written():
            self.con.execute(queries.DELETE_RESULTS)
            self._insert("new_results", queries.INSERT_RESULTS, _result_table(rows))

    def replace_facts(self, game_ids: Sequence[int], facts: Sequence[Facts]) -> None:
        """Rebuild the turn and game facts projections from scratch with the facts of these games."""
        with self._written():
            self.con.execute(queries.DELETE_FACTS)
            self._insert_facts(game_ids, facts)

    def _merged(self, game_id: int, facts: Facts) -> Facts:
        """`facts` of an append, with the decisions already stored for the turn it continues, whose rows go: an
        append that ended inside a turn wrote that turn's rows so far."""
        if not facts.turns:
            return facts
        turn = facts.turns[0][0]
        before = {seat: (d, c) for seat, d, c in self._all(queries.TURN_DECISIONS, [game_id, turn])}
        if not before:
            return facts
        self.con.execute(queries.DELETE_TURN_FACTS, [game_id, turn])
        turns = [
            (t, seat, score, leads, decisions + before[seat][0], choices + before[seat][1])
            if t == turn and seat in before
            else (t, seat, score, leads, decisions, choices)
            for t, seat, score, leads, decisions, choices in facts.turns
        ]
        return replace(facts, turns=turns)

    def _insert_facts(self, game_ids: Sequence[int], facts: Sequence[Facts]) -> None:
        import pyarrow as pa

        turns = [(i, *row) for i, f in zip(game_ids, facts) for row in f.turns]
        notable = [(i, *row) for i, f in zip(game_ids, facts) for row in f.notable]
        game_id, turn, seat, score, leads, decisions, choices = _columns(turns, 7)
        self._insert(
            "new_turn_facts",
            queries.INSERT_TURN_FACTS,
            pa.table(
                {
                    "game_id": pa.array(game_id, pa.int32()),
                    "turn": pa.array(turn, pa.int32()),
                    "seat": pa.array(seat, pa.int32()),
                    "score": pa.array(score, pa.int32()),
                    "leads": pa.array(leads, pa.bool_()),
                    "decisions": pa.array(decisions, pa.int32()),
                    "choices": pa.array(choices, pa.int32()),
                }
            ),
        )
        game_id, seq, kind, key, turn, seat, value = _columns(notable, 7)
        self._insert(
            "new_game_facts",
            queries.INSERT_GAME_FACTS,
            pa.table(
                {
                    "game_id": pa.array(game_id, pa.int32()),
                    "seq": pa.array(seq, pa.int32()),
                    "kind": pa.array(kind, pa.string()),
                    "key": pa.array(key, pa.string()),
                    "turn": pa.array(turn, pa.int32()),
                    "seat": pa.array(seat, pa.int32()),
                    "value": pa.array(value, pa.int32()),
                }
            ),
        )

    def _insert(self, name: str, sql: str, table: pa.Table) -> None:
        if table.num_rows == 0:
            return
        self.con.register(name, table)
        try:
            self.con.execute(sql)
        except duckdb.Error:
            # In a transaction the failed insert aborted it: unregistering now would fail too, and its error
            # ("Current transaction is aborted") would hide this one. The rollback drops the registration.
            if not self._depth:
                self.con.unregister(name)
            raise
        self.con.unregister(name)

    def _insert_games(self, ids: list[int], new: Sequence[NewGame]) -> None:
        import pyarrow as pa

        now = datetime.now(UTC)
        last_seqs = [g.events.seq[-1] if g.events else (g.fork_seq or 0) for g in new]
        games = pa.table(
            {
                "id": pa.array(ids, pa.int32()),
                "game": [g.game for g in new],
                "players": pa.array([len(g.seats) for g in new], pa.int32()),
                "status": [g.status for g in new],
                "source": [g.source for g in new],
                "parent_id": pa.array([g.parent_id for g in new], pa.int32()),
                "fork_seq": pa.array([g.fork_seq for g in new], pa.int32()),
                "last_seq": pa.array(last_seqs, pa.int32()),
                "turns": pa.array([g.turns for g in new], pa.int32()),
                "seed": pa.array([g.seed for g in new], pa.int64()),
                "rules_version": pa.array([g.rules_version for g in new], pa.int32()),
                "created_at": pa.array([now] * len(new), pa.timestamp("us", tz="UTC")),
            }
        )
        seats = [(i, s, seat.name, seat.bot) for i, g in zip(ids, new) for s, seat in enumerate(g.seats)]
        events = EventColumns()
        event_game_ids: list[int] = []
        for game_id, g in zip(ids, new):
            event_game_ids += [game_id] * len(g.events)
            for name in ("seq", "turn", "actor", "type", "version", "payload"):
                getattr(events, name).extend(getattr(g.events, name))
        versions = {g.rules_version for g in new}
        self._insert("new_games", queries.INSERT_GAMES, games)
        self._insert(
            "new_seats",
            queries.INSERT_SEATS,
            pa.table(
                {
                    "game_id": pa.array([r[0] for r in seats], pa.int32()),
                    "seat": pa.array([r[1] for r in seats], pa.int32()),
                    "name": [r[2] for r in seats],
                    "bot": pa.array([r[3] for r in seats], pa.string()),
                }
            ),
        )
        self._insert("new_events", queries.INSERT_EVENTS, _event_table(event_game_ids, events))
        for version in versions:
            snaps = [(i, *snapshot) for i, g in zip(ids, new) if g.rules_version == version for snapshot in g.snapshots]
            self._insert("new_snapshots", queries.INSERT_SNAPSHOTS, _snapshot_table(snaps, version))
        self._insert(
            "new_results", queries.INSERT_RESULTS, _result_table([(i, *r) for i, g in zip(ids, new) for r in g.results])
        )
        self._insert_facts(ids, [g.facts for g in new])


    # --- Win chances and key moments (logs analyse) ------------------------------------------------------------------

    def replace_analysis(
        self,
        game_id: int,
        chances: Sequence[tuple[int, int, int, float, float, int, str]],
        moments: Sequence[tuple[int, int, int, float, float, str, str | None, float | None]],
    ) -> None:
        """A game's win-chance curve, rows (seq, seat, turn, chance, margin, rollouts, bot), and its key moments,
        rows (seq, turn, seat, before, after, action, best action, best chance), replacing its earlier ones."""
        import pyarrow as pa

        curve = ("seq", "seat", "turn", "chance", "margin", "rollouts", "bot")
        moment = ("seq", "turn", "seat", "before", "after", "action", "best_action", "best_chance")
        try:
            with self.transaction():
                self.con.execute(queries.DELETE_WIN_CHANCES, [game_id])
                self.con.execute(queries.DELETE_KEY_MOMENTS, [game_id])
                for name, sql, names, rows in (
                    ("new_win_chances", queries.INSERT_WIN_CHANCES, curve, chances),
                    ("new_key_moments", queries.INSERT_KEY_MOMENTS, moment, moments),
                ):
                    columns = dict(zip(names, _columns(rows, len(names))))
                    self._insert(name, sql, pa.table({"game_id": [game_id] * len(rows), **columns}))
        except duckdb.Error as error:
            raise _friendly(error, self.path) from None

    def win_chances(self, game_id: int) -> list[tuple[int, int, int, float, float, int, str]]:
        """The stored win-chance curve of a game: (seq, seat, turn, chance, margin, rollouts, bot), by seq and seat."""
        return [tuple(row) for row in self._all(queries.WIN_CHANCES, [game_id])]

    def key_moments(self, game_id: int) -> list[tuple[int, int, int, float, float, str, str | None, float | None]]:
        """The stored key moments of a game: (seq, turn, seat, before, after, action, best action, best chance)."""
        return [tuple(row) for row in self._all(queries.KEY_MOMENTS, [game_id])]

def _is_empty_file(path: str) -> bool:
    """Whether `path` is a regular file of no bytes (never a device such as /dev/null, nor a link)."""
    try:
        found = os.lstat(path)
    except OSError:
        return False
    return stat.S_ISREG(found.st_mode) and found.st_size == 0


ABORTED = "Current transaction is aborted"


def _lost_race(error: duckdb.Error) -> bool:
    """Whether a failed COMMIT lost to another writer: a write-write conflict, or the same key written first."""
    text = str(error).lower()
    return isinstance(error, duckdb.TransactionException) and ("conflict" in text or "constraint" in text)


def _first_cause(error: BaseException) -> BaseException:
    """The error that aborted a transaction, rather than a later statement's `Current transaction is aborted`."""
    cause = error
    while isinstance(cause, duckdb.Error) and ABORTED in str(cause) and cause.__context__ is not None:
        cause = cause.__context__
    return cause


def _first(rows: list[Any]) -> Any:
    # duckdb 2 refuses new work while a result is only partly fetched, so results are always fetched whole.
    return rows[0] if rows else None


def _columns(rows: Sequence[tuple[Any, ...]], width: int) -> list[list[Any]]:
    return [list(column) for column in zip(*rows)] if rows else [[] for _ in range(width)]


def _event_table(game_ids: list[int], events: EventColumns) -> pa.Table:
    import pyarrow as pa  # only writes need it: reading commands start faster without it

    return pa.table(
        {
            "game_id": pa.array(game_ids, pa.int32()),
            "seq": pa.array(events.seq, pa.int32()),
            "turn": pa.array(events.turn, pa.int32()),
            "actor": pa.array(events.actor, pa.int32()),
            "type": pa.array(events.type, pa.string()),
            "version": pa.array(events.version, pa.int32()),
            "payload": pa.array(events.payload, pa.string()),
        }
    )


def _snapshot_table(rows: Sequence[tuple[int, int, int, str]], rules_version: int) -> pa.Table:
    import pyarrow as pa  # only writes need it: reading commands start faster without it

    game_id, seq, turn, state = _columns(rows, 4)
    return pa.table(
        {
            "game_id": pa.array(game_id, pa.int32()),
            "seq": pa.array(seq, pa.int32()),
            "turn": pa.array(turn, pa.int32()),
            "rules_version": pa.array([rules_version] * len(game_id), pa.int32()),
            "state": pa.array(state, pa.string()),
        }
    )


def _result_table(rows: Sequence[tuple[int, int, int, int, bool, str]]) -> pa.Table:
    import pyarrow as pa  # only writes need it: reading commands start faster without it

    game_id, seat, score, rank, winner, breakdown = _columns(rows, 6)
    return pa.table(
        {
            "game_id": pa.array(game_id, pa.int32()),
            "seat": pa.array(seat, pa.int32()),
            "score": pa.array(score, pa.int32()),
            "rank": pa.array(rank, pa.int32()),
            "winner": pa.array(winner, pa.bool_()),
            "breakdown": pa.array(breakdown, pa.string()),
        }
    )
