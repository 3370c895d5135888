"""Turning what the engine produced (steps and states) into the rows the store keeps."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.play import Step
from engine.protocol import Game
from events.registry import encode_payload
from replay.snapshots import encode_state, snapshot_points
from replay.store import EventColumns


def event_rows(steps: Sequence[Step], after_seq: int) -> EventColumns:
    """The steps as stored events, numbered from after_seq + 1."""
    return EventColumns(
        seq=list(range(after_seq + 1, after_seq + 1 + len(steps))),
        turn=[step.turn for step in steps],
        actor=[step.actor for step in steps],
        type=[step.payload.TYPE for step in steps],
        version=[step.payload.VERSION for step in steps],
        payload=[encode_payload(step.payload) for step in steps],
    )


def snapshot_rows(game: Game, state: Any, steps: Sequence[Step], after_seq: int) -> list[tuple[int, int, str]]:
    """(seq, turn, state JSON) at the snapshot points among the steps, folding on from the state at after_seq."""
    points = snapshot_points(after_seq, after_seq + len(steps))
    out: list[tuple[int, int, str]] = []
    if not points:
        return out
    for seq, step in enumerate(steps[: points[-1] - after_seq], start=after_seq + 1):
        state = game.apply(state, step.payload)
        if seq in points:
            out.append((seq, step.turn, encode_state(state)))
    return out


def status_of(game: Game, state: Any) -> str:
    """'finished' once nobody is to move, else 'open'."""
    return "finished" if game.to_move(state) is None else "open"
