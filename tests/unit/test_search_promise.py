"""The search's leaf evaluation (`Game.promise`, weighed by `Tuning.promise`): what each seat's holdings promise,
added to its points at the end of an unfinished playout; off by default, read from the determinization only."""

from __future__ import annotations

import dataclasses
from random import Random
from typing import Any

import pytest

from loom.engine.moorea.bots import CARD_HOPE, LAY_HOPE, SITE_USE, STORE_HOPE, TOOL_USE
from loom.engine.moorea.bots import promise as moorea_promise
from loom.engine.moorea.cards import FISH, PRODUCTS, SPEAR
from loom.engine.protocol import Game, Tuning
from loom.engine.registry import get_game
from loom.engine.search import IsmctsBot, leaf_points
from loom.engine.stones_of_fate.bots import PROMISE, gain
from loom.engine.stones_of_fate.score import scores as stones_scores
from loom.engine.stones_of_fate.state import EMPTY, set_at, winner_at
from tests.unit.test_search import LIGHT, middle, searched, trees_of_two_true_states

PROMISING = ("stones-of-fate", "moorea")
"""The games with a `promise`."""
WEIGHED = dataclasses.replace(LIGHT, promise=1.0)


def world(name: str, decisions: int = 12) -> Any:
    """A determinization dealt from the view of the seat to move in a middle position."""
    game = get_game(name)
    state = middle(name, decisions)
    seat = game.to_move(state)
    return game.determinize(game.view(state, seat), seat, Random(4))


def without_promise(game: Game, asked: list[Any]) -> Game:
    """The game with a `promise` that records each state it is asked about and promises nothing."""

    def promise(state: Any) -> list[float]:
        asked.append(state)
        return [0.0] * len(game.scores(state))

    return dataclasses.replace(game, promise=promise)


def test_the_weight_is_off_by_default_and_a_game_weighs_a_promise_only_if_it_has_one() -> None:
    assert Tuning().promise == 0.0
    games = [get_game(name) for name in ("motto", "moirai", "moorea", "stones-of-fate")]
    assert all(game.promise is not None for game in games if game.search.promise)


@pytest.mark.parametrize("name", PROMISING)
def test_without_a_weight_the_promise_is_never_asked_and_the_tree_is_unchanged(name: str) -> None:
    game = get_game(name)
    asked: list[Any] = []
    watched = without_promise(game, asked)
    view = game.view(middle(name), game.to_move(middle(name)))
    assert searched(game, view, LIGHT) == searched(watched, view, LIGHT) and not asked


@pytest.mark.parametrize("name", PROMISING)
def test_with_a_weight_the_end_of_an_unfinished_playout_adds_the_promise_to_the_points(name: str) -> None:
    game = get_game(name)
    state = world(name)
    points = leaf_points(game, state, 0.5)
    assert points == pytest.approx([p + 0.5 * q for p, q in zip(game.scores(state), game.promise(state))])
    assert leaf_points(game, state, 0.0) == game.scores(state)


def test_a_game_without_a_promise_is_scored_by_its_points_alone() -> None:
    game = get_game("motto")
    assert game.promise is None
    state = world("motto")
    assert leaf_points(game, state, 1.0) == game.scores(state)


@pytest.mark.parametrize("name", PROMISING)
def test_with_a_weight_the_playouts_ask_the_promise_of_determinizations_only(name: str) -> None:
    game = get_game(name)
    asked: list[Any] = []
    watched = without_promise(game, asked)
    state = middle(name)
    seat = game.to_move(state)
    view = game.view(state, seat)
    bot = IsmctsBot(watched, budget=12, tuning=WEIGHED)
    bot.search(view, bot.candidates(view, game.legal_actions(view), Random(5)), Random(5))
    assert asked and all(game.to_move(leaf) is not None for leaf in asked)  # a finished game is scored as before
    assert all(game.view(leaf, s) != leaf for leaf in asked for s in range(3) if s != seat)  # full states, not views


@pytest.mark.parametrize("name", PROMISING)
def test_the_leaf_evaluation_reads_no_card_the_searcher_s_view_hides(name: str) -> None:
    trees = trees_of_two_true_states(name, WEIGHED)
    assert trees[0] == trees[1] and trees[0]


def test_stones_of_fate_a_card_promises_its_gain_to_the_seat_whose_stones_win_it_now() -> None:
    game = get_game("stones-of-fate")
    state = next(s for s in (world("stones-of-fate", n) for n in range(12, 60, 4)) if any(game.promise(s)))
    at = next(p for p, c in enumerate(state.spread) if c >= 0 and winner_at(state, p) is not None)
    seat, card = winner_at(state, at), state.spread[at]
    taken = dataclasses.replace(state, spread=set_at(state.spread, at, EMPTY))  # the card gone from the spread
    before, after = game.promise(state), game.promise(taken)
    assert before[seat] - after[seat] == pytest.approx(PROMISE * gain(state.collections[seat], card))
    assert [b for s, b in enumerate(before) if s != seat] == [a for s, a in enumerate(after) if s != seat]


def test_stones_of_fate_a_card_s_gain_is_the_score_it_adds_with_its_collection_s_rules() -> None:
    state = world("stones-of-fate", 40)
    held = max(state.collections, key=len)
    card = next(c for c in state.deck if c >= 0)
    before = stones_scores(dataclasses.replace(state, collections=(held,)))[0]
    after = stones_scores(dataclasses.replace(state, collections=(held + (card,),)))[0]
    assert gain(held, card) == after - before


def moorea_seat(
    hand: tuple[int, ...] = (), tools: tuple[int, ...] = (), owned: tuple[int, ...] = (), pile: int = 0
) -> Any:
    """A Moorea determinization whose seat 0 holds exactly these, with `pile` product cards left to draw."""
    state = world("moorea")
    return dataclasses.replace(
        state,
        hands=((hand,) + state.hands[1:]),
        tools=((tools,) + state.tools[1:]),
        owned=((owned,) + state.owned[1:]),
        pile=state.pile[:pile],
    )


def product(name: str) -> int:
    return next(p for p, card in enumerate(PRODUCTS) if card.name == name)


def test_moorea_r11_a_hand_card_an_owned_store_takes_promises_that_store_s_points() -> None:
    jetty, canoe = product("jetty"), PRODUCTS[product("canoe")].hand_code  # the jetty: 3 points a canoe laid
    bare, stored = moorea_seat(hand=(canoe, FISH)), moorea_seat(hand=(canoe, FISH), owned=(jetty,))
    assert moorea_promise(bare)[0] == pytest.approx(CARD_HOPE[canoe] + CARD_HOPE[FISH])
    assert moorea_promise(stored)[0] == pytest.approx(LAY_HOPE * 3 + CARD_HOPE[FISH])  # the pile gone: no hope left


def test_moorea_r5_r6_tools_sites_and_stores_promise_their_use_only_while_the_pile_lasts() -> None:
    forest, well = product("forest"), product("well")
    ended, early = (moorea_seat(tools=(SPEAR,), owned=(forest, well), pile=n) for n in (0, 25))
    assert moorea_promise(ended)[0] == 0.0
    use = TOOL_USE[SPEAR] + SITE_USE + STORE_HOPE * PRODUCTS[well].per_card
    assert moorea_promise(early)[0] == pytest.approx(use)
