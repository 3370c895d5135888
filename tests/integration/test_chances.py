"""Win chances by rollouts: exact on decided end positions, reproducible from a seed with one worker or two."""

from __future__ import annotations

from random import Random

import pytest

from loom.engine.cards import without_all
from loom.engine.motto.cards import FULL_DECK
from loom.engine.motto.state import MottoState
from loom.engine.play import chance_rng, play_out, start
from loom.engine.registry import UnknownBot, get_bot, get_game
from loom.events.base import LoomError
from loom.replay.chances import win_chances, win_chances_of

MOTTO = get_game("motto")


def last_turn(*tokens: tuple[tuple[int, int], ...]) -> MottoState:
    """Motto, three seats, seat 1 to play the game's last turn (T7) holding two cards: it cannot play a set, so it
    wins no token and the points stand as `tokens` give them (value, points per token)."""
    hands = ((2, 3), (0, 1), (4, 5))
    pool = (6, 7, 8, 9)
    taken = [value for seat_tokens in tokens for value, _ in seat_tokens]
    return MottoState(
        players=("Ann", "Ben", "Cat"),
        seed=1,
        dealt=True,
        hands=hands,
        shown=((), (), ()),
        pool=pool,
        deck=without_all(FULL_DECK, [*hands[0], *hands[1], *hands[2], *pool]),
        deck_ordered=True,
        stacks=tuple(3 - taken.count(value) for value in range(9)),
        tokens=tokens,
        turn=40,
        seat=1,
        final_turns=1,
    )


ANN_15 = ((0, 3), (1, 3), (2, 3), (3, 3), (4, 3))
BEN_3 = ((5, 3),)


def test_a_decided_game_gives_its_leader_chance_one_and_the_others_zero() -> None:
    chances = win_chances(MOTTO, last_turn(ANN_15, BEN_3, ((6, 3), (0, 2))), rollouts=20, bot="random", seed=1)
    assert chances.chance == (1.0, 0.0, 0.0)
    assert chances.margin == (0.0, 0.0, 0.0) and chances.rollouts == 20


def test_a_tie_nobody_can_break_gives_each_tied_seat_half() -> None:
    cat_15 = ((6, 3), (7, 3), (8, 3), (0, 2), (1, 2), (2, 2))
    chances = win_chances(MOTTO, last_turn(ANN_15, BEN_3, cat_15), rollouts=10, bot="greedy", seed=2)
    assert chances.chance == (0.5, 0.0, 0.5) and chances.margin == (0.0, 0.0, 0.0)


@pytest.mark.parametrize("name", ["motto", "moirai", "moorea", "stones-of-fate"])
def test_a_finished_game_needs_no_rollout_its_winners_have_chance_one(name: str) -> None:
    game = get_game(name)
    state, steps = start(game, ["a", "b", "c"], Random(4))
    bots = {seat: get_bot(game, "random") for seat in range(3)}
    final, _ = play_out(game, state, bots, chance_rng(4, len(steps)), {seat: Random(seat) for seat in range(3)})
    chances = win_chances(game, final, rollouts=50, bot="greedy")
    winners = game.winners(final)
    assert chances.chance == tuple(1 / len(winners) if s in winners else 0.0 for s in range(3))
    assert chances.rollouts == 0 and chances.margin == (0.0, 0.0, 0.0)


def opening(name: str) -> object:
    game = get_game(name)
    state, _ = start(game, ["a", "b", "c"], Random(f"chances/{name}"))
    return state


def test_rollouts_are_reproducible_from_a_seed_with_one_worker_and_with_two() -> None:
    positions = [(1, opening("motto")), (2, last_turn(ANN_15, BEN_3, ((6, 3),)))]
    one = win_chances_of(MOTTO, positions, rollouts=9, bot="greedy", seed=5, workers=1)
    two = win_chances_of(MOTTO, positions, rollouts=9, bot="greedy", seed=5, workers=2)
    assert one == two
    assert win_chances_of(MOTTO, positions, rollouts=9, bot="greedy", seed=6, workers=2) != one


def test_the_chances_of_an_open_position_add_up_to_one_and_carry_their_margin() -> None:
    chances = win_chances(get_game("moirai"), opening("moirai"), rollouts=12, bot="greedy", seed=3)
    assert sum(chances.chance) == pytest.approx(1.0)
    assert all(0 < margin < 1 for margin in chances.margin)
    assert chances.rollouts == 12 and chances.bot == "greedy"


def test_an_unknown_bot_or_no_rollout_is_refused() -> None:
    with pytest.raises(UnknownBot, match="no bot 'clever'"):
        win_chances(MOTTO, opening("motto"), rollouts=5, bot="clever")
    with pytest.raises(LoomError, match="at least 1"):
        win_chances(MOTTO, opening("motto"), rollouts=0, bot="greedy")
