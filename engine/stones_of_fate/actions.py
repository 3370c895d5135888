"""What a seat may do in Stones of Fate, and how a decision or chance becomes events.

Actions name places as the log does (`a1`, `b2-left`, `supply`, `deck`) so that they need no grid to be read;
`legal_actions` gives every edge by its canonical name (the first card, in reading order, it is a side of).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from itertools import combinations
from random import Random
from typing import Any

from loom.engine.protocol import CHANCE_TO_MOVE
from loom.engine.stones_of_fate.cards import CARD_IDS, COLOURS, Grid, card
from loom.engine.stones_of_fate.rules import to_move
from loom.engine.stones_of_fate.score import tied_for_first
from loom.engine.stones_of_fate.state import (
    DECK,
    EMPTY,
    SUPPLY,
    StonesState,
    effect,
    face_down,
    final_winners,
    front_is,
    grid_of,
    next_drawer,
    place,
    position,
    refill_due,
    settling,
    supply,
    top_card,
    winner_at,
)
from loom.events.base import IllegalAction, Payload
from loom.events.stones_of_fate import (
    CardDrawn,
    CardFlipped,
    CardPeeked,
    CardRecovered,
    CardsSwapped,
    CardTaken,
    CardWon,
    DeathGiven,
    EffectStopped,
    FinalFlip,
    NextChosen,
    RandomDiscards,
    SpreadRefilled,
    StoneMoved,
)


@dataclass(frozen=True, slots=True)
class Peek:
    """S5 (or The High Priestess): look at the card at `at` (`a1`) or the top of the `deck`."""

    at: str


@dataclass(frozen=True, slots=True)
class Move:
    """S6 (or The Chariot, Strength): a `colour` stone from `source` to `target` (edges or `supply`)."""

    colour: str | None
    source: str
    target: str


@dataclass(frozen=True, slots=True)
class Flip:
    """S7 (or Wheel of Fortune): flip the card at `at`."""

    at: str


@dataclass(frozen=True, slots=True)
class Swap:
    """The Moon: swap two face-down cards."""

    first: str
    second: str


@dataclass(frozen=True, slots=True)
class Take:
    """The Devil: take `card` from seat `owner`'s collection."""

    owner: int
    card: int


@dataclass(frozen=True, slots=True)
class Recover:
    """Judgement: take `card` from the discard pile."""

    card: int


@dataclass(frozen=True, slots=True)
class Stop:
    """Use no more of an 'up to' effect."""


@dataclass(frozen=True, slots=True)
class Choose:
    """S7: settle the face-up card at `at` next."""

    at: str


@dataclass(frozen=True, slots=True)
class GiveDeath:
    """S2: Death's holder gives it to seat `to`."""

    to: int


Action = Peek | Move | Flip | Swap | Take | Recover | Stop | Choose | GiveDeath


# --- Legal actions ----------------------------------------------------------------------------------------------------


@cache
def _move_rows(rows: int, cols: int, colour: int) -> tuple[tuple[Move, ...], ...]:
    """Per source (each edge, then the supply last): the moves of a `colour` stone from it to every other place."""
    grid = Grid(rows, cols)
    places = (*(grid.edge_name(e) for e in range(grid.edges)), SUPPLY)
    return tuple(tuple(Move(COLOURS[colour], s, t) for t in places if t != s) for s in places)


def _moves(state: StonesState, colours: range | list[int]) -> list[Action]:
    """Every move of a stone of these colours: from the supply or an edge, to any other edge or the supply."""
    out: list[Action] = []
    for colour in colours:
        rows = _move_rows(state.rows, state.cols, colour)
        if supply(state, colour):
            out += rows[-1]
        for e, n in enumerate(state.stones[colour]):
            if n:
                out += rows[e]
    return out


