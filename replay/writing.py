"""Writing the event store: new games and appends, each one transaction of Arrow batches, whole or not at all.

Appends write events, never facts: the projector (replay/projector.py) follows the log and keeps the turn and game
facts off the hot path. A new game may come with its facts (a simulation takes them as it plays, where counting
the choices is free): they are stored with the game's projected position, in its transaction.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from itertools import repeat
from typing import Any

from loom.replay import queries
from loom.replay.columns import Batch, arrow_table
from loom.replay.connection import ConcurrencyError, Connection
from loom.replay.fingerprint import of_new_game
from loom.replay.projection_tables import by_column, fact_columns, insert_results, results_of
from loom.replay.reading import UnknownGameId, game_row
from loom.replay.records import EventColumns, NewGame, ResultInfo, StoredResult
from loom.replay.snapshots import Snapshot

EVENT_FIELDS = ("seq", "turn", "actor", "type", "version", "payload")
TAG_COLUMNS = (("played", "date"), ("place", "place"), ("event", "event"), ("round", "round"), ("notes", "notes"))
"""The games table's columns of the log header's tags (events.base.HEADER_TAGS), with each tag's name."""


def add_games(db: Connection, new: Sequence[NewGame], *, first_id: int | None = None) -> list[int]:
    """Store new games with their events, snapshots and results in one transaction; their ids in order.

    The ids follow the store's last unless `first_id` says where they start (ids reserved elsewhere: a lake's)."""
    with adding(db, first_id=first_id) as add:
        return add(batch_of(new))


@contextmanager
def adding(db: Connection, *, first_id: int | None = None) -> Iterator[Callable[[Batch], list[int]]]:
    """One transaction adding new games in pieces, whole or not at all: gives the function storing a piece (a Batch
    of `batch_of`; its ids, in order, following the store's last game or `first_id`).

    A piece is one statement per table, so a transaction of many pieces is stored as its games come (a simulation's
    writer stores each piece while the next is played) and committed once: a DuckDB commit of many rows in a table
    writes them to the file compressed, as they are, where a commit of fewer copies them into the log first."""
    with db.written():
        after = (first_id if first_id is not None else db.run(queries.NEXT_GAME_ID)[0][0]) - 1

        def add(batch: Batch) -> list[int]:
            nonlocal after
            ids = insert_batch(db, batch, after + 1) if batch.games else []
            after += batch.games
            return ids

        yield add


def batch_of(new: Sequence[NewGame]) -> Batch:
    """New games as Arrow tables of rows, their ids numbered from 0: games, seats, events, snapshots and results, and
    for games that come with their facts (a simulation may take them as it plays) the facts and the position they
    are projected to (their last event; the others are left to the projector).

    Pure Python and Arrow, no store: it runs where the games are made (an import's workers, a simulation's player),
    so the writer only inserts ready columns, in calls that release the GIL."""
    _check_new(new)
    local = range(len(new))
    events: dict[str, list[Any]] = {"game_id": [], **{name: [] for name in EVENT_FIELDS}}
    snapshots: dict[str, list[Any]] = {name: [] for name in ("game_id", "seq", "turn", "rules_version", "state")}
    seats: dict[str, list[Any]] = {name: [] for name in ("game_id", "seat", "name", "bot")}
    for i, g in zip(local, new):
        events["game_id"] += repeat(i, len(g.events))
        for name in EVENT_FIELDS:
            events[name] += getattr(g.events, name)
        snapshots["game_id"] += repeat(i, len(g.snapshots))
        snapshots["rules_version"] += repeat(g.rules_version, len(g.snapshots))
        for snapshot in g.snapshots:
            snapshots["seq"].append(snapshot.seq)
            snapshots["turn"].append(snapshot.turn)
            snapshots["state"].append(snapshot.state)
        for seat, who in enumerate(g.seats):
            seats["game_id"].append(i)
            seats["seat"].append(seat)
            seats["name"].append(who.name)
            seats["bot"].append(who.bot)
    games = game_columns(local, new)
    tables: dict[str, dict[str, list[Any]]] = {
        "games": games,
        "seats": seats,
        "events": events,
        "snapshots": snapshots,
        "results": by_column(StoredResult._fields, results_of(local, [g.results for g in new])),
    }
    with_facts = [(i, g.facts, last) for i, g, last in zip(local, new, games["last_seq"]) if g.facts is not None]
    if with_facts:
        tables |= fact_columns([i for i, _, _ in with_facts], [facts for _, facts, _ in with_facts])
        tables["projected"] = {"game_id": [i for i, _, _ in with_facts], "seq": [last for _, _, last in with_facts]}
    return Batch(len(new), {name: arrow_table(name, columns) for name, columns in tables.items()})


