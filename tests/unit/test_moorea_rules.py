"""Moorea's rules, one small test per behaviour of rulings R3-R11 and the rulebook's examples (R1-R2, the card
data file, are in test_moorea_cards.py).

Positions are built by hand: a `MooreaState` given its fields by `table`, or hand-written events recorded through
`engine.play.record`, which checks them exactly as a log being imported would be checked.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from random import Random

import pytest

from loom.engine.cards import without_all
from loom.engine.moorea import GAME
from loom.engine.moorea.actions import Buy, BuyTool, Discard, Draw, DrawFaceUp, Exchange, Lay, Pass
from loom.engine.moorea.cards import (
    BASKET,
    CART,
    FULL_DECK,
    HAND_CARDS,
    NET,
    PRODUCTS,
    SPEAR,
    hand_card,
    in_game,
    product,
)
from loom.engine.moorea.score import stalled
from loom.engine.moorea.state import ACTION, DISCARD, DRAW, SECOND_DRAW, MooreaState, phase
from loom.engine.play import Step, act, start
from loom.engine.protocol import CHANCE_TO_MOVE, HIDDEN
from loom.events.base import IllegalAction, Payload
from loom.events.moorea import (
    CardDrawn,
    CardsDealt,
    CardsDiscarded,
    CardsExchanged,
    CardsLaid,
    DiscardReshuffled,
    FaceUpDrawn,
    FaceUpRefilled,
    GameStarted,
    ProductBought,
    ProductLaidOut,
    ToolBought,
    TurnPassed,
)
from tests import recording

NAMES = ("andrea", "ben", "cleo", "dora", "emil")
LAYOUT = (
    "tiles-1",
    "bridge-1",
    "jetty-1",
    "market-1",
    "canoe-1",
    "palisades-2",
    "forest-1",
    "bamboo-store-1",
    "hut-1",
    "fish-basket-1",
)
FACE_UP = ("wood", "clay", "fish")
QUIET = ("seashells", "bamboo", "clay")  # a hand for seats that are not under test


# --- Building positions ---------------------------------------------------------------------------------------------


def codes(names: Sequence[str]) -> tuple[int, ...]:
    """The sorted hand-card codes of these names."""
    return tuple(sorted(hand_card(name) for name in names))


def ids(names: Sequence[str]) -> tuple[int, ...]:
    """The product numbers of these ids."""
    return tuple(product(name) for name in names)


def table(
    hands: Sequence[Sequence[str]],
    *,
    layout: Sequence[str] = LAYOUT,
    face_up: Sequence[str] = FACE_UP,
    deck: Sequence[str] | None = None,
    discard: Sequence[str] = (),
    pile: Sequence[str] | None = None,
    owned: Sequence[Sequence[str]] = (),
    tools: Sequence[Sequence[int]] = (),
    laid: Sequence[Sequence[tuple[str, str]]] = (),
    seat: int = 0,
    phase: int = DRAW,
    final_turns: int | None = None,
) -> MooreaState:
    """A dealt position in which `seat` acts. Unless given, the deck is every other commodity (order unknown) and the
    pile every other product in play (order unknown)."""
    seats = len(hands)
    held = tuple(codes(hand) for hand in hands)
    placed = [c for hand in held for c in hand if c < 5] + list(codes(face_up)) + list(codes(discard))
    owned_ids = [ids(o) for o in owned] + [()] * (seats - len(owned))
    laid_rows = [tuple((product(s), hand_card(c)) for s, c in row) for row in laid] + [()] * (seats - len(laid))
    for row in laid_rows:
        placed += [c for _, c in row if c < 5]
    taken = list(ids(layout)) + [p for o in owned_ids for p in o]
    state = MooreaState(
        players=NAMES[:seats],
        dealt=True,
        hands=held,
        face_up=codes(face_up),
        deck=without_all(FULL_DECK, placed) if deck is None else tuple(hand_card(c) for c in deck),
        deck_ordered=deck is not None,
        discard=tuple(hand_card(c) for c in discard),
        pile=tuple(p for p in in_game(seats) if p not in taken) if pile is None else ids(pile),
        pile_ordered=pile is not None,
        layout=ids(layout),
        tools=tuple(tuple(sorted(t)) for t in tools) + ((),) * (seats - len(tools)),
        owned=tuple(owned_ids),
        laid=tuple(laid_rows),
        seat=seat,
        phase=phase,
        final_turns=final_turns,
    )
    assert GAME.to_move(state) == seat, "a hand-built position must be one in which the seat acts, not chance"
    return state


# Recording hand-written events into a position, and the reason one is refused (tests/recording.py).
record_all = partial(recording.record_all, GAME)
refused = partial(recording.refused, GAME)


def held(state: MooreaState, seat: int) -> list[str]:
    """The names of the cards in a seat's hand."""
    return [HAND_CARDS[c] for c in state.hands[seat]]


def drawn(state: MooreaState, *payloads: Payload) -> MooreaState:
    """The seat's compulsory draw of the top card (its order unknown: a wood), then `payloads`."""
    return record_all(state, CardDrawn(card="wood"), *payloads)


