"""Moorea's position and its players' decisions: the state, the phases of a turn, the actions, and the questions
the rules, the score and the bots all ask of a position (which decision is due, the hand limit)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from loom.engine.moorea.cards import BASKET, CARDS, SPEAR, TOOLS
from loom.engine.state import evolver

DRAW, SECOND_DRAW, ACTION, DISCARD = range(4)
PHASES = ("draw", "second draw", "action", "discard")


DRAW, SECOND_DRAW, ACTION, DISCARD = range(4)


PHASES = ("draw", "second draw", "action", "discard")


# --- State ----------------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class MooreaState:
    """A Moorea position. Hands are sorted hand-card codes; in a seat's view, what it cannot see is HIDDEN."""

    players: tuple[str, ...] = ()
    seed: int = 0
    dealt: bool = False
    deck: tuple[int, ...] = ()  # commodity cards, top first when `deck_ordered`; otherwise unseen ones, sorted
    deck_ordered: bool = False
    discard: tuple[int, ...] = ()
    face_up: tuple[int, ...] = ()
    pile: tuple[int, ...] = ()  # product cards, top first when `pile_ordered`; otherwise unseen ones, sorted
    pile_ordered: bool = False
    layout: tuple[int, ...] = ()
    hands: tuple[tuple[int, ...], ...] = ()
    tools: tuple[tuple[int, ...], ...] = ()  # tool kinds per seat
    owned: tuple[tuple[int, ...], ...] = ()  # product cards per seat, face up (intermediates are in the hand)
    laid: tuple[tuple[tuple[int, int], ...], ...] = ()  # per seat: (store, hand-card code) of each card laid
    removed: tuple[int, ...] = ()  # intermediate products spent or discarded: out of the game (R8, R9)
    supply: tuple[int, ...] = tuple(t.copies for t in TOOLS)  # tool cards left per kind
    turn: int = 0  # turns begun so far
    seat: int = 0  # the seat whose turn it is, or comes next
    phase: int = DRAW  # DRAW: the seat's turn has not begun
    final_turns: int | None = None  # R10: turns still to play once the end is triggered


replace = evolver(MooreaState)


# --- Questions about a position ---------------------------------------------------------------------------------------


def _can_draw(state: MooreaState) -> bool:
    """R4: a card is left to draw face down, or (spear) face up. With none, the turn goes on without a draw."""
    return bool(state.deck or state.discard) or (SPEAR in state.tools[state.seat] and bool(state.face_up))


def phase(state: MooreaState) -> int:
    """The decision the seat to move faces: DRAW, SECOND_DRAW (optional: an action declines it), ACTION, DISCARD."""
    if state.phase in (DRAW, SECOND_DRAW) and not _can_draw(state):
        return ACTION
    return state.phase


def hand_limit(state: MooreaState, seat: int) -> int:
    """R9: 6 cards at the end of a turn, 8 with a basket."""
    return limit_of(state.tools[seat])


def limit_of(tools: tuple[int, ...]) -> int:
    """R9: the hand limit of a seat with these tools."""
    return CARDS.basket_limit if BASKET in tools else CARDS.hand_size


def set_at(row: tuple[Any, ...], index: int, value: Any) -> tuple[Any, ...]:
    """`row` with its item `index` replaced by `value`."""
    return row[:index] + (value,) + row[index + 1 :]
