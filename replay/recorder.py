"""Turning what the engine produced (steps and states) into the rows the store keeps."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from loom.engine.play import Step
from loom.engine.protocol import Game
from loom.events.registry import encode_payload
from loom.replay.records import EventColumns
from loom.replay.snapshots import Snapshot, SnapshotTaker


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


def snapshot_rows(game: Game, state: Any, steps: Sequence[Step], after_seq: int) -> list[Snapshot]:
    """(seq, turn, state JSON) snapshots among the steps, folding on from the state at after_seq."""
    taker = SnapshotTaker(after_seq)
    for seq, step in enumerate(steps, start=after_seq + 1):
        state = game.apply(state, step.payload)
        taker.offer(state, seq, step.turn)
    return taker.rows


def status_of(game: Game, state: Any) -> str:
    """'finished' once nobody is to move, else 'open'."""
    return "finished" if game.to_move(state) is None else "open"