def buy(product_id: str, *paid: str) -> ProductBought:
    """The event of buying `product_id` with these cards."""
    return ProductBought(product=product_id, paid=paid)


def play_turn(state: MooreaState, rng: Random, action: object = Pass()) -> tuple[MooreaState, list[Step]]:
    """The seat to move draws (if it can), takes `action`, and discards its first legal choice if over the limit."""
    steps: list[Step] = []
    seat = state.seat
    while GAME.to_move(state) == seat and phase(state) in (DRAW, SECOND_DRAW) and Draw() in GAME.legal_actions(state):
        state, more = act(GAME, state, Draw(), rng)
        steps += more
        if phase(state) == SECOND_DRAW:
            break
    state, more = act(GAME, state, action, rng)
    steps += more
    if GAME.to_move(state) == seat and phase(state) == DISCARD:
        state, more = act(GAME, state, GAME.legal_actions(state)[0], rng)
        steps += more
    return state, steps


# --- R3: setup -----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("players", "products"), [(2, 50), (3, 50), (4, 64), (5, 70)])
def test_r3_setup_deals_six_each_three_face_up_and_lays_out_ten(players: int, products: int) -> None:
    """R3: from the recorded deck, six cards to each seat, then three face up; the pile is the product cards of this
    player count (without "5" under 5 players, without "4+" under 4) and its top ten are laid out."""
    started, deal = GAME.setup(NAMES[:players], Random(players))
    assert isinstance(started, GameStarted) and isinstance(deal, CardsDealt)
    assert started.deck is not None and started.pile is not None
    assert deal.hands == tuple(started.deck[6 * s : 6 * s + 6] for s in range(players))
    assert deal.face_up == started.deck[6 * players : 6 * players + 3]
    assert deal.layout == started.pile[:10] and len(started.pile) == products
    state = record_all(GAME.blank(), started, deal)
    assert len(state.deck) == 75 - 6 * players - 3 and len(state.pile) == products - 10
    assert GAME.to_move(state) == 0 and phase(state) == DRAW


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_r3_removed_cards_follow_the_player_markings(players: int) -> None:
    """R3: 5 players use all 70 cards; 4 leave out the six marked "5"; 2-3 also those marked "4+"."""
    markings = {PRODUCTS[p].marking for p in in_game(players)}
    assert markings == {2: {"all"}, 3: {"all"}, 4: {"all", "4+"}, 5: {"all", "4+", "5"}}[players]


@pytest.mark.parametrize("players", [2, 5])
def test_r3_pile_one_lies_on_top_of_pile_two(players: int) -> None:
    """R3: every pile I card comes before every pile II card in the shuffled pile."""
    started, _ = GAME.setup(NAMES[:players], Random(7))
    piles = [PRODUCTS[product(p)].pile for p in started.pile]  # type: ignore[attr-defined]
    assert piles == sorted(piles) and piles[0] == 0 and piles[-1] == 1


@pytest.mark.parametrize("players", [1, 6])
def test_r3_only_two_to_five_players(players: int) -> None:
    """R3: setup and a recorded moorea.started refuse 1 or 6 players."""
    lineup = tuple(f"p{k}" for k in range(players))
    with pytest.raises(IllegalAction, match=f"Moorea is for 2 to 5 players, not {players}"):
        GAME.setup(lineup, Random(0))
    assert f"not {players}" in refused(GAME.blank(), GameStarted(players=lineup))


def test_r3_a_recorded_pile_or_deck_must_be_complete_and_in_order() -> None:
    """R3: a pile with pile II above pile I, or a deck short of a card, is refused."""
    started, _ = GAME.setup(NAMES[:2], Random(3))
    pile = started.pile  # type: ignore[attr-defined]
    assert "pile I lies on top of pile II" in refused(GAME.blank(), GameStarted(players=NAMES[:2], pile=pile[::-1]))
    short = GameStarted(players=NAMES[:2], deck=started.deck[1:])  # type: ignore[attr-defined]
    assert "15 cards of each commodity" in refused(GAME.blank(), short)
    five = GameStarted(players=NAMES[:2], pile=tuple(PRODUCTS[p].id for p in in_game(5)))
    assert "product cards in play for 2 players" in refused(GAME.blank(), five)


def test_r3_a_hand_written_layout_comes_from_pile_one_first() -> None:
    """R3: with the pile's order unknown, laying out a pile II card while pile I cards remain is refused."""
    started = record_all(GAME.blank(), GameStarted(players=NAMES[:2], seed=1))
    hands = (("wood",) * 6, ("clay",) * 6)
    first = ("tiles-1", "bridge-1", "jetty-1", "canoe-1", "necklace-1", "forest-1", "hut-1", "fish-basket-1")
    layout = (*first, "palisades-1", "bamboo-store-1")
    deal = CardsDealt(hands=hands, face_up=FACE_UP, layout=(*layout[:9], "temple-1"))
    assert "pile I lies on top of pile II" in refused(started, deal)
    state = record_all(started, CardsDealt(hands=hands, face_up=FACE_UP, layout=layout))
    assert state.layout == ids(layout) and GAME.to_move(state) == 0


