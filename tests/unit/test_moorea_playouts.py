"""Seeded random playouts of Moorea, as for Motto: the properties of tests/playouts.py (the snapshot equal to its
prefix), and Moorea's cards and tools (R3, R5, R8), full table and hand limits (R4, R5, R9) and end (R10).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import replace
from random import Random
from typing import Any

import pytest
from hypothesis import Phase, given, settings
from hypothesis import strategies as st

from engine.bots import RandomBot
from engine.moorea import GAME
from engine.moorea.bots import GreedyBot
from engine.moorea.cards import CARDS, FULL_DECK, PRODUCTS, TOOLS, in_game
from engine.moorea.state import DRAW, MooreaState, hand_limit, phase
from engine.protocol import CHANCE_TO_MOVE, HIDDEN
from events.moorea import ProductBought, ProductLaidOut, ToolBought
from tests import playouts
from tests.playouts import Lineup, Playout


class ToolmakerBot:
    """Buys every tool it can as soon as it can, else acts at random: spears, carts, baskets and nets in play."""

    def choose(self, view: MooreaState, legal: Sequence[Any], rng: Random) -> Any:
        """A tool if one is legal, else any legal action."""
        from engine.moorea.actions import BuyTool

        tools = [action for action in legal if isinstance(action, BuyTool)]
        pool = tools or list(legal)
        return pool[rng.randrange(len(pool))]


BOTS: dict[str, Any] = {"random": RandomBot, "greedy": GreedyBot, "toolmaker": ToolmakerBot}


def playout(seed: int, kinds: Sequence[str]) -> Playout:
    """A game between these bots, the first player drawn at random."""
    return playouts.playout(GAME, BOTS, seed, kinds)


def lineups() -> list[Lineup]:
    """(seed, bots) of the seeded games: random, greedy, mixed, and tool buyers, 2 to 5 players."""
    return playouts.lineups(range(2, 6), random=4, greedy=2, mixed=2, special=("toolmaker", "greedy", 2))


@pytest.fixture(scope="module")
def games() -> list[Playout]:
    """The seeded games, played once for the whole module."""
    return [playout(seed, kinds) for seed, kinds in lineups()]


# --- The properties, each for one game --------------------------------------------------------------------------------


def check_replay(game: Playout, prefixes: Iterable[int]) -> None:
    """Folding a prefix and then the rest equals the full replay and the state play_out built; so does a snapshot."""
    playouts.check_replay(game, prefixes, snapshot_only=True)


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
    HIDDEN; and re-dealing what it cannot see leaves its view unchanged."""
    rng = Random(game.name)
    for i, state in enumerate(game.states[2::every]):
        for seat in range(game.players):
            view = GAME.view(state, seat)
            assert view.hands[seat] == state.hands[seat]
            assert all(set(h) <= {HIDDEN} for s, h in enumerate(view.hands) if s != seat)
            assert [len(h) for h in view.hands] == [len(h) for h in state.hands]
            assert set(view.deck) <= {HIDDEN} and set(view.pile) <= {HIDDEN} and view.seed == HIDDEN
            public = ("face_up", "layout", "owned", "tools", "laid", "discard", "removed", "supply", "final_turns")
            assert all(getattr(view, name) == getattr(state, name) for name in public)
            assert GAME.view(redealt_hidden(state, seat, rng), seat) == view, (game.name, i, seat)


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
    begun = [s.turn for s in game.steps[trigger:] if s.actor is not None]
    assert sorted(set(begun)) == list(range(last_turn + 1, last_turn + 1 + game.players)), game.name
    trigger_seat = game.states[trigger - 1].seat
    seats = {s.turn: s.actor for s in game.steps[trigger:] if s.actor is not None}
    assert [seats[t] for t in sorted(seats)] == [(trigger_seat + k) % game.players for k in range(1, game.players + 1)]


def check_all(game: Playout) -> None:
    """Every property, at full strength."""
    check_replay(game, [*range(0, len(game.steps), 25), len(game.steps)])
    playouts.check_checked_replay(game)
    playouts.check_apply_is_pure(game, deep_every=3)
    playouts.check_moves(game, view_every=1)
    check_conservation(game)
    check_table(game)
    check_views(game, every=7)
    playouts.check_bots(game)
    check_end(game)


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


def test_replaying_any_prefix_then_the_rest_equals_the_full_replay(games: list[Playout]) -> None:
    """Fold a prefix, then continue from it (or from its snapshot): the same state as the whole log and play_out."""
    for n, game in enumerate(games):
        last = len(game.steps)
        check_replay(game, {0, 2, last, *Random(n).sample(range(last + 1), 2)})


