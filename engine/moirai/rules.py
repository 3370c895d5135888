"""Moirai, rulings M1-M17: setup, the events of the two options with every placement rule, and the end.

Reads top to bottom like the rulebook. Life cards are their numbers 0..79. A seat's loom is a tuple of lives, each
`(start, cards, close)`: the face-down starting card, the face-up cards in the order placed, and the face-down
closing card (None while the life is open). Lives are numbered from 1 for people (the setup life is life 1)."""

from __future__ import annotations

from collections.abc import Sequence
from random import Random
from typing import Any

from loom.engine.cards import contains_all, without_all
from loom.engine.dispatch import event_rules
from loom.engine.moirai.cards import (
    CHOICES,
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
from loom.engine.moirai.state import Life, Loom, MoiraiState, replace
from loom.engine.protocol import CHANCE_TO_MOVE, HIDDEN
from loom.events.base import IllegalAction, Payload
from loom.events.moirai import (
    CardKept,
    CardsDrawn,
    GameStarted,
    ObjectivesDrawn,
    PileTaken,
    Placement,
    StartsDealt,
    StartsRevealed,
)

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
    named = list(map(card, cards))
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


# --- Who acts --------------------------------------------------------------------------------------------------------


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


# --- Checking and applying events ------------------------------------------------------------------------------------


_SETUP = (GameStarted, ObjectivesDrawn, StartsDealt)

check, apply = event_rules(
    MoiraiState,
    "Moirai",
    {
        GameStarted: (_check_started, _started),
        ObjectivesDrawn: (_check_objectives, _objectives),
        StartsDealt: (_check_dealt, _dealt),
        CardsDrawn: (_check_drew, _drew),
        CardKept: (_check_kept, _kept),
        PileTaken: (_check_took, _took),
        StartsRevealed: (_check_revealed, _revealed),
    },
    setup=[(event, f"a Moirai game begins with {', then '.join(e.TYPE for e in _SETUP)}") for event in _SETUP],
    setup_done=lambda state: 0 if not state.players else 1 if not state.objectives else 2 if not state.dealt else 3,
    over=lambda state, event: state.revealed,
)


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


# --- Helpers --------------------------------------------------------------------------------------------------------


def _set(row: tuple[Any, ...], index: int, value: Any) -> tuple[Any, ...]:
    return row[:index] + (value,) + row[index + 1 :]
