"""Reading the event store: games and their seats, results, a game's lineage, its events, and a position's rows."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any, TypeVar

from loom.events.base import Event, LoomError
from loom.events.registry import decode_payload_text, load_events_of
from loom.replay import queries
from loom.replay.columns import names
from loom.replay.connection import Connection
from loom.replay.records import GameInfo, GameKind, ResultInfo, Seat, Segment
from loom.replay.snapshots import SNAPSHOT_EVERY, Snapshot

T = TypeVar("T")
GAME_COLUMNS = names("games")
"""The columns of queries.GAME, in its order."""


class UnknownGameId(LoomError):
    """No game has this id."""


def build(kind: type[T], names: Sequence[str], row: Sequence[Any]) -> T:
    """A record of `kind` from a row, its values matched to the record's fields by column name."""
    return kind(**dict(zip(names, row)))


def game_row(db: Connection, game_id: int) -> GameInfo:
    """The game with this id, without its seats (one query); UnknownGameId if none."""
    row = db.one(queries.GAME, [game_id])
    if row is None:
        raise UnknownGameId(f"no game with id {game_id} in {db.path}")
    return build(GameInfo, GAME_COLUMNS, row)  # every position reads one: the names are known without asking


def game(db: Connection, game_id: int) -> GameInfo:
    """The game with this id and its seats; UnknownGameId if none."""
    info = game_row(db, game_id)
    return replace(info, seats=tuple(Seat(name, bot) for name, bot in db.all(queries.SEATS, [game_id])))


def games(db: Connection, sql: str, params: Sequence[Any]) -> list[GameInfo]:
    """The games a query of whole games rows finds (seats not loaded)."""
    names, rows = db.named(sql, params)
    return [build(GameInfo, names, row) for row in rows]


def with_seats(db: Connection, infos: list[GameInfo]) -> list[GameInfo]:
    """The games with their seats, read in one query."""
    seats = {
        game_id: tuple(Seat(name, bot) for name, bot in zip(names, bots))
        for game_id, names, bots in db.all(queries.SEATS_OF, [[info.id for info in infos]])
    }
    return [replace(info, seats=seats.get(info.id, ())) for info in infos]


def results(db: Connection, game_id: int) -> list[ResultInfo]:
    """The results projection of a finished game (empty for an open one)."""
    names, rows = db.named(queries.RESULTS, [game_id])
    return [build(ResultInfo, names, row) for row in rows]


def all_games(db: Connection) -> list[GameKind]:
    """Every game's id, kind and fork."""
    names, rows = db.named(queries.ALL_GAMES)
    return [build(GameKind, names, row) for row in rows]


def lineage(db: Connection, info: GameInfo) -> list[Segment]:
    """The segments whose events make up this game, oldest first."""
    load_events_of(info.game)  # decoding its events needs their classes
    segments = []
    upto = info.last_seq
    while True:
        after = info.fork_seq or 0
        segments.append(Segment(info.id, after, upto))
        if info.parent_id is None:
            return segments[::-1]
        upto = min(upto, after)  # a branch may fork inside its parent's own shared prefix
        info = game_row(db, info.parent_id)


def load(
    db: Connection, game_id: int, *, after: int = 0, upto: int | None = None, info: GameInfo | None = None
) -> list[Event]:
    """The game's events with seq in (after, upto], its parents' prefix included; `info` is its row, if known."""
    out: list[Event] = []
    for owner, lo, hi in lineage(db, info or game_row(db, game_id)):
        lo, hi = max(lo, after), hi if upto is None else min(hi, upto)
        if lo >= hi:
            continue
        # the columns of queries.EVENT_COLUMNS, in its order
        for seq, turn, actor, type_name, version, payload in db.all(queries.EVENTS, [owner, lo, hi]):
            out.append(Event(game_id, seq, turn, actor, decode_payload_text(type_name, payload, version)))
    return out


def read_position(
    db: Connection, info: GameInfo, bound: str, limit: int, rules_version: int
) -> tuple[Snapshot | None, list[Event]]:
    """The newest snapshot before a bound, if worth it, and the events after it.

    `bound` is "turn" (before the start of turn `limit`) or "seq" (up to event `limit`). A short game is
    cheaper to fold from its start than to look for a snapshot first.
    """
    segments = lineage(db, info)
    snapshot = None
    if info.last_seq > 2 * SNAPSHOT_EVERY:
        sql, params = queries.lineage_rows(queries.SNAPSHOT_COLUMNS, "snapshots", segments, bound, limit)
        rows = db.all(sql, params)  # the columns of queries.SNAPSHOT_COLUMNS, in its order
        usable = [Snapshot(seq, turn, state) for seq, turn, state, version in rows if version == rules_version]
        snapshot = max(usable, default=None)
    after = snapshot.seq if snapshot else 0
    sql, params = queries.lineage_rows(queries.EVENT_COLUMNS, "events", segments, bound, limit, after)
    rows = sorted(db.all(sql, params))  # by seq: cheaper here than an ORDER BY in DuckDB
    events = [
        Event(info.id, seq, turn, actor, decode_payload_text(kind, payload, version))
        for seq, turn, actor, kind, version, payload in rows
    ]
    return snapshot, events
