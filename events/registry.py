"""Stable event type names <-> payload classes, JSON (de)serialisation and upcasters for old schema versions.

A payload decoded from outside (a log file, an API client) is checked field by field against the types its class
declares, strictly (no "7" for 7, no true for 1, no 1.0 for 1): pydantic validates a TypedDict made from the class's
annotations, so a field of the wrong kind is refused here with its name, never met by the rules.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import MISSING, fields
from typing import Any, NotRequired, get_type_hints

import orjson
from pydantic import ConfigDict, TypeAdapter, ValidationError
from typing_extensions import TypedDict

from events.base import ENVELOPE_KEYS, MAX_DEPTH, MAX_TEXT, MalformedEvent, Payload

Upcaster = Callable[[dict[str, Any]], dict[str, Any]]

_CLASSES: dict[str, type[Payload]] = {}
_FIELDS: dict[str, frozenset[str]] = {}
_REQUIRED: dict[str, frozenset[str]] = {}
_UPCASTERS: dict[tuple[str, int], Upcaster] = {}
_ADAPTERS: dict[str, TypeAdapter[dict[str, Any]]] = {}  # built on first use: building all costs CLI start-up time

_STRICT = ConfigDict(strict=True, extra="forbid", str_max_length=MAX_TEXT)


def register(cls: type[Payload]) -> type[Payload]:
    """Class decorator: make a payload class known by its stable `TYPE` name."""
    if not cls.TYPE or cls.TYPE in _CLASSES:
        raise ValueError(f"event type name {cls.TYPE!r} is empty or taken")
    names = frozenset(f.name for f in fields(cls))
    if names & ENVELOPE_KEYS:
        raise ValueError(f"{cls.TYPE}: payload fields may not be named {sorted(names & ENVELOPE_KEYS)}")
    _CLASSES[cls.TYPE] = cls
    _FIELDS[cls.TYPE] = names
    _REQUIRED[cls.TYPE] = frozenset(
        f.name for f in fields(cls) if f.default is MISSING and f.default_factory is MISSING
    )
    return cls


def upcaster(type_name: str, from_version: int) -> Callable[[Upcaster], Upcaster]:
    """Register a function turning a payload of `from_version` into one of `from_version + 1`."""

    def decorate(fn: Upcaster) -> Upcaster:
        _UPCASTERS[(type_name, from_version)] = fn
        return fn

    return decorate


def payload_class(type_name: str) -> type[Payload]:
    """The payload class registered under `type_name`."""
    try:
        return _CLASSES[type_name]
    except KeyError:
        raise MalformedEvent(f"unknown event type {shown(type_name)}") from None


def _adapter(cls: type[Payload]) -> TypeAdapter[dict[str, Any]]:
    """A strict validator of the payload's fields as JSON gives them (arrays already made tuples)."""
    hints = get_type_hints(cls, include_extras=True)
    required = _REQUIRED[cls.TYPE]
    shape = {f.name: hints[f.name] if f.name in required else NotRequired[hints[f.name]] for f in fields(cls)}
    typed = TypedDict(f"{cls.__name__}Fields", shape)  # type: ignore[operator]
    typed.__pydantic_config__ = _STRICT  # type: ignore[attr-defined]
    return TypeAdapter(typed)


def shown(value: Any) -> str:
    """A value from a log as an error message may show it: short, one line, never a whole nested structure."""
    if value is None or value is True or value is False:
        return "null" if value is None else str(value).lower()
    if value.__class__ is int:  # str() of a huge int is slow, and refused past 4,300 digits
        return str(value) if value.bit_length() <= 100 else "a number too long to show"
    if value.__class__ is float:
        return repr(value)
    if value.__class__ is str:
        return repr(value) if len(value) <= 40 else repr(value[:40]) + "..."
    if isinstance(value, list | tuple):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return f"a {type(value).__name__}"


_KINDS = {
    "string_type": "a string",
    "int_type": "a whole number",
    "tuple_type": "a list",
    "none_required": "null",
    "dict_type": "an object",
}


def _where(loc: tuple[int | str, ...]) -> str:
    return "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in loc).lstrip(".")


