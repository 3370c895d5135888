"""Moirai, rulings M1-M17: setup, the two options with every placement rule, the end, and the score.

Reads top to bottom like the rulebook. Life cards are their numbers 0..79. A seat's loom is a tuple of lives, each
`(start, cards, close)`: the face-down starting card, the face-up cards in the order placed, and the face-down
closing card (None while the life is open). Lives are numbered from 1 for people (the setup life is life 1).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from random import Random
from typing import Any

from engine.cards import contains_all, without_all
from engine.moirai.arrangements import pile_arrangements, single_placements
from engine.moirai.cards import (
    CHOICES,
    COLOURS,
    DRAW,
    FULL_DECK,
    HOWS,
    MAX_PLAYERS,
    MIN_PLAYERS,
    OPEN,
    UP,
    card,
    colour,
    pile,
)
from engine.moirai.scoring import Life, Loom, cut_short, score_table
from engine.protocol import CHANCE_TO_MOVE, HIDDEN
from engine.state import evolver
from engine.unseen import fill, rest, shuffled, unseen
from events.base import IllegalAction, Payload
from events.moirai import (
    CardKept,
    CardsDrawn,
    GameStarted,
    ObjectivesDrawn,
    PileTaken,
    Placement,
    StartsDealt,
    StartsRevealed,
)

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


# Actions: what a player decides. The events they produce name the cards.
@dataclass(frozen=True, slots=True)
class Draw:
    """Option 1, first half: draw up to three cards."""


@dataclass(frozen=True, slots=True)
class Keep:
    """Option 1, second half: keep one drawn card and place it."""

    placement: Placement


@dataclass(frozen=True, slots=True)
class Take:
    """Option 2: take the pile of colour `pile` and place all of it, in this order."""

    pile: int
    placed: tuple[Placement, ...]


Action = Draw | Keep | Take


# --- Setup (M1-M4) --------------------------------------------------------------------------------------------------


def _check_players(count: int) -> None:
    if not MIN_PLAYERS <= count <= MAX_PLAYERS:
        raise IllegalAction(f"Moirai is for {MIN_PLAYERS} to {MAX_PLAYERS} players, not {count} (M1)")


def setup(players: Sequence[str], rng: Random) -> list[Payload]:
    """M2, M3: shuffle the deck, draw the three objectives, deal each seat its face-down starting card."""
    _check_players(len(players))
    deck = list(FULL_DECK)
    rng.shuffle(deck)
    objectives = tuple(rng.choice(ids) for ids in CHOICES)
    return [
        GameStarted(players=tuple(players), seed=rng.getrandbits(48), deck=tuple(deck)),
        ObjectivesDrawn(objectives=objectives),  # type: ignore[arg-type]
        StartsDealt(starts=tuple(deck[: len(players)])),
    ]


def _check_started(state: MoiraiState, event: GameStarted) -> None:
    if state.players:
        raise IllegalAction("the game has already started")
    _check_players(len(event.players))
    if event.deck is not None and tuple(sorted(card(c) for c in event.deck)) != FULL_DECK:
        raise IllegalAction(f"the deck must hold each of the cards 0 to {len(FULL_DECK) - 1} exactly once (M1)")


def _started(state: MoiraiState, event: GameStarted) -> MoiraiState:
    return replace(
        state,
        players=event.players,
        seed=event.seed or 0,
        deck=FULL_DECK if event.deck is None else event.deck,
        deck_ordered=event.deck is not None,
        looms=((),) * len(event.players),
    )


def _check_objectives(state: MoiraiState, event: ObjectivesDrawn) -> None:
    if state.objectives:
        raise IllegalAction("the objectives have already been drawn")
    drawn = tuple(event.objectives)
    if len(drawn) != len(CHOICES) or any(o not in ids for o, ids in zip(drawn, CHOICES)):
        raise IllegalAction(
            f"the objectives are one Clotho (1-4), one Lachesis (5-8) and one Atropos (9-12), not {list(drawn)} (M2)"
        )


def _objectives(state: MoiraiState, event: ObjectivesDrawn) -> MoiraiState:
    return replace(state, objectives=tuple(event.objectives))


def _check_unseen(state: MoiraiState, cards: Sequence[int], what: str) -> None:
    """Cards named by chance or a drawer: the next ones of a known deck, else distinct cards nobody has named yet.
    The deck is hidden from every seat: a refusal names only the cards the event gave, never the deck's."""
    named = [card(c) for c in cards]
    if state.deck_ordered:
        if tuple(named) != state.deck[: len(named)]:
            raise IllegalAction(f"{what} are not the next cards of the deck")
    elif len(set(named)) != len(named) or not contains_all(state.deck, named):
        raise IllegalAction(f"{what} must be distinct cards nobody has seen yet, not {named}")


