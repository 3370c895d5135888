"""Stones of Fate's state: the position as plain tuples, its grid, the deck, and small helpers (S3-S4)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from random import Random
from typing import Any

from loom.engine.cards import without
from loom.engine.protocol import HIDDEN
from loom.engine.state import evolver
from loom.engine.stones_of_fate.cards import SIDES, STONES, Grid, card
from loom.events.base import IllegalAction

EMPTY = -2
"""An empty space of the spread (a card left it and the refill has not come)."""
DECK = "deck"
SUPPLY = "supply"

# --- State ----------------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class StonesState:
    """A Stones of Fate position. In a seat's view, face-down cards it does not know are HIDDEN."""

    players: tuple[str, ...] = ()
    seed: int = 0
    rows: int = 0
    cols: int = 0
    dealt: bool = False
    spread: tuple[int, ...] = ()  # card per position, EMPTY for an empty space
    face_up: tuple[int, ...] = ()  # S7: positions flipped and waiting for their winner, in flip order
    known: tuple[tuple[int, ...], ...] = ()  # per seat, per position: the card it knows lies there, or HIDDEN
    known_top: tuple[int, ...] = ()  # per seat: the deck's top card it peeked at, or HIDDEN
    deck: tuple[int, ...] = ()  # top first when `deck_ordered`; otherwise every unseen card, sorted
    deck_ordered: bool = False
    deck_size: int = 0
    deck_top: int = HIDDEN  # an unordered deck's top card, once a peek has fixed it
    stones: tuple[tuple[int, ...], ...] = ()  # per seat, per edge: how many of its stones stand there
    collections: tuple[tuple[int, ...], ...] = ()  # per seat, in the order won or drawn
    discard: tuple[int, ...] = ()
    turn: int = 0  # the turn being played (0: the setup)
    seat: int = 0  # the seat whose turn it is
    actions: int = 0  # actions taken in this turn (S5-S7: two)
    tasks: tuple[tuple[int, int, int, int], ...] = ()  # effects to carry out, first first: (effect, seat, steps, at)
    settling: int = HIDDEN  # S7: the face-up card chosen to be won next
    drawn_for: tuple[int, ...] = ()  # S7: seats that made their Opportunity draw for the card being won
    ending: bool = False  # S10: the deck was empty at the end of a turn
    final: bool = False  # S10: the final flip is done
    death_given: bool = False


replace = evolver(StonesState)


@cache
def _grid(rows: int, cols: int) -> Grid:
    return Grid(rows, cols)


def grid_of(state: StonesState) -> Grid:
    """The spread's grid (S3)."""
    return _grid(state.rows, state.cols)


@cache
def _names(rows: int, cols: int) -> tuple[dict[str, int], dict[str, int], tuple[tuple[int, int, int, int], ...]]:
    """Position names, edge names (every card-side alias) and the side edges of each position, for a grid shape."""
    grid = Grid(rows, cols)
    positions = {grid.position_name(p): p for p in range(grid.size)}
    edges = {f"{name}-{side}": grid.side_edge(p, s) for name, p in positions.items() for s, side in enumerate(SIDES)}
    sides = tuple(tuple(grid.side_edge(p, s) for s in range(4)) for p in range(grid.size))
    return positions, edges, sides  # type: ignore[return-value]


# --- The deck ---------------------------------------------------------------------------------------------------------


def check_top(state: StonesState, name: str) -> int:
    """The card `name` if it can be the top card of the deck, else IllegalAction.

    The deck is hidden (only a seat that peeked knows its top), so every refusal is the same sentence naming only
    `name`: it tells nothing of which card is on top, who peeked, or where a card not in the deck lies."""
    drawn = card(name)
    if not state.deck_size:
        raise IllegalAction("the deck is empty")
    if state.deck_ordered:
        possible = state.deck[0] == drawn
    elif state.deck_top != HIDDEN:
        possible = state.deck_top == drawn
    else:
        possible = drawn in state.deck
    if not possible:
        raise IllegalAction(f"{name} is not the top card of the deck")
    return drawn


def top_card(state: StonesState, rng: Random) -> int:
    """The top card of the deck: known, or (deck order unknown) drawn from the unseen cards by rng."""
    if state.deck_ordered:
        return state.deck[0]
    return state.deck_top if state.deck_top != HIDDEN else rng.choice(state.deck)


def take_top(state: StonesState, drawn: int) -> dict[str, Any]:
    """The changes of taking `drawn` off the top of the deck: no seat knows the new top card."""
    deck = state.deck[1:] if state.deck_ordered else without(state.deck, drawn)
    return {
        "deck": deck,
        "deck_size": state.deck_size - 1,
        "deck_top": HIDDEN,
        "known_top": (HIDDEN,) * len(state.players),
    }


# --- Positions and edges (S4) ---------------------------------------------------------------------------------------


def position(state: StonesState, name: object) -> int:
    """The spread position called `name` (`a1` .. `c3`)."""
    at = _names(state.rows, state.cols)[0].get(name)  # type: ignore[call-overload]
    if at is None:
        last = f"{'abc'[state.rows - 1]}{state.cols}" if state.rows else "?"
        raise IllegalAction(f"{name!r} is not a place of the {state.rows} x {state.cols} spread (a1 .. {last})")
    return at  # type: ignore[no-any-return]


def place(state: StonesState, name: object) -> int:
    """The edge called `name` (`b2-left`, the same as `b1-right`), or -1 for `supply`."""
    if name == SUPPLY:
        return -1
    edge = _names(state.rows, state.cols)[1].get(name)  # type: ignore[call-overload]
    if edge is None:
        raise IllegalAction(f"{name!r} is not an edge of the spread (like 'a1-top', 'b2-left') nor the supply")
    return edge  # type: ignore[no-any-return]


def face_down(state: StonesState) -> list[int]:
    """The positions holding a face-down card."""
    return [p for p, c in enumerate(state.spread) if c != EMPTY and p not in state.face_up]


def supply(state: StonesState, seat: int) -> int:
    """S3, S6: the stones of `seat` not on the grid."""
    return STONES - sum(state.stones[seat])


def side_edges(state: StonesState, at: int) -> tuple[int, int, int, int]:
    """The edges on the four sides (top, right, bottom, left) of the card at `at`."""
    return _names(state.rows, state.cols)[2][at]


# --- Helpers ----------------------------------------------------------------------------------------------------------


def set_at(row: tuple[Any, ...], index: int, value: Any) -> tuple[Any, ...]:
    """`row` with `row[index]` replaced by `value`."""
    return row[:index] + (value,) + row[index + 1 :]
