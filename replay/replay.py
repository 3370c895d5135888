"""Replaying: the state of any game at any turn or event, from the newest snapshot before it."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from engine.protocol import Game
from engine.registry import get_game
from events.base import Event, LoomError
from replay.snapshots import decode_state
from replay.store import GameInfo, Store


class OutOfRange(LoomError):
    """A turn or event number the game does not have."""


@dataclass(frozen=True, slots=True)
class Position:
    """A game's state after event `seq`, which is the start of `turn` when one was asked for."""

    info: GameInfo
    game: Game
    seq: int
    turn: int
    state: Any


def fold(game: Game, events: Iterable[Event], state: Any = None) -> Any:
    """Apply stored (already checked) events in order, from `state` or the blank state."""
    state = game.blank() if state is None else state
    apply = game.apply
    for event in events:
        state = apply(state, event.payload)
    return state


def state_after(store: Store, info: GameInfo, game: Game, seq: int) -> Any:
    """The state after event `seq`: the newest snapshot at or before it, then the events after the snapshot."""
    state = None
    after = 0
    snap = store.snapshot(info.id, seq, game.rules_version)
    if snap is not None:
        after, text = snap
        state = decode_state(game.state_type, text)
    return fold(game, store.load(info.id, after=after, upto=seq), state)


def position(store: Store, game_id: int, *, turn: int | None = None, seq: int | None = None) -> Position:
    """The state at the start of `turn` (DESIGN.md contract 5), after event `seq`, or at the end."""
    info = store.game(game_id)
    game = get_game(info.game)
    if turn is not None and seq is not None:
        raise LoomError("give --turn or --seq, not both")
    if turn is not None:
        if not 1 <= turn <= info.turns:
            raise OutOfRange(f"turn {turn} is out of range: game {game_id} has turns 1 to {info.turns}")
        seq = store.last_seq_before_turn(game_id, turn)
    elif seq is not None:
        if not 1 <= seq <= info.last_seq:
            raise OutOfRange(f"event {seq} is out of range: game {game_id} has events 1 to {info.last_seq}")
    else:
        seq = info.last_seq
    state = state_after(store, info, game, seq)
    if turn is None:
        turn = store.load(game_id, after=seq - 1, upto=seq)[0].turn if seq else 0
    return Position(info, game, seq, turn, state)
