"""The search's leaf value (`Game.value`, used with `Tuning.value`): each seat's chance to win, read from the
determinization where a playout is cut; off by default. Moirai's is a conditional logit whose weights are data."""

from __future__ import annotations

import dataclasses
import math
from random import Random
from typing import Any

import pytest

from loom.engine.moirai.bots import chances as moirai_chances
from loom.engine.moirai.bots import value_weights
from loom.engine.moirai.cards import FULL_DECK
from loom.engine.play import start
from loom.engine.protocol import Game, Tuning
from loom.engine.registry import get_bot, get_game
from loom.engine.search import IsmctsBot, score_chances, shares, step
from tests.unit.test_search import LIGHT, middle, searched, trees_of_two_true_states
from tests.unit.test_search_promise import world

VALUED = dataclasses.replace(LIGHT, value=True)


def watched(game: Game, asked: list[Any]) -> Game:
    """The game with a `value` that records each state it is asked about and gives every seat the same chance."""

    def value(state: Any) -> list[float]:
        asked.append(state)
        seats = len(game.scores(state))
        return [1 / seats] * seats

    return dataclasses.replace(game, value=value)


def test_the_value_is_off_by_default_and_a_game_uses_one_only_if_it_has_one() -> None:
    assert Tuning().value is False
    games = [get_game(name) for name in ("motto", "moirai", "moorea", "stones-of-fate")]
    assert all(game.value is not None for game in games if game.search.value)


def test_without_the_flag_the_value_is_never_asked_and_the_tree_is_unchanged() -> None:
    game = get_game("moirai")
    asked: list[Any] = []
    view = game.view(middle("moirai"), game.to_move(middle("moirai")))
    assert searched(game, view, LIGHT) == searched(watched(game, asked), view, LIGHT) and not asked


def test_with_the_flag_an_unfinished_playout_is_scored_by_the_value_and_a_finished_one_as_before() -> None:
    game = get_game("moirai")
    bot = IsmctsBot(game, tuning=VALUED)
    state = world("moirai")
    assert bot.playout(state, Random(1), 0) == game.value(state)
    assert bot.playout(state, Random(1), 0) != score_chances(game.scores(state), VALUED.spread)
    ended = bot.playout(state, Random(1), 1000)  # played to the end: the shares of the victory, blended as before
    assert sum(ended) == pytest.approx(1) and max(ended) > 1 / 3


def test_with_the_flag_the_playouts_ask_the_value_of_determinizations_only() -> None:
    game = get_game("moirai")
    asked: list[Any] = []
    state = middle("moirai")
    seat = game.to_move(state)
    view = game.view(state, seat)
    bot = IsmctsBot(watched(game, asked), budget=12, tuning=VALUED)
    bot.search(view, bot.candidates(view, game.legal_actions(view), Random(5)), Random(5))
    assert asked and all(game.to_move(leaf) is not None for leaf in asked)
    assert all(game.view(leaf, s) != leaf for leaf in asked for s in range(3) if s != seat)  # full states, not views


def test_the_leaf_value_reads_no_card_the_searcher_s_view_hides() -> None:
    trees = trees_of_two_true_states("moirai", VALUED)
    assert trees[0] == trees[1] and trees[0]


def test_moirai_s_value_gives_each_seat_a_chance_and_they_add_up_to_one() -> None:
    for players in (2, 3, 5):
        state = world("moirai") if players == 3 else start(get_game("moirai"), list("abcde")[:players], Random(3))[0]
        chances = moirai_chances(state)
        assert len(chances) == players and all(0 < c < 1 for c in chances) and sum(chances) == pytest.approx(1)


def test_moirai_s_value_predicts_the_winner_of_late_positions_better_than_knowing_nothing() -> None:
    """What bench/moirai_value.py measures on 500 games, on 12: from 80% of the deck drawn, the winners' log-loss."""
    game = get_game("moirai")
    policy = get_bot(game, "greedy")
    losses = []
    for seed in range(12):
        rng = Random(seed)
        state, _ = start(game, ["a", "b", "c"], rng)
        late = []
        while (mover := game.to_move(state)) is not None:
            if state.deck_left <= 0.2 * len(FULL_DECK):
                late.append(moirai_chances(state))
            seen = game.view(state, mover)
            state = step(game, state, policy.choose(seen, game.legal_actions(seen), rng), rng)
        won = shares(game, state)
        losses += [-sum(w * math.log(c) for w, c in zip(won, chances)) for chances in late]
    assert sum(losses) / len(losses) < 0.8 * math.log(3)


def test_moirai_s_weights_must_weigh_exactly_the_features() -> None:
    with pytest.raises(ValueError, match="not the features"):
        value_weights({"lives": 0.5})
