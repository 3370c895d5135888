"""Moirai's state: a position, as the events so far leave it.

A seat's loom is a tuple of lives, each `(start, cards, close)`: the face-down starting card, the face-up cards in
the order placed, and the face-down closing card (None while the life is open).
"""

from __future__ import annotations

from dataclasses import dataclass

from loom.engine.moirai.cards import COLOURS, FULL_DECK
from loom.engine.state import evolver

Life = tuple[int, tuple[int, ...], int | None]
Loom = tuple[Life, ...]


# --- State ----------------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class MoiraiState:
    """A Moirai position. In a seat's view, the cards it cannot see are HIDDEN."""

    players: tuple[str, ...] = ()
    seed: int = 0
    objectives: tuple[int, ...] = ()  # M2: the Clotho, Lachesis and Atropos objectives in play
    dealt: bool = False
    deck: tuple[int, ...] = ()  # top first when `deck_ordered`; otherwise every card nobody has named yet, sorted
    deck_ordered: bool = False
    deck_left: int = len(FULL_DECK)  # cards still in the deck
    piles: tuple[tuple[int, ...], ...] = ((),) * len(COLOURS)  # M4: one public pile per colour, oldest first
    looms: tuple[Loom, ...] = ()
    public_down: tuple[int, ...] = ()  # M9: face-down cards that came from a pile, known to everyone
    drawn: tuple[int, ...] = ()  # option 1's cards, seen by the drawer only, until one is kept
    revealed: bool = False  # the setup starting cards are turned up for scoring: the game is over
    turn: int = 0  # turns begun so far
    seat: int = 0  # the seat to move (or whose turn comes next)


replace = evolver(MoiraiState)
