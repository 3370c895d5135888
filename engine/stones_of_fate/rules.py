"""Stones of Fate, rulings S1-S11: setup, the two-action turn, the flip sequence, winners, refill, end and score.

Reads top to bottom like the rulebook. Cards are numbers (see `cards.py`); events name them. The cards' effects
(S2), a card's winner (S8) and what comes next are in `state.py`; what a seat may do and its events, in `actions.py`.
"""

from __future__ import annotations

from collections.abc import Sequence
from random import Random
from typing import Any

from loom.engine.cards import without
from loom.engine.dispatch import event_rules
from loom.engine.protocol import CHANCE_TO_MOVE, HIDDEN
from loom.engine.stones_of_fate.cards import (
    CARD_IDS,
    COLOURS,
    DEATH,
    DECK_PER_PLAYER,
    FULL_DECK,
    MAX_PLAYERS,
    MIN_PLAYERS,
    card,
    cards,
    grid_for,
)
from loom.engine.stones_of_fate.score import death_holder, tied_for_first
from loom.engine.stones_of_fate.state import (
    DECK,
    EMPTY,
    StonesState,
    after_step,
    check_discards,
    check_recovered,
    check_stopped,
    check_swapped,
    check_taken,
    check_top,
    decider,
    describe_task,
    discarded,
    drawing_seat,
    drop_impossible,
    face_down,
    final_winners,
    front_is,
    grid_of,
    next_drawer,
    on_flip,
    on_win,
    place,
    position,
    recovered,
    refill_due,
    replace,
    set_at,
    settling,
    step_done,
    stopped,
    supply,
    swapped,
    take_top,
    taken,
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
    GameStarted,
    NextChosen,
    RandomDiscards,
    SpreadDealt,
    SpreadRefilled,
    StoneMoved,
)

# --- Setup (S3) -------------------------------------------------------------------------------------------------------


def _check_players(players: Sequence[str]) -> None:
    if not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
        raise IllegalAction(f"Stones of Fate is for {MIN_PLAYERS} to {MAX_PLAYERS} players, not {len(players)}")


def setup(players: Sequence[str], rng: Random) -> list[Payload]:
    """S3: shuffle; deal the spread face up, then 8 cards per player as the deck; the rest leave the game."""
    _check_players(players)
    order = list(FULL_DECK)
    rng.shuffle(order)
    spread = grid_for(len(players)).size
    deck = order[spread : spread + DECK_PER_PLAYER * len(players)]
    return [
        GameStarted(players=tuple(players), seed=rng.getrandbits(48), deck=tuple(CARD_IDS[c] for c in deck)),
        SpreadDealt(spread=tuple(CARD_IDS[c] for c in order[:spread])),
    ]


def _check_started(state: StonesState, event: GameStarted) -> None:
    if state.players:
        raise IllegalAction("the game has already started")
    _check_players(event.players)
    if event.deck is not None:
        deck = cards(event.deck)
        if len(deck) != DECK_PER_PLAYER * len(event.players) or len(set(deck)) != len(deck):
            raise IllegalAction(f"the deck is {DECK_PER_PLAYER} different cards per player (S3)")


def _check_dealt(state: StonesState, event: SpreadDealt) -> None:
    if state.dealt:
        raise IllegalAction("the spread has already been dealt")
    spread = cards(event.spread)
    grid = grid_of(state)
    if len(spread) != grid.size or len(set(spread)) != len(spread):
        raise IllegalAction(f"the spread of {len(state.players)} players is {grid.size} different cards (S3)")
    if state.deck_ordered and set(spread) & set(state.deck):
        raise IllegalAction("a card of the spread is also in the recorded deck")


