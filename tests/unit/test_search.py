"""The search bot `mcts` (SO-ISMCTS): UCB1 with availability counts, legal moves only, decisions from its seat's view
only (it is never handed the true state), reproducible, with its budget."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence
from random import Random
from typing import Any

import pytest

from loom.engine.bots import RandomBot
from loom.engine.moirai.actions import Draw
from loom.engine.play import act, chance_rng, play_out, start
from loom.engine.protocol import HIDDEN, Game
from loom.engine.registry import BadBudget, get_bot, get_game, with_budget
from loom.engine.search import IsmctsBot, Node, Tuning, decision, halving, score_chances, select, shares, widening

GAMES = ("motto", "moirai", "moorea", "stones-of-fate")
LIGHT = Tuning(candidates=3, horizon=4)
"""A cheap search for the tests: what is checked does not depend on how deep it looks."""


class Audited:
    """A bot whose every decision is checked against the legal actions it was offered."""

    def __init__(self, bot: Any) -> None:
        self.bot, self.decisions = bot, 0

    def choose(self, view: Any, legal: Sequence[Any], rng: Random) -> Any:
        action = self.bot.choose(view, legal, rng)
        assert action in legal
        self.decisions += 1
        return action


class Watched:
    """A game whose `determinize` keeps what it was handed and what it dealt; everything else is the game's."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.handed: list[Any] = []
        self.dealt: list[Any] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self.game, name)

    def determinize(self, state: Any, seat: int | None, rng: Random) -> Any:
        self.handed.append(state)
        world = self.game.determinize(state, seat, rng)
        self.dealt.append(world)
        return world


def middle(name: str, decisions: int = 12) -> Any:
    """The first position with a real choice after `decisions` decisions of a three-player game of random bots."""
    game = get_game(name)
    state, steps = start(game, ["a", "b", "c"], Random(f"search/{name}"))
    rng = chance_rng(1, len(steps))
    for turn in range(10 * decisions):
        legal = game.legal_actions(game.view(state, game.to_move(state)))
        if turn >= decisions and len(legal) > 1:
            return state
        state, _ = act(game, state, RandomBot().choose(None, legal, Random(turn)), rng)
    raise AssertionError(f"{name}: no choice in {10 * decisions} decisions")


@pytest.mark.parametrize("name", GAMES)
def test_the_search_bot_plays_a_whole_game_with_legal_moves_only(name: str) -> None:
    game = get_game(name)
    state, steps = start(game, ["mcts", "random", "random"], Random(f"legal/{name}"))
    searcher = Audited(IsmctsBot(game, budget=4, tuning=LIGHT))
    bots = {0: searcher, 1: Audited(RandomBot()), 2: Audited(RandomBot())}
    final, _ = play_out(game, state, bots, chance_rng(2, len(steps)), {seat: Random(seat) for seat in bots})
    assert game.to_move(final) is None and searcher.decisions > 0


@pytest.mark.parametrize("name", GAMES)
def test_the_search_bot_is_handed_its_view_and_deals_every_world_from_it(name: str) -> None:
    game = get_game(name)
    state = middle(name)
    seat = game.to_move(state)
    view = game.view(state, seat)
    watched = Watched(game)
    IsmctsBot(watched, budget=12, tuning=LIGHT).choose(view, game.legal_actions(view), Random(3))  # type: ignore[arg-type]
    assert watched.handed and all(handed == view for handed in watched.handed)
    assert all(game.view(world, seat) == view for world in watched.dealt)


def test_the_search_bot_cannot_reach_the_cards_hidden_from_its_seat() -> None:
    game = get_game("motto")
    state = middle("motto")
    seat = game.to_move(state)
    view = game.view(state, seat)
    others = [hand for s, hand in enumerate(view.hands) if s != seat]
    assert all(HIDDEN in hand for hand in others) and set(view.deck) == {HIDDEN}
    watched = Watched(game)
    IsmctsBot(watched, budget=30, tuning=LIGHT).choose(view, game.legal_actions(view), Random(4))  # type: ignore[arg-type]
    real = [hand for s, hand in enumerate(state.hands) if s != seat]
    guessed = [[hand for s, hand in enumerate(world.hands) if s != seat] for world in watched.dealt]
    assert any(hands != real for hands in guessed)  # it guesses; it does not know


