"""Motto's rules, one small test per behaviour of rulings T1-T8 and the rulebook's Examples 1-3.

Positions are built by hand: a `MottoState` passed its fields, or hand-written events recorded through
`engine.play.record`, which checks them exactly as a log being imported would be checked.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import replace
from functools import partial
from itertools import combinations, product
from random import Random

import pytest

from loom.engine.cards import without_all
from loom.engine.motto import GAME
from loom.engine.motto.actions import Draw, Pass, Play, Take
from loom.engine.motto.cards import (
    CARD_NAMES,
    COLOURS,
    FULL_DECK,
    NUMBERS,
    SYMBOLS,
    TOKEN_POINTS,
    VALUE_BY_NAME,
    VALUES,
    card,
    shared_values,
)
from loom.engine.motto.rules import tokens_won
from loom.engine.motto.state import MottoState
from loom.engine.play import Step, act, chance_rng, first_player, record, seated, start
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
from tests import recording

NAMES = ("ann", "bob", "cat", "dan", "eve")
POOL = ("purple-1-love", "purple-2-passion", "blue-3-money", "blue-1-passion")
OTHERS = (  # two cards for each seat that is not the one under test: none in POOL or RED_TRIOS
    ("blue-1-money", "blue-3-money"),
    ("purple-1-passion", "purple-3-passion"),
    ("blue-2-love", "purple-2-money"),
    ("purple-3-love", "blue-2-passion"),
    ("blue-1-love", "purple-1-money"),
)
RED_TRIOS = (
    ("red-1-love", "red-2-passion", "red-3-money"),  # each shares the colour red and nothing else
    ("red-1-passion", "red-2-money", "red-3-love"),
    ("red-1-money", "red-2-love", "red-3-passion"),
)


# --- Building positions ---------------------------------------------------------------------------------------------


def ids(names: Iterable[str]) -> tuple[int, ...]:
    """The card numbers of these card names."""
    return tuple(card(name) for name in names)


def stacks(**heights: int) -> tuple[int, ...]:
    """Nine full stacks except the named ones (`red=1`, `n2=0` for the number 2)."""
    full = [len(TOKEN_POINTS)] * len(VALUES)
    for name, height in heights.items():
        full[VALUE_BY_NAME[name.removeprefix("n")]] = height
    return tuple(full)


def table(
    hands: Sequence[Sequence[str]],
    *,
    pool: Sequence[str] = POOL,
    deck: Sequence[str] | None = None,
    discard: Sequence[str] = (),
    heights: tuple[int, ...] | None = None,
    seat: int = 0,
) -> MottoState:
    """A dealt position; unless `deck` (top first) is given, the deck is every other card, order unknown."""
    held = tuple(tuple(sorted(ids(hand))) for hand in hands)
    placed = [c for hand in held for c in hand] + list(ids(pool)) + list(ids(discard))
    seats = len(hands)
    state = MottoState(
        players=NAMES[:seats],
        dealt=True,
        hands=held,
        shown=((),) * seats,
        pool=ids(pool),
        deck=without_all(FULL_DECK, placed) if deck is None else ids(deck),
        deck_ordered=deck is not None,
        discard=ids(discard),
        stacks=stacks() if heights is None else heights,
        tokens=((),) * seats,
        seat=seat,
    )
    assert GAME.to_move(state) == seat, "a hand-built position must be one in which the seat acts, not chance"
    return state


def dealt(hands: Sequence[Sequence[str]], pool: Sequence[str] = POOL) -> MottoState:
    """A game begun by hand-written events: a deck of unknown order, then these cards dealt."""
    state = GAME.blank()
    for payload in (
        GameStarted(players=NAMES[: len(hands)], seed=1, deck=None),
        CardsDealt(hands=tuple(tuple(hand) for hand in hands), pool=tuple(pool)),
    ):
        state, _ = record(GAME, state, payload)
    return state


# Recording hand-written events into a position, and the reason one is refused (tests/recording.py).
record_all = partial(recording.record_all, GAME)
refused = partial(recording.refused, GAME)


def rejected(state: MottoState, payload: Payload) -> str:
    """The reason the rules' `check` refuses `payload` in `state` (whoever is to act)."""
    with pytest.raises(IllegalAction) as refusal:
        GAME.check(state, payload)
    return str(refusal.value)


def take_any(state: MottoState, rng: Random) -> tuple[MottoState, list[Step]]:
    """The seat to move takes the first pool card it may take; then chance acts."""
    action = next(a for a in GAME.legal_actions(state) if isinstance(a, Take))
    return act(GAME, state, action, rng)


def play_names(*names: str) -> Play:
    """The play of these three cards."""
    return Play(tuple(sorted(ids(names))))  # type: ignore[arg-type]


def held(state: MottoState, seat: int) -> list[str]:
    """The names of the cards in a seat's hand."""
    return [CARD_NAMES[c] for c in state.hands[seat]]


def tokens_of(*won: tuple[str, int]) -> tuple[tuple[int, int], ...]:
    """Tokens as the state holds them: (value, points)."""
    return tuple((VALUE_BY_NAME[value], points) for value, points in won)


