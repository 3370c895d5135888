"""Stable event type names <-> payload classes, JSON (de)serialisation and upcasters for old schema versions."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import MISSING, fields
from typing import Any

import orjson

from events.base import ENVELOPE_KEYS, MalformedEvent, Payload

Upcaster = Callable[[dict[str, Any]], dict[str, Any]]

_CLASSES: dict[str, type[Payload]] = {}
_FIELDS: dict[str, frozenset[str]] = {}
_REQUIRED: dict[str, frozenset[str]] = {}
_UPCASTERS: dict[tuple[str, int], Upcaster] = {}


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
        raise MalformedEvent(f"unknown event type {type_name!r}") from None


def _frozen(value: Any) -> Any:
    """JSON arrays become tuples, so a decoded event is as immutable as a new one."""
    if value.__class__ is list:
        return tuple([_frozen(v) for v in value])
    return value


def decode_payload(type_name: str, data: dict[str, Any], version: int | None = None) -> Payload:
    """Build a payload from its JSON fields (a dict it may change), upcasting an old schema version first."""
    cls = payload_class(type_name)
    if version is not None and version != cls.VERSION:
        if version > cls.VERSION:
            raise MalformedEvent(f"{type_name} has schema version {version}; this Loom reads up to {cls.VERSION}")
        while version < cls.VERSION:
            data = _UPCASTERS[(type_name, version)](data)
            version += 1
    keys = data.keys()
    if not (keys <= _FIELDS[type_name] and _REQUIRED[type_name] <= keys):
        unknown, missing = sorted(keys - _FIELDS[type_name]), sorted(_REQUIRED[type_name] - keys)
        raise MalformedEvent(
            f"{type_name} has no field {unknown[0]!r}" if unknown else f"{type_name} needs field {missing[0]!r}"
        )
    for key, value in data.items():
        if value.__class__ is list:
            data[key] = _frozen(value)
    try:
        return cls(**data)
    except TypeError as error:
        raise MalformedEvent(f"{type_name}: {error}") from None


def encode_payload(payload: Payload) -> str:
    """The payload's fields as compact JSON text."""
    return orjson.dumps(payload).decode()


def decode_payload_text(type_name: str, text: str, version: int) -> Payload:
    """Decode a payload stored as JSON text (the trusted path of the event store)."""
    cls = _CLASSES[type_name]
    data = orjson.loads(text)
    if version != cls.VERSION:
        return decode_payload(type_name, data, version)
    for key, value in data.items():
        if value.__class__ is list:
            data[key] = _frozen(value)
    return cls(**data)