@pytest.mark.parametrize("name", GAMES)
def test_two_positions_a_seat_cannot_tell_apart_get_the_same_decision(name: str) -> None:
    game = get_game(name)
    state = middle(name)
    seat = game.to_move(state)
    other = game.determinize(game.view(state, seat), seat, Random(8))  # other hidden cards, the same view
    decisions = []
    for position in (state, other):
        view = game.view(position, seat)
        bot = IsmctsBot(game, budget=12, tuning=LIGHT)
        decisions.append(bot.choose(view, game.legal_actions(view), Random(5)))
    assert decisions[0] == decisions[1]


def test_the_search_is_reproducible_from_the_bot_s_generator() -> None:
    game = get_game("moirai")
    view = game.view(middle("moirai"), game.to_move(middle("moirai")))
    legal = game.legal_actions(view)
    bot = IsmctsBot(game, budget=20, tuning=LIGHT)
    assert bot.choose(view, legal, Random(6)) == bot.choose(view, legal, Random(6))


def test_the_candidates_are_the_greedy_bot_s_best_actions_best_first() -> None:
    game = get_game("stones-of-fate")
    state = middle("stones-of-fate")
    view = game.view(state, game.to_move(state))
    legal = game.legal_actions(view)
    candidates = IsmctsBot(game, budget=1, tuning=LIGHT).candidates(view, legal, Random(1))
    assert len(candidates) == 3 and len(set(candidates)) == 3 and set(candidates) <= set(legal)
    assert candidates[0] == get_bot(game, "greedy").choose(view, legal, Random(1))


def test_a_single_legal_action_is_played_without_a_search() -> None:
    game = get_game("motto")
    watched = Watched(game)
    state = middle("motto")
    view = game.view(state, game.to_move(state))
    only = game.legal_actions(view)[:1]
    assert IsmctsBot(watched, budget=50).choose(view, only, Random(1)) == only[0]  # type: ignore[arg-type]
    assert watched.handed == []


def test_the_budget_is_the_number_after_the_bot_s_name() -> None:
    game = get_game("motto")
    assert get_bot(game, "mcts:7").budget == 7  # type: ignore[attr-defined]
    assert get_bot(game, "mcts").budget > 0  # type: ignore[attr-defined]
    for bad in ("mcts:0", "mcts:x", "mcts:-3", "mcts:0ms", "mcts:ms", "mcts:1.5ms"):
        with pytest.raises(BadBudget, match="number of playouts"):
            get_bot(game, bad)


def test_a_budget_in_ms_is_a_time_per_decision() -> None:
    game = get_game("motto")
    state = middle("motto")
    seat = game.to_move(state)
    view = game.view(state, seat)
    bot = get_bot(game, "mcts:40ms")
    assert bot.seconds == 0.04  # type: ignore[attr-defined]
    assert bot.choose(view, game.legal_actions(view), Random(1)) in game.legal_actions(view)


def test_budget_goes_to_every_search_bot_and_needs_one() -> None:
    assert with_budget(["mcts", "greedy", "mcts:5"], 40) == ["mcts:40", "greedy", "mcts:40"]
    assert with_budget(["greedy"], None) == ["greedy"]
    with pytest.raises(BadBudget, match="--bot mcts"):
        with_budget(["greedy", "random"], 40)
    with pytest.raises(BadBudget, match="at least 1"):
        with_budget(["mcts"], 0)


def test_a_shared_victory_is_split_and_a_lead_in_points_raises_the_chance_to_win() -> None:
    game = get_game("motto")
    state = middle("motto")
    winners = game.winners(state)  # scores so far: every seat is tied at the start
    assert shares(game, state) == [1 / len(winners) if s in winners else 0.0 for s in range(3)]
    assert score_chances([5, 5, 5], 3.0) == pytest.approx([1 / 3] * 3)
    chances = score_chances([9, 6, 3], 3.0)
    assert sum(chances) == pytest.approx(1.0) and chances[0] > chances[1] > chances[2]