# --- T1: components and player count -------------------------------------------------------------------------------


def test_t1_deck_holds_each_of_the_27_cards_exactly_twice() -> None:
    """T1: 54 cards, every symbol x number x colour combination twice."""
    assert len(FULL_DECK) == 54
    assert Counter(FULL_DECK) == {c: 2 for c in range(27)}
    expected = {f"{colour}-{number}-{symbol}" for colour, number, symbol in product(COLOURS, NUMBERS, SYMBOLS)}
    assert set(CARD_NAMES) == expected and len(CARD_NAMES) == 27
    assert SYMBOLS == ("love", "passion", "money") and NUMBERS == ("1", "2", "3")
    assert COLOURS == ("purple", "red", "blue")


def test_t1_card_names_are_colour_number_symbol() -> None:
    """T1: a card's three values are its colour, number and symbol; an unknown name is refused."""
    red_two_love = card("red-2-love")
    assert shared_values(red_two_love, red_two_love, red_two_love) == tuple(
        VALUE_BY_NAME[v] for v in ("love", "2", "red")
    )
    with pytest.raises(IllegalAction, match="is not a Motto card"):
        card("red-4-love")


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_t1_two_to_five_players_may_play(players: int) -> None:
    """T1: a game of 2 to 5 players starts, and seat 0 is to move."""
    state, _ = start(GAME, NAMES[:players], Random(players))
    assert GAME.to_move(state) == 0
    assert len(state.hands) == players


@pytest.mark.parametrize("players", [0, 1, 6, 7])
def test_t1_fewer_than_two_or_more_than_five_players_are_refused(players: int) -> None:
    """T1: setup and a recorded motto.started both refuse 0, 1, 6 or 7 players."""
    lineup = tuple(f"p{k}" for k in range(players))
    with pytest.raises(IllegalAction, match=f"Motto is for 2 to 5 players, not {players}"):
        GAME.setup(lineup, Random(0))
    reason = refused(GAME.blank(), GameStarted(players=lineup, seed=0, deck=None))
    assert f"not {players}" in reason


def test_t1_a_recorded_deck_must_hold_each_card_twice() -> None:
    """T1: a motto.started whose deck misses a card, or holds one three times, is refused."""
    deck = [CARD_NAMES[c] for c in FULL_DECK]
    short = GameStarted(players=NAMES[:2], seed=0, deck=tuple(deck[1:]))
    tripled = GameStarted(players=NAMES[:2], seed=0, deck=tuple([deck[2], *deck[1:]]))
    assert "exactly twice (T1)" in refused(GAME.blank(), short)
    assert "exactly twice (T1)" in refused(GAME.blank(), tripled)


# --- T2: token stacks ------------------------------------------------------------------------------------------------


def test_t2_nine_stacks_of_large_medium_small() -> None:
    """T2: one stack per symbol, number and colour, each a 3, a 2 and a 1 point token: 27 tokens, 54 points."""
    assert VALUES == ("love", "passion", "money", "1", "2", "3", "purple", "red", "blue")
    assert TOKEN_POINTS == (3, 2, 1)
    assert MottoState().stacks == (3,) * 9
    assert sum(MottoState().stacks) == 27
    assert sum(TOKEN_POINTS) * len(VALUES) == 54


@pytest.mark.parametrize(("height", "points"), [(3, 3), (2, 2), (1, 1)])
def test_t2_the_largest_token_left_is_on_top(height: int, points: int) -> None:
    """T2: a stack of `height` tokens gives its largest remaining token."""
    trio = ids(RED_TRIOS[0])
    assert tokens_won(stacks(red=height), trio) == tokens_of(("red", points))  # type: ignore[arg-type]


def test_t2_successive_plays_take_large_then_medium_then_small_then_nothing() -> None:
    """T2, T5: four red plays in a row take the red 3, 2 and 1, then nothing from the empty stack."""
    trios = [*RED_TRIOS, RED_TRIOS[0]]
    state = table([[c for trio in trios for c in trio], ["blue-2-love", "blue-2-money"]])
    rng, taken = Random(2), []
    for trio in trios:
        state, steps = act(GAME, state, play_names(*trio), rng)
        taken.append(steps[0].payload.tokens)  # type: ignore[attr-defined]
        state, _ = take_any(state, rng)
    assert taken == [(("red", 3),), (("red", 2),), (("red", 1),), ()]
    assert state.stacks == stacks(red=0)
    assert state.tokens[0] == tokens_of(("red", 3), ("red", 2), ("red", 1))


# --- T3: setup -------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_t3_setup_deals_two_cards_to_each_seat_then_four_to_the_pool(players: int) -> None:
    """T3: from the recorded shuffled deck, seat 0 gets the first two cards, seat 1 the next two, ...,
    then the pool four; the rest is the deck."""
    started, deal = GAME.setup(NAMES[:players], Random(players))
    assert isinstance(started, GameStarted) and isinstance(deal, CardsDealt) and started.deck is not None
    order = started.deck
    assert deal.hands == tuple(order[2 * s : 2 * s + 2] for s in range(players))
    assert deal.pool == order[2 * players : 2 * players + 4]
    state = record_all(GAME.blank(), started, deal)
    assert state.deck == ids(order[2 * players + 4 :])
    assert len(state.deck) == 54 - 2 * players - 4


