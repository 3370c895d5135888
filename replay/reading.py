"""Reading the event store: games and their seats, results, a game's lineage, its events, and a position's rows.

A position is read in one statement: the game's row (and its parents', for a branch) comes from the rows the store
keeps (`KeptRows`), with the places of its snapshots, so the statement reads the snapshot to start from and the
events after it together. Many games are read a chunk at a time (`load_many`): their rows in one statement, the
events of the whole chunk in another.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import replace
from typing import Any, NamedTuple, TypeVar

from loom.events.base import Event, LoomError, Payload
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


SHORT_PAYLOAD = 100
"""Payload texts up to this length are decoded once and the object reused: most events repeat one of few payloads
(1,427,935 Motto events have 38,603 distinct ones; a draw, take or refill one of 27), and a payload is immutable."""
DECODED_KEPT = 20_000
"""Decoded payloads kept per event type (at most a few MB) before that type's are forgotten."""
_DECODED: dict[str, dict[str, Payload]] = {}


def decoded(kind: str, text: str, version: int) -> Payload:
    """A stored payload decoded (the trusted path: checked when it was written); a short one decoded once."""
    known = _DECODED.get(kind)
    if known is None:
        known = _DECODED[kind] = {}
    found = known.get(text)
    if found is None:
        found = decode_payload_text(kind, text, version)
        if len(text) <= SHORT_PAYLOAD and version == found.VERSION:  # an upcast one is not kept under its old text
            if len(known) >= DECODED_KEPT:
                known.clear()
            known[text] = found
    return found


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


# --- The game rows a store keeps --------------------------------------------------------------------------------


WINDOW = 32
"""Game rows read together when a store meets a game it does not keep: the next games read are often its neighbours
(a listing, a replay of many games), and 32 rows cost about what one does (0.5 ms)."""
ROWS_KEPT = 10_000
"""Game rows a store keeps (a few MB) before it forgets them all."""


class Kept(NamedTuple):
    """A game's row as a store last read it, and where its own snapshots are, once a position needed them:
    (seq, turn, rules version), by seq."""

    info: GameInfo
    snapshots: tuple[tuple[int, int, int], ...] | None = None


class KeptRows:
    """The game rows a store has read, shared by the cursors of its connection.

    A kept row may be behind the file, never wrong: a game's row only moves forward (its last seq, turns and status
    change together, with every append; the rest never changes once written), and its events and snapshots are
    never rewritten. So a kept row is a lower bound whose every event and snapshot exist; readers that need the
    newest row ask the file (`Store.game_row` of a writable store), a position at the end checks the row against
    the events it read, and a store forgets a game's row when it appends to it (`forget`).
    """

    def __init__(self) -> None:
        self.rows: dict[int, Kept] = {}

    def get(self, db: Connection, game_id: int) -> Kept:
        """The game's kept row, read with its neighbours' if not kept; UnknownGameId if none."""
        kept = self.rows.get(game_id)
        if kept is None:
            lo = (game_id - 1) // WINDOW * WINDOW + 1
            kept = self.keep(db.all(queries.GAME_WINDOW, [lo, lo + WINDOW])).get(game_id)
            if kept is None:
                raise UnknownGameId(f"no game with id {game_id} in {db.path}")
        return kept

    def read(self, db: Connection, game_ids: Sequence[int]) -> dict[int, Kept]:
        """These games' rows read from the file now (in one statement), kept; the games that have none are absent."""
        ids = list(game_ids)
        return self.keep(db.all(queries.GAMES_LISTED, [min(ids), max(ids), ids])) if ids else {}

    def places(self, db: Connection, game_id: int) -> tuple[tuple[int, int, int], ...]:
        """Where the game's own snapshots are, read once and kept with its row."""
        kept = self.get(db, game_id)
        if kept.snapshots is None:
            kept = kept._replace(snapshots=tuple(sorted(db.all(queries.SNAPSHOT_PLACES, [game_id]))))
            if self.rows.get(game_id, kept).info.last_seq <= kept.info.last_seq:
                self.rows[game_id] = kept
        assert kept.snapshots is not None  # just read
        return kept.snapshots

    def keep(self, rows: Iterable[Sequence[Any]]) -> dict[int, Kept]:
        """Keep the games of whole rows of the games table (columns as GAME_COLUMNS)."""
        found = {row[0]: Kept(build(GameInfo, GAME_COLUMNS, row)) for row in rows}
        if len(self.rows) + len(found) > ROWS_KEPT:
            self.rows.clear()  # a bound on memory: a long-lived reader of many games starts again
        for game_id, kept in found.items():
            old = self.rows.get(game_id)
            if old is None or old.info.last_seq < kept.info.last_seq:  # a slower reader must not put an older back
                self.rows[game_id] = kept
        return found

    def forget(self, game_id: int | None = None) -> None:
        """Forget a game's row (it was appended to), or every game's."""
        if game_id is None:
            self.rows.clear()
        else:
            self.rows.pop(game_id, None)


