"""A game's content fingerprint: the same game stored twice (typed twice, or exported and imported) has the same one.

The fingerprint hashes what a log of the game says (docs/log-format.md): the game's name, its seats' bots, and every
event from seq 1 (a branch's parents' prefix included): seq, turn, actor, type and fields, each payload at its current
schema version as Loom encodes it, so neither the spacing of a hand-written line nor an older schema changes it. What a
log does not fix is left out: the ids, the parent, the header's tags (a date or a note added later is the same game)
and the first event's `seed`, which import draws anew for a log written at a table (it decides only the cards a
continuation samples, not anything that happened). A branch, or any other game, differs in some event.

Stored in `games.fingerprint`; NULL until computed (an append, or a new branch, leaves it to `fill`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import orjson

from loom.events.base import LoomError
from loom.events.registry import decode_payload_text, encode_payload, load_events_of, payload_class
from loom.replay import queries

if TYPE_CHECKING:
    import pyarrow as pa

    from loom.replay.columns import Batch
    from loom.replay.connection import Connection
    from loom.replay.records import EventColumns, NewGame

FILL_PAGE = 500
"""Games whose fingerprints are computed per query of their events."""


def fingerprint(game: str, bots: Sequence[str | None], events: EventColumns) -> str:
    """The fingerprint of a game from seq 1 (its events as stored, column by column): 32 hex digits.

    A payload stored at its type's current version is hashed as stored, the compact JSON of its fields in their order
    (events.registry.encode_payload: import and the simulator write it so, whatever the line's spacing or key order);
    one of an older version as it is upcast. One pass in C over each column: about a microsecond an event."""
    payloads = list(events.payload)
    versions = set(events.version)
    current = len(versions) == 1 and all(payload_class(kind).VERSION in versions for kind in set(events.type))
    # Nearly always every event is of one version, its type's current one: told without a pair per event.
    if not current and any(
        version != payload_class(kind).VERSION for kind, version in set(zip(events.type, events.version))
    ):
        for at, (kind, version) in enumerate(zip(events.type, events.version)):
            if version != payload_class(kind).VERSION:  # written by an older schema (an old store): upcast, as export
                payloads[at] = encode_payload(decode_payload_text(kind, payloads[at], version))
    if payloads and events.seq[0] == 1:
        first = orjson.loads(payloads[0])
        first.pop("seed", None)
        payloads[0] = orjson.dumps(first).decode()
    digest = hashlib.blake2b(digest_size=16)
    digest.update(orjson.dumps([game, list(bots), events.seq, events.turn, events.actor, events.type]))
    digest.update("\n".join(payloads).encode())
    return digest.hexdigest()


def of_new_game(game: NewGame) -> str | None:
    """A new game's fingerprint; None for a branch, whose prefix is its parent's (`fill` computes it once stored)."""
    if game.fork_seq or not game.events.seq:  # no events of its own (a hand-made row): nothing to tell it by
        return None
    load_events_of(game.game)
    try:
        return fingerprint(game.game, [seat.bot for seat in game.seats], game.events)
    except LoomError:  # an event of no known type: the insert refuses it with its own cause
        return None


def fill(db: Connection, progress: Callable[[int], None] = lambda done: None) -> int:
    """Compute the fingerprint of every game stored without one (a branch, a game appended to, an older store's),
    in the caller's transaction or one of its own; how many."""
    with db.written():
        db.all(queries.CHOOSE_UNFINGERPRINTED)
        count = int(db.one(queries.EXPORT_COUNT)[0])
        after = 0
        while True:
            games = db.all(queries.EXPORT_PAGE, {"after": after, "limit": FILL_PAGE})
            if not games:
                break
            rows = db.all(queries.EXPORT_EVENTS, {"ids": [row[0] for row in games]})
            ids, prints = [], []
            at = 0
            for game_id, game, _, _, bots, *_ in games:
                load_events_of(game)
                start = at
                while at < len(rows) and rows[at][0] == game_id:
                    at += 1
                ids.append(game_id)
                prints.append(fingerprint(game, bots, _columns(rows[start:at])))
            db.run(queries.SET_FINGERPRINTS, [ids, prints])
            progress(len(games))
            after = games[-1][0]
        db.all(queries.DROP_EXPORT_CHOSEN)
    return count


def _columns(rows: Sequence[tuple[Any, ...]]) -> EventColumns:
    """Rows of EXPORT_EVENTS (game id first) as event columns."""
    from loom.replay.records import EventColumns

    columns = EventColumns()
    for _, seq, turn, actor, kind, version, payload in rows:
        columns.seq.append(seq)
        columns.turn.append(turn)
        columns.actor.append(actor)
        columns.type.append(kind)
        columns.version.append(version)
        columns.payload.append(payload)
    return columns


class DuplicateGame(LoomError):
    """A game of an import that is stored already (or comes twice in its file)."""


@dataclass
class Duplicates:
    """An import's watch for games it holds twice or the store holds already: each is refused (DuplicateGame, which
    names it and the stored game) or, with `skip`, left out and counted.

    `name` says which game of the import a refusal is about, from its index in the import (its lines by default)."""

    db: Connection
    skip: bool = False
    name: Callable[[int], str] | None = None
    skipped: int = 0
    lines: int = 0  # the lines of the chunk admitted last
    left_out: set[int] = field(default_factory=set)  # the import's games skipped, by index
    seen: dict[str, int] = field(default_factory=dict)  # fingerprint -> index of the import's game that had it
    _chunks: list[Any] = field(default_factory=list)
    _games: int = 0

    def watch(self, chunks: Iterable[Any]) -> Iterator[Any]:
        """The chunks of the import's file (game_chunks), remembered until their games are checked, so a refusal
        can name a game's header line."""
        for chunk in chunks:
            self._chunks.append(chunk)
            yield chunk

    def admit(self, batch: Batch) -> Batch:
        """The batch (a chunk's games, in the file's order) without the games stored already: refused or skipped."""
        chunk = self._chunks.pop(0) if self._chunks else None
        self.lines = _lines_of(chunk) if chunk is not None else 0
        prints: list[str] = batch.tables["games"].column("fingerprint").to_pylist()
        stored = dict(self.db.all(queries.STORED_FINGERPRINTS, [prints])) if prints else {}
        keep: list[int] = []
        for local, print_ in enumerate(prints):
            index = self._games + local
            if print_ in stored or print_ in self.seen:
                if not self.skip:
                    raise DuplicateGame(self._refusal(index, local, chunk, print_, stored))
                self.skipped += 1
                self.left_out.add(index)
                continue
            self.seen[print_] = index
            keep.append(local)
        self._games += len(prints)
        return batch if len(keep) == len(prints) else _kept(batch, keep)

    def _refusal(self, index: int, local: int, chunk: Any, print_: str, stored: dict) -> str:
        where = self._where(index, local, chunk)
        # An earlier game of this import is in the games table too (the import is one transaction): it is named so.
        if print_ not in self.seen:
            return f"{where}: the same game as game {stored[print_]}, stored already (--skip-duplicates leaves it out)"
        return f"{where}: the same game as an earlier one of this import (--skip-duplicates leaves it out)"

    def _where(self, index: int, local: int, chunk: Any) -> str:
        if self.name is not None:
            return self.name(index)
        if chunk is None:
            return f"game {index + 1} of the file"
        return f"line {header_line(_text_of(chunk), local)}"


def _lines_of(chunk: Any) -> int:
    """The lines of a chunk of the import's file (a (first line, text) pair, or a Span of the file on disk)."""
    return chunk[1].count("\n") if isinstance(chunk, tuple) else chunk.lines


def _text_of(chunk: Any) -> tuple[int, str]:
    """A chunk of the import's file as (its first line's number, its text): it is that already, or a Span
    (replay/logfile.py) of the file on disk, read again only here, where a refusal names one of its games."""
    return chunk if isinstance(chunk, tuple) else (chunk.first, chunk.text())


def header_line(chunk: tuple[int, str], game: int) -> int:
    """The number of the header line of the chunk's game `game` (counted from 0)."""
    first, text = chunk
    count = -1
    for number, line in enumerate(text.split("\n"), start=first):
        if line.lstrip().startswith("{") and '"format"' in line:
            try:
                data = orjson.loads(line)
            except orjson.JSONDecodeError:
                continue
            if data.__class__ is dict and "format" in data:
                count += 1
                if count == game:
                    return number
    return first


def _kept(batch: Batch, keep: list[int]) -> Batch:
    """The batch with only the games `keep` (local indexes), numbered from 0 again."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from loom.replay.columns import Batch

    wanted = pa.array(keep, pa.int32())
    tables: dict[str, pa.Table] = {}
    for name, table in batch.tables.items():
        key = "id" if name == "games" else "game_id"
        position = pc.index_in(table.column(key), value_set=wanted)
        rows = table.filter(pc.is_valid(position))
        at = rows.schema.get_field_index(key)
        renumbered = pc.cast(pc.index_in(rows.column(key), value_set=wanted), rows.schema.field(key).type)
        tables[name] = rows.set_column(at, key, renumbered)
    return Batch(len(keep), tables)


class Unchecked:
    """An import that stores its games as they come, duplicates or not (the library's default: a test, a bench)."""

    lines = 0

    def watch(self, chunks: Iterable[Any]) -> Iterator[Any]:
        """The chunks, counted for the progress."""
        for chunk in chunks:
            self.lines = _lines_of(chunk)
            yield chunk

    def admit(self, batch: Batch) -> Batch:
        """The batch, whole."""
        return batch
