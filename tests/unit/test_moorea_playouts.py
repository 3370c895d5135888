"""Seeded random playouts of Moorea (`SUITE`, whose properties of tests/playouts.py tests/unit/test_playouts.py
checks, the snapshot equal to its prefix), and Moorea's own: cards and tools (R3, R5, R8), full table and hand limits
(R4, R5, R9), what a seat sees and the end (R10).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from random import Random
from typing import Any

from loom.engine.bots import RandomBot
from loom.engine.moorea import GAME
from loom.engine.moorea.bots import GreedyBot
from loom.engine.moorea.cards import CARDS, FULL_DECK, PRODUCTS, TOOLS, in_game
from loom.engine.moorea.state import DRAW, MooreaState, hand_limit, phase
from loom.engine.protocol import CHANCE_TO_MOVE, HIDDEN
from loom.events.moorea import CardsDiscarded, ProductBought, ProductLaidOut, ToolBought
from tests import playouts
from tests.playouts import Playout


class ToolmakerBot:
    """Buys every tool it can as soon as it can, else acts at random: spears, carts, baskets and nets in play."""

    def choose(self, view: MooreaState, legal: Sequence[Any], rng: Random) -> Any:
        """A tool if one is legal, else any legal action."""
        from loom.engine.moorea.actions import BuyTool

        tools = [action for action in legal if isinstance(action, BuyTool)]
        pool = tools or list(legal)
        return pool[rng.randrange(len(pool))]


BOTS: dict[str, Any] = {"random": RandomBot, "greedy": GreedyBot, "toolmaker": ToolmakerBot}


# --- The properties, each for one game --------------------------------------------------------------------------------


def check_conservation(game: Playout) -> None:
    """R3, R8: the 75 commodities, the product cards in play and the 20 tools are all accounted for."""
    products = len(in_game(game.players))
    for i, state in enumerate(game.states[2:], start=2):
        laid = [code for row in state.laid for _, code in row]
        held = [c for hand in state.hands for c in hand]
        commodities = [*state.deck, *state.discard, *state.face_up, *(c for c in held + laid if c < 5)]
        assert sorted(commodities) == list(FULL_DECK), (game.name, i)
        intermediates = [c for c in held + laid if c >= 5] + list(state.removed)
        owned = [p for row in state.owned for p in row]
        assert len(state.pile) + len(state.layout) + len(owned) + len(intermediates) == products, (game.name, i)
        assert len(set(owned) | set(state.layout) | set(state.pile)) == len(owned) + len(state.layout) + len(state.pile)
        for kind, tool in enumerate(TOOLS):
            assert state.supply[kind] + sum(kind in t for t in state.tools) == tool.copies, (game.name, i)
        assert all(len(set(t)) == len(t) for t in state.tools), (game.name, i)  # R5: one of each kind


def check_table(game: Playout) -> None:
    """R4, R5: when a seat acts, three commodities lie face up and ten products are laid out while cards last;
    R9: every hand is within its limit when a turn begins."""
    for i, state in enumerate(game.states[2:], start=2):
        if GAME.to_move(state) in (None, CHANCE_TO_MOVE):
            continue
        assert len(state.face_up) == CARDS.face_up or not state.deck, (game.name, i)
        assert len(state.layout) == CARDS.layout or not state.pile, (game.name, i)
        assert state.deck or not state.discard, (game.name, i)
        if state.phase == DRAW:
            assert all(len(h) <= hand_limit(state, s) for s, h in enumerate(state.hands)), (game.name, i)


def check_views(game: Playout, every: int) -> None:
    """A seat sees its own hand, the table and everyone's owned cards; others' hands, the deck and the pile are
    HIDDEN (that dealing them again leaves its view unchanged, tests/unit/test_playouts.py checks)."""
    for state in game.states[2::every]:
        for seat in range(game.players):
            view = GAME.view(state, seat)
            assert view.hands[seat] == state.hands[seat]
            assert all(set(h) <= {HIDDEN} for s, h in enumerate(view.hands) if s != seat)
            assert [len(h) for h in view.hands] == [len(h) for h in state.hands]
            assert set(view.deck) <= {HIDDEN} and set(view.pile) <= {HIDDEN} and view.seed == HIDDEN
            public = ("face_up", "layout", "owned", "tools", "laid", "discard", "removed", "supply", "final_turns")
            assert all(getattr(view, name) == getattr(state, name) for name in public)


def redealt_hidden(state: MooreaState, seat: int, rng: Random) -> MooreaState:
    """`state` with the cards `seat` cannot see shuffled and dealt again: deck, others' hands, pile; another seed."""
    hidden = list(state.deck) + [c for s, hand in enumerate(state.hands) if s != seat for c in hand if c < 5]
    rng.shuffle(hidden)
    deck, rest = tuple(hidden[: len(state.deck)]), hidden[len(state.deck) :]
    hands = []
    for s, hand in enumerate(state.hands):
        if s == seat:
            hands.append(hand)
            continue
        keep = [c for c in hand if c >= 5]
        count = len(hand) - len(keep)
        hands.append(tuple(sorted(keep + rest[:count])))
        rest = rest[count:]
    pile = list(state.pile)
    rng.shuffle(pile)
    return replace(state, deck=deck, hands=tuple(hands), pile=tuple(pile), seed=rng.getrandbits(48))


