"""Replaying: the state of any game at any turn or event, from the newest snapshot before it."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from loom.engine.protocol import Game
from loom.engine.registry import get_game
from loom.events.base import Event, LoomError
from loom.replay.snapshots import decode_state
from loom.replay.store import GameInfo, Store


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


def position(store: Store, game_id: int, *, turn: int | None = None, seq: int | None = None) -> Position:
    """The state at the start of `turn` (DESIGN.md contract 5), after event `seq`, or at the end.

    One query: the game's row is the one the store keeps (read with its neighbours' the first time), and a single
    statement reads the events up to that point, after the newest snapshot before it in a game longer than
    2 * SNAPSHOT_EVERY events. In a writable store the kept row may be behind the file (see replay.reading.KeptRows):
    a turn or event beyond it reads the row again, and a position at the end is checked against the events read
    (the row read again if the game has grown), so the state and `info` at the end are always the file's newest.
    """
    if turn is not None and seq is not None:
        raise LoomError("give --turn or --seq, not both")
    info = store.kept_row(game_id)
    if (turn is not None and turn > info.turns) or (seq is not None and seq > info.last_seq):
        info = store.game_row(game_id)  # beyond the kept row: perhaps the game has grown since
    game = get_game(info.game)
    if turn is not None:
        if not 1 <= turn <= info.turns:
            raise OutOfRange(f"turn {turn} is out of range: game {game_id} has turns 1 to {info.turns}")
        snapshot, events = store.read_position(info, "turn", turn, game.rules_version)
    elif seq is not None:
        if not 1 <= seq <= info.last_seq:
            raise OutOfRange(f"event {seq} is out of range: game {game_id} has events 1 to {info.last_seq}")
        snapshot, events = store.read_position(info, "seq", seq, game.rules_version)
    else:
        snapshot, events = store.read_position(info, "end", info.last_seq, game.rules_version)
    state, at_seq, at_turn = None, 0, 0
    if snapshot is not None:
        state = decode_state(game.state_type, snapshot.state)
        if state is None:  # made for another shape of state: fold the events it stood for as well
            events = store.load(game_id, upto=snapshot.seq) + events
        else:
            at_seq, at_turn = snapshot.seq, snapshot.turn
    if events:
        at_seq, at_turn = events[-1].seq, events[-1].turn
    if turn is None and seq is None and at_seq != info.last_seq:
        # The game has moved on since its row was kept: its newest row, and any events appended after the read.
        info = store.game_row(game_id)
        if info.last_seq > at_seq:
            events += store.load(game_id, after=at_seq, upto=info.last_seq)
            at_seq, at_turn = events[-1].seq, events[-1].turn
    return Position(info, game, at_seq, at_turn if turn is None else turn, fold(game, events, state))
