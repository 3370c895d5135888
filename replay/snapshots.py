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


def snapshot_points(first_seq: int, last_seq: int) -> range:
    """The seqs in (first_seq, last_seq] after which a snapshot is kept."""
    start = (first_seq // SNAPSHOT_EVERY + 1) * SNAPSHOT_EVERY
    return range(start, last_seq + 1, SNAPSHOT_EVERY)
