"""A refused event never tells its writer a card it could not see (issue 12, leak 1).

Each test plays a seeded game (`engine.play.start`, then the greedy bots, one event at a time) to a position in which
a card is hidden from the writer, writes an event naming a wrong card, and checks the refusal: `IllegalAction`, and
no card in its text but those the event itself names. Where a refusal depends on hidden cards, its text is the same
whichever hidden card caused it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable
from random import Random
from typing import Any

import pytest

from loom.engine import moirai, moorea, motto, stones_of_fate
from loom.engine.moirai.cards import FULL_DECK as MOIRAI_DECK
from loom.engine.moorea.cards import COMMODITIES, HAND_CARDS, PRODUCTS
from loom.engine.motto.cards import CARD_NAMES
from loom.engine.play import record, start
from loom.engine.protocol import CHANCE_TO_MOVE, HIDDEN, Game
from loom.engine.stones_of_fate.cards import CARD_IDS
from loom.engine.stones_of_fate.state import DECK, EMPTY, face_down, grid_of
from loom.events.base import IllegalAction, Payload
from loom.events.moirai import CardKept, CardsDrawn, StartsRevealed
from loom.events.moorea import CardDrawn as MooreaDrawn
from loom.events.moorea import FaceUpRefilled, ProductLaidOut
from loom.events.motto import CardsDealt, DeckCardDrawn, GameStarted, PoolRefilled
from loom.events.stones_of_fate import CardFlipped, CardPeeked, FinalFlip, SpreadRefilled, StoneMoved
from loom.events.stones_of_fate import GameStarted as StonesStarted
from loom.events.stones_of_fate import SpreadDealt as StonesDealt
from tests import recording

NAMES = ("ann", "bob", "cat")
MOTTO, MOIRAI, MOOREA, STONES = motto.GAME, moirai.GAME, moorea.GAME, stones_of_fate.GAME
MOORE_NAMES = frozenset(HAND_CARDS) | {p.id for p in PRODUCTS}


# --- Playing to a position, and reading a refusal ---------------------------------------------------------------------


def advance(game: Game, state: Any, until: Callable[[Any], bool], seed: int = 0) -> Any:
    """Play on one event at a time (greedy bots from their views, chance from `seed`) until `until(state)` holds."""
    rng, bot = Random(seed), game.bots["greedy"]()
    while not until(state):
        mover = game.to_move(state)
        assert mover is not None, "the game ended before the position wanted"
        if mover == CHANCE_TO_MOVE:
            payloads = [game.chance(state, rng)]
        else:
            view = game.view(state, mover)
            payloads = game.resolve(state, bot.choose(view, game.legal_actions(view), rng), rng)
        for payload in payloads:
            state, _ = record(game, state, payload)
            if until(state):
                break
    return state


def refusal(game: Game, state: Any, payload: Payload) -> str:
    """The reason the rules refuse `payload` in `state` (recorded as an imported or written event is)."""
    with pytest.raises(IllegalAction) as refused:
        record(game, state, payload)
    return str(refused.value)


def cards_named(message: str, vocabulary: Collection[str]) -> set[str]:
    """The card names in `message` (whole words; `seat N` is a seat, not Moirai's card N)."""
    words = re.findall(r"[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*", re.sub(r"\bseats? \d+", "", message))
    return {word for word in words if word in vocabulary}


def names_only(message: str, vocabulary: Collection[str], own: Iterable[object], hidden: Iterable[object]) -> bool:
    """True if the message names no card but the event's own `own`, and so none of `hidden`."""
    named, mine = cards_named(message, vocabulary), {str(c) for c in own}
    return named <= mine and not named & ({str(c) for c in hidden} - mine)


# --- Motto ------------------------------------------------------------------------------------------------------------


def motto_hidden_from(state: Any, seat: int) -> list[str]:
    """The cards `seat` cannot see: the deck, and the other seats' hands but the cards they took face up."""
    view = MOTTO.view(state, seat)
    hands = [c for s, hand in enumerate(state.hands) if s != seat for c in hand]
    shown = [c for s, hand in enumerate(view.hands) if s != seat for c in hand if c != HIDDEN]
    for c in shown:
        hands.remove(c)
    return [CARD_NAMES[c] for c in [*state.deck, *hands]]


def test_a_wrong_motto_deck_draw_is_refused_without_naming_the_top_card() -> None:
    state, _ = start(MOTTO, NAMES, Random(1))
    top, wrong = CARD_NAMES[state.deck[0]], next(CARD_NAMES[c] for c in state.deck if c != state.deck[0])
    assert top in motto_hidden_from(state, 0)
    message = refusal(MOTTO, state, DeckCardDrawn(card=wrong))
    assert message == f"{wrong} is not the top card of the deck"
    assert names_only(message, CARD_NAMES, [wrong], motto_hidden_from(state, 0))


def test_a_wrong_motto_pool_refill_is_refused_without_naming_the_top_card() -> None:
    state = advance(MOTTO, start(MOTTO, NAMES, Random(2))[0], lambda s: MOTTO.to_move(s) == CHANCE_TO_MOVE)
    wrong = next(CARD_NAMES[c] for c in state.deck if c != state.deck[0])
    message = refusal(MOTTO, state, PoolRefilled(card=wrong))
    assert message == f"{wrong} is not the top card of the deck"
    assert all(names_only(message, CARD_NAMES, [wrong], motto_hidden_from(state, s)) for s in range(len(NAMES)))


def test_a_motto_draw_of_a_card_held_in_another_hand_reads_like_any_wrong_draw() -> None:
    """A table log (deck order unknown): both copies of red-2-love are in seat 1's hidden hand; the refusal says
    only that it is not the top card, as for a recorded deck, and never where the copies are."""
    state = recording.record_all(
        MOTTO,
        MOTTO.blank(),
        GameStarted(players=NAMES[:2], seed=3),
        CardsDealt(
            hands=(("red-1-love", "blue-1-love"), ("red-2-love", "red-2-love")),
            pool=("purple-1-love", "purple-2-passion", "blue-3-money", "blue-1-passion"),
        ),
    )
    message = refusal(MOTTO, state, DeckCardDrawn(card="red-2-love"))
    assert message == "red-2-love is not the top card of the deck"
    assert "seat" not in message and "hand" not in message


# --- Moirai -----------------------------------------------------------------------------------------------------------


MOIRAI_CARDS = frozenset(str(c) for c in MOIRAI_DECK)


def test_a_wrong_moirai_draw_is_refused_without_naming_the_next_cards() -> None:
    state, _ = start(MOIRAI, NAMES, Random(4))
    assert MOIRAI.view(state, 0).deck == (HIDDEN,) * len(state.deck)
    wrong = state.deck[3:6]
    message = refusal(MOIRAI, state, CardsDrawn(cards=wrong))
    assert message == "the drawn cards are not the next cards of the deck"
    assert names_only(message, MOIRAI_CARDS, wrong, state.deck[:3])


def test_a_wrong_moirai_kept_card_is_refused_without_naming_the_drawn_cards() -> None:
    state = advance(MOIRAI, start(MOIRAI, NAMES, Random(5))[0], lambda s: bool(s.drawn))
    wrong = state.deck[0]  # a card still in the deck, hidden from everyone
    message = refusal(MOIRAI, state, CardKept(placed=((wrong, "open", 2),)))
    assert message == f"{wrong} is not one of the cards drawn this turn (M7)"
    assert names_only(message, MOIRAI_CARDS, [wrong], [*state.drawn, *state.deck])


def test_a_wrong_moirai_reveal_is_refused_without_naming_the_starting_cards() -> None:
    """M3: nobody has seen a setup starting card, not even its owner, until the reveal."""
    over = advance(MOIRAI, start(MOIRAI, NAMES, Random(6))[0], lambda s: MOIRAI.to_move(s) == CHANCE_TO_MOVE)
    assert over.deck_left == 0 and not over.revealed
    starts = [loom[0][0] for loom in over.looms]
    assert all(MOIRAI.view(over, seat).looms[seat][0][0] == HIDDEN for seat in range(len(NAMES)))
    wrong = next(c for c in MOIRAI_DECK if c not in starts)
    message = refusal(MOIRAI, over, StartsRevealed(starts=(wrong, *starts[1:])))
    assert message == f"{wrong} is not seat 0's starting card"
    assert names_only(message, MOIRAI_CARDS, [wrong], [starts[0]])


# --- Moorea -----------------------------------------------------------------------------------------------------------


def moorea_hidden_from(state: Any, seat: int) -> list[str]:
    """The cards `seat` cannot see: the deck, the other hands, the product pile."""
    hands = [HAND_CARDS[c] for s, hand in enumerate(state.hands) if s != seat for c in hand]
    return [*(HAND_CARDS[c] for c in state.deck), *hands, *(PRODUCTS[p].id for p in state.pile)]


def test_a_wrong_moorea_deck_draw_is_refused_without_naming_the_top_card() -> None:
    state, _ = start(MOOREA, NAMES, Random(7))
    top = HAND_CARDS[state.deck[0]]
    wrong = next(name for name in COMMODITIES if name != top)
    message = refusal(MOOREA, state, MooreaDrawn(card=wrong))
    assert message == f"{wrong} is not the top card of the commodity deck"
    assert names_only(message, MOORE_NAMES, [wrong], moorea_hidden_from(state, 0))


def test_a_wrong_moorea_face_up_refill_is_refused_without_naming_the_top_card() -> None:
    def refill_due(s: Any) -> bool:
        return MOOREA.to_move(s) == CHANCE_TO_MOVE and len(s.face_up) < 3 and bool(s.deck)

    state = advance(MOOREA, start(MOOREA, NAMES, Random(8))[0], refill_due)
    wrong = next(name for name in COMMODITIES if name != HAND_CARDS[state.deck[0]])
    message = refusal(MOOREA, state, FaceUpRefilled(card=wrong))
    assert message == f"{wrong} is not the top card of the commodity deck"
    assert all(names_only(message, MOORE_NAMES, [wrong], moorea_hidden_from(state, s)) for s in range(len(NAMES)))


def test_a_wrong_moorea_layout_refill_is_refused_without_naming_the_top_of_the_pile() -> None:
    def lay_out_due(s: Any) -> bool:
        return MOOREA.to_move(s) == CHANCE_TO_MOVE and len(s.face_up) == 3 and len(s.layout) < 10

    state = advance(MOOREA, start(MOOREA, NAMES, Random(9))[0], lay_out_due)
    assert MOOREA.view(state, state.seat).pile == (HIDDEN,) * len(state.pile)
    wrong = PRODUCTS[state.pile[1]].id
    message = refusal(MOOREA, state, ProductLaidOut(product=wrong))
    assert message == f"{wrong} is not the top of the product pile"
    assert all(names_only(message, MOORE_NAMES, [wrong], moorea_hidden_from(state, s)) for s in range(len(NAMES)))


# --- Stones of Fate ---------------------------------------------------------------------------------------------------


def stones_hidden_from(state: Any, seat: int) -> list[str]:
    """The cards `seat` cannot see: face-down cards it does not remember, the deck but a top card it peeked at."""
    view = STONES.view(state, seat)
    spread = [CARD_IDS[c] for p, c in enumerate(state.spread) if c != EMPTY and view.spread[p] == HIDDEN]
    deck = [CARD_IDS[c] for c in state.deck if c != view.deck_top]
    return spread + deck


def acting_with_a_card_unknown(state: Any) -> bool:
    """A seat takes an action of its turn and a face-down card of the spread is unknown to it."""
    mover = STONES.to_move(state)
    if mover is None or mover < 0 or state.tasks or state.face_up or state.actions >= 2:
        return False
    return any(state.known[mover][p] == HIDDEN for p in face_down(state))


def test_a_wrong_stones_of_fate_flip_is_refused_without_naming_the_face_down_card() -> None:
    state = advance(STONES, start(STONES, NAMES, Random(10))[0], acting_with_a_card_unknown)
    seat = STONES.to_move(state)
    at = next(p for p in face_down(state) if state.known[seat][p] == HIDDEN)
    name, there = grid_of(state).position_name(at), CARD_IDS[state.spread[at]]
    wrong = CARD_IDS[state.deck[0]]  # hidden too, and not the card at `at`
    for payload in (CardFlipped(at=name, card=wrong), CardPeeked(at=name, card=wrong)):
        message = refusal(STONES, state, payload)
        assert message == f"{wrong} is not the card at {name}"
        assert there not in message
        assert names_only(message, CARD_IDS, [wrong], stones_hidden_from(state, seat))


def test_a_wrong_stones_of_fate_deck_peek_is_refused_without_naming_the_top_card() -> None:
    state, _ = start(STONES, NAMES, Random(11))
    wrong = CARD_IDS[state.deck[1]]
    message = refusal(STONES, state, CardPeeked(at=DECK, card=wrong))
    assert message == f"{wrong} is not the top card of the deck"
    assert names_only(message, CARD_IDS, [wrong], stones_hidden_from(state, 0))


def test_a_wrong_stones_of_fate_refill_is_refused_without_naming_the_top_card() -> None:
    def refill_due(s: Any) -> bool:
        return STONES.to_move(s) == CHANCE_TO_MOVE and not s.tasks and not s.face_up and EMPTY in s.spread

    state = advance(STONES, start(STONES, NAMES, Random(12))[0], refill_due)
    name, wrong = grid_of(state).position_name(state.spread.index(EMPTY)), CARD_IDS[state.deck[1]]
    message = refusal(STONES, state, SpreadRefilled(at=name, card=wrong))
    assert message == f"{wrong} is not the top card of the deck"
    assert all(names_only(message, CARD_IDS, [wrong], stones_hidden_from(state, s)) for s in range(len(NAMES)))


def test_a_stones_of_fate_top_card_peeked_by_another_seat_is_not_told() -> None:
    """A table log (deck order unknown): seat 0 peeks at the top card, which fixes it; seat 1's wrong draw of the
    top card is refused with the sentence any wrong card gets, naming neither the card nor who saw it."""
    grid = ["ace-of-cups", "two-of-cups", "three-of-cups", "four-of-cups", "five-of-cups", "six-of-cups"]
    state = recording.record_all(
        STONES, STONES.blank(), StonesStarted(players=NAMES[:2], seed=4), StonesDealt(spread=tuple(grid))
    )
    state = recording.record_all(
        STONES,
        state,
        CardPeeked(at=DECK, card="the-moon"),
        StoneMoved(colour="black", source="supply", target="a1-top"),
    )
    assert STONES.to_move(state) == 1 and STONES.view(state, 1).deck_top == HIDDEN
    seen_by_0 = refusal(STONES, state, CardPeeked(at=DECK, card="the-sun"))
    not_in_deck = refusal(STONES, state, CardPeeked(at=DECK, card="ace-of-cups"))
    assert seen_by_0 == "the-sun is not the top card of the deck"
    assert not_in_deck == "ace-of-cups is not the top card of the deck"
    assert "the-moon" not in seen_by_0 and "seen" not in seen_by_0


def test_a_wrong_stones_of_fate_final_flip_is_refused_without_naming_the_spread() -> None:
    state = advance(STONES, start(STONES, NAMES, Random(13))[0], lambda s: s.ending and not s.final)
    right = STONES.chance(state, Random(0))
    assert isinstance(right, FinalFlip)
    spread = [c for c in right.cards if c is not None]
    others = [CARD_IDS[c] for c in range(len(CARD_IDS)) if CARD_IDS[c] not in spread]
    wrong = tuple(others[0] if c is not None else None for c in right.cards)
    message = refusal(STONES, state, FinalFlip(cards=wrong, winners=right.winners))
    assert "must name the cards of the spread" in message
    assert names_only(message, CARD_IDS, [], spread)


def _drawing(game: Game, tops: list[Any]) -> Payload:
    """A draw from the deck (a peek at it in Stones of Fate) naming a card on top of none of the deals `tops`."""
    if game is MOIRAI:
        return CardsDrawn(cards=next(c for c in zip(*[iter(MOIRAI_DECK)] * 3) if all(c != t for t in tops)))
    names = {MOTTO: CARD_NAMES, MOOREA: COMMODITIES, STONES: CARD_IDS}[game]
    wrong = next(name for c, name in enumerate(names) if c not in tops)
    if game is MOTTO:
        return DeckCardDrawn(card=wrong)
    return MooreaDrawn(card=wrong) if game is MOOREA else CardPeeked(at=DECK, card=wrong)


@pytest.mark.parametrize("game", [MOTTO, MOIRAI, MOOREA, STONES], ids=lambda g: g.name)
def test_a_wrong_draw_gets_the_same_refusal_whatever_card_is_on_top(game: Game) -> None:
    """Deals with different top cards: a card on top of none of them is refused in the same words by each."""
    states = [start(game, NAMES, Random(seed))[0] for seed in (20, 21, 22)]
    tops = [s.deck[:3] if game is MOIRAI else s.deck[0] for s in states]
    assert len(set(tops)) > 1
    payload = _drawing(game, tops)
    assert len({refusal(game, state, payload) for state in states}) == 1
