"""Stable event type names <-> payload classes, JSON (de)serialisation and upcasters for old schema versions.

A payload decoded from outside (a log file, an API client) is checked key by key against the types its class
declares (events/fields.py), so a field of the wrong kind is refused here with its name, never met by the rules.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields
from typing import Any

import orjson
from pydantic import ValidationError
from pydantic_core import SchemaValidator

from loom.events.base import ENVELOPE_KEYS, MalformedEvent, Payload
from loom.events.fields import complaint, line_validator, shown

Upcaster = Callable[[dict[str, Any]], dict[str, Any]]

_CLASSES: dict[str, type[Payload]] = {}
_UPCASTERS: dict[tuple[str, int], Upcaster] = {}
_VALIDATORS: dict[str, SchemaValidator] = {}  # made on first use: making them all would slow every command's start


def register(cls: type[Payload]) -> type[Payload]:
    """Class decorator: make a payload class known by its stable `TYPE` name."""
    if not cls.TYPE or cls.TYPE in _CLASSES:
        raise ValueError(f"event type name {cls.TYPE!r} is empty or taken")
    names = frozenset(f.name for f in fields(cls))
    if names & ENVELOPE_KEYS:
        raise ValueError(f"{cls.TYPE}: payload fields may not be named {sorted(names & ENVELOPE_KEYS)}")
    _CLASSES[cls.TYPE] = cls
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


def checked_line(cls: type[Payload], data: dict[str, Any]) -> dict[str, Any]:
    """A new dict of the line `data` (envelope keys and the fields of `cls`, at its current schema version), every
    key checked against its type and JSON arrays made tuples; MalformedEvent says the first thing wrong."""
    validator = _VALIDATORS.get(cls.TYPE) or _VALIDATORS.setdefault(cls.TYPE, line_validator(cls))
    try:
        return validator.validate_python(data)  # type: ignore[no-any-return]
    except ValidationError as error:
        raise MalformedEvent(complaint(cls.TYPE, data, error.errors(include_url=False)[0])) from None


def upcast(type_name: str, data: dict[str, Any], version: int, current: int) -> dict[str, Any]:
    """The fields `data` of schema `version` as the `current` version has them."""
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
    """Build a payload from its JSON fields (no envelope keys), upcasting an old schema version first; every field is
    checked against its declared type. MalformedEvent says which field is wrong and why."""
    cls = payload_class(type_name)
    if version is not None and version != cls.VERSION:
        data = upcast(type_name, data, version, cls.VERSION)
    if not ENVELOPE_KEYS.isdisjoint(data):
        raise MalformedEvent(f"{type_name} has no field {sorted(ENVELOPE_KEYS.intersection(data))[0]!r}")
    return cls(**checked_line(cls, data))


def encode_payload(payload: Payload) -> str:
    """The payload's fields as compact JSON text."""
    return orjson.dumps(payload).decode()


def _frozen(value: Any) -> Any:
    """JSON arrays become tuples, so a decoded event is as immutable as a new one."""
    if value.__class__ is list:
        return tuple([_frozen(v) for v in value])
    return value


def decode_payload_text(type_name: str, text: str, version: int) -> Payload:
    """Decode a payload stored as JSON text (the trusted path of the event store: checked when it was written)."""
    cls = _CLASSES[type_name]
    data = orjson.loads(text)
    if version != cls.VERSION:
        return decode_payload(type_name, data, version)
    for key, value in data.items():
        if value.__class__ is list:
            data[key] = _frozen(value)
    return cls(**data)


EVENT_MODULES = {
    "motto": "loom.events.motto",
    "moirai": "loom.events.moirai",
    "moorea": "loom.events.moorea",
    "stones-of-fate": "loom.events.stones_of_fate",
}
"""Each game's module of event types, by the game's command-line name: importing it registers them."""


def load_events_of(game: str) -> None:
    """Register the event types of `game` (a command-line name), so its stored events can be decoded."""
    import importlib

    importlib.import_module(EVENT_MODULES[game])


def load_all() -> None:
    """Register the event types of every game."""
    for game in EVENT_MODULES:
        load_events_of(game)