def lineage(db: Connection, info: GameInfo, kept: KeptRows | None = None) -> list[Segment]:
    """The segments whose events make up this game, oldest first (parents' rows from `kept`, if given)."""
    load_events_of(info.game)  # decoding its events needs their classes
    segments = []
    upto = info.last_seq
    while True:
        after = info.fork_seq or 0
        segments.append(Segment(info.id, after, upto))
        if info.parent_id is None:
            return segments[::-1]
        upto = min(upto, after)  # a branch may fork inside its parent's own shared prefix
        info = game_row(db, info.parent_id) if kept is None else kept.get(db, info.parent_id).info


def load(
    db: Connection,
    game_id: int,
    *,
    after: int = 0,
    upto: int | None = None,
    info: GameInfo | None = None,
    kept: KeptRows | None = None,
) -> list[Event]:
    """The game's events with seq in (after, upto], its parents' prefix included; `info` is its row, if known.

    The game's own events are read as far as the file has them by now (up to `upto`), not only as far as `info`
    says: it may be a kept row, behind the file. Parents' rows come from `kept`, if given."""
    info = info or game_row(db, game_id)
    segments = lineage(db, info, kept)
    segments[-1] = segments[-1]._replace(upto=queries.UNBOUNDED)
    out: list[Event] = []
    for owner, lo, hi in segments:
        lo, hi = max(lo, after), hi if upto is None else min(hi, upto)
        if lo >= hi:
            continue
        # the columns of queries.EVENT_COLUMNS, in its order
        for seq, turn, actor, type_name, version, payload in db.all(queries.EVENTS, [owner, lo, hi]):
            out.append(Event(game_id, seq, turn, actor, decoded(type_name, payload, version)))
    return out


def read_position(
    db: Connection, info: GameInfo, bound: str, limit: int, rules_version: int, kept: KeptRows | None = None
) -> tuple[Snapshot | None, list[Event]]:
    """The newest usable snapshot before a bound, if worth it, and the events after it, in one statement.

    `bound` is "turn" (before the start of turn `limit`), "seq" (up to event `limit`) or "end" (every event the
    file has by now). The snapshot is found among the places kept with the rows (`kept`, a new one if not given):
    the statement then reads its state and the events after it together. A snapshot kept but gone from
    the file (snapshots may be dropped and rebuilt) costs a second statement, the events from the start. A short
    game is cheaper to fold from its start than from a snapshot.
    """
    kept = kept or KeptRows()
    segments = lineage(db, info, kept)
    place = _snapshot_place(db, kept, info, segments, bound, limit, rules_version)
    after = place[1] if place else 0
    sql, params = queries.lineage_rows(queries.EVENT_COLUMNS, "events", _after(segments, after), bound, limit, after)
    if place is not None:
        sql, params = f"{queries.SNAPSHOT_ARM} UNION ALL {sql}", [*place, *params]
    rows = sorted(db.all(sql, params))  # by seq (cheaper here than an ORDER BY in DuckDB): the snapshot's row first
    snapshot = None
    if place is not None:
        if not rows or rows[0][3] is not None:  # dropped since it was kept: fold from the start instead
            kept.forget(place[0])
            return None, load_range(db, info, segments, bound, limit)
        seq, turn, _, _, _, state = rows.pop(0)  # the snapshot's row: no type, its state in the payload's place
        snapshot = Snapshot(seq, turn, state)
    game_id = info.id
    return snapshot, [
        Event(game_id, seq, turn, actor, decoded(kind, payload, version))
        for seq, turn, actor, kind, version, payload in rows
    ]