def test_a_checked_replay_accepts_every_event_and_rebuilds_the_same_steps(games: list[Playout]) -> None:
    """Every event play_out logged passes `check` again, with the same turn and actor."""
    for game in games:
        playouts.check_checked_replay(game)


def test_apply_never_mutates_its_input(games: list[Playout]) -> None:
    """The state given to `apply` is unchanged afterwards."""
    for game in games:
        playouts.check_apply_is_pure(game, deep_every=11)


def test_legal_actions_are_non_empty_until_the_end(games: list[Playout]) -> None:
    """Whenever a seat is to move it has a legal action, the same from its own view; the game ends only at its end."""
    for game in games:
        playouts.check_moves(game, view_every=4)


def test_cards_and_tools_are_conserved(games: list[Playout]) -> None:
    """R3, R5, R8: after every event, every card is somewhere, once; at most one tool of each kind per seat."""
    for game in games:
        check_conservation(game)


def test_the_table_is_full_and_hands_within_limits(games: list[Playout]) -> None:
    """R4, R5, R9."""
    for game in games:
        check_table(game)


def test_a_view_hides_what_it_must_and_nothing_hidden_leaks(games: list[Playout]) -> None:
    """Hands private, face-up commodities, layout and owned cards public; re-dealing hidden cards changes nothing."""
    for game in games:
        check_views(game, every=23)


def test_bots_only_choose_legal_actions(games: list[Playout]) -> None:
    """The random, greedy and test bots choose only among the legal actions of their view."""
    for game in games:
        playouts.check_bots(game)


def test_the_end_gives_every_seat_exactly_one_more_turn(games: list[Playout]) -> None:
    """R10, in every seeded game."""
    for game in games:
        check_end(game)


def test_a_seeded_playout_is_reproducible() -> None:
    """The same seed and bots give the same log."""
    assert playout(7, ("greedy", "random")).steps == playout(7, ("greedy", "random")).steps


def test_greedy_beats_random_clearly() -> None:
    """Over 30 three-player games, the greedy bot (in each seat in turn) wins far more than a random third."""
    wins = playouts.greedy_wins(playout, 30)
    assert wins >= 25, f"greedy won {wins} of 30"


def test_the_layout_refill_follows_every_purchase_while_the_pile_lasts(games: list[Playout]) -> None:
    """R5: a product bought with cards left in the pile is followed at once by a card laid out."""
    for game in games:
        for i, step in enumerate(game.steps[:-1]):
            if isinstance(step.payload, ProductBought) and game.states[i].pile:
                following = [s.payload for s in game.steps[i + 1 : i + 4]]
                assert any(isinstance(p, ProductLaidOut) for p in following), (game.name, i)


# --- Games chosen by hypothesis --------------------------------------------------------------------------------------


@settings(max_examples=6, deadline=None, phases=[Phase.explicit, Phase.reuse, Phase.generate])
@given(
    seed=st.integers(min_value=0, max_value=2**32 - 1),
    kinds=st.lists(st.sampled_from(["random", "random", "greedy", "toolmaker"]), min_size=2, max_size=5),
)
def test_every_property_holds_in_any_game(seed: int, kinds: list[str]) -> None:
    """All of the above, at full strength, for games hypothesis picks: any seed, 2-5 players, any bots."""
    check_all(playout(seed, kinds))


@settings(max_examples=10, deadline=None)
@given(data=st.data(), seed=st.integers(min_value=0, max_value=2**32 - 1), players=st.integers(2, 5))
def test_any_prefix_continues_to_the_same_end(data: st.DataObject, seed: int, players: int) -> None:
    """Replaying the first k events (directly or from a snapshot) and then the rest gives the full replay."""
    game = playout(seed, ["random"] * players)
    k = data.draw(st.integers(min_value=0, max_value=len(game.steps)), label="prefix")
    check_replay(game, [k])


def test_phase_is_a_draw_only_at_the_start_of_a_turn(games: list[Playout]) -> None:
    """A turn's first event is its seat's, and every later event of it has the same turn number."""
    for game in games[:8]:
        for i, step in enumerate(game.steps[2:], start=2):
            if step.actor is not None and game.states[i].phase == DRAW:
                assert step.turn == game.states[i].turn + 1, (game.name, i)
            assert phase(game.states[i]) in range(4) or GAME.to_move(game.states[i]) != game.states[i].seat
