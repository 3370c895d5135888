"""Snapshots: a game state as JSON and back, for any state made of plain values, tuples and nested tuples."""

from __future__ import annotations

import json
from dataclasses import fields
from typing import Any

SNAPSHOT_EVERY = 128
"""Events between snapshots: the state at any point costs at most this many events to fold."""


def _tuples(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_tuples(v) for v in value)
    return value


def encode_state(state: Any) -> str:
    """The state's fields as JSON text."""
    return json.dumps([getattr(state, f.name) for f in fields(state)], separators=(",", ":"))


def decode_state(state_type: type, text: str) -> Any:
    """The state stored by `encode_state`."""
    return state_type(*(_tuples(v) for v in json.loads(text)))


class SnapshotTaker:
    """Keeps a snapshot at the first state offered after every SNAPSHOT_EVERY events (a turn boundary, in play)."""

    def __init__(self, after_seq: int) -> None:
        self.rows: list[tuple[int, int, str]] = []  # (seq, turn, state JSON)
        self._next = (after_seq // SNAPSHOT_EVERY + 1) * SNAPSHOT_EVERY

    def offer(self, state: Any, seq: int, turn: int) -> None:
        """The state after event `seq` of `turn`; kept if a snapshot is due."""
        if seq >= self._next:
            self.rows.append((seq, turn, encode_state(state)))
            self._next = (seq // SNAPSHOT_EVERY + 1) * SNAPSHOT_EVERY