def test_r3_hands_are_private_and_the_table_public() -> None:
    """R3, hidden information: a seat sees its own hand, others' hand sizes, the face-up cards, layout and owned
    cards; the deck, the pile and the seed are hidden."""
    state = table([("wood", "clay"), ("fish", "fish", "hut")], owned=[(), ("forest-2",)], tools=[(), (SPEAR,)])
    view = GAME.view(state, 0)
    assert view.hands == (codes(["wood", "clay"]), (HIDDEN,) * 3)
    assert (view.face_up, view.layout, view.owned, view.tools) == (
        state.face_up,
        state.layout,
        state.owned,
        state.tools,
    )
    assert set(view.deck) == {HIDDEN} and set(view.pile) == {HIDDEN} and view.seed == HIDDEN
    assert GAME.legal_actions(view) == GAME.legal_actions(state)


# --- R4: the compulsory draw ------------------------------------------------------------------------------------------


def test_r4_drawing_is_compulsory_before_any_action() -> None:
    """R4: an action, or a pass, before the draw is refused; the only legal action is the face-down draw."""
    state = table([("wood", "wood", "wood"), QUIET])
    assert "must draw a commodity card first (R4)" in refused(state, TurnPassed())
    assert "must draw a commodity card first (R4)" in refused(state, buy("jetty-1", "wood", "wood", "wood"))
    assert GAME.legal_actions(state) == [Draw()]


def test_r4_the_draw_is_the_top_face_down_card() -> None:
    """R4: with a recorded deck, the drawer gets its top card; naming another is refused."""
    state = table([("wood",), QUIET], deck=["fish", "clay"])
    assert refused(state, CardDrawn(card="clay")) == "clay is not the top card of the commodity deck"
    state, steps = act(GAME, state, Draw(), Random(0))
    assert steps[0].payload == CardDrawn(card="fish") and held(state, 0) == ["wood", "fish"]
    assert phase(state) == ACTION


def test_r4_only_a_spear_allows_a_face_up_draw() -> None:
    """R4: a face-up draw without a spear is refused."""
    state = table([("wood",), QUIET])
    assert "only a player with a spear" in refused(state, FaceUpDrawn(card="fish"))


def test_r4_a_spear_draws_a_face_up_card_and_it_is_refilled_at_once() -> None:
    """R4: with a spear the seat may take a face-up commodity; chance refills the place before anything else."""
    state = table([("wood",), QUIET], tools=[(SPEAR,)], deck=["bamboo", "clay"])
    assert GAME.legal_actions(state) == [Draw(), *(DrawFaceUp(c) for c in codes(FACE_UP))]
    state, steps = act(GAME, state, DrawFaceUp(hand_card("fish")), Random(0))
    assert [s.payload for s in steps] == [FaceUpDrawn(card="fish"), FaceUpRefilled(card="bamboo")]
    assert held(state, 0) == ["wood", "fish"] and tuple(sorted(state.face_up)) == codes(["wood", "clay", "bamboo"])


def test_r4_a_cart_gives_an_optional_second_draw() -> None:
    """R4: after the first draw a cart holder may draw again, or decline by going straight to an action."""
    state = table([("wood",), QUIET], tools=[(CART,)])
    state = drawn(state)
    assert phase(state) == SECOND_DRAW and state.seat == 0
    legal = GAME.legal_actions(state)
    assert legal[0] == Draw() and Pass() in legal
    declined = record_all(state, TurnPassed())
    assert declined.seat == 1 and held(declined, 0) == ["wood", "wood"]
    twice = record_all(state, CardDrawn(card="fish"))
    assert phase(twice) == ACTION and held(twice, 0) == ["wood", "wood", "fish"]
    assert "has drawn already" in refused(twice, CardDrawn(card="fish"))


def test_r4_spear_and_cart_choose_each_draw_and_the_face_up_cards_are_refilled_in_between() -> None:
    """R4: with both tools, both draws may be face up; the first is replaced before the second is chosen."""
    state = table([("wood",), QUIET], tools=[(SPEAR, CART)], deck=["seashells", "bamboo", "clay"])
    rng = Random(0)
    state, steps = act(GAME, state, DrawFaceUp(hand_card("fish")), rng)
    assert isinstance(steps[-1].payload, FaceUpRefilled)
    assert tuple(sorted(state.face_up)) == codes(["wood", "clay", "seashells"])
    assert DrawFaceUp(hand_card("seashells")) in GAME.legal_actions(state)
    state, steps = act(GAME, state, DrawFaceUp(hand_card("seashells")), rng)
    assert held(state, 0) == ["seashells", "wood", "fish"] and phase(state) == ACTION
    assert tuple(sorted(state.face_up)) == codes(["wood", "clay", "bamboo"])


