"""The one parser of an event's log line (docs/log-format.md), used by `logs import` and by the service alike.

A line is a JSON object: the envelope (`seq`, `turn`, `actor`, `type`, `v`) and the event's own fields. Each is checked
against its declared type before any rule sees it (events/fields.py), so a value of the wrong kind is the writer's
error, said as such, and an exception from the rules is always a bug of the rules.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import MISSING, fields
from types import NoneType, UnionType
from typing import Annotated, Any, Final, NamedTuple, Union, get_args, get_origin, get_type_hints

from annotated_types import Ge, Lt, MinLen
from pydantic import ValidationError

from loom.engine.state import maker
from loom.events.base import MAX_TEXT, MalformedEvent, Payload
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


Reader = Callable[[dict[str, Any]], "tuple[Any, Any, Any, int | None, Payload] | None"]
"""A line of one event type as (seq, turn, actor, v, payload), or None if it is not plain (see `reader`)."""


class _Known(NamedTuple):
    """What parsing a line of one event type needs, looked up once per type instead of once per line: its class,
    and its plain-line reader or else its line validator (pydantic's: made only for a type that has no reader, for
    making one costs a few milliseconds, as much as a thousand lines take to read)."""

    cls: type[Payload]
    validate: Callable[[Any], dict[str, Any]] | None
    read: Reader | None


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
        read = reader(cls)
        validate = line_validator(cls).validate_python if read is None else None
        known = _KNOWN[type_name] = _Known(cls, validate, read)
    return known


class Readers(dict[str, "Reader | None"]):
    """The `reader` of each event type of one game by its name (None for a type with none, or of no such name, or
    of another game), found on first sight of each name: `readers[type_name]` for a `type_name` that is a str."""

    def __init__(self, game: str) -> None:
        super().__init__()
        self.game = game

    def __missing__(self, type_name: str) -> Reader | None:
        known = _known(type_name) if type_name.startswith(self.game + ".") else None
        read = self[type_name] = known.read if known is not None else None
        return read


# --- The plain way: a line checked in Python by code made from the class's annotations, without pydantic ----------
#
# pydantic's strict validator of a line (events/fields.py) costs about 1.5 us with the dict it returns and the
# payload's `__init__`: a third of what the rules take. `reader(cls)` makes one function per event type that accepts
# exactly the plain lines (every value of its declared type, as JSON gives it: lists for tuples, each item strictly
# of its type, texts of at most MAX_TEXT characters) and says None for any other line, which then takes the
# validator's way: that way alone refuses, so every refusal keeps its words. A line the reader accepts is one the
# validator accepts, giving an equal payload (tests/unit/test_plain_lines.py tries both on many lines).


class _Unplain(Exception):
    """An annotation the plain way does not know: that type's lines all take the validator's way."""


def _plain_check(hint: Any, src: str, dst: str, depth: int, out: list[str], pad: str) -> None:
    """Append to `out` the lines that check the value `src` against `hint` (returning None from the reader if it
    is not plain) and set `dst` to it as the payload holds it (lists as tuples)."""
    origin, args = get_origin(hint), get_args(hint)
    low: Any = None
    high: Any = None
    at_least: Any = 0
    if origin is Annotated:
        hint = args[0]
        for meta in args[1:]:
            if isinstance(meta, Ge):
                low = meta.ge
            elif isinstance(meta, Lt):
                high = meta.lt
            elif isinstance(meta, MinLen):
                at_least = meta.min_length
            else:
                raise _Unplain(repr(meta))
        origin, args = get_origin(hint), get_args(hint)
    if hint is str:
        if low is not None or high is not None:
            raise _Unplain(repr(hint))
        if at_least.__class__ is not int:
            raise _Unplain(repr(hint))
        short = f" or len({src}) < {at_least}" if at_least else ""
        out.append(f"{pad}if {src}.__class__ is not str or len({src}) > {MAX_TEXT}{short}:")
        out.append(f"{pad}    return None")
        if dst != src:
            out.append(f"{pad}{dst} = {src}")
        return
    if hint is int:
        if at_least or any(bound is not None and bound.__class__ is not int for bound in (low, high)):
            raise _Unplain(repr(hint))
        bounds = ""
        if low is not None:
            bounds += f" or {src} < {low}"
        if high is not None:
            bounds += f" or {src} >= {high}"
        out.append(f"{pad}if {src}.__class__ is not int{bounds}:")
        out.append(f"{pad}    return None")
        if dst != src:
            out.append(f"{pad}{dst} = {src}")
        return
    if low is not None or high is not None or at_least:
        raise _Unplain(repr(hint))
    if origin in (Union, UnionType) and len(args) == 2 and NoneType in args:
        other = args[0] if args[1] is NoneType else args[1]
        out.append(f"{pad}if {src} is None:")
        out.append(f"{pad}    {dst} = None")
        out.append(f"{pad}else:")
        _plain_check(other, src, dst, depth, out, pad + "    ")
        return
    if origin is tuple and len(args) == 2 and args[1] is Ellipsis:
        item = f"_i{depth}"
        out.append(f"{pad}if {src}.__class__ is not list:")
        out.append(f"{pad}    return None")
        if _is_scalar(args[0]):  # checked in place, the list made a tuple as it is
            out.append(f"{pad}for {item} in {src}:")
            _plain_check(args[0], item, item, depth + 1, out, pad + "    ")
            out.append(f"{pad}{dst} = tuple({src})")
        else:
            made = f"_l{depth}"
            out.append(f"{pad}{made} = []")
            out.append(f"{pad}for {item} in {src}:")
            _plain_check(args[0], item, f"_o{depth}", depth + 1, out, pad + "    ")
            out.append(f"{pad}    {made}.append(_o{depth})")
            out.append(f"{pad}{dst} = tuple({made})")
        return
    if origin is tuple and args and Ellipsis not in args and args != ((),):
        out.append(f"{pad}if {src}.__class__ is not list or len({src}) != {len(args)}:")
        out.append(f"{pad}    return None")
        parts = []
        for index, arg in enumerate(args):
            part = f"_t{depth}_{index}"
            _plain_check(arg, f"{src}[{index}]", part, depth + 1, out, pad)
            parts.append(part)
        out.append(f"{pad}{dst} = ({', '.join(parts)},)")
        return
    raise _Unplain(repr(hint))


def _is_scalar(hint: Any) -> bool:
    """Whether a value of `hint` is held as JSON gives it (no list in it to make a tuple)."""
    if get_origin(hint) is Annotated:
        hint = get_args(hint)[0]
    if hint in (str, int):
        return True
    origin, args = get_origin(hint), get_args(hint)
    return origin in (Union, UnionType) and all(arg is NoneType or _is_scalar(arg) for arg in args)


_ENVELOPE_CHECKS = (
    ("seq", "if seq.__class__ is not int:"),
    ("turn", "if turn.__class__ is not int:"),
    ("actor", "if actor is not None and actor.__class__ is not int:"),
)


def _whole(cls: type[Payload], hints: dict[str, Any]) -> list[str]:
    """The reader's first lines: a line with every key of the envelope and of `cls` (as an export writes it) looked
    up by subscript, its count of keys telling that it has no other."""
    names = [field.name for field in fields(cls)]
    out = [f"    if len(data) == {5 + len(names)}:", "        try:"]
    out += [f"            {key} = data[{key!r}]" for key in ("seq", "turn", "actor", "v")]
    out += [f"            f{index} = data[{name!r}]" for index, name in enumerate(names)]
    out += ["        except KeyError:", "            pass", "        else:"]
    out += ["            if seq.__class__ is not int or turn.__class__ is not int:", "                return None"]
    out += ["            if actor is not None and actor.__class__ is not int:", "                return None"]
    out += [f"            if v.__class__ is not int or v != {int(cls.VERSION)}:", "                return None"]
    for index, name in enumerate(names):
        _plain_check(hints[name], f"f{index}", f"f{index}", 0, out, "            ")
    return [*out, f"            return seq, turn, actor, v, _make({_MADE})"]


_MADE = "{made}"  # where the reader's source names the payload's fields, filled in by `reader`


def reader(cls: type[Payload]) -> Reader | None:
    """A function reading a plain line of `cls` (its `type` already known to be `cls.TYPE`) without pydantic; None
    if an annotation of `cls` is of a kind the plain way does not know."""
    hints = get_type_hints(cls, include_extras=True)
    try:
        out = ["def read(data):", *_whole(cls, hints), "    n = 1"]  # n: the keys known good, `type` the first
    except _Unplain:
        return None
    for key, test in _ENVELOPE_CHECKS:
        out += [f"    {key} = data.get({key!r}, _ABSENT)", f"    if {key} is not _ABSENT:", f"        {test}"]
        out += ["            return None", "        n += 1"]
    out += ["    v = data.get('v', _ABSENT)", "    if v is _ABSENT:", "        v = None"]
    out += [f"    elif v.__class__ is not int or v != {int(cls.VERSION)}:", "        return None", "    else:"]
    out += ["        n += 1"]
    scope: dict[str, Any] = {"_ABSENT": ABSENT}
    values = []
    try:
        for index, field in enumerate(fields(cls)):
            value = f"f{index}"
            out.append(f"    {value} = data.get({field.name!r}, _ABSENT)")
            if field.default_factory is not MISSING:
                raise _Unplain("a default factory")
            if field.default is MISSING:
                out += [f"    if {value} is _ABSENT:", "        return None"]
                _plain_check(hints[field.name], value, value, 0, out, "    ")
            else:
                scope[f"_default{index}"] = field.default
                out += [f"    if {value} is _ABSENT:", f"        {value} = _default{index}", "    else:"]
                _plain_check(hints[field.name], value, value, 0, out, "        ")
                out.append("        n += 1")
            if field.default is MISSING:
                out.append("    n += 1")
            values.append((field.name, value))
    except _Unplain:
        return None
    out.append("    if n != len(data):")  # a key of no field
    out.append("        return None")
    make = maker(cls)
    if make is cls:  # no quicker way to make one: the dataclass's own __init__, by keyword
        scope["_make"] = cls
        made = ", ".join(f"{name}={value}" for name, value in values)
    else:
        scope["_make"] = make
        made = ", ".join(value for _, value in values)
    out.append(f"    return seq, turn, actor, v, _make({made})")
    source = "\n".join(out).replace(_MADE, made) + "\n"
    exec(source, scope)  # noqa: S102 - made from the class's own field names and annotations only
    read = scope["read"]
    read.source = source  # what it checks, for a reader of the code
    return read  # type: ignore[no-any-return]


def parse_event(data: Any, game: str | None = None) -> tuple[Envelope, Payload]:
    """A log line's JSON object as its envelope and its payload, every key checked against its type; `game`, if
    given, is the game the event must belong to. MalformedEvent says what is wrong, in one line."""
    # The way of nearly every line (a known type of the game, at the current version, every key of its type) in as
    # few steps as may be; any other line, wrong or not, takes the full way below, which says what is wrong.
    type_name = data.get("type") if data.__class__ is dict else None
    known = (_KNOWN.get(type_name) or _known(type_name)) if type_name.__class__ is str else None
    if known is not None and (game is None or type_name.startswith(game + ".")):  # type: ignore[union-attr]
        read = known.read
        if read is not None:
            plain = read(data)
            if plain is not None:
                seq, turn, actor, v, payload = plain
                return _tuple(Envelope, (seq, turn, actor, type_name, v)), payload
            return _parse_event(data, game)
        v = data.get("v")
        if known.validate is not None and (v is None or (v.__class__ is int and v == known.cls.VERSION)):
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
