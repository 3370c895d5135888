"""A fast `dataclasses.replace` (and constructor) for the frozen, slotted dataclasses that hold game states.

`dataclasses.replace` costs about 9 us on these machines, which would make it most of a reducer's time; the
function generated here sets each slot directly and costs about 0.6 us (every event of every game makes one or two).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields
from typing import Any, TypeVar

T = TypeVar("T")


def _twin(cls: type, names: list[str]) -> type | None:
    """A mutable class with the same layout as the frozen `cls`, whose instances may be given the class `cls`; None
    if no such class can be made (a __weakref__ or __dict__ of its own, slots not its fields').

    A new instance is made as a twin, its slots filled by plain attribute stores (the interpreter's fastest way to
    set a slot), and then given its class: `cls`, frozen, with every field set. That is half the cost of setting
    each slot through a call (`object.__setattr__`, as a frozen dataclass's `__init__` does, or the slot's own
    `__set__`): the only ways the frozen class leaves. A class whose base has slots (an event payload's) gets a twin
    of the same base, adding the same slots, with the plain `__setattr__` back."""
    base: type = cls.__base__ or object
    own = cls.__dict__.get("__slots__")
    if base is object:
        twin = type(f"_Mutable{cls.__name__}", (), {"__slots__": tuple(names)})
    elif own is not None and set(own) <= set(names):
        slots = (own,) if isinstance(own, str) else tuple(own)
        scope = {"__slots__": slots, "__setattr__": object.__setattr__, "__delattr__": object.__delattr__}
        twin = type(f"_Mutable{cls.__name__}", (base,), scope)
    else:
        return None
    probe: Any = object.__new__(twin)
    try:
        probe.__class__ = cls
    except TypeError:
        return None
    return twin


def _compiled(source: str, scope: dict[str, Any]) -> Callable[..., Any]:
    exec(source, scope)  # noqa: S102 - the source is built from the class's own field names only
    return scope[source[4 : source.index("(")]]  # type: ignore[no-any-return]


def evolver(cls: type[T]) -> Callable[..., T]:
    """A function `(state, **changes) -> new state` for the frozen dataclass `cls`; unknown names are a TypeError."""
    names = [f.name for f in fields(cls)]  # type: ignore[arg-type]
    params = ", ".join(f"{name}=_KEEP" for name in names)
    values = [f"state.{name} if {name} is _KEEP else {name}" for name in names]
    scope: dict[str, Any] = {"_KEEP": object(), "_new": object.__new__, "_cls": cls, "_twin": _twin(cls, names)}
    if scope["_twin"] is None:  # set each slot through its descriptor's `__set__`, bound once here
        body = "".join(f"    _set_{name}(new, {value})\n" for name, value in zip(names, values, strict=True))
        scope.update({f"_set_{name}": getattr(cls, name).__set__ for name in names})
        return _compiled(f"def evolve(state, *, {params}):\n    new = _new(_cls)\n{body}    return new\n", scope)
    body = "".join(f"    new.{name} = {value}\n" for name, value in zip(names, values, strict=True))
    source = f"def evolve(state, *, {params}):\n    new = _new(_twin)\n{body}    new.__class__ = _cls\n    return new\n"
    return _compiled(source, scope)


def maker(cls: type[T]) -> Callable[..., T]:
    """A function `(*values) -> instance` of the frozen dataclass `cls`, its fields given in order, all of them:
    `cls(*values)` at about half the cost (for a value made once per event)."""
    names = [f.name for f in fields(cls)]  # type: ignore[arg-type]
    twin = _twin(cls, names)
    if twin is None:
        return cls
    body = "".join(f"    new.{name} = {name}\n" for name in names)
    source = f"def make({', '.join(names)}):\n    new = _new(_twin)\n{body}    new.__class__ = _cls\n    return new\n"
    return _compiled(source, {"_new": object.__new__, "_cls": cls, "_twin": twin})