def _check_new(new: Sequence[NewGame]) -> None:
    if not all(g.seats for g in new):
        raise ValueError("every game is stored with its seats")  # a bug, not the user's: a seatless game breaks all
    for g in new:  # the events have no key index to refuse a seq twice: the writer does (a bug, not the user's)
        start = (g.fork_seq or 0) + 1
        if g.events.seq != list(range(start, start + len(g.events))):
            raise ValueError(f"a new game's events must be numbered from {start} without gaps")


# --- An import: a file's games in one transaction, batch by batch ---------------------------------------------------


@contextmanager
def importing(db: Connection) -> Iterator[int]:
    """One transaction for an import's batches (insert_batch), whole or not at all; gives the first new game's id."""
    if db.depth:
        raise ValueError("an import is a transaction of its own: it cannot run inside another")  # a bug
    with db.written():
        yield db.run(queries.NEXT_GAME_ID)[0][0]


def insert_batch(db: Connection, batch: Batch, first_id: int) -> list[int]:
    """Add a Batch of new games (ready Arrow columns: an import's workers make them) with ids from `first_id`."""
    with db.written():
        for table, rows in batch.numbered(first_id).items():
            db.insert(table, rows)
    return list(range(first_id, first_id + batch.games))


# --- Staging tables left by an older version's import that a crash interrupted --------------------------------------


def drop_staging(db: Connection) -> None:
    """Drop the staging tables and their rows, left by an older version's import that a crash interrupted."""
    with db.written():
        present = {name for (name,) in db.run(queries.STAGING_TABLES)}
        for table in queries.STAGED:
            if f"staging_{table}" in present:
                db.run(queries.drop_staging(table))


def append(
    db: Connection,
    game_id: int,
    events: EventColumns,
    *,
    expected_seq: int,
    turns: int,
    status: str,
    snapshots: Sequence[Snapshot] = (),
    results: Sequence[ResultInfo] = (),
) -> int:
    """Append events numbered from `expected_seq + 1`; the new last seq.

    Fails with ConcurrencyError, writing nothing, if the game's last seq is no longer `expected_seq`.

    The facts of the events are left to the projector, but the results of a game this append finishes are written
    here: a handful of rows, computed from the final state the caller holds anyway, and written in the transaction
    that makes the game's status `finished`, so no reader ever sees a finished game without its winners.
    """
    if events.seq != list(range(expected_seq + 1, expected_seq + 1 + len(events))):
        raise ValueError("events must be numbered from expected_seq + 1 without gaps")
    last = expected_seq + len(events)
    with db.written(conflict=f"game {game_id} was appended to by another writer; nothing was written"):
        current = db.run(queries.LAST_SEQ, [game_id])
        if not current:
            raise UnknownGameId(f"no game with id {game_id} in {db.path}")
        if current[0][0] != expected_seq:
            raise ConcurrencyError(
                f"game {game_id} is at event {current[0][0]}, not {expected_seq}; reload it and try again"
            )
        # This update is what keeps one event per (game, seq), the events having no key: of two appends expecting
        # the same seq, the second finds last_seq moved (or DuckDB refuses its update of the row: a conflict).
        if db.run(queries.UPDATE_PROGRESS, [last, turns, status, game_id, expected_seq])[0][0] != 1:
            raise ConcurrencyError(f"game {game_id} was appended to by another writer; nothing was written")
        _insert_events(db, [game_id] * len(events), events)
        if snapshots:
            _insert_snapshots(db, [game_id] * len(snapshots), snapshots, game_row(db, game_id).rules_version)
        insert_results(db, results_of([game_id], [results]))
    return last


