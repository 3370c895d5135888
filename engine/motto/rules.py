"""Motto, rulings T1-T8: setup, the events of a turn (draw, play), tokens and the end.

Reads top to bottom like the rulebook. Cards are numbers (see `cards.py`); events name them."""

from __future__ import annotations

from collections.abc import Sequence
from random import Random
from typing import Any

from loom.engine.cards import contains_all, with_sorted, without, without_all
from loom.engine.dispatch import event_rules
from loom.engine.motto.cards import (
    CARD_NAMES,
    FULL_DECK,
    HAND_SIZE,
    MAX_PLAYERS,
    MIN_PLAYERS,
    POOL_SIZE,
    TOKEN_POINTS,
    VALUE_BY_NAME,
    VALUES,
    card,
    cards,
    shared_values,
)
from loom.engine.motto.state import MottoState, replace
from loom.engine.protocol import CHANCE_TO_MOVE, HIDDEN
from loom.events.base import IllegalAction, Payload
from loom.events.motto import (
    CardsDealt,
    CardsPlayed,
    DeckCardDrawn,
    DiscardReshuffled,
    GameStarted,
    PoolCardTaken,
    PoolRefilled,
    TurnPassed,
)

# --- Setup (T1-T3) --------------------------------------------------------------------------------------------------


def setup(players: Sequence[str], rng: Random) -> list[Payload]:
    """T3: shuffle, deal two cards to each seat (seat 0 first) and four to the pool; record the order and a seed."""
    if not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
        raise IllegalAction(f"Motto is for {MIN_PLAYERS} to {MAX_PLAYERS} players, not {len(players)}")
    seated = tuple(players)
    deck = list(FULL_DECK)
    rng.shuffle(deck)
    names = tuple(CARD_NAMES[c] for c in deck)
    hands = tuple(names[HAND_SIZE * s : HAND_SIZE * (s + 1)] for s in range(len(seated)))
    dealt = HAND_SIZE * len(seated)
    return [
        GameStarted(players=seated, seed=rng.getrandbits(48), deck=names),
        CardsDealt(hands=hands, pool=names[dealt : dealt + POOL_SIZE]),
    ]


def _check_started(state: MottoState, event: GameStarted) -> None:
    if state.players:
        raise IllegalAction("the game has already started")
    if not MIN_PLAYERS <= len(event.players) <= MAX_PLAYERS:
        raise IllegalAction(f"Motto is for {MIN_PLAYERS} to {MAX_PLAYERS} players, not {len(event.players)}")
    if event.deck is not None and tuple(sorted(cards(event.deck))) != FULL_DECK:
        raise IllegalAction(f"the deck must hold each of the {len(FULL_DECK) // 2} cards exactly twice (T1)")


def _check_dealt(state: MottoState, event: CardsDealt) -> None:
    if state.dealt:
        raise IllegalAction("the cards have already been dealt")
    if len(event.hands) != len(state.players) or any(len(hand) != HAND_SIZE for hand in event.hands):
        raise IllegalAction(f"each of the {len(state.players)} players is dealt {HAND_SIZE} cards (T3)")
    if len(event.pool) != POOL_SIZE:
        raise IllegalAction(f"the pool is dealt {POOL_SIZE} cards (T3)")
    dealt = [c for hand in event.hands for c in cards(hand)] + list(cards(event.pool))
    if state.deck_ordered:
        if tuple(dealt) != state.deck[: len(dealt)]:
            raise IllegalAction("the deal does not follow the recorded deck order")
    elif not contains_all(state.deck, dealt):
        raise IllegalAction("the deal names more copies of a card than the deck holds")


def _started(state: MottoState, event: GameStarted) -> MottoState:
    seats = len(event.players)
    return replace(
        state,
        players=event.players,
        seed=event.seed or 0,
        hands=((),) * seats,
        shown=((),) * seats,
        tokens=((),) * seats,
        deck=FULL_DECK if event.deck is None else tuple(card(name) for name in event.deck),
        deck_ordered=event.deck is not None,
    )


def _dealt(state: MottoState, event: CardsDealt) -> MottoState:
    hands = tuple(tuple(sorted(cards(hand))) for hand in event.hands)
    pool = cards(event.pool)
    dealt = sum(len(h) for h in hands) + len(pool)
    if state.deck_ordered:
        deck = state.deck[dealt:]
    else:
        deck = without_all(state.deck, [c for hand in hands for c in hand] + list(pool))
    return replace(state, dealt=True, hands=hands, pool=pool, deck=deck)


# --- A turn: draw a card (T4) ---------------------------------------------------------------------------------------