@pytest.mark.parametrize("name", GAMES)
def test_with_too_few_playouts_to_tell_moves_apart_the_bot_plays_the_greedy_bot_s_move(name: str) -> None:
    game = get_game(name)
    state = middle(name)
    view = game.view(state, game.to_move(state))
    legal = game.legal_actions(view)
    greedy = get_bot(game, "greedy").choose(view, legal, Random(2))
    assert IsmctsBot(game, budget=1, tuning=LIGHT).choose(view, legal, Random(2)) == greedy


def child(visits: int, total: float, available: int) -> Node:
    node = Node()
    node.visits, node.total, node.available = visits, total, available
    return node


def test_ucb_weighs_exploration_by_how_often_an_action_was_available_not_by_the_parent_s_visits() -> None:
    # "b" was legal in only 6 of the parent's 100 visits: with the parent's visits (1.17 against 0.81) it would be
    # explored; with its availability (0.74 against 0.81) the better-tried "a" is followed, as in the paper.
    node = Node()
    node.children = {"a": child(50, 30.0, 100), "b": child(5, 1.5, 6)}
    assert select(node, ["a", "b"]) == "a"
    assert (node.children["a"].available, node.children["b"].available) == (101, 7)


def test_ucb_counts_availability_only_for_the_actions_legal_in_the_determinization() -> None:
    node = Node()
    node.children = {"a": child(50, 30.0, 100), "b": child(5, 1.5, 6), "c": child(1, 1.0, 90)}
    assert select(node, ["b", "a"]) == "a"  # "c", unexplored and tempting, is not legal in this world
    assert node.children["c"].available == 90


def test_the_greedy_bot_s_move_stands_unless_the_most_visited_one_clearly_beats_it_in_the_same_worlds() -> None:
    root = Node()
    root.children = {"greedy": child(4, 2.0, 10), "other": child(6, 3.6, 10)}
    root.children["greedy"].rewards = [0.5, 0.4, 0.6, 0.5]
    root.children["other"].rewards = [0.6, 0.5, 0.7, 0.6, 0.6, 0.6]
    assert decision(root, ["greedy", "other"], confidence=1.0) == "other"
    root.children["other"].rewards = [1.0, 0.0, 1.0, 0.0, 0.6, 1.0]
    assert decision(root, ["greedy", "other"], confidence=1.0) == "greedy"  # a noisy gain is no gain
    root.children["greedy"].visits = 6
    assert decision(root, ["greedy", "other"], confidence=1.0) == "greedy"  # the tie goes to the better mean


def shape(node: Node) -> list[Any]:
    """A tree's actions and statistics, depth first: equal for equal searches."""
    return [
        (action, kid.visits, round(kid.total, 12), kid.available, shape(kid)) for action, kid in node.children.items()
    ]


def trees_of_two_true_states(name: str, tuning: Tuning) -> list[list[Any]]:
    """The trees searched from the same view of two middle positions that differ in the cards it hides."""
    game = get_game(name)
    state = middle(name)
    seat = game.to_move(state)
    other = game.determinize(game.view(state, seat), seat, Random(8))  # other hidden cards, the same view
    assert other != state and game.view(other, seat) == game.view(state, seat)
    return [searched(game, game.view(position, seat), tuning) for position in (state, other)]


def searched(game: Any, view: Any, tuning: Tuning) -> list[Any]:
    """The shape of the tree a 12-iteration search grows from `view` (the same random numbers every time)."""
    bot = IsmctsBot(game, budget=12, tuning=tuning)
    return shape(bot.search(view, bot.candidates(view, game.legal_actions(view), Random(5)), Random(5)))


@pytest.mark.parametrize("name", GAMES)
def test_two_true_states_with_the_same_view_grow_the_same_tree(name: str) -> None:
    trees = trees_of_two_true_states(name, LIGHT)
    assert trees[0] == trees[1] and trees[0]


def test_sequential_halving_splits_the_budget_over_rounds_and_halves_the_candidates_each_round() -> None:
    assert halving(6, 40) == [(6, 2), (3, 4), (2, 8)]  # 12 + 12 + 16 iterations
    assert halving(6, 50) == [(6, 2), (3, 6), (2, 10)]
    assert halving(3, 12) == [(3, 2), (2, 3)]
    assert halving(1, 40) == []  # nothing to compare
    for budget in range(18, 200):  # never more than the budget, and less only by what the last round cannot split
        spent = sum(count * worlds for count, worlds in halving(6, budget))
        assert budget - 2 < spent <= budget


