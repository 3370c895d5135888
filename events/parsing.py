"""The one parser of an event's log line (docs/log-format.md), used by `logs import` and by the service alike.

A line is a JSON object: the envelope (`seq`, `turn`, `actor`, `type`, `v`) and the event's own fields. Each is checked
against its declared type before any rule sees it, so a value of the wrong kind is the writer's error, said as such,
and an exception from the rules is always a bug of the rules.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Final

from events.base import MalformedEvent, Payload
from events.registry import decode_payload, shown


class _Absent:
    """An envelope key the line leaves out: the rules decide it, and nothing is checked."""

    def __repr__(self) -> str:
        return "ABSENT"


ABSENT: Final = _Absent()
_TYPE_NAME = re.compile(r"[a-z][a-z0-9-]*\.[a-z0-9_-]+")


@dataclass(frozen=True, slots=True)
class Envelope:
    """What a line says about its event besides the payload; each of `seq`, `turn`, `actor` may be ABSENT."""

    seq: int | _Absent
    turn: int | _Absent
    actor: int | None | _Absent
    type: str
    v: int | None  # None: the current schema version

    def disagreement(self, seq: int, turn: int, actor: int | None) -> str | None:
        """Which of `seq`, `turn`, `actor` the line gives differently from the rules, and how; None if none."""
        for key, given, want in (("seq", self.seq, seq), ("turn", self.turn, turn), ("actor", self.actor, actor)):
            if given is not ABSENT and given != want:
                return f"{key} is {shown(given)}, but the rules make it {shown(want)}"
        return None


def _whole(value: Any) -> bool:
    return value.__class__ is int  # not bool, not float: JSON `true` and `1.0` are not event numbers


def _envelope(data: dict[str, Any], game: str | None) -> Envelope:
    type_name = data.pop("type", ABSENT)
    if type_name is ABSENT:
        raise MalformedEvent("an event needs its 'type'")
    if type_name.__class__ is not str:
        raise MalformedEvent(f"type must be a string, not {shown(type_name)}")
    if game is not None and not type_name.startswith(game + "."):
        plain = len(type_name) <= 60 and _TYPE_NAME.fullmatch(type_name)  # else quoted, and cut short if long
        raise MalformedEvent(f"{type_name if plain else shown(type_name)} is not an event of {game}")
    seq, turn, actor = data.pop("seq", ABSENT), data.pop("turn", ABSENT), data.pop("actor", ABSENT)
    v = data.pop("v", ABSENT)
    for key, value in (("seq", seq), ("turn", turn)):
        if value is not ABSENT and not _whole(value):
            raise MalformedEvent(f"{key} must be a whole number, not {shown(value)}")
    if actor is not ABSENT and actor is not None and not _whole(actor):
        raise MalformedEvent(f"actor must be a seat number or null, not {shown(actor)}")
    if v is not ABSENT and not (_whole(v) and v >= 1):
        raise MalformedEvent(f"v must be a schema version, a whole number from 1, not {shown(v)}")
    return Envelope(seq, turn, actor, type_name, None if v is ABSENT else v)


def parse_event(data: Any, game: str | None = None) -> tuple[Envelope, Payload]:
    """A log line's JSON object as its envelope and its payload, every field checked against its type; `game`, if
    given, is the game the event must belong to. MalformedEvent says what is wrong, in one line."""
    if not isinstance(data, dict):
        raise MalformedEvent(f"an event is a JSON object, not {shown(data)}")
    fields = dict(data)  # the caller's dict stays as given
    envelope = _envelope(fields, game)
    return envelope, decode_payload(envelope.type, fields, envelope.v)