def _check_dealt(state: MoiraiState, event: StartsDealt) -> None:
    if state.dealt:
        raise IllegalAction("the starting cards have already been dealt")
    if event.starts is not None:
        if len(event.starts) != len(state.players):
            raise IllegalAction(f"each of the {len(state.players)} players gets one starting card (M3)")
        _check_unseen(state, event.starts, "the starting cards")


def _dealt(state: MoiraiState, event: StartsDealt) -> MoiraiState:
    seats = len(state.players)
    starts: tuple[int, ...] = (HIDDEN,) * seats
    deck = state.deck
    if state.deck_ordered:
        starts, deck = deck[:seats], deck[seats:]
    elif event.starts is not None:
        starts, deck = tuple(event.starts), without_all(deck, event.starts)
    looms = tuple(((start, (), None),) for start in starts)
    return replace(state, dealt=True, looms=looms, deck=deck, deck_left=state.deck_left - seats)


# --- Placing cards (M5, M6) -----------------------------------------------------------------------------------------


def placement(raw: object) -> Placement:
    """A placement `[card, how, life]` checked for shape: `how` is up, open or close; lives count from 1."""
    if not isinstance(raw, list | tuple) or len(raw) != 3:
        raise IllegalAction(f"a placement is [card, how, life] with how one of {', '.join(HOWS)}; not {raw!r}")
    value, how, life = raw
    if how not in HOWS:
        raise IllegalAction(f"a card is placed {', '.join(HOWS)}, not {how!r}")
    if type(life) is not int or life < 1:
        raise IllegalAction(f"lives are numbered from 1, not {life!r}")
    return (card(value), how, life)


def place(loom: Loom, placements: Sequence[Placement]) -> Loom:
    """The loom after placing cards in this order; IllegalAction names the first placement M5 or M6 forbids."""
    lives: list[Life] = list(loom)
    for value, how, life in placements:
        if how == OPEN:
            if life != len(lives) + 1:
                raise IllegalAction(f"a new life is life {len(lives) + 1}, not life {life} (M6)")
            lives.append((value, (), None))
            continue
        if not 1 <= life <= len(lives):
            count = f"{len(lives)} life" if len(lives) == 1 else f"{len(lives)} lives"
            raise IllegalAction(f"there is no life {life}: the loom has {count}")
        start, cards, close = lives[life - 1]
        if close is not None:
            raise IllegalAction(f"life {life} is cut short and takes no more cards (M6)")
        if how == UP:
            if cards and value <= cards[-1]:
                raise IllegalAction(f"{value} cannot follow {cards[-1]} on life {life} (M5)")
            lives[life - 1] = (start, cards + (value,), None)
        else:
            if not cards:
                raise IllegalAction(f"life {life} holds no face-up card yet, so it cannot be closed (M6)")
            lives[life - 1] = (start, cards, value)
    return tuple(lives)


# --- Option 1: draw up to three cards, keep one (M7, M9, M10) --------------------------------------------------------


def _check_drew(state: MoiraiState, event: CardsDrawn) -> None:
    _check_no_draw_pending(state)
    if not state.deck_left:
        raise IllegalAction("the deck is empty: the game is over (M11)")
    count = min(DRAW, state.deck_left)
    if len(event.cards) != count:
        raise IllegalAction(f"option 1 draws {count} cards here, not {len(event.cards)} (M7, M10)")
    _check_unseen(state, event.cards, "the drawn cards")


def _drew(state: MoiraiState, event: CardsDrawn) -> MoiraiState:
    drawn = tuple(event.cards)
    deck = state.deck[len(drawn) :] if state.deck_ordered else without_all(state.deck, drawn)
    return replace(state, deck=deck, deck_left=state.deck_left - len(drawn), drawn=drawn, turn=state.turn + 1)


def _check_kept(state: MoiraiState, event: CardKept) -> None:
    if not state.drawn:
        raise IllegalAction("no cards were drawn this turn: draw (option 1) or take a pile (option 2) first")
    if len(event.placed) != 1:
        raise IllegalAction(f"option 1 keeps exactly one of the drawn cards, not {len(event.placed)} (M7)")
    kept = placement(event.placed[0])
    if kept[0] not in state.drawn:
        raise IllegalAction(f"{kept[0]} is not one of the cards drawn this turn (M7)")
    place(state.looms[state.seat], [kept])