@pytest.mark.parametrize("name", GAMES)
def test_the_root_spends_the_budget_as_halving_says_and_keeps_the_greedy_choice_to_the_last_round(name: str) -> None:
    game = get_game(name)
    view = game.view(middle(name), game.to_move(middle(name)))
    bot = IsmctsBot(game, budget=40, tuning=Tuning(candidates=6, horizon=4))
    order = bot.candidates(view, game.legal_actions(view), Random(1))
    root = bot.search(view, order, Random(2))
    visits = [root.children[a].visits for a in order]
    assert sum(visits) == 40 and all(len(kid.rewards) == kid.visits for kid in root.children.values())
    assert visits[0] == 14 and sorted(visits, reverse=True) == [14, 14, 6, 2, 2, 2]  # 6 x 2, then 3 x 4, then 2 x 8
    # each round's cut keeps the others with the best total reward over the same worlds
    first = {a: sum(root.children[a].rewards[:2]) for a in order[1:]}
    kept = [a for a in order[1:] if root.children[a].visits > 2]
    assert min(first[a] for a in kept) >= max(first[a] for a in order[1:] if a not in kept)


def test_the_root_s_actions_in_a_round_are_compared_in_the_same_worlds() -> None:
    game = get_game("motto")
    state = middle("motto")
    seat = game.to_move(state)
    view = game.view(state, seat)
    watched = Watched(game)
    bot = IsmctsBot(watched, budget=40, tuning=Tuning(candidates=6, horizon=4))  # type: ignore[arg-type]
    bot.search(view, bot.candidates(view, game.legal_actions(view), Random(1)), Random(2))
    assert len(watched.dealt) == 2 + 4 + 8  # one world per round's sample, shared by every action in the running


def test_the_tree_grows_below_the_root() -> None:
    game = get_game("motto")
    view = game.view(middle("motto"), game.to_move(middle("motto")))
    bot = IsmctsBot(game, budget=60, tuning=LIGHT)
    root = bot.search(view, bot.candidates(view, game.legal_actions(view), Random(1)), Random(3))
    below = [kid for kid in root.children.values() if kid.children]
    assert below and max(len(path) for path in paths(root)) >= 2  # the opponent's replies are nodes too
    assert all(sum(g.visits for g in kid.children.values()) == kid.visits - 1 for kid in below)


def paths(node: Node) -> list[list[Any]]:
    """Every path of actions from `node` to a leaf."""
    return [[action, *rest] for action, kid in node.children.items() for rest in (paths(kid) or [[]])]


class Expanding(IsmctsBot):
    """The search bot, keeping what each expansion below the root was handed and what it grew."""

    def __init__(self, game: Any, budget: int, tuning: Tuning) -> None:
        super().__init__(game, budget, tuning)
        self.grown: list[tuple[Any, list[Any], Any]] = []

    def expand(self, seen: Any, untried: Sequence[Any], rng: Random) -> Any:
        action = super().expand(seen, untried, rng)
        self.grown.append((seen, list(untried), action))
        return action


def test_below_the_root_a_node_grows_the_policy_s_choice_from_the_mover_s_own_view_first() -> None:
    game = get_game("motto")
    state = middle("motto")
    seat = game.to_move(state)
    view = game.view(state, seat)
    bot = Expanding(game, 40, Tuning(candidates=3, horizon=4, explore=0.0))
    bot.choose(view, game.legal_actions(view), Random(7))
    assert bot.grown
    greedy = get_bot(game, "greedy")
    for seen, untried, action in bot.grown:
        mover = game.to_move(seen)
        assert all(HIDDEN in hand for s, hand in enumerate(seen.hands) if s != mover)  # a view, not a world
        assert set(seen.deck) == {HIDDEN}
        assert action == greedy.choose(seen, untried, Random(0))