def load_range(db: Connection, info: GameInfo, segments: list[Segment], bound: str, limit: int) -> list[Event]:
    """The game's events up to a bound (see read_position), from its first, in one statement."""
    sql, params = queries.lineage_rows(queries.EVENT_COLUMNS, "events", segments, bound, limit)
    return [
        Event(info.id, seq, turn, actor, decoded(kind, payload, version))
        for seq, turn, actor, kind, version, payload in sorted(db.all(sql, params))
    ]


def _snapshot_place(
    db: Connection,
    kept: KeptRows,
    info: GameInfo,
    segments: list[Segment],
    bound: str,
    limit: int,
    rules_version: int,
) -> tuple[int, int] | None:
    """(game id, seq) of the newest snapshot of the lineage before the bound made by these rules, if worth it."""
    if info.last_seq <= 2 * SNAPSHOT_EVERY:
        return None
    best = None
    for number, (owner, lo, hi) in enumerate(segments):
        last = number == len(segments) - 1
        for seq, turn, version in kept.places(db, owner):
            if seq <= lo or (not last and seq > hi) or version != rules_version:
                continue
            if (bound == "turn" and turn >= limit) or (bound == "seq" and seq > limit):
                continue
            if best is None or seq > best[1]:
                best = (owner, seq)
    return best


def _after(segments: list[Segment], after: int) -> list[Segment]:
    """The segments that still have events past `after` (a parent's prefix before a branch's snapshot has none)."""
    last = len(segments) - 1
    return [s for number, s in enumerate(segments) if number == last or s.upto > after]


# --- Many games at once ------------------------------------------------------------------------------------------

CHUNK = 256
"""Games read per statement by `load_many`: about 36,000 events of Motto, a few MB."""


def load_many(
    db: Connection, game_ids: Iterable[int], kept: KeptRows, chunk: int = CHUNK
) -> Iterator[tuple[GameInfo, list[Event]]]:
    """Each game's row (without seats) and all its events, in the order given, `chunk` games per read.

    A chunk costs two statements: the games' rows (read now, so each game's events stop at its row's last seq),
    then the events of every game of the chunk and of the parents whose prefixes its branches share. Rows are
    read from the file, not from what `kept` holds, which only lends the parents' rows."""
    batch: list[int] = []
    for game_id in game_ids:
        batch.append(game_id)
        if len(batch) == chunk:
            yield from _load_chunk(db, batch, kept)
            batch = []
    if batch:
        yield from _load_chunk(db, batch, kept)


def _load_chunk(db: Connection, game_ids: list[int], kept: KeptRows) -> Iterator[tuple[GameInfo, list[Event]]]:
    found = kept.read(db, game_ids)
    missing = [game_id for game_id in game_ids if game_id not in found]
    if missing:
        raise UnknownGameId(f"no game with id {missing[0]} in {db.path}")
    lineages = {game_id: lineage(db, found[game_id].info, kept) for game_id in found}
    owners = sorted({segment.game_id for segments in lineages.values() for segment in segments})
    rows: dict[int, list[tuple[Any, ...]]] = {owner: [] for owner in owners}
    for row in db.all(queries.EVENTS_OF, [owners[0], owners[-1], owners]):  # game_id, then EVENT_COLUMNS
        rows[row[0]].append(row)
    for own in rows.values():
        own.sort()  # by seq: the file keeps them nearly so, and a sort of sorted rows is one pass
    for game_id in game_ids:
        events = [
            Event(game_id, seq, turn, actor, decoded(kind, payload, version))
            for owner, lo, hi in lineages[game_id]
            for _, seq, turn, actor, kind, version, payload in rows[owner]
            if lo < seq <= hi
        ]
        yield found[game_id].info, events