def test_t3_dealt_cards_are_private_and_the_pool_is_public() -> None:
    """T3: a seat sees its own two cards and the pool, never another seat's cards."""
    state = dealt([["red-1-love", "red-2-love"], ["blue-1-money", "blue-3-money"]])
    assert GAME.view(state, 0).hands == (ids(["red-1-love", "red-2-love"]), (HIDDEN, HIDDEN))
    assert GAME.view(state, 1).hands == ((HIDDEN, HIDDEN), ids(["blue-1-money", "blue-3-money"]))
    assert GAME.view(state, 1).pool == ids(POOL)


def test_t3_a_deal_of_the_wrong_size_is_refused() -> None:
    """T3: two cards to each seat and four to the pool, no more, no fewer."""
    started = record_all(GAME.blank(), GameStarted(players=NAMES[:2], seed=0, deck=None))
    three = CardsDealt(hands=(("red-1-love", "red-2-love", "red-3-love"), ("blue-1-money", "blue-2-money")), pool=POOL)
    one_seat = CardsDealt(hands=(("red-1-love", "red-2-love"),), pool=POOL)
    small_pool = CardsDealt(hands=(("red-1-love", "red-2-love"), ("blue-1-money", "blue-2-money")), pool=POOL[:3])
    assert "dealt 2 cards (T3)" in refused(started, three)
    assert "dealt 2 cards (T3)" in refused(started, one_seat)
    assert "pool is dealt 4 cards (T3)" in refused(started, small_pool)


def test_t3_a_deal_must_follow_the_recorded_deck() -> None:
    """T3: with a recorded deck order the deal is its first cards; with none, no card more than twice."""
    started, deal = GAME.setup(NAMES[:2], Random(3))
    swapped = CardsDealt(hands=(deal.hands[1], deal.hands[0]), pool=deal.pool)  # type: ignore[attr-defined]
    assert "recorded deck order" in refused(record_all(GAME.blank(), started), swapped)
    unknown = record_all(GAME.blank(), GameStarted(players=NAMES[:2], seed=0, deck=None))
    thrice = CardsDealt(hands=(("red-1-love", "red-1-love"), ("red-1-love", "blue-1-money")), pool=POOL)
    assert "more copies" in refused(unknown, thrice)


def test_t3_the_first_player_is_chosen_at_random() -> None:
    """T3: first_player draws the starting player from the line-up; every player can be chosen."""
    chosen = Counter(first_player(4, Random(seed)) for seed in range(200))
    assert set(chosen) == {0, 1, 2, 3}
    assert min(chosen.values()) > 20  # roughly uniform, not one favourite


def test_t3_the_first_player_is_recorded_in_the_log_as_seat_zero() -> None:
    """T3: the line-up is seated from the chosen player, motto.started records that order, and seat 0 acts first."""
    lineup = list(NAMES[:4])
    rng = Random(11)
    first = first_player(len(lineup), rng)
    order = seated(lineup, first)
    assert order == lineup[first:] + lineup[:first]
    state, steps = start(GAME, order, rng)
    assert steps[0].payload.players == tuple(order)  # type: ignore[attr-defined]
    assert steps[0].payload.players[0] == lineup[first]  # type: ignore[attr-defined]
    assert GAME.to_move(state) == 0
    _, turn = act(GAME, state, GAME.legal_actions(state)[0], rng)
    assert turn[0].actor == 0 and turn[0].turn == 1


def test_t3_nothing_happens_before_the_start_and_the_deal() -> None:
    """T3: a log begins with motto.started, then motto.dealt; a second start or deal is refused."""
    assert "begins with motto.started" in refused(GAME.blank(), CardsDealt(hands=(), pool=()))
    started = record_all(GAME.blank(), GameStarted(players=NAMES[:2], seed=0, deck=None))
    assert "dealt (motto.dealt) before anything else" in refused(started, PoolRefilled(card="red-1-love"))
    state = dealt([["red-1-love", "red-2-love"], ["blue-1-money", "blue-3-money"]])
    with pytest.raises(IllegalAction, match="already started"):
        GAME.check(state, GameStarted(players=NAMES[:2], seed=0, deck=None))
    with pytest.raises(IllegalAction, match="already been dealt"):
        GAME.check(state, CardsDealt(hands=(), pool=()))


# --- T4: drawing -----------------------------------------------------------------------------------------------------