def test_with_policy_replies_the_others_play_the_policy_s_choice_among_all_their_legal_actions_in_each_world() -> None:
    game = get_game("motto")
    state = middle("motto")
    seat = game.to_move(state)
    view = game.view(state, seat)
    bot = Expanding(game, 60, Tuning(candidates=3, horizon=4, explore=0.0, policy_replies=True))
    bot.choose(view, game.legal_actions(view), Random(7))
    theirs = [grown for grown in bot.grown if game.to_move(grown[0]) != seat]
    assert theirs
    greedy = get_bot(game, "greedy")
    for seen, offered, action in theirs:
        assert offered == game.legal_actions(seen)  # not only the replies no other world grew
        assert action == greedy.choose(seen, offered, Random(0))


def test_a_node_below_the_root_widens_slowly_with_its_visits() -> None:
    assert [widening(n) for n in (0, 1, 3, 4, 15, 16, 36)] == [1, 1, 1, 2, 2, 3, 4]
    game = get_game("moirai")
    view = game.view(middle("moirai"), game.to_move(middle("moirai")))
    bot = IsmctsBot(game, budget=60, tuning=LIGHT)
    root = bot.search(view, bot.candidates(view, game.legal_actions(view), Random(1)), Random(3))
    # halving gives two of the three root actions 25 visits: without widening each would grow another reply each time
    busy = [kid for kid in root.children.values() if kid.visits >= 25]
    assert len(busy) == 2 and all(1 < len(kid.children) <= widening(kid.visits) for kid in busy)


def test_a_tuning_without_widening_keeps_one_reply_per_node_below_the_root() -> None:
    game = get_game("moirai")
    view = game.view(middle("moirai"), game.to_move(middle("moirai")))
    bot = IsmctsBot(game, budget=60, tuning=dataclasses.replace(LIGHT, widening=0.0))
    root = bot.search(view, bot.candidates(view, game.legal_actions(view), Random(1)), Random(3))
    below = [kid for kid in root.children.values() if kid.visits >= 25]
    assert below and all(len(kid.children) == 1 for kid in below)


def test_ucb_without_exploration_follows_the_better_mean() -> None:
    # "b" tried once and tempting to explore at the default constant; at 0 the better mean of "a" is followed
    node = Node()
    node.children = {"a": child(50, 30.0, 100), "b": child(1, 0.5, 100)}
    assert select(node, ["a", "b"]) == "b"
    assert select(node, ["a", "b"], 0.0) == "a"


class Ticking:
    """A clock that moves on `tick` seconds each time it is read: a time budget that is the same on every machine."""

    def __init__(self, tick: float) -> None:
        self.tick, self.reads = tick, 0

    def __call__(self) -> float:
        self.reads += 1
        return self.reads * self.tick


def test_a_time_budget_ends_the_search_in_time() -> None:
    game = get_game("motto")
    view = game.view(middle("motto"), game.to_move(middle("motto")))
    legal = game.legal_actions(view)
    bot = IsmctsBot(game, tuning=dataclasses.replace(LIGHT, budget=1, seconds=0.05))  # the time, not the budget
    began = time.perf_counter()
    root = bot.search(view, bot.candidates(view, legal, Random(1)), Random(2))
    spent = time.perf_counter() - began
    assert 0.025 < spent < 0.15  # a world is begun only if it ends nearer the round's end than not beginning it
    assert sum(kid.visits for kid in root.children.values()) >= 3 + 2  # each round sampled a world at least


def test_under_a_time_budget_each_round_of_halving_gets_its_share_of_the_time() -> None:
    game = get_game("motto")
    view = game.view(middle("motto"), game.to_move(middle("motto")))
    clock = Ticking(0.001)  # one millisecond per world, whatever the world costs
    bot = IsmctsBot(game, tuning=Tuning(candidates=6, horizon=4, seconds=0.03), now=clock)
    order = bot.candidates(view, game.legal_actions(view), Random(1))
    root = bot.search(view, order, Random(2))
    visits = sorted((kid.visits for kid in root.children.values()), reverse=True)
    assert visits == [27, 27, 18, 9, 9, 9]  # three rounds of 10 ms, 9 worlds each: 6 x 9, 3 x 9, 2 x 9
    assert clock.reads * clock.tick <= 0.03 + 2 * clock.tick


