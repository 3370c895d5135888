"""`whatif` and `analyse` on a store file: the branch they store, the turns they read, the projections they write."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from random import Random
from typing import Any

import pytest

from loom.engine.play import act
from loom.engine.protocol import CHANCE_TO_MOVE
from loom.engine.registry import get_game
from loom.replay.analysis import analyse, curve_rows, key_turns, moment_rows, turn_starts, whatif
from loom.replay.chances import Chances
from loom.replay.replay import position
from loom.replay.simulate import simulate
from loom.replay.store import Store

FEW = {"rollouts": 4, "bot": "greedy", "workers": 1, "budget": 6}


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Three-player games, greedy against random, on a file: Moorea (1), Stones of Fate (2) and Motto (3)."""
    path = tmp_path_factory.mktemp("analysis") / "games.duckdb"
    with Store.open(path) as store:
        for name in ("moorea", "stones-of-fate", "motto"):
            simulate(store, get_game(name), 1, ["greedy", "random", "random"], seed=5)
    return path


@pytest.fixture
def db(recorded: Path, tmp_path: Path) -> str:
    copy = tmp_path / "games.duckdb"
    copy.write_bytes(recorded.read_bytes())
    return str(copy)


def rounded(rows: Sequence[Sequence[Any]]) -> list[tuple[Any, ...]]:
    """Rows with their floats to 5 places: the tables keep chances as 4-byte floats."""
    return [tuple(round(x, 5) if isinstance(x, float) else x for x in row) for row in rows]


def test_whatif_stores_its_branch_with_the_game_as_parent_and_the_turn_s_start_as_fork(db: str) -> None:
    result = whatif(db, 1, 6, [{"type": "draw"}, {"type": "pass"}], **FEW)
    with Store.open(db, read_only=True) as store:
        info = store.game(result.alternative.branch)  # type: ignore[arg-type]
        fork = position(store, 1, turn=6).seq
        own = store.load(info.id, after=fork)
    assert (info.parent_id, info.fork_seq, info.source) == (1, fork, "branch")
    played = [event.payload.TYPE for event in own if event.actor is not None]
    assert played[:2] == ["moorea.drew", "moorea.passed"]  # then the rest of the turn, as the bot plays it
    assert len(result.recorded.actions) == 2 and result.recorded.actions[0] == {"type": "draw"}


def test_whatif_compares_both_lines_at_the_start_of_the_next_turn_not_right_after_the_move(db: str) -> None:
    result = whatif(db, 1, 6, [{"type": "draw"}, {"type": "pass"}], **FEW)
    game = get_game("moorea")
    assert result.compared == 7
    with Store.open(db, read_only=True) as store:
        assert result.recorded.seq == position(store, 1, turn=7).seq
        line = store.load(result.alternative.branch)  # type: ignore[arg-type]
        at = position(store, result.alternative.branch, seq=result.alternative.seq)  # type: ignore[arg-type]
    # the branch is compared where turn 7 starts (turn 6 played to its end by the bot), not right after the pass
    assert [e.turn for e in line if e.seq == result.alternative.seq] == [6]
    assert all(e.turn >= 7 for e in line if e.seq > result.alternative.seq)
    assert game.next_turn(at.state, game.to_move(at.state) == CHANCE_TO_MOVE) == 7


def test_whatif_without_an_alternative_plays_the_forced_draw_then_the_search_bot_s_other_move(db: str) -> None:
    result = whatif(db, 1, 6, None, **FEW)
    assert result.alternative.actions[0] == {"type": "draw"} == result.recorded.actions[0]
    assert result.alternative.actions[1] != result.recorded.actions[1]


def test_each_turn_is_read_once_with_the_recorded_action_of_its_first_real_choice(db: str) -> None:
    with Store.open(db, read_only=True) as store:
        info, events = store.game(2), store.load(2)
    game = get_game(info.game)
    starts, final, last = turn_starts(game, events)
    assert [start.turn for start in starts] == list(range(1, info.turns + 1))
    assert last == info.last_seq and game.to_move(final) is None
    by_seq = {event.seq: event for event in events}
    for start in starts:
        choice = start.choice
        assert choice is not None  # every Stones of Fate turn begins with a choice of action
        made = act(game, choice.state, game.parse_action(choice.action), Random(0))[1][0].payload
        assert made == by_seq[choice.seq].payload


def test_the_key_turns_are_those_whose_seat_saw_its_chance_move_most() -> None:
    def point(chances: tuple[float, ...]) -> object:
        return type("P", (), {"chances": Chances(chances, (0.0,) * 2, 1, "greedy")})()

    with_choice = type("T", (), {"choice": object()})
    starts = [with_choice() for _ in range(3)]
    for turn, start in enumerate(starts, start=1):
        start.turn, start.seat = turn, (turn - 1) % 2  # type: ignore[attr-defined]
    curve = [point((0.5, 0.5)), point((0.6, 0.4)), point((0.6, 0.1)), point((0.9, 0.1))]
    chosen = key_turns(starts, curve, 2)  # type: ignore[arg-type]
    assert [(start.turn, before, after) for start, before, after in chosen] == [(2, 0.4, 0.1), (3, 0.6, 0.9)]


def test_analyse_stores_a_curve_point_per_turn_and_its_key_moments_replacing_an_earlier_analysis(db: str) -> None:
    analyse(db, 3, moments=4, **FEW)
    result = analyse(db, 3, moments=2, seed=9, **FEW)
    with Store.open(db, read_only=True) as store:
        info, curve, moments = store.game(3), store.win_chances(3), store.key_moments(3)
    assert [point.turn for point in result.curve] == list(range(1, info.turns + 2))
    assert len(curve) == 3 * (info.turns + 1) and len(moments) == 2
    assert rounded(curve) == rounded(curve_rows(result))
    assert rounded(moments) == rounded(moment_rows(result))
    for moment in result.moments:
        assert moment.best_action is not None and moment.best_action != moment.action
        assert moment.best_chance is not None and 0.0 <= moment.best_chance <= 1.0