def test_r4_an_empty_deck_is_rebuilt_from_the_discard_pile_at_once() -> None:
    """R4: drawing the last face-down card makes chance reshuffle the discard pile into a new deck at once."""
    state = table([("wood",), QUIET], deck=["fish"], discard=["clay", "clay", "bamboo"])
    state, steps = act(GAME, state, Draw(), Random(0))
    assert [type(s.payload) for s in steps] == [CardDrawn, DiscardReshuffled]
    assert sorted(state.deck) == list(codes(["clay", "clay", "bamboo"])) and state.discard == ()
    assert steps[1].actor is None and steps[1].turn == steps[0].turn


def test_r4_a_reshuffle_only_when_the_deck_is_empty() -> None:
    """R4: a reshuffle event while face-down cards remain is refused."""
    state = table([("wood",), QUIET], discard=["clay"])
    with pytest.raises(IllegalAction, match="only when the commodity deck is empty"):
        GAME.check(state, DiscardReshuffled(deck=("clay",)))


def test_r4_with_nothing_left_to_draw_the_turn_goes_on_without_a_draw() -> None:
    """R4: no face-down card and an empty discard pile (and no spear): the seat acts without drawing."""
    state = table([("wood",), QUIET], deck=[], discard=[])
    assert phase(state) == ACTION and Pass() in GAME.legal_actions(state)
    assert record_all(state, TurnPassed()).seat == 1


# --- R5: one action or a pass -----------------------------------------------------------------------------------------


def test_r5_exchange_two_hand_cards_for_a_face_up_commodity() -> None:
    """R5: two hand cards go to the discard pile, the chosen face-up card to the hand, and its place is refilled."""
    state = drawn(table([("clay", "seashells"), QUIET], deck=["wood", "bamboo"]))
    state, steps = act(GAME, state, Exchange(codes(["clay", "seashells"]), hand_card("fish")), Random(0))  # type: ignore[arg-type]
    assert [s.payload for s in steps][:2] == [
        CardsExchanged(paid=("seashells", "clay"), card="fish"),
        FaceUpRefilled(card="bamboo"),
    ]
    assert held(state, 0) == ["wood", "fish"] and sorted(state.deck) == list(codes(["clay", "seashells"]))
    assert state.seat == 1


def test_r5_any_two_hand_cards_may_be_exchanged_and_an_intermediate_product_leaves_the_game() -> None:
    """R5, R8: a hut and a clay for the face-up fish: the clay goes to the discard pile, the hut out of the game."""
    state = drawn(table([("clay", "hut"), QUIET]), CardsExchanged(paid=("clay", "hut"), card="fish"))
    assert state.discard == codes(["clay"]) and state.removed == codes(["hut"]) and held(state, 0) == ["wood", "fish"]


def test_r5_an_exchange_is_exactly_two_cards_from_the_hand_for_a_face_up_card() -> None:
    """R5: paying with cards not held, or taking a commodity not face up, is refused."""
    state = drawn(table([("clay", "seashells"), QUIET]))
    assert "not all in the hand" in refused(state, CardsExchanged(paid=("fish", "fish"), card="wood"))
    assert "no bamboo lies face up" in refused(state, CardsExchanged(paid=("clay", "seashells"), card="bamboo"))
    assert "exactly 2 hand cards" in refused(state, CardsExchanged(paid=("clay",), card="wood"))  # type: ignore[arg-type]


def test_r5_buying_a_product_pays_its_cost_and_the_layout_is_refilled() -> None:
    """R5: the product is the buyer's, the commodities go to the discard pile, the layout gets the pile's top card."""
    state = drawn(table([("clay", "clay", "clay"), QUIET], pile=["palisades-1", "tiles-2"]))
    state, steps = act(GAME, state, Buy(product("tiles-1"), codes(["clay"] * 3)), Random(0))
    assert [s.payload for s in steps] == [buy("tiles-1", "clay", "clay", "clay"), ProductLaidOut(product="palisades-1")]
    assert state.owned[0] == ids(["tiles-1"]) and held(state, 0) == ["wood"]
    assert state.layout == ids([*LAYOUT[1:], "palisades-1"]) and state.discard == codes(["clay"] * 3)


def test_r5_a_product_must_be_paid_exactly() -> None:
    """R5: a product not in the layout, too little, too much or the wrong cards are refused."""
    state = drawn(table([("clay", "clay", "clay", "clay", "wood"), QUIET]))
    assert "temple-1 is not in the layout" in refused(state, buy("temple-1", "clay"))
    assert "1 card(s) short" in refused(state, buy("tiles-1", "clay", "clay"))
    assert "takes 0 wood, not 1" in refused(state, buy("tiles-1", "clay", "clay", "clay", "wood"))
    assert "tiles takes 3 clay, not 4" in refused(state, buy("tiles-1", "clay", "clay", "clay", "clay"))


