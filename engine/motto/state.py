"""Motto's state: a position, as the events so far leave it."""

from __future__ import annotations

from dataclasses import dataclass

from loom.engine.motto.cards import TOKEN_POINTS, VALUES
from loom.engine.state import evolver

# --- State ----------------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class MottoState:
    """A Motto position. Hands are sorted; in a seat's view, cards it cannot see are HIDDEN."""

    players: tuple[str, ...] = ()
    seed: int = 0
    dealt: bool = False
    hands: tuple[tuple[int, ...], ...] = ()
    shown: tuple[tuple[int, ...], ...] = ()  # cards each seat took face up from the pool and still holds
    pool: tuple[int, ...] = ()
    deck: tuple[int, ...] = ()  # top first when `deck_ordered`; otherwise the unseen cards, sorted
    deck_ordered: bool = False
    discard: tuple[int, ...] = ()
    stacks: tuple[int, ...] = (len(TOKEN_POINTS),) * len(VALUES)  # tokens left per value
    tokens: tuple[tuple[tuple[int, int], ...], ...] = ()  # per seat: (value, points)
    turn: int = 0  # turns begun so far
    seat: int = 0  # the seat whose turn comes next
    final_turns: int | None = None  # T7: turns still to play once the end is triggered


replace = evolver(MottoState)