def check_end(game: Playout) -> None:
    """R10: the end is triggered by a product taken with the pile empty (or, beyond R10, by a stalled layout);
    then every seat, the trigger's included, begins exactly one more turn, from the next seat on."""
    trigger = next(i for i, state in enumerate(game.states) if state.final_turns is not None)
    event = game.steps[trigger - 1]
    if isinstance(event.payload, ProductBought):
        assert game.states[trigger - 1].pile == (), game.name
        assert game.states[trigger].final_turns in (game.players, game.players + 1)  # + 1: a discard is due
    else:
        assert game.states[trigger].final_turns == game.players
    last_turn = event.turn
    acted = [s for s in game.steps[trigger:] if s.actor is not None]
    # R9: the trigger's own turn may still end with its discard (the buy took it over the hand limit)
    assert all(isinstance(s.payload, CardsDiscarded) for s in acted if s.turn == last_turn), game.name
    seats = {s.turn: s.actor for s in acted if s.turn != last_turn}  # the final round's turns, each its seat
    assert sorted(seats) == list(range(last_turn + 1, last_turn + 1 + game.players)), game.name
    trigger_seat = game.states[trigger - 1].seat
    assert [seats[t] for t in sorted(seats)] == [(trigger_seat + k) % game.players for k in range(1, game.players + 1)]


def check_own(game: Playout) -> None:
    """Moorea's own properties, at full strength."""
    check_conservation(game)
    check_table(game)
    check_views(game, every=7)
    check_end(game)


SUITE = playouts.Suite(
    rules=GAME,
    bots=BOTS,
    # the seeded games: random, greedy, mixed, and tool buyers, 2 to 5 players
    lineups=playouts.lineups(range(2, 6), random=4, greedy=2, mixed=2, special=("toolmaker", "greedy", 2)),
    redealt_hidden=redealt_hidden,
    check_own=check_own,
    snapshot_only=True,
    deep_every=11,
    view_every=4,
    hidden_every=23,
    full_prefixes=None,
    sampled_prefixes=2,
    full_stride=25,
    full_every=3,
    greedy=(30, 25),
    chosen_kinds=("random", "random", "greedy", "toolmaker"),
    chosen_games=6,
    chosen_prefixes=10,
)


# --- The seeded games -------------------------------------------------------------------------------------------------


def test_the_seeded_games_cover_every_player_count_and_every_kind_of_event(games: list[Playout]) -> None:
    """2-5 players; every event type, every tool and every kind of product is seen."""
    assert Counter(game.players for game in games) == {2: 10, 3: 10, 4: 10, 5: 10}
    kinds = Counter(type(step.payload).__name__ for game in games for step in game.steps)
    expected = {
        "GameStarted", "CardsDealt", "CardDrawn", "FaceUpDrawn", "TurnPassed", "CardsExchanged", "ProductBought",
        "ToolBought", "CardsLaid", "CardsDiscarded", "FaceUpRefilled", "ProductLaidOut", "DiscardReshuffled",
    }  # fmt: skip
    assert set(kinds) == expected
    tools = {step.payload.tool for game in games for step in game.steps if isinstance(step.payload, ToolBought)}
    assert len(tools) == 4
    bought = {
        PRODUCTS[GAME.parse_action({"type": "buy", "product": s.payload.product, "paid": []}).product].kind  # type: ignore[attr-defined]
        for game in games
        for s in game.steps
        if isinstance(s.payload, ProductBought)
    }
    assert bought == {"intermediate", "production site", "store", "seashell necklace", "product"}


def test_cards_and_tools_are_conserved(games: list[Playout]) -> None:
    """R3, R5, R8: after every event, every card is somewhere, once; at most one tool of each kind per seat."""
    for game in games:
        check_conservation(game)


def test_the_table_is_full_and_hands_within_limits(games: list[Playout]) -> None:
    """R4, R5, R9."""
    for game in games:
        check_table(game)


def test_a_view_hides_what_it_must(games: list[Playout]) -> None:
    """Hands private, face-up commodities, layout and owned cards public."""
    for game in games:
        check_views(game, every=23)


def test_the_end_gives_every_seat_exactly_one_more_turn(games: list[Playout]) -> None:
    """R10, in every seeded game."""
    for game in games:
        check_end(game)


def test_r10_a_trigger_over_the_hand_limit_discards_then_every_seat_takes_one_more_turn() -> None:
    """R10 with R9: a seat that drew twice and buys the last product with one card is still over its limit; it
    discards in the same turn, and only then does every seat begin its one more turn (hypothesis found this game)."""
    game = SUITE.playout(4263, ["random", "greedy", "random", "greedy", "random"])
    trigger = next(i for i, state in enumerate(game.states) if state.final_turns is not None)
    bought, discarded = game.steps[trigger - 1], game.steps[trigger]
    assert isinstance(bought.payload, ProductBought) and isinstance(discarded.payload, CardsDiscarded)
    assert discarded.turn == bought.turn
    check_end(game)


def test_the_layout_refill_follows_every_purchase_while_the_pile_lasts(games: list[Playout]) -> None:
    """R5: a product bought with cards left in the pile is followed at once by a card laid out."""
    for game in games:
        for i, step in enumerate(game.steps[:-1]):
            if isinstance(step.payload, ProductBought) and game.states[i].pile:
                following = [s.payload for s in game.steps[i + 1 : i + 4]]
                assert any(isinstance(p, ProductLaidOut) for p in following), (game.name, i)


def test_phase_is_a_draw_only_at_the_start_of_a_turn(games: list[Playout]) -> None:
    """A turn's first event is its seat's, and every later event of it has the same turn number."""
    for game in games[:8]:
        for i, step in enumerate(game.steps[2:], start=2):
            if step.actor is not None and game.states[i].phase == DRAW:
                assert step.turn == game.states[i].turn + 1, (game.name, i)
            assert phase(game.states[i]) in range(4) or GAME.to_move(game.states[i]) != game.states[i].seat