def _started(state: StonesState, event: GameStarted) -> StonesState:
    seats = len(event.players)
    grid = grid_for(seats)
    ordered = event.deck is not None
    return replace(
        state,
        players=event.players,
        seed=event.seed or 0,
        rows=grid.rows,
        cols=grid.cols,
        deck=cards(event.deck) if event.deck is not None else FULL_DECK,
        deck_ordered=ordered,
        deck_size=DECK_PER_PLAYER * seats,
        stones=((0,) * grid.edges,) * seats,
        collections=((),) * seats,
        known_top=(HIDDEN,) * seats,
    )


def _dealt(state: StonesState, event: SpreadDealt) -> StonesState:
    spread = cards(event.spread)
    deck = state.deck if state.deck_ordered else tuple(c for c in state.deck if c not in spread)
    # S3: every seat sees the spread face up before it is turned face down.
    return replace(state, dealt=True, spread=spread, deck=deck, known=(spread,) * len(state.players))


# --- A turn: peek (S5), move (S6), flip (S7) ------------------------------------------------------------------------


def _in_action_phase(state: StonesState, what: str) -> None:
    if state.tasks or state.face_up or state.actions >= 2 or state.ending or state.final:
        raise IllegalAction(f"no {what} now: {waiting_for(state)}")


def _check_peeked(state: StonesState, event: CardPeeked) -> None:
    if not front_is(state, "priestess"):
        _in_action_phase(state, "peek")
    if event.at == DECK:
        check_top(state, event.card)
        return
    at = position(state, event.at)
    if at not in face_down(state):
        raise IllegalAction(f"there is no face-down card at {event.at} to peek at (S5)")
    if state.spread[at] != card(event.card):
        raise IllegalAction(_not_there(event.card, event.at))


def _peeked(state: StonesState, event: CardPeeked) -> StonesState:
    mover = to_move(state)
    assert mover is not None and mover >= 0
    seen = card(event.card)
    if event.at == DECK:
        top = HIDDEN if state.deck_ordered else seen
        return tidy(replace(state, known_top=set_at(state.known_top, mover, seen), deck_top=top, **_spent(state)))
    mine = set_at(state.known[mover], position(state, event.at), seen)
    return tidy(replace(state, known=set_at(state.known, mover, mine), **_spent(state)))


def _colour(name: str) -> int:
    if name not in COLOURS:
        raise IllegalAction(f"{name!r} is not a stone colour ({', '.join(COLOURS)})")
    return COLOURS.index(name)


def _check_moved(state: StonesState, event: StoneMoved) -> None:
    colour = _colour(event.colour)
    mover = to_move(state)
    if not front_is(state, "strength"):  # Strength moves stones of any colour
        if not front_is(state, "chariot"):
            _in_action_phase(state, "stone move")
        if colour != mover:
            raise IllegalAction(f"seat {mover} may move only its own stones, not the {event.colour} ones (S6)")
    if colour >= len(state.players):
        raise IllegalAction(f"nobody plays the {event.colour} stones")
    source, target = place(state, event.source), place(state, event.target)
    if source == target:
        raise IllegalAction("a stone must move somewhere else (S6)")
    if source == -1 and not supply(state, colour):
        raise IllegalAction(f"no {event.colour} stone is left in the supply")
    if source >= 0 and not state.stones[colour][source]:
        raise IllegalAction(f"no {event.colour} stone stands at {event.source}")


def _moved(state: StonesState, event: StoneMoved) -> StonesState:
    colour = COLOURS.index(event.colour)
    mine = list(state.stones[colour])
    source, target = place(state, event.source), place(state, event.target)
    if source >= 0:
        mine[source] -= 1
    if target >= 0:
        mine[target] += 1
    return tidy(replace(state, stones=set_at(state.stones, colour, tuple(mine)), **_spent(state)))


def _check_flipped(state: StonesState, event: CardFlipped) -> None:
    if not front_is(state, "fortune"):
        _in_action_phase(state, "flip")
    at = position(state, event.at)
    if at not in face_down(state):
        raise IllegalAction(f"there is no face-down card at {event.at} to flip (S7)")
    if state.spread[at] != card(event.card):
        raise IllegalAction(_not_there(event.card, event.at))