def test_r5_a_tool_costs_n_identical_commodities_of_any_kind() -> None:
    """R5: a spear (3 of one commodity) is paid with 3 clay, or 3 fish; mixed kinds are refused."""
    state = drawn(table([("clay", "clay", "clay", "fish", "fish", "fish"), QUIET]))
    assert "3 cards of one commodity" in refused(state, ToolBought(tool="spear", paid=("clay", "clay", "fish")))
    assert record_all(state, ToolBought(tool="spear", paid=("fish",) * 3)).tools[0] == (SPEAR,)
    bought = record_all(state, ToolBought(tool="spear", paid=("clay",) * 3))
    assert bought.tools[0] == (SPEAR,) and bought.supply[SPEAR] == 4
    assert held(bought, 0) == ["wood", "fish", "fish", "fish"]


def test_r5_one_tool_of_each_kind_per_player() -> None:
    """R5: a seat that has a basket may not buy another; a kind it lacks it may."""
    state = drawn(table([("clay",) * 4, QUIET], tools=[(BASKET,)]))
    assert "one tool of each kind per player (R5)" in refused(state, ToolBought(tool="basket", paid=("clay",) * 3))
    assert all(not (isinstance(a, BuyTool) and a.tool == BASKET) for a in GAME.legal_actions(state))
    assert record_all(state, ToolBought(tool="cart", paid=("clay",) * 4)).tools[0] == (BASKET, CART)


def test_r5_laying_is_at_one_store_the_player_owns() -> None:
    """R5: laying at a store the seat does not own, or of cards the store does not take, is refused."""
    state = drawn(table([("wood", "wood", "fish"), QUIET], owned=[("wood-store-1",)], layout=LAYOUT))
    assert "owns no store jetty-2" in refused(state, CardsLaid(store="jetty-2", cards=("wood",)))
    assert "takes only wood, not fish" in refused(state, CardsLaid(store="wood-store-1", cards=("wood", "fish")))
    laid = record_all(state, CardsLaid(store="wood-store-1", cards=("wood", "wood", "wood")))
    assert laid.laid[0] == ((product("wood-store-1"), hand_card("wood")),) * 3 and held(laid, 0) == ["fish"]
    assert GAME.breakdown(laid)[0]["stores"] == 3


def test_r5_one_action_per_turn() -> None:
    """R5: after one action the turn is over; the next seat must draw before it may act."""
    state = drawn(table([("clay",) * 3 + ("wood",) * 3, QUIET]), buy("tiles-1", "clay", "clay", "clay"))
    state = record_all(state, ProductLaidOut(product="palisades-1"))
    assert state.seat == 1 and phase(state) == DRAW
    assert "must draw a commodity card first" in refused(state, buy("jetty-1", "wood", "wood", "wood"))


def test_r5_passing_is_an_action_too() -> None:
    """R5: the seat may pass after drawing; its turn ends."""
    state = drawn(table([("wood",), QUIET]), TurnPassed())
    assert state.seat == 1 and state.turn == 1


# --- R6: production sites ---------------------------------------------------------------------------------------------


def test_r6_the_forest_owner_pays_two_wood_for_the_jetty() -> None:
    """R6, the rulebook's example: the jetty costs 3 wood; the forest owner pays only 2."""
    assert PRODUCTS[product("jetty-1")].need[hand_card("wood")] == 3
    state = drawn(table([("wood", "wood", "wood"), QUIET], owned=[("forest-2",)]))
    assert "jetty takes 2 wood, not 3" in refused(state, buy("jetty-1", "wood", "wood", "wood"))
    assert Buy(product("jetty-1"), codes(["wood", "wood"])) in GAME.legal_actions(state)
    state = record_all(state, buy("jetty-1", "wood", "wood"))
    assert state.owned[0] == ids(["forest-2", "jetty-1"]) and held(state, 0) == ["wood", "wood"]


def test_r6_without_the_forest_the_jetty_costs_three_wood() -> None:
    """R6: the discount is the production site owner's alone."""
    state = drawn(table([("wood", "wood", "wood"), QUIET], owned=[(), ("forest-2",)]))
    assert "1 card(s) short" in refused(state, buy("jetty-1", "wood", "wood"))


def test_r6_a_production_site_costs_four_of_one_commodity() -> None:
    """R6, rulebook: a production site takes 4 cards of any one commodity."""
    state = drawn(table([("fish",) * 4 + ("clay",) * 3, QUIET]))
    assert record_all(state, buy("forest-1", "fish", "fish", "fish", "fish")).owned[0] == ids(["forest-1"])
    assert "4 cards of one commodity" in refused(state, buy("forest-1", "fish", "fish", "clay", "clay"))


def test_r6_a_production_site_does_not_lower_tools() -> None:
    """R6: a forest owner still pays 3 wood for a spear."""
    state = drawn(table([("wood", "wood", "wood"), QUIET], owned=[("forest-2",)]))
    assert "takes 3 cards of one commodity, not 2" in refused(state, ToolBought(tool="spear", paid=("wood", "wood")))


def test_r6_a_production_site_does_not_lower_what_a_store_takes() -> None:
    """R6: laying at a store is not lowered: each card laid is one card from the hand."""
    state = drawn(table([("wood", "wood"), QUIET], owned=[("forest-2", "wood-store-1")]))
    laid = record_all(state, CardsLaid(store="wood-store-1", cards=("wood", "wood", "wood")))
    assert len(laid.laid[0]) == 3 and held(laid, 0) == []