def test_t4_taking_a_pool_card_refills_the_pool_at_once() -> None:
    """T4: the taken card joins the hand, and chance refills the pool from the deck before anyone acts."""
    state = dealt([["red-1-love", "red-2-love"], ["blue-1-money", "blue-3-money"]])
    taken = record_all(state, PoolCardTaken(card="blue-3-money"))
    assert GAME.to_move(taken) == CHANCE_TO_MOVE and len(taken.pool) == 3
    assert "chance must act first" in refused(taken, PoolCardTaken(card="purple-1-love"))
    after, steps = act(GAME, state, Take(card("blue-3-money")), Random(4))
    assert [type(step.payload) for step in steps] == [PoolCardTaken, PoolRefilled]
    assert [step.actor for step in steps] == [0, None]
    assert "blue-3-money" in held(after, 0)
    assert len(after.pool) == 4 and len(after.deck) == len(state.deck) - 1
    assert Counter(after.pool) == Counter(ids(POOL[:2] + POOL[3:])) + Counter([card(steps[1].payload.card)])  # type: ignore[attr-defined]


def test_t4_only_a_pool_card_may_be_taken() -> None:
    """T4: taking a card that is not face up in the pool is refused."""
    state = dealt([["red-1-love", "red-2-love"], ["blue-1-money", "blue-3-money"]])
    assert refused(state, PoolCardTaken(card="red-3-money")) == "red-3-money is not in the pool"


def test_t4_a_pool_refill_from_the_ordered_deck_is_its_top_card() -> None:
    """T4: with a recorded deck order the pool is refilled from the top, and only when short of four."""
    state = table([["red-1-love", "red-2-love"], ["blue-1-money", "blue-3-money"]], deck=["red-3-money", "red-3-love"])
    assert "already full" in rejected(state, PoolRefilled(card="red-3-money"))
    taken = record_all(state, PoolCardTaken(card="blue-3-money"))
    assert refused(taken, PoolRefilled(card="red-3-love")) == "red-3-love is not the top card of the deck"
    assert record_all(taken, PoolRefilled(card="red-3-money")).deck == ids(["red-3-love"])


def test_t4_a_deck_draw_is_seen_only_by_the_drawer() -> None:
    """T4: a card drawn from the deck is HIDDEN to the other seats; a card taken from the pool stays visible."""
    state = dealt([["red-1-love", "red-2-love"], ["blue-1-money", "blue-3-money"], ["red-3-money", "purple-3-money"]])
    rng = Random(5)
    state, steps = act(GAME, state, Draw(), rng)
    drawn = card(steps[0].payload.card)  # type: ignore[attr-defined]
    assert [type(step.payload) for step in steps] == [DeckCardDrawn]
    assert drawn in GAME.view(state, 0).hands[0]
    for seat in (1, 2):
        assert GAME.view(state, seat).hands[0] == (HIDDEN,) * 3
    state, _ = act(GAME, state, Take(card("blue-3-money")), rng)
    assert GAME.view(state, 0).hands[1] == (card("blue-3-money"), HIDDEN, HIDDEN)
    assert GAME.view(state, 2).hands[1] == (card("blue-3-money"), HIDDEN, HIDDEN)


def test_t4_a_card_taken_face_up_is_no_longer_shown_once_a_copy_is_played() -> None:
    """T4, T5: a seat holding a private copy of a card it also took face up plays one copy: the others cannot tell
    which, so the copy left in hand is HIDDEN from them."""
    state = table([["blue-1-money", "blue-2-money", "blue-3-money"], OTHERS[1]])
    rng = Random(12)
    state, _ = act(GAME, state, Take(card("blue-3-money")), rng)
    assert GAME.view(state, 1).hands[0] == (card("blue-3-money"), HIDDEN, HIDDEN, HIDDEN)
    state, _ = take_any(state, rng)
    state, _ = act(GAME, state, play_names("blue-1-money", "blue-2-money", "blue-3-money"), rng)
    assert held(state, 0) == ["blue-3-money"]
    assert GAME.view(state, 1).hands[0] == (HIDDEN,)


def test_t4_the_deck_is_hidden_from_every_seat() -> None:
    """T4: no seat's view shows the deck, only how many cards it holds."""
    state, _ = start(GAME, NAMES[:3], Random(6))
    for seat in range(3):
        assert GAME.view(state, seat).deck == (HIDDEN,) * len(state.deck)


def test_t4_the_seed_of_chance_is_hidden_like_the_deck() -> None:
    """T4: the recorded seed fixes the order of every reshuffled deck (engine.play.chance_rng), so a seat that knew it
    would know the cards others draw after a reshuffle; a view does not show it."""
    state = table([["red-1-love", "red-2-love"], OTHERS[0]], deck=["red-3-money"], discard=RED_TRIOS[1])
    state = record_all(state, DeckCardDrawn(card="red-3-money"))  # the deck is empty: a reshuffle is due
    reshuffle = GAME.chance(state, chance_rng(5, 3))
    assert isinstance(reshuffle, DiscardReshuffled) and reshuffle == GAME.chance(state, chance_rng(5, 3))
    for seat in (0, 1):
        assert GAME.view(replace(state, seed=5), seat) == GAME.view(replace(state, seed=6), seat)
        assert GAME.view(state, seat).seed == HIDDEN