def _kept(state: MoiraiState, event: CardKept) -> MoiraiState:
    kept = event.placed[0]
    piles = list(state.piles)
    for c in state.drawn:
        if c != kept[0]:
            piles[colour(c)] += (c,)
    looms = _set(state.looms, state.seat, place(state.looms[state.seat], event.placed))
    return _end_turn(state, looms=looms, piles=tuple(piles), drawn=())


# --- Option 2: take a whole pile (M8, M9, M11) ----------------------------------------------------------------------


def _check_no_draw_pending(state: MoiraiState) -> None:
    # The drawn cards are the drawer's alone (M9): the reason does not name them.
    if state.drawn:
        raise IllegalAction("keep one of the cards drawn this turn first (M7)")


def _check_took(state: MoiraiState, event: PileTaken) -> None:
    _check_no_draw_pending(state)
    taken = state.piles[pile(event.pile)]
    if not taken:
        raise IllegalAction(f"the {event.pile} pile is empty (M8)")
    placed = [placement(p) for p in event.placed]
    if sorted(value for value, _, _ in placed) != sorted(taken):
        held = ", ".join(map(str, sorted(taken)))
        raise IllegalAction(f"every card of the {event.pile} pile ({held}) must be placed, each once (M8)")
    if sum(how != UP for _, how, _ in placed) > 1:
        raise IllegalAction("only one card of a pile may go face down (M8)")
    place(state.looms[state.seat], placed)


def _took(state: MoiraiState, event: PileTaken) -> MoiraiState:
    down = tuple(value for value, how, _ in event.placed if how != UP)
    looms = _set(state.looms, state.seat, place(state.looms[state.seat], event.placed))
    return _end_turn(
        state,
        turn=state.turn + 1,
        looms=looms,
        piles=_set(state.piles, pile(event.pile), ()),
        public_down=tuple(sorted(state.public_down + down)) if down else state.public_down,
    )


def _end_turn(state: MoiraiState, **changes: Any) -> MoiraiState:
    return replace(state, seat=(state.seat + 1) % len(state.players), **changes)


# --- End of the game (M10, M11) and the reveal for scoring (M3, M12) ------------------------------------------------


def _check_revealed(state: MoiraiState, event: StartsRevealed) -> None:
    if state.revealed:
        raise IllegalAction("the starting cards are already revealed")
    if state.deck_left or state.drawn:
        raise IllegalAction("the starting cards are revealed only once the game is over (M3, M10)")
    starts = [card(c) for c in event.starts]
    if len(starts) != len(state.players):
        raise IllegalAction(f"each of the {len(state.players)} players reveals one starting card")
    known = [loom[0][0] for loom in state.looms]
    for seat, (named, start) in enumerate(zip(starts, known)):
        # M3: nobody has seen a starting card before this reveal, so the reason names only the event's card.
        if start != HIDDEN and named != start:
            raise IllegalAction(f"{named} is not seat {seat}'s starting card")
    unknown = [named for named, start in zip(starts, known) if start == HIDDEN]
    if len(set(unknown)) != len(unknown) or not contains_all(state.deck, unknown):
        raise IllegalAction(f"the starting cards must be distinct cards nobody has seen yet, not {unknown}")


def _revealed(state: MoiraiState, event: StartsRevealed) -> MoiraiState:
    looms = tuple(((start, *loom[0][1:]),) + loom[1:] for start, loom in zip(event.starts, state.looms))
    unknown = [start for start, loom in zip(event.starts, state.looms) if loom[0][0] == HIDDEN]
    return replace(state, looms=looms, revealed=True, deck=without_all(state.deck, unknown))  # type: ignore[arg-type]


# --- Score (M12-M17) ------------------------------------------------------------------------------------------------


def breakdown(state: MoiraiState) -> list[dict[str, int]]:
    """Per seat, the points of each objective in play: {"clotho 2": 4, "lachesis 6": 8, "atropos 12": 7}."""
    return score_table(state.objectives, state.looms)


def scores(state: MoiraiState) -> list[int]:
    """M12-M16: the sum of the three objectives in play."""
    return [sum(row.values()) for row in breakdown(state)]


def winners(state: MoiraiState) -> list[int]:
    """M17: the highest total; a tie goes to the most cut-short lives; still tied, a shared victory."""
    ranks = [(points, len(cut_short(loom))) for points, loom in zip(scores(state), state.looms)]
    best = max(ranks, default=(0, 0))
    return [seat for seat, rank in enumerate(ranks) if rank == best]


# --- Who acts, what they may do, and how it becomes events -----------------------------------------------------------