def test_a_number_of_iterations_asked_for_wins_over_the_tuning_s_time_budget() -> None:
    game = get_game("motto")
    timed = dataclasses.replace(LIGHT, seconds=5.0)
    assert IsmctsBot(game, budget=7, tuning=timed).seconds == 0.0
    assert IsmctsBot(game, tuning=timed).seconds == 5.0
    assert IsmctsBot(game).seconds == game.search.seconds == 0.0  # the games' own search counts iterations


@pytest.mark.parametrize("name", GAMES)
def test_under_a_time_budget_two_true_states_with_the_same_view_grow_the_same_tree(name: str) -> None:
    game = get_game(name)
    state = middle(name)
    seat = game.to_move(state)
    other = game.determinize(game.view(state, seat), seat, Random(8))
    trees = []
    for position in (state, other):
        view = game.view(position, seat)
        bot = IsmctsBot(game, tuning=dataclasses.replace(LIGHT, seconds=0.02), now=Ticking(0.001))
        trees.append(shape(bot.search(view, bot.candidates(view, game.legal_actions(view), Random(5)), Random(5))))
    assert trees[0] == trees[1] and trees[0]


class Horizons(IsmctsBot):
    """The search bot, keeping the horizon of each playout and the depth of the tree above it."""

    def __init__(self, game: Any, budget: int, tuning: Tuning) -> None:
        super().__init__(game, budget, tuning)
        self.horizons: list[int] = []

    def playout(self, state: Any, rng: Random, horizon: int) -> list[float]:
        self.horizons.append(horizon)
        return super().playout(state, rng, horizon)


def test_the_tree_s_moves_count_against_the_playout_s_horizon() -> None:
    game = get_game("motto")
    view = game.view(middle("motto"), game.to_move(middle("motto")))
    bot = Horizons(game, 60, Tuning(candidates=3, horizon=8))
    bot.choose(view, game.legal_actions(view), Random(3))
    assert max(bot.horizons) == 8  # a new root action: its playout starts after it
    assert min(bot.horizons) < 8  # below the root, the moves in the tree are part of the look-ahead


def test_with_observed_the_searcher_s_own_decisions_are_grown_per_information_set() -> None:
    # Moirai (M7): after its own draw the searcher keeps one of three cards it has seen; a keep grown in a world
    # where it drew other cards is no choice of this information set (Cowling, Powley and Whitehouse's nodes)
    game = get_game("moirai")
    state = middle("moirai", 13)  # a turn's first choice: to draw, or to take a pile
    view = game.view(state, game.to_move(state))
    seat = view.seat
    bot = IsmctsBot(game, budget=60, tuning=dataclasses.replace(LIGHT, observed=True))
    draw, take = Draw(), bot.candidates(view, game.legal_actions(view), Random(1))[0]
    root = bot.search(view, [draw, take], Random(3))
    after = root.children[draw]
    assert not after.children and after.seen and len(after.seen) > 1  # one node per hand of three drawn cards
    assert sum(node.visits for node in after.seen.values()) == after.visits - 1  # every visit but the first's
    for seen, node in after.seen.items():
        assert game.to_move(seen) == seat and seen.seat == seat  # the searcher's own view, about to keep
        assert node.children and set(node.children) <= set(game.legal_actions(seen))


def test_with_options_the_root_weighs_each_option_before_another_way_of_placing_one() -> None:
    # Moirai (M7, M8): drawing, or taking one of the piles; the greedy bot's six best are here six arrangements of
    # one pile's cards, and drawing is not among them
    game = get_game("moirai")
    state = middle("moirai", 16)
    view = game.view(state, game.to_move(state))
    legal = game.legal_actions(view)
    options = {game.option(action) for action in legal}
    plain = IsmctsBot(game, tuning=Tuning()).candidates(view, legal, Random(1))
    wide = IsmctsBot(game, tuning=Tuning(options=True)).candidates(view, legal, Random(1))
    assert len({game.option(action) for action in plain}) == 1 < len(options)
    assert {game.option(action) for action in wide} == options and Draw() in wide
    assert wide[0] == plain[0] == get_bot(game, "greedy").choose(view, legal, Random(1))  # what the search must beat
    assert len(wide) == len(set(wide)) == 6 and set(wide) <= set(legal)