def _not_there(name: str, at: str) -> str:
    """The refusal of a face-down card wrongly named: the card lying there may be hidden from the writer."""
    return f"{name} is not the card at {at}"


def _flipped(state: StonesState, event: CardFlipped) -> StonesState:
    """S7 (1): the card turns face up and its FLIP effect is the flipper's to carry out first."""
    at = position(state, event.at)
    state = replace(state, face_up=state.face_up + (at,), **_spent(state))
    return tidy(on_flip(state, at))


def _spent(state: StonesState) -> dict[str, Any]:
    """The changes of one step of the effect being carried out, or of one of the turn's two actions."""
    if state.tasks:
        return {"tasks": after_step(state.tasks)}
    return {"actions": state.actions + 1, "turn": state.turn + (state.actions == 0)}


# --- After the flip: Opportunity draws, the winner, WIN effects (S7-S8) -----------------------------------------------


def _check_chose(state: StonesState, event: NextChosen) -> None:
    at = position(state, event.at)
    if state.tasks or len(state.face_up) < 2 or state.settling != HIDDEN:
        raise IllegalAction("there is no choice of the next face-up card to settle now (S7)")
    if at not in state.face_up:
        raise IllegalAction(f"the card at {event.at} is not face up")


def _chose(state: StonesState, event: NextChosen) -> StonesState:
    return replace(state, settling=position(state, event.at))


def _check_drew(state: StonesState, event: CardDrawn) -> None:
    drawer = drawing_seat(state)
    if drawer is None:
        at = settling(state)
        drawer = None if at is None else next_drawer(state, at)
    if drawer is None:
        raise IllegalAction("nobody draws a card now (S7)")
    if event.seat != drawer:
        raise IllegalAction(f"seat {drawer} draws now, not seat {event.seat} (S7: clockwise from the flipper)")
    check_top(state, event.card)


def _drew(state: StonesState, event: CardDrawn) -> StonesState:
    drawn = card(event.card)
    changes = take_top(state, drawn)
    changes["collections"] = set_at(state.collections, event.seat, state.collections[event.seat] + (drawn,))
    if drawing_seat(state) is not None:
        return tidy(step_done(replace(state, **changes)))
    return tidy(replace(state, drawn_for=state.drawn_for + (event.seat,), **changes))


def _check_won(state: StonesState, event: CardWon) -> None:
    at = position(state, event.at)
    if settling(state) != at:
        raise IllegalAction(f"the card at {event.at} is not the one to be won now: {waiting_for(state)}")
    if next_drawer(state, at) is not None:
        raise IllegalAction(f"seat {next_drawer(state, at)} draws for the Opportunity zone first (S7)")
    if card(event.card) != state.spread[at]:  # the card to be won lies face up: naming it tells nothing hidden
        raise IllegalAction(f"the card at {event.at} is {CARD_IDS[state.spread[at]]}, not {event.card}")
    expected = winner_at(state, at)
    if event.winner != expected:
        who = "nobody (it is discarded)" if expected is None else f"seat {expected}"
        raise IllegalAction(f"{event.card} is won by {who} (S8), not {event.winner}")


def _won(state: StonesState, event: CardWon) -> StonesState:
    """S7 (4): the winner adds the card and carries out its WIN effect; nobody: the card is discarded."""
    at = position(state, event.at)
    won = state.spread[at]
    state = replace(
        state,
        spread=set_at(state.spread, at, EMPTY),
        face_up=without(state.face_up, at),
        known=tuple(set_at(k, at, HIDDEN) for k in state.known),
        settling=HIDDEN,
        drawn_for=(),
    )
    if event.winner is None:
        return tidy(replace(state, discard=state.discard + (won,)))
    collections = set_at(state.collections, event.winner, state.collections[event.winner] + (won,))
    return tidy(on_win(replace(state, collections=collections), at, won, event.winner))


