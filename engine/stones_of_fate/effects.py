"""The effects of the cards (S2): FLIP effects carried out by the flipper, WIN effects by the winner.

An effect that needs a choice (which stones to move, which card to flip next) waits as a task for its seat's
decision events; one that needs chance (a random discard, a draw) waits for a chance event; the rest happen at
once in the reducer of the event that triggers them. A task is `(effect, seat, steps left, position)`.

FLIP: tower (each seat discards a card of its collection at random), fortune (flip one more face-down card),
priestess (peek at up to two cards), chariot (move up to two of your stones), temperance (every stone beside this
card's Forbidden zones goes back to its supply), moon (swap two face-down cards), star (draw a card from the deck).
WIN: strength (move up to three stones of any colour), sun (draw two cards from the deck), devil (take a card from
another seat's collection), judgement (take a card from the discard pile), hermit (all your stones go back to your
supply), justice (every other seat's stones beside this card go back to their supply). End: death (rules.py).
"""

from __future__ import annotations

from itertools import combinations

from loom.engine.cards import without
from loom.engine.protocol import CHANCE_TO_MOVE
from loom.engine.stones_of_fate.cards import CARD_IDS, FLIP_EFFECTS, FLIP_OF, FORBIDDEN_SIDES, WIN_EFFECTS, WIN_OF, card
from loom.engine.stones_of_fate.state import StonesState, face_down, position, replace, set_at, side_edges
from loom.events.base import IllegalAction
from loom.events.stones_of_fate import CardRecovered, CardsSwapped, CardTaken, RandomDiscards

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


def swap_pairs(state: StonesState) -> list[tuple[int, int]]:
    """The Moon: every pair of face-down cards."""
    return list(combinations(face_down(state), 2))


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


def card_names(held: tuple[int, ...]) -> list[str]:
    """Card ids, for messages."""
    return [CARD_IDS[c] for c in held]
