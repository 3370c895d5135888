"""Stones of Fate's state: the position as plain tuples, its grid, the deck, and small helpers (S3-S4); the questions
rules and actions both ask of it: the winner of a card (S8), what comes next (S7-S10), the effects waiting (S2)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from random import Random
from typing import Any

from loom.engine.cards import without
from loom.engine.protocol import CHANCE_TO_MOVE, HIDDEN
from loom.engine.state import evolver
from loom.engine.stones_of_fate.cards import (
    FLIP_EFFECTS,
    FLIP_OF,
    FORBIDDEN_SIDES,
    KEYSTONE_SIDES,
    OPPORTUNITY_SIDES,
    POWER_SIDES,
    SIDES,
    STONES,
    WIN_EFFECTS,
    WIN_OF,
    Grid,
    card,
)
from loom.events.base import IllegalAction
from loom.events.stones_of_fate import CardRecovered, CardsSwapped, CardTaken, RandomDiscards

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


# --- The winner of a card (S8) ----------------------------------------------------------------------------------------


def winner(
    stones: tuple[tuple[int, ...], ...],
    edges: Sequence[int],
    flipped: int,
    *,
    forbidden: tuple[int, ...] | None = None,
    keystones: tuple[tuple[int, int], ...] | None = None,
) -> int | None:
    """S8: who wins the card `flipped` whose sides are `edges`: Forbidden excludes, Keystones must match exactly,
    then strictly the most Power stones (at least one); only Keystones: the single qualifying seat; else nobody.
    `forbidden` and `keystones` replace the card's own zones, to ask what a zone changed.

    Plain loops: bots ask this thousands of times a game."""
    forbidden = FORBIDDEN_SIDES[flipped] if forbidden is None else forbidden
    keystones = KEYSTONE_SIDES[flipped] if keystones is None else keystones
    power = POWER_SIDES[flipped]
    found, best, tied, qualified = None, 0, False, 0
    for seat, mine in enumerate(stones):
        excluded = False
        for side in forbidden:  # a stone on a Forbidden side
            if mine[edges[side]]:
                excluded = True
                break
        if not excluded:
            for side, count in keystones:  # a Keystone side without exactly its count
                if mine[edges[side]] != count:
                    excluded = True
                    break
        if excluded:
            continue
        if not power:
            found, qualified = seat, qualified + 1
            continue
        total = 0
        for side in power:
            total += mine[edges[side]]
        if total > best:
            found, best, tied = seat, total, False
        elif total == best:
            tied = True
    if power:
        return None if tied or best == 0 else found
    return found if qualified == 1 else None


def winner_at(state: StonesState, at: int) -> int | None:
    """S8 for the card at position `at`."""
    return winner(state.stones, side_edges(state, at), state.spread[at])


def opportunity_seats(state: StonesState, at: int) -> list[int]:
    """S7 (2): seats with a stone adjacent to an Opportunity zone of the card at `at`, clockwise from the flipper."""
    edges = side_edges(state, at)
    sides = OPPORTUNITY_SIDES[state.spread[at]]
    seats = len(state.players)
    order = [(state.seat + k) % seats for k in range(seats)]
    return [s for s in order if any(state.stones[s][edges[side]] for side in sides)]


# --- What comes next: the card to settle, its draws, the refill, the final flip (S7-S10) ------------------------------


def settling(state: StonesState) -> int | None:
    """The face-up card whose winner comes next, once no effect is waiting: chosen, or the only one."""
    if state.tasks or not state.face_up:
        return None
    if state.settling != HIDDEN:
        return state.settling
    return state.face_up[0] if len(state.face_up) == 1 else None


def next_drawer(state: StonesState, at: int) -> int | None:
    """S7 (2): the next seat to draw for the Opportunity zones of the card at `at`, while the deck lasts."""
    if not state.deck_size:
        return None
    return next((s for s in opportunity_seats(state, at) if s not in state.drawn_for), None)


def refill_due(state: StonesState) -> bool:
    """S9: the turn's actions and effects are done, a space is empty and the deck has a card."""
    return (
        state.dealt
        and not (state.tasks or state.face_up or state.ending or state.final)
        and state.actions >= 2
        and state.deck_size > 0
        and EMPTY in state.spread
    )


def final_winners(state: StonesState) -> tuple[int | None, ...]:
    """S10: the winner of each card left in the spread (None for nobody or an empty space)."""
    return tuple(None if c == EMPTY else winner_at(state, p) for p, c in enumerate(state.spread))