# --- End of turn: refill (S9) ---------------------------------------------------------------------------------------


def _check_refilled(state: StonesState, event: SpreadRefilled) -> None:
    if not refill_due(state):
        raise IllegalAction("the spread is refilled only at the end of a turn, into an empty space (S9)")
    if state.spread[position(state, event.at)] != EMPTY:
        raise IllegalAction(f"the space {event.at} is not empty")
    check_top(state, event.card)


def _refilled(state: StonesState, event: SpreadRefilled) -> StonesState:
    at, drawn = position(state, event.at), card(event.card)
    # Only a seat that peeked at the top card of the deck knows which card went face down here.
    known = tuple(set_at(k, at, drawn if state.known_top[s] == drawn else HIDDEN) for s, k in enumerate(state.known))
    return tidy(replace(state, spread=set_at(state.spread, at, drawn), known=known, **take_top(state, drawn)))


def tidy(state: StonesState) -> StonesState:
    """Drop effects that cannot be carried out; end the turn once its actions, effects and refill are done (S9-S10)."""
    state = drop_impossible(state)
    if state.tasks or state.face_up or state.actions < 2 or state.ending or refill_due(state):
        return state
    if not state.deck_size:
        return replace(state, ending=True)  # S10: the game ends after this turn
    return replace(state, seat=(state.seat + 1) % len(state.players), actions=0)


# --- End of the game (S10) and score (S11) ---------------------------------------------------------------------------


def _check_final(state: StonesState, event: FinalFlip) -> None:
    if not state.ending or state.final:
        raise IllegalAction("the final flip comes once, when the deck is empty at the end of a turn (S10)")
    shown = tuple(None if c == EMPTY else CARD_IDS[c] for c in state.spread)
    if tuple(event.cards) != shown:
        # Face-down cards are hidden from the seats: the reason names none of the spread's cards.
        raise IllegalAction("the final flip must name the cards of the spread, place by place (null: empty) (S10)")
    # The cards are the event's own (and right): the winners follow from them and the public stones.
    if tuple(event.winners) != final_winners(state):
        raise IllegalAction(f"by S8 the cards are won by {list(final_winners(state))}, not {list(event.winners)}")


def _final(state: StonesState, event: FinalFlip) -> StonesState:
    """S10: every card is won by S8 with no effect and no Opportunity draw."""
    collections, discard = list(state.collections), state.discard
    for at, won in enumerate(state.spread):
        if won == EMPTY:
            continue
        taker = event.winners[at]
        if taker is None:
            discard += (won,)
        else:
            collections[taker] += (won,)
    size = len(state.spread)
    return replace(
        state,
        spread=(EMPTY,) * size,
        known=((HIDDEN,) * size,) * len(state.players),
        collections=tuple(collections),
        discard=discard,
        final=True,
    )


def death_due(state: StonesState) -> bool:
    """S2, S11: after the final flip, a tie for the highest score and a holder of Death who has not yet chosen."""
    return state.final and not state.death_given and death_holder(state) is not None and len(tied_for_first(state)) > 1


def _check_death(state: StonesState, event: DeathGiven) -> None:
    if not death_due(state):
        raise IllegalAction("Death is given only after the final flip, when the highest score is tied (S2)")
    if event.to not in tied_for_first(state):
        raise IllegalAction(f"Death goes to one of the seats tied for the highest score: {tied_for_first(state)}")


def _death(state: StonesState, event: DeathGiven) -> StonesState:
    holder = death_holder(state)
    assert holder is not None
    collections = set_at(state.collections, holder, without(state.collections[holder], DEATH))
    collections = set_at(collections, event.to, collections[event.to] + (DEATH,))
    return replace(state, collections=collections, death_given=True)


# --- Who acts ---------------------------------------------------------------------------------------------------------