def test_t4_a_deck_draw_from_the_ordered_deck_is_its_top_card() -> None:
    """T4: the drawer gets the top card of a recorded deck; naming another card is refused."""
    state = table([["red-1-love", "red-2-love"], ["blue-1-money", "blue-3-money"]], deck=["red-3-money", "red-3-love"])
    assert refused(state, DeckCardDrawn(card="red-3-love")) == "red-3-love is not the top card of the deck"
    state, steps = act(GAME, state, Draw(), Random(0))
    assert steps[0].payload == DeckCardDrawn(card="red-3-money")
    assert state.deck == ids(["red-3-love"])


def test_t4_an_empty_deck_is_rebuilt_from_the_discard_pile_at_once() -> None:
    """T4: drawing the last deck card makes chance reshuffle the discard pile into the deck before anyone acts."""
    discard = RED_TRIOS[1]
    state = table(
        [["red-1-love", "red-2-love"], ["blue-1-money", "blue-3-money"]], deck=["red-3-money"], discard=discard
    )
    after_draw = record_all(state, DeckCardDrawn(card="red-3-money"))
    assert GAME.to_move(after_draw) == CHANCE_TO_MOVE
    assert "chance must act first" in refused(after_draw, PoolCardTaken(card=POOL[0]))
    state, steps = act(GAME, state, Draw(), Random(7))
    assert [type(step.payload) for step in steps] == [DeckCardDrawn, DiscardReshuffled]
    assert state.discard == () and sorted(state.deck) == sorted(ids(discard))
    assert state.deck == ids(steps[1].payload.deck)  # type: ignore[attr-defined]
    assert GAME.to_move(state) == 1


def test_t4_the_last_deck_card_refilling_the_pool_also_triggers_the_reshuffle() -> None:
    """T4: a pool refill that empties the deck is followed at once by the reshuffle of the discard pile."""
    state = table(
        [["red-1-love", "red-2-love"], ["blue-1-money", "blue-3-money"]], deck=["red-3-money"], discard=["blue-2-love"]
    )
    state, steps = act(GAME, state, Take(card(POOL[0])), Random(8))
    assert [type(step.payload) for step in steps] == [PoolCardTaken, PoolRefilled, DiscardReshuffled]
    assert len(state.pool) == 4 and state.deck == ids(["blue-2-love"]) and state.discard == ()


def test_t4_a_reshuffle_happens_only_into_an_empty_deck_with_the_discard_cards() -> None:
    """T4: chance may not reshuffle while the deck holds cards, nor make a deck of other cards than the discards."""
    full = table(
        [["red-1-love", "red-2-love"], ["blue-1-money", "blue-3-money"]], deck=["red-3-money"], discard=["blue-2-love"]
    )
    assert "only when the deck is empty (T4)" in rejected(full, DiscardReshuffled(deck=("blue-2-love",)))
    empty = record_all(full, DeckCardDrawn(card="red-3-money"))
    assert "exactly the cards of the discard pile" in refused(empty, DiscardReshuffled(deck=("blue-2-money",)))
    assert record_all(empty, DiscardReshuffled(deck=None)).deck == ids(["blue-2-love"])


def test_t4_with_deck_and_discard_empty_the_pool_may_hold_fewer_than_four() -> None:
    """T4: with nothing left to refill from, a taken pool card is not replaced and the next seat acts."""
    state = table([["red-1-love", "red-2-love"], ["blue-1-money", "blue-3-money"]], deck=[], discard=[])
    state, steps = act(GAME, state, Take(card(POOL[0])), Random(9))
    assert [type(step.payload) for step in steps] == [PoolCardTaken]
    assert state.pool == ids(POOL[1:])
    assert GAME.to_move(state) == 1


def test_t4_with_deck_and_discard_empty_drawing_from_the_deck_is_illegal() -> None:
    """T4: no Draw among the legal actions; a draw is refused with the reason."""
    state = table([["red-1-love", "red-2-love"], ["blue-1-money", "blue-3-money"]], pool=POOL[:2], deck=[], discard=[])
    assert Draw() not in GAME.legal_actions(state)
    assert GAME.legal_actions(state) == [Take(c) for c in sorted(ids(POOL[:2]))]
    assert refused(state, DeckCardDrawn(card="red-3-money")) == "the deck is empty"
    with pytest.raises(IllegalAction, match="the deck is empty"):
        GAME.resolve(state, Draw(), Random(0))


def test_t4_discarded_cards_rebuild_an_empty_deck_and_refill_the_pool() -> None:
    """T4, T5: with deck and discard empty, a play's discards become the deck at once and refill the short pool."""
    state = table(
        [[*RED_TRIOS[0], "blue-2-love"], ["blue-1-money", "blue-3-money"]], pool=POOL[:3], deck=[], discard=[]
    )
    state, steps = act(GAME, state, play_names(*RED_TRIOS[0]), Random(10))
    assert [type(step.payload) for step in steps] == [CardsPlayed, DiscardReshuffled, PoolRefilled]
    assert len(state.pool) == 4 and len(state.deck) == 2 and state.discard == ()
    assert Counter(state.pool + state.deck) == Counter(ids(POOL[:3] + RED_TRIOS[0]))


