"""Checking an event line's keys against the types they are declared with, strictly, and saying what is wrong.

The schema of a line is made from the payload class's own annotations (plus the envelope's keys) and checked by
pydantic: no "7" for 7, no true for 1, no 1.0 for 1, no object where a name goes. JSON arrays are read as the tuples
the annotations name (their items still strictly), so a line needs no conversion before it is checked.
"""

from __future__ import annotations

from dataclasses import MISSING, fields
from types import UnionType
from typing import Annotated, Any, NotRequired, Union, get_args, get_origin, get_type_hints

from annotated_types import Ge
from pydantic import ConfigDict, Strict, TypeAdapter
from pydantic_core import SchemaValidator
from typing_extensions import TypedDict

from loom.events.base import ENVELOPE_KEYS, MAX_DEPTH, MAX_TEXT, Payload

_CONFIG = ConfigDict(strict=True, extra="forbid", str_max_length=MAX_TEXT)
_ENVELOPE = {
    "seq": NotRequired[int],
    "turn": NotRequired[int],
    "actor": NotRequired[int | None],
    "type": NotRequired[str],
    "v": NotRequired[Annotated[int, Ge(1)]],
}


def _arrays_as_tuples(hint: Any) -> Any:
    """`hint` with each tuple type reading a JSON array too (lax at that node only; items stay strict)."""
    origin, args = get_origin(hint), get_args(hint)
    if origin is Annotated:
        return Annotated[(_arrays_as_tuples(args[0]), *hint.__metadata__)]
    if not args:
        return hint
    inner = tuple(arg if arg is Ellipsis else _arrays_as_tuples(arg) for arg in args)
    if origin is tuple:
        return Annotated[tuple[inner], Strict(False)]  # type: ignore[valid-type]
    if origin in (Union, UnionType):
        return Union[inner]  # noqa: UP007  # built from a tuple of types
    return hint


def line_validator(cls: type[Payload]) -> SchemaValidator:
    """A validator of an event line of `cls`: its envelope keys and its fields, each of its declared type."""
    hints = get_type_hints(cls, include_extras=True)
    shape = dict(_ENVELOPE)
    for field in fields(cls):
        hint = _arrays_as_tuples(hints[field.name])
        required = field.default is MISSING and field.default_factory is MISSING
        shape[field.name] = hint if required else NotRequired[hint]
    typed = TypedDict(f"{cls.__name__}Line", shape)  # type: ignore[misc]
    typed.__pydantic_config__ = _CONFIG  # type: ignore[attr-defined]
    return TypeAdapter(typed).validator  # type: ignore[return-value]


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
    if isinstance(value, list | tuple | set | frozenset):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return f"a {type(value).__name__}"


def _deeper_than(value: Any, levels: int) -> bool:
    """Whether arrays and objects nest in `value` more than `levels` deep (looking no deeper than that)."""
    if value.__class__ is list or value.__class__ is dict:
        if levels == 0:
            return True
        items = value.values() if value.__class__ is dict else value
        return any(_deeper_than(item, levels - 1) for item in items)
    return False


_KINDS = {"string_type": "a string", "int_type": "a whole number", "tuple_type": "a list", "none_required": "null"}
_ENVELOPE_KINDS = {
    "seq": "a whole number",
    "turn": "a whole number",
    "actor": "a seat number or null",
    "type": "a string",
    "v": "a schema version, a whole number from 1",
}


def _where(loc: tuple[int | str, ...]) -> str:
    return "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in loc).lstrip(".")


def complaint(type_name: str, data: dict[str, Any], error: Any) -> str:
    """Pydantic's first error about a line as one sentence naming the key (`motto.played: cards[2] must be a string,
    not 7`); a key nested past MAX_DEPTH is refused for that, whatever else is wrong with it."""
    kind, loc, value, ctx = error["type"], error["loc"], error["input"], error.get("ctx", {})
    key, where = loc[0], _where(loc[:-1] if kind == "missing" else loc)
    if kind == "extra_forbidden":
        return f"{type_name} has no field {shown(key)}"
    if kind == "missing" and len(loc) == 1:
        return f"{type_name} needs field {key!r}"
    if key in ENVELOPE_KEYS:
        return f"{key} must be {_ENVELOPE_KINDS[key]}, not {shown(value)}"
    if _deeper_than(data.get(key), MAX_DEPTH - 1):  # level 1 is the line's own object
        return f"{type_name}: {key} is nested too deep (a line may nest {MAX_DEPTH} levels of arrays and objects)"
    said = _said(kind, loc, value, ctx)
    if said is None:  # a kind of error no event's types should give: pydantic's own words
        return f"{type_name}: {where}: {error['msg'][:1].lower()}{error['msg'][1:]}"
    return f"{type_name}: {where} {said}"


def _said(kind: str, loc: tuple[int | str, ...], value: Any, ctx: dict[str, Any]) -> str | None:
    if kind in _KINDS:
        return f"must be {_KINDS[kind]}, not {shown(value)}"
    if kind == "missing":  # an item of a list of fixed length; `loc` ends with its index
        return f"has too few items ({loc[-1]})"
    if kind == "too_long":
        return f"has too many items ({ctx['actual_length']}; at most {ctx['max_length']})"
    if kind == "string_too_long":
        return f"is longer than {ctx['max_length']} characters"
    if kind == "string_too_short":
        return "is empty"
    if kind == "greater_than_equal":
        return f"must be at least {ctx['ge']}, not {shown(value)}"
    if kind == "less_than":
        bound = ctx["lt"]
        power = bound > 2**32 and bound & (bound - 1) == 0
        return f"must be less than {f'2**{bound.bit_length() - 1}' if power else bound}, not {shown(value)}"
    return None
