"""The event envelope, the base class of every event payload, and the project's errors."""

from __future__ import annotations

from dataclasses import dataclass, fields
from datetime import date
from typing import Annotated, Any, ClassVar

from annotated_types import Ge, Lt, MinLen

ENVELOPE_ORDER = ("seq", "turn", "actor", "type", "v")
"""The keys of a log line that are not the event's own fields (docs/log-format.md)."""
ENVELOPE_KEYS = frozenset(ENVELOPE_ORDER)

# Limits on what a log line may hold, generous for any real game and said in every refusal (docs/log-format.md).
MAX_LINE = 1 << 20
"""The most characters in one line of a log file (1 MiB of ASCII); longer lines are refused unread."""
MAX_TEXT = 100
"""The most characters in any text of an event: a player's name, a card, a place."""
MAX_DEPTH = 16
"""The deepest nesting of arrays and objects in a line, the line's own object counting as level 1."""

HEADER_TAGS = ("date", "place", "event", "round", "notes")
"""A log header's optional tags, like PGN's (docs/log-format.md): the day the game was played (ISO 8601,
YYYY-MM-DD), where, at which event and round, and free notes. Stored with the game, exported as given."""
MAX_TAG = {"date": 10, "place": MAX_TEXT, "event": MAX_TEXT, "round": 20, "notes": 1000}
"""The most characters of each tag's text."""

PlayerName = Annotated[str, MinLen(1)]
"""A seat's name: not empty (and, like every text, at most MAX_TEXT characters)."""
Seed = Annotated[int, Ge(0), Lt(2**63)]
"""The seed of a game's later chance: a whole number the store keeps in 64 bits."""


class LoomError(Exception):
    """An error a user can act on: shown as one line, exit code 2."""


class IllegalAction(LoomError):
    """An action or event that the rules of the game do not allow in this position."""


class MalformedEvent(LoomError):
    """An event that cannot be decoded: unknown type, missing or unexpected fields."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Payload:
    """What happened: subclasses are frozen dataclasses with a stable `TYPE` name and a `VERSION`."""

    TYPE: ClassVar[str] = ""
    VERSION: ClassVar[int] = 1
    BY_CHANCE: ClassVar[bool] = False

    def to_json(self) -> dict[str, Any]:
        """The payload's fields as JSON-ready values (tuples become lists when dumped)."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


@dataclass(frozen=True, slots=True, kw_only=True)
class GameStarted(Payload):
    """The base of every game's first event: the seats in turn order (seat 0 moves first) and the seed of the chance
    the log does not fix (None in a hand-written log, where import draws one). Each game's subclass adds its own
    fields after these and keeps its own `TYPE`."""

    players: tuple[PlayerName, ...]
    seed: Seed | None = None


def checked_tags(data: dict[str, Any]) -> dict[str, str]:
    """The header tags of `data` (a header line's object) that are set, checked: strings within MAX_TAG, `date` a
    real day written YYYY-MM-DD; a LoomError says which and why."""
    tags: dict[str, str] = {}
    for key in HEADER_TAGS:
        value = data.get(key)
        if value is None:
            continue
        if value.__class__ is not str:
            raise LoomError(f"{key} must be a string or null, not {type(value).__name__}")
        if not 0 < len(value) <= MAX_TAG[key]:
            raise LoomError(f"{key} must be a text of 1 to {MAX_TAG[key]} characters")
        if not value.isprintable():  # no newline, tab nor terminal escape: one line of text wherever it is shown
            raise LoomError(f"{key} must be printable text on one line (no control characters)")
        if key == "date":
            check_date(value)
        tags[key] = value
    return tags


def check_date(text: str) -> date:
    """The day `text` names, written as ISO 8601 says (YYYY-MM-DD); a LoomError otherwise."""
    try:
        if len(text) != 10 or text[4] != "-" or text[7] != "-":
            raise ValueError
        return date.fromisoformat(text)
    except ValueError:
        raise LoomError("date must be the day played as YYYY-MM-DD (ISO 8601), such as 2026-11-28") from None


def started(payload: Payload) -> GameStarted:
    """`payload` as the first event of a game, which every game's rules require to be its `GameStarted`."""
    if not isinstance(payload, GameStarted):
        raise MalformedEvent(f"a game begins with its started event, not {payload.TYPE}")
    return payload


@dataclass(frozen=True, slots=True)
class Event:
    """A numbered fact of one game: seq counts from 1 without gaps; turn 0 is the setup."""

    game_id: int
    seq: int
    turn: int
    actor: int | None  # None for chance: a deal, a draw from the deck, a reshuffle
    payload: Payload

    @property
    def type(self) -> str:
        """The payload's stable type name."""
        return self.payload.TYPE

    @property
    def schema_version(self) -> int:
        """The version of the payload's schema that this event was written with."""
        return self.payload.VERSION