# --- T5: playing three cards -----------------------------------------------------------------------------------------


def test_t5_play_takes_top_token_of_each_shared_value() -> None:
    """T5: three red 3s take the red token and the 3 token, each the top of its stack."""
    trio = ("red-3-love", "red-3-passion", "red-3-money")
    state = table([trio, ["blue-1-money", "blue-2-money"]], heights=stacks(red=2, n3=1))
    _, steps = act(GAME, state, play_names(*trio), Random(0))
    assert steps[0].payload == CardsPlayed(cards=tuple(sorted(trio, key=card)), tokens=(("3", 1), ("red", 2)))  # type: ignore[arg-type]


def test_t5_an_empty_stack_gives_nothing() -> None:
    """T5: a shared value whose stack is empty gives no token; the play is still legal and its cards discarded."""
    trio = ("red-3-love", "red-3-passion", "red-3-money")
    state = table([trio, ["blue-1-money", "blue-2-money"]], heights=stacks(red=0))
    state, steps = act(GAME, state, play_names(*trio), Random(0))
    assert steps[0].payload.tokens == (("3", 3),)  # type: ignore[attr-defined]
    emptied = table([trio, ["blue-1-money", "blue-2-money"]], heights=stacks(red=0, n3=0))
    emptied, steps = act(GAME, emptied, play_names(*trio), Random(0))
    assert steps[0].payload.tokens == ()  # type: ignore[attr-defined]
    assert emptied.tokens[0] == () and emptied.hands[0] == () and sorted(emptied.discard) == sorted(ids(trio))


def test_t5_played_cards_go_to_the_discard_pile_in_view_of_all() -> None:
    """T5: the three cards leave the hand for the public discard pile."""
    trio = RED_TRIOS[0]
    state = table([[*trio, "blue-2-love"], ["blue-1-money", "blue-3-money"]])
    state, _ = act(GAME, state, play_names(*trio), Random(0))
    assert held(state, 0) == ["blue-2-love"]
    assert state.discard == ids(sorted(trio, key=card))
    assert GAME.view(state, 1).discard == state.discard
    assert state.tokens[0] == tokens_of(("red", 3))


def test_t5_legal_plays_are_exactly_the_trios_sharing_a_value() -> None:
    """T5: every three cards of the hand that share a symbol, number or colour is a legal play, and no others."""
    hand = ["red-1-love", "red-2-passion", "blue-2-love", "purple-3-money", "blue-1-money", "red-1-love"]
    state = table([hand, ["blue-1-passion", "blue-3-passion"]])
    plays = {a.cards for a in GAME.legal_actions(state) if isinstance(a, Play)}
    expected = {trio for trio in combinations(sorted(ids(hand)), 3) if shared_values(*trio)}
    assert plays == expected
    assert tuple(sorted(ids(["red-1-love", "red-1-love", "red-2-passion"]))) in plays  # two copies of one card
    assert tuple(sorted(ids(["red-2-passion", "blue-2-love", "purple-3-money"]))) not in plays


def test_t5_three_cards_sharing_no_value_are_refused() -> None:
    """T5: a play with no common symbol, number or colour is refused with the reason."""
    hand = ["red-1-love", "blue-2-passion", "purple-3-money"]
    state = table([hand, ["blue-1-money", "blue-3-money"]])
    reason = refused(state, CardsPlayed(cards=tuple(hand), tokens=()))  # type: ignore[arg-type]
    assert reason == "red-1-love, blue-2-passion, purple-3-money share no symbol, number or colour (T5)"
    with pytest.raises(IllegalAction, match="share no symbol, number or colour"):
        GAME.check(state, CardsPlayed(cards=tuple(hand), tokens=()))  # type: ignore[arg-type]


def test_t5_a_play_is_exactly_three_cards_of_the_own_hand() -> None:
    """T5: two cards, or cards the seat does not hold, are refused."""
    state = table([[*RED_TRIOS[0], "red-2-love"], ["blue-1-money", "blue-3-money"]])
    two = CardsPlayed(cards=RED_TRIOS[0][:2], tokens=())  # type: ignore[arg-type]
    assert refused(state, two) == "a play is exactly three cards (T5)"
    others = CardsPlayed(cards=("blue-1-money", "blue-3-money", "blue-2-money"), tokens=(("blue", 3), ("money", 3)))
    assert "are not all in the hand of seat 0" in refused(state, others)
    with pytest.raises(IllegalAction, match="exactly three cards"):
        GAME.parse_action({"type": "play", "cards": ["red-1-love", "red-2-passion"]})