# --- The effects of the cards (S2) ------------------------------------------------------------------------------------
# FLIP effects are carried out by the flipper, WIN effects by the winner.
#
# An effect that needs a choice (which stones to move, which card to flip next) waits as a task for its seat's
# decision events; one that needs chance (a random discard, a draw) waits for a chance event; the rest happen at
# once in the reducer of the event that triggers them. A task is `(effect, seat, steps left, position)`.
#
# FLIP: tower (each seat discards a card of its collection at random), fortune (flip one more face-down card),
# priestess (peek at up to two cards), chariot (move up to two of your stones), temperance (every stone beside this
# card's Forbidden zones goes back to its supply), moon (swap two face-down cards), star (draw a card from the deck).
# WIN: strength (move up to three stones of any colour), sun (draw two cards from the deck), devil (take a card from
# another seat's collection), judgement (take a card from the discard pile), hermit (all your stones go back to your
# supply), justice (every other seat's stones beside this card go back to their supply). End: death (rules.py).

EFFECTS = FLIP_EFFECTS + WIN_EFFECTS
CODE = {name: code for code, name in enumerate(EFFECTS)}
STEPS = {"tower": 1, "fortune": 1, "priestess": 2, "chariot": 2, "moon": 1, "star": 1, "strength": 3, "sun": 2,
         "devil": 1, "judgement": 1}  # fmt: skip
BY_CHANCE = frozenset({"tower", "star", "sun"})
OPTIONAL = frozenset({"priestess", "chariot", "moon", "strength"})
"""Effects that allow up to some steps: the seat may stop early (stones-of-fate.stopped)."""
WORDS = {
    "tower": "every seat discards a card of its collection at random (The Tower)",
    "fortune": "seat {seat} flips one more face-down card (Wheel of Fortune)",
    "priestess": "seat {seat} may peek at {steps} more card(s) (The High Priestess)",
    "chariot": "seat {seat} may move {steps} more of its stones (The Chariot)",
    "moon": "seat {seat} may swap two face-down cards (The Moon)",
    "star": "seat {seat} draws a card from the deck (The Star)",
    "strength": "seat {seat} may move {steps} more stones of any colour (Strength)",
    "sun": "seat {seat} draws {steps} more card(s) from the deck (The Sun)",
    "devil": "seat {seat} takes a card from another seat's collection (The Devil)",
    "judgement": "seat {seat} takes a card from the discard pile (Judgement)",
}


def effect(task: tuple[int, int, int, int]) -> str:
    """The key of a task's effect."""
    return EFFECTS[task[0]]


def front_is(state: StonesState, key: str) -> bool:
    """True if the effect waiting first is `key`."""
    return bool(state.tasks) and EFFECTS[state.tasks[0][0]] == key


def describe_task(task: tuple[int, int, int, int]) -> str:
    """A task in words."""
    return WORDS[effect(task)].format(seat=task[1], steps=task[2])


def decider(state: StonesState) -> int:
    """The seat that decides the first task, or chance."""
    task = state.tasks[0]
    return CHANCE_TO_MOVE if effect(task) in BY_CHANCE else task[1]


def drawing_seat(state: StonesState) -> int | None:
    """The seat drawing for The Star or The Sun, when that is what waits."""
    if state.tasks and effect(state.tasks[0]) in ("star", "sun"):
        return state.tasks[0][1]
    return None


def after_step(tasks: tuple[tuple[int, int, int, int], ...]) -> tuple[tuple[int, int, int, int], ...]:
    """The tasks once a step of the first one is done: it ends after its last step."""
    code, seat, steps, at = tasks[0]
    return tasks[1:] if steps <= 1 else ((code, seat, steps - 1, at), *tasks[1:])


def step_done(state: StonesState) -> StonesState:
    """One step of the first task is done."""
    return replace(state, tasks=after_step(state.tasks))


def _possible(state: StonesState, task: tuple[int, int, int, int]) -> bool:
    key, seat = effect(task), task[1]
    if key == "tower":
        return any(state.collections)
    if key in ("fortune", "priestess"):
        return bool(face_down(state)) or (key == "priestess" and state.deck_size > 0)
    if key == "moon":
        return len(face_down(state)) >= 2
    if key in ("star", "sun"):
        return state.deck_size > 0
    if key == "devil":
        return any(held for s, held in enumerate(state.collections) if s != seat)
    if key == "judgement":
        return bool(state.discard)
    return True  # chariot, strength: a stone can always move somewhere


def drop_impossible(state: StonesState) -> StonesState:
    """Leave out the waiting effects that cannot be carried out (nothing to flip, take, draw, ...)."""
    tasks = state.tasks
    while tasks and not _possible(state, tasks[0]):
        tasks = tasks[1:]
    return state if tasks is state.tasks else replace(state, tasks=tasks)


def _clear(
    stones: tuple[tuple[int, ...], ...], seats: range | list[int], edges: list[int]
) -> tuple[tuple[int, ...], ...]:
    """Stones of `seats` on `edges` go back to their supply."""
    out = list(stones)
    for seat in seats:
        out[seat] = tuple(0 if e in edges else n for e, n in enumerate(out[seat]))
    return tuple(out)


def on_flip(state: StonesState, at: int) -> StonesState:
    """S7 (1): the flipped card's FLIP effect: done at once, or waiting first as the flipper's task."""
    key = FLIP_OF[state.spread[at]]
    if key is None:
        return state
    if key == "temperance":
        edges = side_edges(state, at)
        forbidden = [edges[side] for side in FORBIDDEN_SIDES[state.spread[at]]]
        return replace(state, stones=_clear(state.stones, range(len(state.players)), forbidden))
    return replace(state, tasks=((CODE[key], state.seat, STEPS[key], at), *state.tasks))