def _needs_chance(state: MottoState) -> bool:
    """T4: an empty deck is rebuilt at once from the discard pile, and the pool is kept at four while cards last."""
    if not state.deck:
        return bool(state.discard)
    return len(state.pool) < POOL_SIZE


def _check_took(state: MottoState, event: PoolCardTaken) -> None:
    if card(event.card) not in state.pool:
        raise IllegalAction(f"{event.card} is not in the pool")


def _check_from_deck(state: MottoState, name: str) -> None:
    """`name` may be the card off the top of the deck. The deck is hidden from every seat, so a refusal names only
    the card the event gave: one message whichever card lies on top or wherever the copies of `name` are."""
    drawn = card(name)
    if not state.deck:
        raise IllegalAction("the deck is empty")
    possible = state.deck[0] == drawn if state.deck_ordered else drawn in state.deck
    if not possible:
        raise IllegalAction(f"{name} is not the top card of the deck")


def _check_drew(state: MottoState, event: DeckCardDrawn) -> None:
    _check_from_deck(state, event.card)


def _took(state: MottoState, event: PoolCardTaken) -> MottoState:
    taken, seat = card(event.card), state.seat
    turn, next_seat, final_turns = _turn_ends(state)
    return replace(
        state,
        pool=without(state.pool, taken),
        hands=_set(state.hands, seat, with_sorted(state.hands[seat], taken)),
        shown=_set(state.shown, seat, with_sorted(state.shown[seat], taken)),
        turn=turn,
        seat=next_seat,
        final_turns=final_turns,
    )


def _drew(state: MottoState, event: DeckCardDrawn) -> MottoState:
    drawn, seat = card(event.card), state.seat
    deck = state.deck[1:] if state.deck_ordered else without(state.deck, drawn)
    turn, next_seat, final_turns = _turn_ends(state)
    hands = _set(state.hands, seat, with_sorted(state.hands[seat], drawn))
    return replace(state, deck=deck, hands=hands, turn=turn, seat=next_seat, final_turns=final_turns)


def _check_refilled(state: MottoState, event: PoolRefilled) -> None:
    if len(state.pool) >= POOL_SIZE:
        raise IllegalAction("the pool is already full")
    _check_from_deck(state, event.card)


def _refilled(state: MottoState, event: PoolRefilled) -> MottoState:
    drawn = card(event.card)
    deck = state.deck[1:] if state.deck_ordered else without(state.deck, drawn)
    return replace(state, deck=deck, pool=state.pool + (drawn,))


def _check_reshuffled(state: MottoState, event: DiscardReshuffled) -> None:
    if state.deck or not state.discard:
        raise IllegalAction("the discard pile is reshuffled only when the deck is empty (T4)")
    if event.deck is not None and sorted(cards(event.deck)) != sorted(state.discard):
        raise IllegalAction("the new deck must hold exactly the cards of the discard pile")


def _reshuffled(state: MottoState, event: DiscardReshuffled) -> MottoState:
    if event.deck is None:
        return replace(state, deck=tuple(sorted(state.discard)), deck_ordered=False, discard=())
    return replace(state, deck=cards(event.deck), deck_ordered=True, discard=())


# --- A turn: play three cards (T5) ----------------------------------------------------------------------------------


def tokens_won(stacks: tuple[int, ...], played: tuple[int, int, int]) -> tuple[tuple[int, int], ...]:
    """T5: the top token (value, points) of each shared value's stack; an empty stack gives nothing."""
    # Lists made whole, not generators: cheaper for the one to three items (checking every play asks this).
    return tuple(
        [(value, TOKEN_POINTS[len(TOKEN_POINTS) - stacks[value]]) for value in shared_values(*played) if stacks[value]]
    )


def _check_played(state: MottoState, event: CardsPlayed) -> None:
    played = cards(event.cards)
    if len(played) != 3:
        raise IllegalAction("a play is exactly three cards (T5)")
    if not contains_all(state.hands[state.seat], played):
        raise IllegalAction(f"{', '.join(event.cards)} are not all in the hand of seat {state.seat}")
    if not shared_values(*played):
        raise IllegalAction(f"{', '.join(event.cards)} share no symbol, number or colour (T5)")
    expected = token_names(tokens_won(state.stacks, played))  # type: ignore[arg-type]
    # Parsed logs hold tuples of tuples already, and those compare as they are; only other forms are rebuilt.
    if event.tokens != expected and tuple(tuple(t) for t in event.tokens) != expected:
        raise IllegalAction(f"this play takes the tokens {list(expected)}, not {list(event.tokens)}")