def test_r6_two_sites_of_one_commodity_still_save_one_card() -> None:
    """R6: "you need 1 less": owning both forests lowers wood by one, not two."""
    layout = tuple("jetty-2" if name == "forest-1" else name for name in LAYOUT)
    state = drawn(table([("wood", "wood", "wood"), QUIET], owned=[("forest-1", "forest-2")], layout=layout))
    assert "1 card(s) short" in refused(state, buy("jetty-1", "wood"))
    assert record_all(state, buy("jetty-1", "wood", "wood")).owned[0] == ids(["forest-1", "forest-2", "jetty-1"])


# --- R7: the fishing net ----------------------------------------------------------------------------------------------


def test_r7_with_a_net_fish_stands_in_for_any_commodity_of_a_product() -> None:
    """R7: the jetty (3 wood) paid with 1 wood and 2 fish by a net owner."""
    state = drawn(table([("fish", "fish"), QUIET], tools=[(NET,)]))
    state = record_all(state, buy("jetty-1", "wood", "fish", "fish"))
    assert state.owned[0] == ids(["jetty-1"])


def test_r7_without_a_net_fish_is_only_fish() -> None:
    """R7: the same payment without a net is refused."""
    state = drawn(table([("fish", "fish"), QUIET]))
    assert "only a fishing net lets fish stand in" in refused(state, buy("jetty-1", "wood", "fish", "fish"))


def test_r7_exception_fish_is_no_joker_for_a_tool() -> None:
    """R7, first exception: 2 clay and a fish do not buy a spear, net or no net."""
    state = drawn(table([("clay", "clay", "fish"), QUIET], tools=[(NET,)]))
    assert "fish is no joker here" in refused(state, ToolBought(tool="spear", paid=("clay", "clay", "fish")))


def test_r7_exception_fish_is_no_joker_at_a_store() -> None:
    """R7, second exception: a net owner may not lay fish at the wood store."""
    state = drawn(table([("fish",), QUIET], tools=[(NET,)], owned=[("wood-store-1",)]))
    assert "takes only wood, not fish" in refused(state, CardsLaid(store="wood-store-1", cards=("fish",)))


def test_r7_exception_fish_is_no_joker_for_an_intermediate_product() -> None:
    """R7, third exception: fish cannot replace the canoe of a two-man canoe."""
    layout = (*LAYOUT[:9], "two-man-canoe-1")
    state = drawn(table([("fish", "fish", "fish"), QUIET], tools=[(NET,)], layout=layout))
    assert "takes 1 canoe, not 0 (R7: no joker for it)" in refused(
        state, buy("two-man-canoe-1", "wood", "fish", "fish", "fish")
    )
    with_canoe = drawn(table([("fish", "fish", "canoe"), QUIET], tools=[(NET,)], layout=layout))
    assert record_all(with_canoe, buy("two-man-canoe-1", "fish", "fish", "canoe")).owned[0] == ids(["two-man-canoe-1"])


def test_r7_the_joker_may_fill_a_production_sites_four() -> None:
    """R7: a production site is a product: 3 clay and a fish buy it with a net."""
    state = drawn(table([("clay", "clay", "clay", "fish"), QUIET], tools=[(NET,)]))
    assert record_all(state, buy("forest-1", "clay", "clay", "clay", "fish")).owned[0] == ids(["forest-1"])


def test_r7_bots_are_offered_the_payments_with_and_without_jokers() -> None:
    """R7: legal_actions offers the real-commodities-first payment and the all-spare-fish one."""
    state = drawn(table([("wood", "wood", "fish", "fish"), QUIET], tools=[(NET,)]))
    jetty = [a.paid for a in GAME.legal_actions(state) if isinstance(a, Buy) and a.product == product("jetty-1")]
    assert jetty == [codes(["wood", "wood", "wood"]), codes(["wood", "fish", "fish"])]


# --- R8: intermediate products ---------------------------------------------------------------------------------------


def test_r8_an_intermediate_product_goes_into_the_hand() -> None:
    """R8: a bought canoe is held in the hand, not laid out before the player."""
    state = drawn(table([("wood",), QUIET]), buy("canoe-1", "wood", "wood"))
    assert held(state, 0) == ["canoe"] and state.owned[0] == ()


def test_r8_spent_intermediate_products_leave_the_game() -> None:
    """R8: the canoe, hut and stoneware that buy a market are removed from the game, not discarded."""
    state = drawn(table([("canoe", "hut", "stoneware"), QUIET]), buy("market-1", "stoneware", "hut", "canoe"))
    assert state.owned[0] == ids(["market-1"]) and held(state, 0) == ["wood"]
    assert state.discard == () and sorted(state.removed) == list(codes(["stoneware", "hut", "canoe"]))