def _task_actions(state: StonesState) -> list[Action]:
    key, seat = effect(state.tasks[0]), state.tasks[0][1]
    grid = grid_of(state)
    spots = [grid.position_name(p) for p in face_down(state)]
    if key == "fortune":
        return [Flip(p) for p in spots]
    if key == "priestess":
        return [*(Peek(p) for p in spots), *([Peek(DECK)] if state.deck_size else []), Stop()]
    if key == "chariot":
        return [*_moves(state, [seat]), Stop()]
    if key == "strength":
        return [*_moves(state, range(len(state.players))), Stop()]
    if key == "moon":
        pairs = swap_pairs(state)
        return [*(Swap(grid.position_name(a), grid.position_name(b)) for a, b in pairs), Stop()]
    if key == "devil":
        held = state.collections
        return [Take(s, c) for s in range(len(held)) if s != seat for c in sorted(set(held[s]))]
    return [Recover(c) for c in sorted(set(state.discard))]  # judgement


def swap_pairs(state: StonesState) -> list[tuple[int, int]]:
    """The Moon: every pair of face-down cards."""
    return list(combinations(face_down(state), 2))


def legal_actions(state: StonesState) -> list[Action]:
    """The actions of the seat to move, in a fixed order; the same on the seat's own view.

    A turn's action: peek at a face-down card or the deck, move one of the seat's stones (every source to every
    other place: at most 6 x 24 moves on the 3 x 3 grid), or flip a face-down card. Strength offers every stone of
    every colour (at most about 600 moves), so the lists stay bounded without leaving out a legal action.
    """
    mover = to_move(state)
    if mover is None or mover == CHANCE_TO_MOVE:
        return []
    grid = grid_of(state)
    if state.final:
        return [GiveDeath(s) for s in tied_for_first(state)]
    if state.tasks:
        return _task_actions(state)
    if state.face_up:
        return [Choose(grid.position_name(p)) for p in state.face_up]
    peeks, flips = _spot_actions(state.rows, state.cols)
    down = face_down(state)
    return [
        *(peeks[p] for p in down),
        *([PEEK_DECK] if state.deck_size else []),
        *_moves(state, [mover]),
        *(flips[p] for p in down),
    ]


PEEK_DECK = Peek(DECK)


@cache
def _spot_actions(rows: int, cols: int) -> tuple[tuple[Peek, ...], tuple[Flip, ...]]:
    names = [Grid(rows, cols).position_name(p) for p in range(rows * cols)]
    return tuple(Peek(n) for n in names), tuple(Flip(n) for n in names)


# --- From an action to its events -------------------------------------------------------------------------------------


def resolve(state: StonesState, action: Action, rng: Random) -> list[Payload]:
    """The event of the seat's action; a peek or flip names the card (drawn by rng from the unseen ones when the deck's
    order is unknown)."""
    match action:
        case Peek(at=at):
            if at == DECK and not state.deck_size:
                raise IllegalAction("the deck is empty")
            seen = top_card(state, rng) if at == DECK else state.spread[_spot(state, at)]
            return [CardPeeked(at=at, card=_name(seen))]
        case Move(colour=colour, source=source, target=target):
            mover = to_move(state)
            own = COLOURS[mover] if mover is not None and 0 <= mover < len(COLOURS) else ""
            return [StoneMoved(colour=colour or own, source=_edge(state, source), target=_edge(state, target))]
        case Flip(at=at):
            return [CardFlipped(at=at, card=_name(state.spread[_spot(state, at)]))]
        case Swap(first=first, second=second):
            return [CardsSwapped(positions=(first, second))]
        case Take(owner=owner, card=taken):
            return [CardTaken(owner=owner, card=CARD_IDS[taken])]
        case Recover(card=recovered):
            return [CardRecovered(card=CARD_IDS[recovered])]
        case Stop():
            return [EffectStopped()]
        case Choose(at=at):
            return [NextChosen(at=at)]
        case GiveDeath(to=to):
            return [DeathGiven(to=to)]
    raise IllegalAction(f"{action!r} is not a Stones of Fate action")