def _played(state: MottoState, event: CardsPlayed) -> MottoState:
    played, seat = cards(event.cards), state.seat
    won = tuple([(VALUE_BY_NAME[value], points) for value, points in event.tokens])
    stacks = state.stacks
    if won:
        left = list(stacks)
        for value, _ in won:
            left[value] -= 1
        stacks = tuple(left)
    shown = state.shown[seat]
    for c in played:
        if c in shown:
            shown = without(shown, c)
    turn, next_seat, final_turns = _turn_ends(state, triggered=won != () and _large_and_medium_gone(stacks))
    return replace(
        state,
        hands=_set(state.hands, seat, without_all(state.hands[seat], played)),
        shown=_set(state.shown, seat, shown),
        discard=state.discard + played,
        stacks=stacks,
        tokens=_set(state.tokens, seat, state.tokens[seat] + won) if won else state.tokens,
        turn=turn,
        seat=next_seat,
        final_turns=final_turns,
    )


def _check_passed(state: MottoState, event: TurnPassed) -> None:
    from loom.engine.motto.actions import Pass, turn_actions  # the actions are built on these rules

    if turn_actions(state) != [Pass()]:
        raise IllegalAction(f"seat {state.seat} has a legal action and may not pass (T6)")


def _passed(state: MottoState, event: TurnPassed) -> MottoState:
    turn, next_seat, final_turns = _turn_ends(state)
    return replace(state, turn=turn, seat=next_seat, final_turns=final_turns)


# --- End of the game (T7) -------------------------------------------------------------------------------------------


def _large_and_medium_gone(stacks: list[int] | tuple[int, ...]) -> bool:
    return all(height <= 1 for height in stacks)


def _turn_ends(state: MottoState, *, triggered: bool = False) -> tuple[int, int, int | None]:
    """The `turn`, `seat` and `final_turns` of the state after the seat's turn (each event of a turn sets them in its
    one `replace`: cheaper than passing its changes on as keywords). T7: the seat that takes the last
    large-or-medium token plays no more; each other seat plays once more."""
    if state.final_turns is not None:
        final_turns: int | None = state.final_turns - 1
    elif triggered:
        final_turns = len(state.players) - 1
    else:
        final_turns = None
    return state.turn + 1, (state.seat + 1) % len(state.players), final_turns


# --- Who acts --------------------------------------------------------------------------------------------------------


def to_move(state: MottoState) -> int | None:
    """The seat to act, CHANCE_TO_MOVE, or None once the last turn of T7 is played."""
    if not state.dealt or _needs_chance(state):
        return CHANCE_TO_MOVE
    if state.final_turns == 0:
        return None
    return state.seat


def next_turn(state: MottoState, by_chance: bool) -> int:
    """A player's event begins the next turn; chance events belong to the turn just played."""
    return state.turn if by_chance else state.turn + 1


# --- Checking and applying events ------------------------------------------------------------------------------------


check, apply = event_rules(
    MottoState,
    "Motto",
    {
        GameStarted: (_check_started, _started),
        CardsDealt: (_check_dealt, _dealt),
        PoolCardTaken: (_check_took, _took),
        DeckCardDrawn: (_check_drew, _drew),
        CardsPlayed: (_check_played, _played),
        TurnPassed: (_check_passed, _passed),
        PoolRefilled: (_check_refilled, _refilled),
        DiscardReshuffled: (_check_reshuffled, _reshuffled),
    },
    setup=(
        (GameStarted, "a Motto log begins with motto.started"),
        (CardsDealt, "the cards are dealt (motto.dealt) before anything else happens"),
    ),
    setup_done=lambda state: 0 if not state.players else 1 if not state.dealt else 2,
)


# --- Hidden information ---------------------------------------------------------------------------------------------


def view(state: MottoState, seat: int) -> MottoState:
    """What `seat` knows: its own hand, the cards others took face up, never the deck nor the seed that orders it."""
    hands = tuple(
        hand if s == seat else state.shown[s] + (HIDDEN,) * (len(hand) - len(state.shown[s]))
        for s, hand in enumerate(state.hands)
    )
    # T4: the seed fixes every reshuffled deck (engine.play.chance_rng); a seat knowing it would see others' draws.
    return replace(state, hands=hands, deck=(HIDDEN,) * len(state.deck), seed=HIDDEN)


# --- Helpers --------------------------------------------------------------------------------------------------------


def _set(row: tuple[Any, ...], index: int, value: Any) -> tuple[Any, ...]:
    return row[:index] + (value,) + row[index + 1 :]


def token_names(won: tuple[tuple[int, int], ...]) -> tuple[tuple[str, int], ...]:
    return tuple([(VALUES[value], points) for value, points in won])