def _complaint(type_name: str, error: Any) -> str:
    """Pydantic's first error as one sentence naming the field (`motto.played: cards[2] must be a string, not 7`)."""
    kind, loc, value, ctx = error["type"], error["loc"], error["input"], error.get("ctx", {})
    where = _where(loc)
    if kind in _KINDS:
        return f"{type_name}: {where} must be {_KINDS[kind]}, not {shown(value)}"
    if kind == "missing":  # an item of a fixed-length list (a missing field is found before pydantic is asked)
        return f"{type_name}: {_where(loc[:-1])} has too few items ({len(value)})"
    if kind == "too_long":
        return f"{type_name}: {where} has too many items ({ctx['actual_length']}; at most {ctx['max_length']})"
    if kind == "string_too_long":
        return f"{type_name}: {where} is longer than {ctx['max_length']} characters"
    if kind == "string_too_short":
        return f"{type_name}: {where} is empty"
    if kind == "greater_than_equal":
        return f"{type_name}: {where} must be at least {ctx['ge']}, not {shown(value)}"
    if kind == "less_than":
        bound = ctx["lt"]
        shown_bound = f"2**{bound.bit_length() - 1}" if bound > 2**32 and bound & (bound - 1) == 0 else str(bound)
        return f"{type_name}: {where} must be less than {shown_bound}, not {shown(value)}"
    if kind == "extra_forbidden":
        return f"{type_name} has no field {loc[0]!r}"
    return f"{type_name}: {where}: {error['msg'][:1].lower()}{error['msg'][1:]}"


class _TooDeep(Exception):
    pass


def _frozen(value: Any, depth: int) -> Any:
    """JSON arrays become tuples, so a decoded event is as immutable as a new one; nesting is bounded on the way
    (without recursing past MAX_DEPTH, so no input reaches Python's recursion limit)."""
    if depth > MAX_DEPTH:
        raise _TooDeep
    if value.__class__ is list:
        return tuple([_frozen(v, depth + 1) if v.__class__ is list or v.__class__ is dict else v for v in value])
    for v in value.values():  # an object: only measured, the field types will refuse it
        if v.__class__ is list or v.__class__ is dict:
            _frozen(v, depth + 1)
    return value


def _upcast(type_name: str, data: dict[str, Any], version: int, current: int) -> dict[str, Any]:
    if version > current:
        raise MalformedEvent(f"{type_name} has schema version {version}; this Loom reads up to {current}")
    while version < current:
        step = _UPCASTERS.get((type_name, version))
        if step is None:
            raise MalformedEvent(f"{type_name}: schema version {version} can no longer be read")
        try:
            data = step(data)
        except KeyError as missing:  # the old version's own field is absent
            raise MalformedEvent(f"{type_name} version {version} needs field {missing.args[0]!r}") from None
        version += 1
    return data


def decode_payload(type_name: str, data: dict[str, Any], version: int | None = None) -> Payload:
    """Build a payload from its JSON fields (a dict it may change), upcasting an old schema version first; every
    field is checked against its declared type. MalformedEvent says which field is wrong and why."""
    cls = payload_class(type_name)
    if version is not None and version != cls.VERSION:
        data = _upcast(type_name, data, version, cls.VERSION)
    keys = data.keys()
    if not (keys <= _FIELDS[type_name] and _REQUIRED[type_name] <= keys):
        unknown, missing = sorted(keys - _FIELDS[type_name]), sorted(_REQUIRED[type_name] - keys)
        raise MalformedEvent(
            f"{type_name} has no field {shown(unknown[0])}" if unknown else f"{type_name} needs field {missing[0]!r}"
        )
    for key, value in data.items():
        if value.__class__ is list or value.__class__ is dict:
            try:
                data[key] = _frozen(value, 2)  # level 1 is the line's own object
            except _TooDeep:
                raise MalformedEvent(
                    f"{type_name}: {key} is nested too deep (a line may nest {MAX_DEPTH} levels of arrays and objects)"
                ) from None
    adapter = _ADAPTERS.get(type_name) or _ADAPTERS.setdefault(type_name, _adapter(cls))
    try:
        checked = adapter.validate_python(data)
    except ValidationError as error:
        raise MalformedEvent(_complaint(type_name, error.errors(include_url=False)[0])) from None
    return cls(**checked)


def encode_payload(payload: Payload) -> str:
    """The payload's fields as compact JSON text."""
    return orjson.dumps(payload).decode()


def _trusted(value: Any) -> Any:
    if value.__class__ is list:
        return tuple([_trusted(v) for v in value])
    return value


def decode_payload_text(type_name: str, text: str, version: int) -> Payload:
    """Decode a payload stored as JSON text (the trusted path of the event store: checked when it was written)."""
    cls = _CLASSES[type_name]
    data = orjson.loads(text)
    if version != cls.VERSION:
        return decode_payload(type_name, data, version)
    for key, value in data.items():
        if value.__class__ is list:
            data[key] = _trusted(value)
    return cls(**data)
