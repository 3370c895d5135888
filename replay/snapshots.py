"""Snapshots: a game state as JSON and back, for any state made of plain values, tuples and nested tuples.

A snapshot stores its fields by name, with a fingerprint of the state's type: a snapshot made for another shape of
state (a field added, renamed or retyped since) is refused rather than restored wrong, and the game is folded from
its start instead.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import fields
from functools import cache
from typing import Any, NamedTuple

import orjson

SNAPSHOT_EVERY = 128
"""Events between snapshots: the state at any point costs at most this many events to fold."""


@cache
def fingerprint(state_type: type) -> str:
    """A short hash of the state type's qualified name and its fields' names and types."""
    shape = [f"{state_type.__module__}.{state_type.__qualname__}"]
    shape += [f"{f.name}: {f.type}" for f in fields(state_type)]
    return hashlib.sha256("\n".join(shape).encode()).hexdigest()[:16]


def _tuples(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_tuples(v) for v in value)
    return value


def encode_state(state: Any) -> str:
    """The state as JSON text: its type's fingerprint and its fields by name."""
    values = {f.name: getattr(state, f.name) for f in fields(state)}
    state_type: type = type(state)
    stored = {"type": fingerprint(state_type), "fields": values}
    try:
        # orjson writes the same text as json.dumps (compact) for plain values and tuples, 20x faster: json.dumps
        # cost a simulated Motto game 60 us of its 2.4 ms (bench/profiles/simulate.md)
        return orjson.dumps(stored).decode()
    except TypeError:  # a value orjson does not write (a named tuple, a huge int): as before
        return json.dumps(stored, separators=(",", ":"))


def decode_state(state_type: type, text: str) -> Any | None:
    """The state stored by `encode_state`, or None if the snapshot was made for another shape of `state_type`.

    None covers an older layout of the class, a snapshot of the positional format used before fingerprints, and a
    snapshot that cannot be read at all: the caller folds the events from the start instead.
    """
    try:
        stored = json.loads(text)
    except ValueError:
        return None
    if not isinstance(stored, dict) or stored.get("type") != fingerprint(state_type):
        return None
    values = stored.get("fields")
    names = [f.name for f in fields(state_type)]
    if not isinstance(values, dict) or sorted(values) != sorted(names):  # a hash collision must not restore it either
        return None
    return state_type(**{name: _tuples(values[name]) for name in names})


class Snapshot(NamedTuple):
    """A cached state after event seq (its JSON), as a game is recorded."""

    seq: int
    turn: int
    state: str


class SnapshotTaker:
    """Keeps a snapshot at the first state offered after every SNAPSHOT_EVERY events (a turn boundary, in play)."""

    def __init__(self, after_seq: int) -> None:
        self.rows: list[Snapshot] = []
        self._next = (after_seq // SNAPSHOT_EVERY + 1) * SNAPSHOT_EVERY

    def observer(self, setup: int) -> Callable[[Any, Sequence[Any]], None]:
        """`engine.play.play_out`'s `observe` for a game whose first `setup` events came before the play: offers the
        state after each action only when a snapshot is due (a game asks about 90 times for one or two)."""

        def observe(state: Any, played: Sequence[Any]) -> None:
            seq = setup + len(played)
            if seq >= self._next:
                self.offer(state, seq, played[-1].turn)

        return observe

    def offer(self, state: Any, seq: int, turn: int) -> None:
        """The state after event `seq` of `turn`; kept if a snapshot is due."""
        if seq >= self._next:
            self.rows.append(Snapshot(seq, turn, encode_state(state)))
            self._next = (seq // SNAPSHOT_EVERY + 1) * SNAPSHOT_EVERY
