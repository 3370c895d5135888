"""The one parser of an event's log line (docs/log-format.md), used by `logs import` and by the service alike.

A line is a JSON object: the envelope (`seq`, `turn`, `actor`, `type`, `v`) and the event's own fields. Each is checked
against its declared type before any rule sees it (events/fields.py), so a value of the wrong kind is the writer's
error, said as such, and an exception from the rules is always a bug of the rules.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, Final, NamedTuple

from pydantic import ValidationError

from loom.events.base import MalformedEvent, Payload
from loom.events.fields import line_validator, shown
from loom.events.registry import checked_line, payload_class, upcast


class _Absent:
    """An envelope key the line leaves out: the rules decide it, and nothing is checked."""

    def __repr__(self) -> str:
        return "ABSENT"


ABSENT: Final = _Absent()
_TYPE_NAME = re.compile(r"[a-z][a-z0-9-]*\.[a-z0-9_-]+")


class Envelope(NamedTuple):
    """What a line says about its event besides the payload; each of `seq`, `turn`, `actor` may be ABSENT."""

    seq: int | _Absent
    turn: int | _Absent
    actor: int | None | _Absent
    type: str
    v: int | None  # None: left out, so the current schema version

    def disagreement(self, seq: int, turn: int, actor: int | None) -> str | None:
        """Which of `seq`, `turn`, `actor` the line gives differently from the rules, and how; None if none."""
        for key, given, want in (("seq", self.seq, seq), ("turn", self.turn, turn), ("actor", self.actor, actor)):
            if given is not ABSENT and given != want:
                return f"{key} is {shown(given)}, but the rules make it {shown(want)}"
        return None


def _type_of(data: dict[str, Any], game: str | None) -> type[Payload]:
    type_name = data.get("type", ABSENT)
    if type_name is ABSENT:
        raise MalformedEvent("an event needs its 'type'")
    if type_name.__class__ is not str:
        raise MalformedEvent(f"type must be a string, not {shown(type_name)}")
    if game is not None and not type_name.startswith(game + "."):
        plain = len(type_name) <= 60 and _TYPE_NAME.fullmatch(type_name)  # else quoted, and cut short if long
        raise MalformedEvent(f"{type_name if plain else shown(type_name)} is not an event of {game}")
    return payload_class(type_name)


def _upcast_line(cls: type[Payload], data: dict[str, Any], v: Any) -> dict[str, Any]:
    """The line `data` of schema version `v` (not the current one) with its fields upcast to the current one."""
    if v.__class__ is not int or v < 1:
        raise MalformedEvent(f"v must be a schema version, a whole number from 1, not {shown(v)}")
    fields = {key: value for key, value in data.items() if key not in ("seq", "turn", "actor", "type", "v")}
    envelope = {key: value for key, value in data.items() if key in ("seq", "turn", "actor", "type")}
    return envelope | upcast(cls.TYPE, fields, v, cls.VERSION)


class _Known(NamedTuple):
    """What parsing a line of one event type needs, looked up once per type instead of once per line."""

    cls: type[Payload]
    validate: Callable[[Any], dict[str, Any]]


_KNOWN: dict[str, _Known] = {}
_tuple = tuple.__new__


def _known(type_name: str) -> _Known | None:
    """The registered type `type_name`'s class and line validator; None if no type has that name."""
    known = _KNOWN.get(type_name)
    if known is None:
        try:
            cls = payload_class(type_name)
        except MalformedEvent:
            return None
        known = _KNOWN[type_name] = _Known(cls, line_validator(cls).validate_python)
    return known


def parse_event(data: Any, game: str | None = None) -> tuple[Envelope, Payload]:
    """A log line's JSON object as its envelope and its payload, every key checked against its type; `game`, if
    given, is the game the event must belong to. MalformedEvent says what is wrong, in one line."""
    # The way of nearly every line (a known type of the game, at the current version, every key of its type) in as
    # few steps as may be; any other line, wrong or not, takes the full way below, which says what is wrong.
    type_name = data.get("type") if data.__class__ is dict else None
    known = (_KNOWN.get(type_name) or _known(type_name)) if type_name.__class__ is str else None
    if known is not None and (game is None or type_name.startswith(game + ".")):  # type: ignore[union-attr]
        v = data.get("v")
        if v is None or (v.__class__ is int and v == known.cls.VERSION):
            try:
                checked = known.validate(data)
            except ValidationError:
                pass  # said below
            else:
                pop = checked.pop
                # tuple.__new__: what Envelope(...) does, in half the time (it is made for every line)
                envelope = _tuple(
                    Envelope, (pop("seq", ABSENT), pop("turn", ABSENT), pop("actor", ABSENT), pop("type"), v)
                )
                if v is not None:
                    del checked["v"]
                return envelope, known.cls(**checked)
    return _parse_event(data, game)


def _parse_event(data: Any, game: str | None) -> tuple[Envelope, Payload]:
    if not isinstance(data, dict):
        raise MalformedEvent(f"an event is a JSON object, not {shown(data)}")
    cls = _type_of(data, game)
    v = data.get("v")
    if v is not None and (v.__class__ is not int or v != cls.VERSION):
        checked = checked_line(cls, _upcast_line(cls, data, v))
    else:
        checked = checked_line(cls, data)  # a new dict: the caller's stays as given
    pop = checked.pop
    envelope = Envelope(pop("seq", ABSENT), pop("turn", ABSENT), pop("actor", ABSENT), pop("type"), v)
    checked.pop("v", None)
    return envelope, cls(**checked)