def test_r8_intermediate_products_count_toward_the_hand_limit() -> None:
    """R8, R9: six commodities and a canoe are seven cards: one must go."""
    state = drawn(table([("clay",) * 5 + ("canoe",), QUIET]), TurnPassed())
    assert phase(state) == DISCARD and state.seat == 0


def test_r8_andrea_lays_two_canoes_and_one_hut_at_the_market_in_one_action() -> None:
    """R8, the rulebook's example: Andrea lays 2 canoes and 1 hut at her market; her turn is then finished."""
    state = drawn(table([("canoe", "canoe", "hut", "clay"), QUIET], owned=[("market-1",)]))
    assert state.players[0] == "andrea"
    assert Lay(product("market-1"), codes(["canoe", "canoe", "hut"])) in GAME.legal_actions(state)
    state, steps = act(GAME, state, Lay(product("market-1"), codes(["canoe", "canoe", "hut"])), Random(0))
    assert steps[0].payload == CardsLaid(store="market-1", cards=("hut", "canoe", "canoe"))
    assert held(state, 0) == ["wood", "clay"] and state.seat == 1
    assert GAME.breakdown(state)[0]["stores"] == 3 * PRODUCTS[product("market-1")].per_card


def test_r8_laying_is_at_one_store_per_action() -> None:
    """R8: after laying at the market, laying at the jetty in the same turn is refused (the turn is over)."""
    state = drawn(table([("canoe", "canoe"), QUIET], owned=[("market-1", "jetty-2")]))
    state = record_all(state, CardsLaid(store="market-1", cards=("canoe",)))
    assert "must draw a commodity card first" in refused(state, CardsLaid(store="jetty-2", cards=("canoe",)))


# --- R9: the hand limit -----------------------------------------------------------------------------------------------


def test_r9_over_six_cards_the_player_discards_the_excess_of_their_choice() -> None:
    """R9: seven cards after a pass: one discard of the player's choice, then the next seat."""
    state = drawn(table([("clay",) * 4 + ("fish", "seashells"), QUIET]), TurnPassed())
    assert phase(state) == DISCARD and len(state.hands[0]) == 7
    legal = GAME.legal_actions(state)
    assert legal == [Discard((c,)) for c in codes(["seashells", "wood", "clay", "fish"])]
    assert "exactly 1 card(s)" in refused(state, CardsDiscarded(cards=("clay", "clay")))
    assert "must now discard" in refused(state, TurnPassed())
    state = record_all(state, CardsDiscarded(cards=("fish",)))
    assert len(state.hands[0]) == 6 and "fish" not in held(state, 0) and state.discard == codes(["fish"])
    assert state.seat == 1


def test_r9_a_basket_raises_the_limit_to_eight() -> None:
    """R9: with a basket, eight cards are kept; a ninth must go."""
    state = drawn(table([("clay",) * 7, QUIET], tools=[(BASKET,)]), TurnPassed())
    assert state.seat == 1 and len(state.hands[0]) == 8
    state = drawn(table([("clay",) * 8, QUIET], tools=[(BASKET,)]), TurnPassed())
    assert phase(state) == DISCARD and GAME.legal_actions(state) == [Discard(codes(["wood"])), Discard(codes(["clay"]))]


def test_r9_a_discarded_intermediate_product_leaves_the_game() -> None:
    """R9: commodities go to the discard pile; an intermediate product is removed from the game."""
    state = drawn(table([("clay",) * 5 + ("hut",), QUIET]), TurnPassed(), CardsDiscarded(cards=("hut",)))
    assert state.removed == codes(["hut"]) and state.discard == ()


def test_r9_at_the_limit_nothing_is_discarded() -> None:
    """R9: six cards at the end of the turn: no discard."""
    state = drawn(table([("clay",) * 5, QUIET]), TurnPassed())
    assert state.seat == 1
    assert "not over the hand limit" in refused(drawn(table([("clay",) * 4, QUIET])), CardsDiscarded(cards=("clay",)))


# --- R10: the end of the game -----------------------------------------------------------------------------------------


def _end_position(players: int, trigger: int) -> MooreaState:
    hands = [QUIET] * players
    hands[trigger] = ("clay", "clay", "clay")
    return table(hands, pile=[], seat=trigger)


@pytest.mark.parametrize(("players", "trigger"), [(p, s) for p in (2, 3, 4, 5) for s in range(p)])
def test_r10_every_seat_plays_exactly_one_more_turn_after_the_trigger(players: int, trigger: int) -> None:
    """R10: the seat that takes a product with the pile empty triggers the end; every seat, the trigger included,
    then plays exactly one more turn in turn order from the next seat, and the game is over."""
    state = _end_position(players, trigger)
    rng = Random(players * 10 + trigger)
    state, steps = play_turn(state, rng, Buy(product("tiles-1"), codes(["clay"] * 3)))
    assert state.final_turns == players and not any(isinstance(s.payload, ProductLaidOut) for s in steps)
    movers = []
    while GAME.to_move(state) is not None:
        movers.append(state.seat)
        state, _ = play_turn(state, rng)
    assert movers == [(trigger + k) % players for k in range(1, players + 1)]
    assert GAME.legal_actions(state) == []


