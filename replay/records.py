"""The rows the store reads and writes, by name: what callers get from `Store` and hand to it.

Read rows are built by column name (`replay.reading.build`), so a row never depends on the order of a SELECT list;
the tuples of writes (`WinChance`, `KeyMoment`, `StoredResult`) name their fields in the tables' order.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, NamedTuple

from loom.events.base import HEADER_TAGS as TAG_NAMES  # in the order of their columns: played, place, ...
from loom.replay.facts import Facts
from loom.replay.snapshots import Snapshot


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
    fingerprint: str | None = None
    played: str | None = None
    place: str | None = None
    event: str | None = None
    round: str | None = None
    notes: str | None = None
    seats: tuple[Seat, ...] = ()

    def tags(self) -> dict[str, str]:
        """The log header's tags that are set, by their name in the log (`date` is the day played)."""
        values = (self.played, self.place, self.event, self.round, self.notes)
        return {key: value for key, value in zip(TAG_NAMES, values) if value is not None}


def game_info(names: Sequence[str], row: Sequence[Any]) -> GameInfo:
    """A games row, its values matched to GameInfo's fields by column name."""
    return GameInfo(**dict(zip(names, row)))


class ResultInfo(NamedTuple):
    """A row of the results projection (of one game: the game id is the caller's)."""

    seat: int
    score: int
    rank: int
    winner: bool
    breakdown: str


class StoredResult(NamedTuple):
    """A row of the results projection with its game, as `logs rebuild` writes them."""

    game_id: int
    seat: int
    score: int
    rank: int
    winner: bool
    breakdown: str


class WinChance(NamedTuple):
    """A point of a game's win-chance curve (`logs analyse`): a seat's chance after event seq."""

    seq: int
    seat: int
    turn: int
    chance: float
    margin: float
    rollouts: int
    bot: str


class KeyMoment(NamedTuple):
    """A decision where a seat's chance moved most, and the best alternative the search found (actions as JSON)."""

    seq: int
    turn: int
    seat: int
    before: float
    after: float
    action: str
    best_action: str | None
    best_chance: float | None


class GameKind(NamedTuple):
    """A game's id, kind and fork (what `logs rebuild` needs of every game)."""

    id: int
    game: str
    fork_seq: int | None


class Segment(NamedTuple):
    """A part of a game's lineage: game_id's own events with seq in (after, upto]."""

    game_id: int
    after: int
    upto: int


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
    """A game to store: its row, seats, events (as stored rows) and projections; `facts` None leaves its facts to
    the projector (replay/projector.py)."""

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
    snapshots: list[Snapshot] = field(default_factory=list)
    results: list[ResultInfo] = field(default_factory=list)
    facts: Facts | None = None
    tags: dict[str, str] = field(default_factory=dict)
    """The log header's tags (events/base.py HEADER_TAGS) that are set."""