def to_move(state: StonesState) -> int | None:
    """The seat to act, CHANCE_TO_MOVE, or None once the game is over.

    In a turn the same seat acts twice (S5-S7); an effect's decision belongs to the seat carrying it out (the winner
    of Strength, Death's holder at the end), the order of several face-up cards to the seat whose turn it is.
    """
    if not state.dealt:
        return CHANCE_TO_MOVE
    if state.final:
        return death_holder(state) if death_due(state) else None
    if state.ending:
        return CHANCE_TO_MOVE
    if state.tasks:
        return decider(state)
    if state.face_up:
        return CHANCE_TO_MOVE if settling(state) is not None else state.seat
    if state.actions < 2:
        return state.seat
    return CHANCE_TO_MOVE  # S9: the refill


def next_turn(state: StonesState, by_chance: bool) -> int:
    """The first action of a seat begins a new turn; everything else (effects, refills) belongs to the turn in play."""
    if by_chance or state.final or state.tasks or state.face_up or state.actions:
        return state.turn
    return state.turn + 1


def waiting_for(state: StonesState) -> str:
    """What the game waits for, in words."""
    mover = to_move(state)
    if mover is None:
        return "the game is over"
    if state.tasks:
        return describe_task(state.tasks[0])
    if state.face_up and mover != CHANCE_TO_MOVE:
        return f"seat {mover} chooses which face-up card is won next"
    if mover == CHANCE_TO_MOVE:
        return "chance acts next"
    return f"seat {mover} takes action {state.actions + 1} of 2"


# --- Checking and applying events -------------------------------------------------------------------------------------


check, apply = event_rules(
    StonesState,
    "Stones of Fate",
    {
        GameStarted: (_check_started, _started),
        SpreadDealt: (_check_dealt, _dealt),
        CardPeeked: (_check_peeked, _peeked),
        StoneMoved: (_check_moved, _moved),
        CardFlipped: (_check_flipped, _flipped),
        CardsSwapped: (check_swapped, lambda s, e: tidy(swapped(s, e))),
        CardTaken: (check_taken, lambda s, e: tidy(taken(s, e))),
        CardRecovered: (check_recovered, lambda s, e: tidy(recovered(s, e))),
        EffectStopped: (lambda s, e: check_stopped(s), lambda s, e: tidy(stopped(s))),
        NextChosen: (_check_chose, _chose),
        DeathGiven: (_check_death, _death),
        CardDrawn: (_check_drew, _drew),
        RandomDiscards: (check_discards, lambda s, e: tidy(discarded(s, e))),
        CardWon: (_check_won, _won),
        SpreadRefilled: (_check_refilled, _refilled),
        FinalFlip: (_check_final, _final),
    },
    setup=(
        (GameStarted, "a Stones of Fate log begins with stones-of-fate.started"),
        (SpreadDealt, "the spread is dealt (stones-of-fate.dealt) before anything else happens"),
    ),
    setup_done=lambda state: 0 if not state.players else 1 if not state.dealt else 2,
    over=lambda state, event: state.final and not isinstance(event, DeathGiven),
)


# --- Hidden information -----------------------------------------------------------------------------------------------


def view(state: StonesState, seat: int) -> StonesState:
    """What `seat` knows: face-up cards, collections, the discard pile and every stone; of the face-down cards only
    those it saw at setup or peeked at (S3, S5); of the deck only a top card it peeked at; never the seed."""
    mine = state.known[seat] if state.known else ()
    spread = tuple(c if c == EMPTY or p in state.face_up else mine[p] for p, c in enumerate(state.spread))
    blank = (HIDDEN,) * len(state.spread)
    return replace(
        state,
        seed=HIDDEN,
        spread=spread,
        known=tuple(k if s == seat else blank for s, k in enumerate(state.known)),
        known_top=tuple(k if s == seat else HIDDEN for s, k in enumerate(state.known_top)),
        deck=(HIDDEN,) * len(state.deck),
        deck_top=state.known_top[seat] if state.known_top else HIDDEN,
    )