def test_r10_buying_while_the_pile_still_holds_cards_does_not_trigger_the_end() -> None:
    """R10: the pile's last card laid out is not the trigger; the next product taken is."""
    state = drawn(
        table([("clay",) * 3 + ("wood",) * 3, QUIET], pile=["palisades-1"]), buy("tiles-1", "clay", "clay", "clay")
    )
    state = record_all(state, ProductLaidOut(product="palisades-1"))
    assert state.final_turns is None and state.pile == ()


def test_r10_stall_with_no_layout_card_payable_the_final_round_begins() -> None:
    """Beyond R10 (docs/log-format.md, Moorea): when no layout card can ever be paid again, the final round begins."""
    layout = ("market-1", "market-2", "temple-1")
    state = table([QUIET, QUIET], layout=layout, pile=[])
    assert stalled(state)
    state = drawn(state, TurnPassed())
    assert state.final_turns == 2
    live = table([("canoe", "hut", "stoneware"), QUIET], layout=layout, pile=[])
    assert not stalled(live)


def test_r10_stall_with_nothing_to_draw_and_nobody_able_to_pay_the_final_round_begins() -> None:
    """Beyond R10: deck, discard pile and face-up places empty, so hands can only shrink, and no seat can pay any
    layout card now: the final round begins. If one seat can pay, the game goes on."""
    state = table([("fish", "fish"), ("seashells", "clay")], deck=[], face_up=[])
    assert phase(state) == ACTION and stalled(state)
    assert record_all(state, TurnPassed()).final_turns == 2
    assert not stalled(table([("clay", "clay", "clay"), ("seashells", "clay")], deck=[], face_up=[]))


# --- R11: score ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("necklaces", "points"), [(0, 0), (1, 2), (2, 5), (3, 9), (4, 14), (5, 20), (6, 20)])
def test_r11_the_necklace_table(necklaces: int, points: int) -> None:
    """R11, the rulebook's table: 1 -> 2, 2 -> 5, 3 -> 9, 4 -> 14, 5 or more -> 20."""
    owned = tuple(f"necklace-{k}" for k in range(1, necklaces + 1))
    state = table([QUIET, QUIET], owned=[owned])
    assert GAME.breakdown(state)[0]["necklaces"] == points


def test_r11_the_score_adds_products_tools_stores_and_necklaces() -> None:
    """R11: products' points, tools' points, the points of cards laid at stores, and the necklace table."""
    owned = ("tiles-2", "forest-2", "jetty-2", "necklace-1", "necklace-2")
    laid = [("jetty-2", "canoe"), ("jetty-2", "canoe")]
    state = table([QUIET, QUIET], owned=[owned], tools=[(SPEAR, CART)], laid=[laid])
    row = GAME.breakdown(state)[0]
    assert row == {"products": 3 + 1, "tools": 1 + 2, "stores": 2 * 3, "necklaces": 5}
    assert GAME.scores(state) == [sum(row.values()), 0]


def test_r11_ties_are_shared_victories() -> None:
    """R11: two seats with the best score both win."""
    state = table([QUIET, QUIET, QUIET], owned=[("tiles-2",), ("tiles-3",), ()])
    assert GAME.winners(state) == [0, 1]


# --- The log: who moves, turns, parsing -------------------------------------------------------------------------------


def test_a_turn_is_several_decisions_of_one_seat_in_one_turn() -> None:
    """The draw, the action and the discard are events of the same seat and turn; chance's belong to it too."""
    state, _ = start(GAME, NAMES[:2], Random(1))
    state, steps = play_turn(state, Random(2), Pass())
    assert {s.turn for s in steps} == {1} and {s.actor for s in steps if s.actor is not None} == {0}
    assert GAME.next_turn(state, False) == 2


def test_actions_round_trip_through_json() -> None:
    """parse_action(action_json(a)) == a for every legal action of a busy position; nonsense is refused."""
    state = drawn(
        table([("canoe", "canoe", "hut", "fish", "fish", "wood"), QUIET], owned=[("market-1",)], tools=[(NET,)])
    )
    for action in GAME.legal_actions(state):
        assert GAME.parse_action(GAME.action_json(action)) == action
    for bad in ({"type": "fly"}, {"type": "buy", "product": "castle-1", "paid": []}, ["draw"]):
        with pytest.raises(IllegalAction):
            GAME.parse_action(bad)


def test_unknown_events_and_events_before_the_deal_are_refused() -> None:
    """A Moorea log begins with moorea.started, then moorea.dealt."""
    with pytest.raises(IllegalAction, match="begins with moorea.started"):
        GAME.check(GAME.blank(), TurnPassed())
    started = record_all(GAME.blank(), GameStarted(players=NAMES[:2]))
    with pytest.raises(IllegalAction, match="dealt"):
        GAME.check(started, FaceUpRefilled(card="wood"))
    assert GAME.to_move(started) == CHANCE_TO_MOVE