def to_move(state: MoiraiState) -> int | None:
    """The seat to act, CHANCE_TO_MOVE during setup and for the final reveal, or None once revealed (M10)."""
    if not state.dealt:
        return CHANCE_TO_MOVE
    if state.revealed:
        return None
    if not state.deck_left and not state.drawn:
        return CHANCE_TO_MOVE
    return state.seat


def next_turn(state: MoiraiState, by_chance: bool) -> int:
    """Drawing or taking a pile begins the next turn; keeping a card, and chance, belong to the turn being played."""
    return state.turn if by_chance or state.drawn else state.turn + 1


def legal_actions(state: MoiraiState) -> list[Action]:
    """M7, M8: after a draw, every placement of every drawn card; otherwise draw (while the deck lasts), then, pile
    by pile, the arrangements of `arrangements.pile_arrangements` (all of them for a one-card pile; for a larger
    pile a bounded, deterministic family: see there). `check` accepts any other legal arrangement too."""
    if to_move(state) in (None, CHANCE_TO_MOVE):
        return []
    loom = state.looms[state.seat]
    if state.drawn:
        return [Keep(p) for c in sorted(state.drawn) for p in single_placements(loom, c)]
    actions: list[Action] = [Draw()] if state.deck_left else []
    for c, cards in enumerate(state.piles):
        if cards:
            actions.extend(Take(c, placed) for placed in pile_arrangements(loom, cards))
    return actions


def resolve(state: MoiraiState, action: Action, rng: Random) -> list[Payload]:
    """The event of the seat's action; a draw names the top cards (or, deck order unknown, unseen cards by rng)."""
    match action:
        case Draw():
            count = min(DRAW, state.deck_left)
            if not count:
                raise IllegalAction("the deck is empty: the game is over (M11)")
            drawn = state.deck[:count] if state.deck_ordered else tuple(rng.sample(state.deck, count))
            return [CardsDrawn(cards=drawn)]
        case Keep(placement=placed):
            return [CardKept(placed=(placed,))]
        case Take(pile=taken, placed=placed):
            return [PileTaken(pile=COLOURS[taken], placed=placed)]
    raise IllegalAction(f"{action!r} is not a Moirai action")


def chance(state: MoiraiState, rng: Random) -> Payload:
    """Whatever setup a table log left out (objectives, the deal), or the final reveal of the starting cards."""
    if not state.objectives:
        return ObjectivesDrawn(objectives=tuple(rng.choice(ids) for ids in CHOICES))  # type: ignore[arg-type]
    if not state.dealt:
        return StartsDealt(starts=state.deck[: len(state.players)] if state.deck_ordered else None)
    unknown = rng.sample(state.deck, sum(loom[0][0] == HIDDEN for loom in state.looms))
    starts = tuple(unknown.pop() if loom[0][0] == HIDDEN else loom[0][0] for loom in state.looms)
    return StartsRevealed(starts=starts)


_CHECKS: dict[type, Any] = {
    GameStarted: _check_started,
    ObjectivesDrawn: _check_objectives,
    StartsDealt: _check_dealt,
    CardsDrawn: _check_drew,
    CardKept: _check_kept,
    PileTaken: _check_took,
    StartsRevealed: _check_revealed,
}
_APPLY: dict[type, Any] = {
    GameStarted: _started,
    ObjectivesDrawn: _objectives,
    StartsDealt: _dealt,
    CardsDrawn: _drew,
    CardKept: _kept,
    PileTaken: _took,
    StartsRevealed: _revealed,
}
_SETUP = (GameStarted, ObjectivesDrawn, StartsDealt)


def check(state: MoiraiState, event: Payload) -> None:
    """Raise IllegalAction if `event` cannot come next."""
    if type(event) not in _CHECKS:
        raise IllegalAction(f"{event.TYPE} is not a Moirai event")
    stage = 0 if not state.players else 1 if not state.objectives else 2 if not state.dealt else 3
    if stage < 3 and type(event) is not _SETUP[stage]:
        raise IllegalAction(f"a Moirai game begins with {', then '.join(e.TYPE for e in _SETUP)}")
    if state.revealed:
        raise IllegalAction("the game is over")
    _CHECKS[type(event)](state, event)


def apply(state: MoiraiState, event: Payload) -> MoiraiState:
    """The state after a checked event."""
    return _APPLY[type(event)](state, event)  # type: ignore[no-any-return]


# --- Hidden information (M3, M9) ------------------------------------------------------------------------------------


