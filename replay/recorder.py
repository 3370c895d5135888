"""Turning what the engine produced (steps and states) into the rows the store keeps."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.play import Step
from engine.protocol import Game
from events.registry import encode_payload
from replay.snapshots import encode_state, snapshot_points

EventRow = tuple[int, int, int | None, str, int, str]


def event_rows(steps: Sequence[Step], after_seq: int) -> list[EventRow]:
    """(seq, turn, actor, type, version, payload JSON) for steps numbered from after_seq + 1."""
    return [
        (after_seq + i, step.turn, step.actor, step.payload.TYPE, step.payload.VERSION, encode_payload(step.payload))
        for i, step in enumerate(steps, start=1)
    ]


def snapshot_rows(game: Game, state: Any, steps: Sequence[Step], after_seq: int) -> list[tuple[int, str]]:
    """Snapshots at the snapshot points among the steps, folding them on from `state` (the state at after_seq)."""
    points = snapshot_points(after_seq, after_seq + len(steps))
    out: list[tuple[int, str]] = []
    if not points:
        return out
    for seq, step in enumerate(steps[: points[-1] - after_seq], start=after_seq + 1):
        state = game.apply(state, step.payload)
        if seq in points:
            out.append((seq, encode_state(state)))
    return out


def status_of(game: Game, state: Any) -> str:
    """'finished' once nobody is to move, else 'open'."""
    return "finished" if game.to_move(state) is None else "open"