def test_t5_a_play_must_record_the_tokens_it_takes() -> None:
    """T5: a motto.played naming other tokens than the stacks give is refused."""
    state = table([RED_TRIOS[0], ["blue-1-money", "blue-3-money"]], heights=stacks(red=2))
    greedy = CardsPlayed(cards=RED_TRIOS[0], tokens=(("red", 3),))  # type: ignore[arg-type]
    assert refused(state, greedy) == "this play takes the tokens [('red', 2)], not [('red', 3)]"
    assert record_all(state, CardsPlayed(cards=RED_TRIOS[0], tokens=(("red", 2),))).tokens[0] == tokens_of(("red", 2))  # type: ignore[arg-type]


def test_example_1_all_red_all_two_mixed_symbols_takes_red_and_two() -> None:
    """Rulebook Example 1 (T5): all red, all with 2 symbols, one love and another passion: the largest red token
    and the largest "2" token, no symbol token."""
    trio = ("red-2-love", "red-2-passion", "red-2-money")
    state = table([trio, ["blue-1-money", "blue-3-money"]])
    state, steps = act(GAME, state, play_names(*trio), Random(0))
    assert steps[0].payload.tokens == (("2", 3), ("red", 3))  # type: ignore[attr-defined]
    assert state.stacks == stacks(n2=2, red=2)
    assert state.tokens[0] == tokens_of(("2", 3), ("red", 3))
    assert GAME.scores(state) == [6, 0]


def test_example_2_all_money_mixed_colours_and_numbers_takes_only_money() -> None:
    """Rulebook Example 2 (T5): all money, colours and numbers mixed (a 2 and a 3): only the largest money token."""
    trio = ("purple-2-money", "red-3-money", "red-2-money")
    state = table([trio, ["blue-1-money", "blue-3-money"]])
    state, steps = act(GAME, state, play_names(*trio), Random(0))
    assert steps[0].payload.tokens == (("money", 3),)  # type: ignore[attr-defined]
    assert state.stacks == stacks(money=2)
    assert GAME.scores(state) == [3, 0]


# --- T6: no hand limit; passing ---------------------------------------------------------------------------------------


def test_t6_there_is_no_hand_limit() -> None:
    """T6: a seat holding twenty cards may still take from the pool or draw."""
    hand = [CARD_NAMES[c] for c in range(20)]
    state = table([hand, ["blue-1-money", "blue-3-money"]])
    assert Take(card(POOL[0])) in GAME.legal_actions(state) and Draw() in GAME.legal_actions(state)
    state, _ = act(GAME, state, Take(card(POOL[0])), Random(0))
    assert len(state.hands[0]) == 21
    state, _ = take_any(state, Random(0))
    state, _ = act(GAME, state, Draw(), Random(0))
    assert len(state.hands[0]) == 22


def test_t6_a_seat_with_no_legal_action_passes() -> None:
    """T6: no pool card, no deck, no discards and no three cards sharing a value: the only action is to pass."""
    stuck = ["purple-1-love", "red-2-passion"]
    rest = [CARD_NAMES[c] for c in without_all(FULL_DECK, ids(stuck))]
    state = table([stuck, rest], pool=[], deck=[], discard=[])
    assert GAME.legal_actions(state) == [Pass()]
    state, steps = act(GAME, state, Pass(), Random(0))
    assert [step.payload for step in steps] == [TurnPassed()]
    assert GAME.to_move(state) == 1 and state.turn == 1


def test_t6_a_seat_with_a_legal_action_may_not_pass() -> None:
    """T6: passing is refused while the seat can take, draw or play."""
    state = dealt([["red-1-love", "red-2-love"], ["blue-1-money", "blue-3-money"]])
    assert Pass() not in GAME.legal_actions(state)
    assert refused(state, TurnPassed()) == "seat 0 has a legal action and may not pass (T6)"
    only_plays = table([RED_TRIOS[0], ["blue-1-money", "blue-3-money"]], pool=[], deck=[], discard=[])
    assert "may not pass (T6)" in refused(only_plays, TurnPassed())


# --- T7: the end -----------------------------------------------------------------------------------------------------


def movers_until_the_end(state: MottoState, rng: Random) -> list[int]:
    """The seats that act, each taking a pool card, until the game is over."""
    movers = []
    while (seat := GAME.to_move(state)) is not None:
        movers.append(seat)
        state, _ = take_any(state, rng)
    assert GAME.legal_actions(state) == []
    return movers


def last_medium_position(players: int, seat: int) -> MottoState:
    """Every stack down to its small token except red's medium; `seat` holds a red trio."""
    hands = [list(pair) for pair in OTHERS[:players]]
    hands[seat] = list(RED_TRIOS[0])
    return table(hands, heights=(1,) * 7 + (2, 1), seat=seat)


@pytest.mark.parametrize(("players", "seat"), [(2, 0), (2, 1), (3, 1), (4, 3), (5, 2)])
def test_t7_taking_the_last_medium_token_gives_each_other_seat_one_more_turn(players: int, seat: int) -> None:
    """T7: the seat that takes the last large-or-medium token plays no more; each other seat plays exactly once
    more, clockwise from it; then the game is over."""
    state = last_medium_position(players, seat)
    state, steps = act(GAME, state, play_names(*RED_TRIOS[0]), Random(1))
    assert steps[0].payload.tokens == (("red", 2),)  # type: ignore[attr-defined]
    assert state.final_turns == players - 1
    assert movers_until_the_end(state, Random(1)) == [(seat + k) % players for k in range(1, players)]