def on_win(state: StonesState, at: int, won: int, taker: int) -> StonesState:
    """S7 (4): the won card's WIN effect, carried out by its winner: at once, or waiting first as a task."""
    key = WIN_OF[won]
    if key is None:
        return state
    if key == "hermit":
        return replace(state, stones=_clear(state.stones, [taker], list(range(len(state.stones[taker])))))
    if key == "justice":
        others = [s for s in range(len(state.players)) if s != taker]
        return replace(state, stones=_clear(state.stones, others, list(side_edges(state, at))))
    return replace(state, tasks=((CODE[key], taker, STEPS[key], at), *state.tasks))


# --- Decisions and chance of the effects that wait --------------------------------------------------------------------


def check_stopped(state: StonesState) -> None:
    """Only an effect of 'up to' some steps may be stopped early."""
    if not state.tasks or effect(state.tasks[0]) not in OPTIONAL:
        raise IllegalAction("there is no effect to stop now (only Strength, The Chariot, The High Priestess, The Moon)")


def stopped(state: StonesState) -> StonesState:
    """The first task ends."""
    return replace(state, tasks=state.tasks[1:])


def check_swapped(state: StonesState, event: CardsSwapped) -> None:
    """The Moon: two different face-down cards."""
    if not front_is(state, "moon"):
        raise IllegalAction("cards are swapped only by The Moon")
    if len(event.positions) != 2:
        raise IllegalAction("The Moon swaps exactly two cards")
    a, b = (position(state, name) for name in event.positions)
    if a == b or a not in face_down(state) or b not in face_down(state):
        raise IllegalAction("The Moon swaps two different face-down cards")


def swapped(state: StonesState, event: CardsSwapped) -> StonesState:
    """The two cards change places; each seat's memory of them moves with them."""
    a, b = (position(state, name) for name in event.positions)

    def swap(row: tuple[int, ...]) -> tuple[int, ...]:
        return set_at(set_at(row, a, row[b]), b, row[a])

    return step_done(replace(state, spread=swap(state.spread), known=tuple(swap(k) for k in state.known)))


def check_taken(state: StonesState, event: CardTaken) -> None:
    """The Devil: a card of another seat's collection."""
    if not front_is(state, "devil"):
        raise IllegalAction("a card is taken from a collection only by The Devil")
    taker = state.tasks[0][1]
    if event.owner == taker or not 0 <= event.owner < len(state.players):
        raise IllegalAction("The Devil takes a card from another seat's collection")
    if card(event.card) not in state.collections[event.owner]:
        raise IllegalAction(f"{event.card} is not in the collection of seat {event.owner}")


def taken(state: StonesState, event: CardTaken) -> StonesState:
    """The card changes collection; gained from another seat, it triggers no effect (S7)."""
    taker, moved = state.tasks[0][1], card(event.card)
    collections = set_at(state.collections, event.owner, without(state.collections[event.owner], moved))
    collections = set_at(collections, taker, collections[taker] + (moved,))
    return step_done(replace(state, collections=collections))


def check_recovered(state: StonesState, event: CardRecovered) -> None:
    """Judgement: a card of the discard pile."""
    if not front_is(state, "judgement"):
        raise IllegalAction("a card is taken from the discard pile only by Judgement")
    if card(event.card) not in state.discard:
        raise IllegalAction(f"{event.card} is not in the discard pile")


def recovered(state: StonesState, event: CardRecovered) -> StonesState:
    """The card joins the winner's collection, with no effect."""
    taker, moved = state.tasks[0][1], card(event.card)
    collections = set_at(state.collections, taker, state.collections[taker] + (moved,))
    return step_done(replace(state, collections=collections, discard=without(state.discard, moved)))


def check_discards(state: StonesState, event: RandomDiscards) -> None:
    """The Tower: one card of each seat's collection (none for an empty one)."""
    if not front_is(state, "tower"):
        raise IllegalAction("cards are discarded at random only by The Tower")
    if len(event.cards) != len(state.players):
        raise IllegalAction("The Tower names one discarded card (or null) per seat")
    for seat, (name, held) in enumerate(zip(event.cards, state.collections)):
        if (name is None) != (not held) or (name is not None and card(name) not in held):
            raise IllegalAction(f"seat {seat} discards a card of its own collection, or none if it has none")


def discarded(state: StonesState, event: RandomDiscards) -> StonesState:
    """Each named card goes from its collection to the discard pile, seat by seat."""
    collections, discard = list(state.collections), state.discard
    for seat, name in enumerate(event.cards):
        if name is not None:
            collections[seat] = without(collections[seat], card(name))
            discard += (card(name),)
    return step_done(replace(state, collections=tuple(collections), discard=discard))