def _spot(state: StonesState, name: str) -> int:
    at = position(state, name)
    if state.spread[at] == EMPTY:
        raise IllegalAction(f"the space {name} is empty")
    return at


def _edge(state: StonesState, name: str) -> str:
    """The canonical name of an edge (`b2-left` -> `b1-right`)."""
    at = place(state, name)
    return SUPPLY if at == -1 else grid_of(state).edge_name(at)


def _name(c: int) -> str:
    if not 0 <= c < len(CARD_IDS):
        raise IllegalAction("that card is not known here")
    return CARD_IDS[c]


def chance(state: StonesState, rng: Random) -> Payload:
    """The next chance event: the final flip (S10), an effect's random discard or draw, an Opportunity draw, the
    winner of a card (S7-S8), or a refill (S9)."""
    grid = grid_of(state)
    if state.ending:
        shown = tuple(None if c == EMPTY else CARD_IDS[c] for c in state.spread)
        return FinalFlip(cards=shown, winners=final_winners(state))
    if state.tasks:
        if front_is(state, "tower"):
            return RandomDiscards(
                cards=tuple(CARD_IDS[rng.choice(held)] if held else None for held in state.collections)
            )
        return CardDrawn(seat=state.tasks[0][1], card=CARD_IDS[top_card(state, rng)])
    at = settling(state)
    if at is not None:
        drawer = next_drawer(state, at)
        if drawer is not None:
            return CardDrawn(seat=drawer, card=CARD_IDS[top_card(state, rng)])
        return CardWon(at=grid.position_name(at), card=CARD_IDS[state.spread[at]], winner=winner_at(state, at))
    if refill_due(state):
        return SpreadRefilled(at=grid.position_name(state.spread.index(EMPTY)), card=CARD_IDS[top_card(state, rng)])
    raise IllegalAction("chance has nothing to do now")


# --- JSON -------------------------------------------------------------------------------------------------------------


def parse_action(data: Any) -> Action:
    """An action from JSON: peek {at}, move {from, to, colour?}, flip {at}, swap {positions}, take {from, card},
    recover {card}, stop, choose {at}, give-death {to}."""
    kind = data.get("type") if isinstance(data, dict) else None
    try:
        match kind:
            case "peek":
                return Peek(str(data["at"]))
            case "move":
                return Move(data.get("colour"), str(data["from"]), str(data["to"]))
            case "flip":
                return Flip(str(data["at"]))
            case "swap":
                first, second = sorted(str(p) for p in data["positions"])
                return Swap(first, second)
            case "take":
                return Take(int(data["from"]), card(data["card"]))
            case "recover":
                return Recover(card(data["card"]))
            case "stop":
                return Stop()
            case "choose":
                return Choose(str(data["at"]))
            case "give-death":
                return GiveDeath(int(data["to"]))
    except (KeyError, TypeError, ValueError) as error:
        raise IllegalAction(f"{data!r} is not a complete {kind} action ({error})") from None
    raise IllegalAction(
        f"{data!r} is not a Stones of Fate action; "
        "use peek, move, flip, swap, take, recover, stop, choose or give-death"
    )


def action_json(action: Action) -> dict[str, Any]:
    """The JSON form of an action."""
    match action:
        case Peek(at=at):
            return {"type": "peek", "at": at}
        case Move(colour=colour, source=source, target=target):
            return {"type": "move", "from": source, "to": target} | ({"colour": colour} if colour else {})
        case Flip(at=at):
            return {"type": "flip", "at": at}
        case Swap(first=first, second=second):
            return {"type": "swap", "positions": [first, second]}
        case Take(owner=owner, card=taken):
            return {"type": "take", "from": owner, "card": CARD_IDS[taken]}
        case Recover(card=recovered):
            return {"type": "recover", "card": CARD_IDS[recovered]}
        case Choose(at=at):
            return {"type": "choose", "at": at}
        case GiveDeath(to=to):
            return {"type": "give-death", "to": to}
    return {"type": "stop"}