def _seen(life: Life, setup_life: bool, own: bool, state: MoiraiState) -> Life:
    start, cards, close = life
    if not (state.revealed or (not setup_life and (own or start in state.public_down))):
        start = HIDDEN
    if close is not None and not (own or close in state.public_down):
        close = HIDDEN
    return (start, cards, close)


def view(state: MoiraiState, seat: int) -> MoiraiState:
    """What `seat` knows: face-up cards and piles; its own face-down cards except its setup starting card (M3);
    face-down cards from piles (M9); the cards it drew this turn. Never the deck nor the seed that orders it."""
    looms = tuple(
        tuple(_seen(life, index == 0, owner == seat, state) for index, life in enumerate(loom))
        for owner, loom in enumerate(state.looms)
    )
    drawn = state.drawn if seat == state.seat else (HIDDEN,) * len(state.drawn)
    return replace(state, looms=looms, drawn=drawn, deck=(HIDDEN,) * len(state.deck), seed=HIDDEN)


def determinize(state: MoiraiState, seat: int | None, rng: Random) -> MoiraiState:
    """A full position consistent with what `seat` sees in `state` (its view): every card hidden from it (face-down
    cards, others' drawn cards, the deck) dealt at random from the cards it has not seen. A table log's setup starting
    cards, which nobody knows, stay unknown. With `seat` None, `state` is a full position and only what nobody has
    seen (the setup starting cards, the deck's order) is drawn anew."""
    if seat is None:
        return _redeal_setup_and_deck(state, rng)
    seen = [c for loom in state.looms for start, ups, close in loom for c in (start, *ups, close) if c is not None]
    seen += [c for pile_cards in state.piles for c in pile_cards] + list(state.drawn)
    cards = shuffled(unseen(FULL_DECK, seen), rng)
    # A table log without the starting cards keeps them unknown: its deck is then every card not yet named.
    keep_setup = not state.deck_ordered and len(state.deck) > state.deck_left and not state.revealed
    looms = tuple(
        tuple(_dealt_into(life, index == 0 and keep_setup, cards) for index, life in enumerate(loom))
        for loom in state.looms
    )
    drawn = fill(state.drawn, cards)
    deck = rest(cards, len(state.deck), state.deck_ordered, rng)
    return replace(state, looms=looms, drawn=drawn, deck=deck, seed=rng.getrandbits(48))


def _dealt_into(life: Life, keep_start: bool, cards: list[int]) -> Life:
    start, ups, close = life
    if start == HIDDEN and not keep_start:
        start = cards.pop()
    return (start, ups, cards.pop() if close == HIDDEN else close)


def _redeal_setup_and_deck(state: MoiraiState, rng: Random) -> MoiraiState:
    """The setup starting cards nobody has seen and the deck, shuffled together and dealt again."""
    if state.revealed or not state.dealt:
        return state
    starts = [loom[0][0] for loom in state.looms]
    cards = shuffled([*state.deck, *(c for c in starts if c != HIDDEN)], rng)
    looms = tuple(
        loom if start == HIDDEN else ((cards.pop(), *loom[0][1:]),) + loom[1:]
        for start, loom in zip(starts, state.looms)
    )
    return replace(state, looms=looms, deck=rest(cards, len(state.deck), state.deck_ordered, rng))


# --- Helpers --------------------------------------------------------------------------------------------------------


def _set(row: tuple[Any, ...], index: int, value: Any) -> tuple[Any, ...]:
    return row[:index] + (value,) + row[index + 1 :]


def _placements(raw: object) -> tuple[Placement, ...]:
    if not isinstance(raw, list | tuple):
        raise IllegalAction(f"expected a list of placements [card, how, life], got {raw!r}")
    return tuple(placement(p) for p in raw)


def parse_action(data: Any) -> Action:
    """An action from JSON: {"type": "draw"}, {"type": "keep", "place": [29, "up", 2]},
    {"type": "take", "pile": "green", "place": [[4, "open", 3], [8, "up", 3]]}."""
    kind = data.get("type") if isinstance(data, dict) else None
    if kind == "draw":
        return Draw()
    if kind == "keep":
        return Keep(placement(data.get("place")))
    if kind == "take":
        return Take(pile(data.get("pile")), _placements(data.get("place")))
    raise IllegalAction(f"{data!r} is not a Moirai action; use draw, keep or take")


def action_json(action: Action) -> dict[str, Any]:
    """The JSON form of an action."""
    match action:
        case Keep(placement=placed):
            return {"type": "keep", "place": list(placed)}
        case Take(pile=taken, placed=placed):
            return {"type": "take", "pile": COLOURS[taken], "place": [list(p) for p in placed]}
    return {"type": "draw"}