@dataclass(frozen=True, slots=True)
class GameAppend:
    """One game's part of a group write: its events numbered from `expected_seq + 1`, the game's turns and status
    after them, and the snapshots and results (of a game they finish) that go with them."""

    game_id: int
    expected_seq: int
    events: EventColumns
    turns: int
    status: str
    rules_version: int
    snapshots: Sequence[Snapshot] = ()
    results: Sequence[ResultInfo] = ()


def append_games(db: Connection, appends: Sequence[GameAppend]) -> None:
    """Append to distinct games in the caller's transaction, one statement per table for them all (a DuckDB
    statement costs far more than its rows): the games' rows moved on, then their events, snapshots and results.

    ConcurrencyError if a game is no longer at the seq its append expects (the caller's transaction then writes
    nothing)."""
    if not appends:
        return
    ids = [a.game_id for a in appends]
    lasts = [a.expected_seq + len(a.events) for a in appends]
    turns, statuses = [a.turns for a in appends], [a.status for a in appends]
    expected = [a.expected_seq for a in appends]
    # The update is what keeps one event per (game, seq): an append whose game moved finds no row to update. One
    # game's is a lookup of its key, cheaper than the join of lists a group's needs.
    if len(appends) == 1:
        moved = db.run(queries.UPDATE_PROGRESS, [lasts[0], turns[0], statuses[0], ids[0], expected[0]])
    else:
        moved = db.run(queries.UPDATE_PROGRESS_OF_GAMES, [ids, lasts, turns, statuses, expected])
    if moved[0][0] != len(appends):
        raise ConcurrencyError("a game of the group is no longer where its append expects it; nothing was written")
    events = EventColumns()
    game_ids: list[int] = []
    for a in appends:
        game_ids += repeat(a.game_id, len(a.events))
        for name in EVENT_FIELDS:
            getattr(events, name).extend(getattr(a.events, name))
    _insert_events(db, game_ids, events)
    with_snapshots = [a for a in appends if a.snapshots]
    for version in {a.rules_version for a in with_snapshots}:
        of_version = [a for a in with_snapshots if a.rules_version == version]
        _insert_snapshots(
            db,
            [a.game_id for a in of_version for _ in a.snapshots],
            [s for a in of_version for s in a.snapshots],
            version,
        )
    insert_results(db, results_of(ids, [a.results for a in appends]))


def game_columns(ids: Sequence[int], new: Sequence[NewGame]) -> dict[str, list[Any]]:
    """The rows of the games table for new games with these ids, column by column (recorded now)."""
    now = datetime.now(UTC)
    return {
        "id": list(ids),
        "game": [g.game for g in new],
        "players": [len(g.seats) for g in new],
        "status": [g.status for g in new],
        "source": [g.source for g in new],
        "parent_id": [g.parent_id for g in new],
        "fork_seq": [g.fork_seq for g in new],
        "last_seq": [g.events.seq[-1] if g.events else (g.fork_seq or 0) for g in new],
        "turns": [g.turns for g in new],
        "seed": [g.seed for g in new],
        "rules_version": [g.rules_version for g in new],
        "created_at": [now] * len(new),
        "fingerprint": [of_new_game(g) for g in new],
        **{column: [g.tags.get(tag) for g in new] for column, tag in TAG_COLUMNS},
    }


def _insert_events(db: Connection, game_ids: list[int], events: EventColumns) -> None:
    columns = {name: getattr(events, name) for name in EVENT_FIELDS}
    db.insert("events", arrow_table("events", {"game_id": game_ids, **columns}))


def _insert_snapshots(db: Connection, game_ids: list[int], snapshots: Sequence[Snapshot], rules_version: int) -> None:
    columns: dict[str, list[Any]] = {
        "game_id": game_ids,
        "seq": [s.seq for s in snapshots],
        "turn": [s.turn for s in snapshots],
        "rules_version": [rules_version] * len(snapshots),
        "state": [s.state for s in snapshots],
    }
    db.insert("snapshots", arrow_table("snapshots", columns))