def test_t7_a_small_token_does_not_trigger_the_end_while_a_medium_is_left() -> None:
    """T7: the end waits for the last large-or-medium token, not for a small one."""
    state = table([RED_TRIOS[0], ["blue-1-money", "blue-3-money"]], heights=stacks(**{v: 1 for v in VALUES[:8]}))
    state, steps = act(GAME, state, play_names(*RED_TRIOS[0]), Random(3))
    assert steps[0].payload.tokens == (("red", 1),)  # type: ignore[attr-defined]
    assert state.final_turns is None and GAME.to_move(state) == 1


def test_t7_the_end_can_come_with_two_tokens_at_once() -> None:
    """T7: a play taking the last medium of one value along with a small of another triggers the end."""
    trio = ("red-3-love", "red-3-passion", "red-3-money")
    state = table([OTHERS[0], OTHERS[1], trio], heights=(1,) * 5 + (2, 1, 1, 1), seat=2)
    state, steps = act(GAME, state, play_names(*trio), Random(4))
    assert steps[0].payload.tokens == (("3", 2), ("red", 1))  # type: ignore[attr-defined]
    assert movers_until_the_end(state, Random(4)) == [0, 1]


def test_t7_after_the_end_nothing_more_is_accepted() -> None:
    """T7: once the last turn is played, the game is over and every further action is refused."""
    state = last_medium_position(2, 0)
    state, _ = act(GAME, state, play_names(*RED_TRIOS[0]), Random(5))
    state, _ = take_any(state, Random(5))
    assert GAME.to_move(state) is None and GAME.legal_actions(state) == []
    assert refused(state, PoolCardTaken(card=CARD_NAMES[state.pool[0]])) == "the game is over"
    with pytest.raises(IllegalAction, match="the game is over"):
        act(GAME, state, Draw(), Random(5))


# --- T8: the score ---------------------------------------------------------------------------------------------------


def scored(*counts: tuple[int, int, int]) -> MottoState:
    """A finished position whose seats hold (large, medium, small) tokens; values are irrelevant to the score."""
    tokens = tuple(
        tuple((0, points) for points, n in zip(TOKEN_POINTS, seat_counts, strict=True) for _ in range(n))
        for seat_counts in counts
    )
    return MottoState(players=NAMES[: len(counts)], dealt=True, tokens=tokens, final_turns=0)


def test_t8_large_medium_small_score_three_two_one() -> None:
    """T8: 3 points per large, 2 per medium, 1 per small token."""
    state = scored((1, 0, 0), (0, 1, 0), (0, 0, 1), (2, 3, 4))
    assert GAME.scores(state) == [3, 2, 1, 16]
    assert [row["large"] for row in GAME.breakdown(state)] == [1, 0, 0, 2]


def test_t8_the_highest_score_wins_alone() -> None:
    """T8: one seat with the most points is the only winner."""
    assert GAME.winners(scored((1, 0, 0), (0, 2, 0), (0, 0, 1))) == [1]


def test_t8_ties_are_shared_victories() -> None:
    """T8: every seat with the top score wins."""
    state = scored((2, 0, 0), (0, 3, 0), (1, 1, 1), (0, 0, 2))
    assert GAME.scores(state) == [6, 6, 6, 2]
    assert GAME.winners(state) == [0, 1, 2]
    assert GAME.winners(scored((0, 0, 0), (0, 0, 0))) == [0, 1]


def test_example_3_adam_21_thomas_14_patrick_17_adam_wins() -> None:
    """Rulebook Example 3 (T8): Adam 4 large, 4 medium, 1 small = 21; Thomas 2, 3, 2 = 14; Patrick 3, 2, 4 = 17.
    Their 9 large, 9 medium and 7 small tokens come from the nine stacks, leaving two small tokens."""
    large, medium, small = TOKEN_POINTS
    adam = [(v, large) for v in range(4)] + [(v, medium) for v in range(4)] + [(0, small)]
    thomas = [(v, large) for v in (4, 5)] + [(v, medium) for v in (4, 5, 6)] + [(v, small) for v in (1, 2)]
    patrick = [(v, large) for v in (6, 7, 8)] + [(v, medium) for v in (7, 8)] + [(v, small) for v in (3, 4, 5, 6)]
    state = MottoState(
        players=("Adam", "Thomas", "Patrick"),
        dealt=True,
        tokens=(tuple(adam), tuple(thomas), tuple(patrick)),
        stacks=(0,) * 7 + (1, 1),
        final_turns=0,
    )
    assert GAME.scores(state) == [21, 14, 17]
    assert GAME.winners(state) == [0]
    assert [(row["large"], row["medium"], row["small"]) for row in GAME.breakdown(state)] == [
        (4, 4, 1),
        (2, 3, 2),
        (3, 2, 4),
    ]
