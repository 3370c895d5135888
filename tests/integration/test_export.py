"""Bulk export: the filters choose exactly their games, and a streamed export is every game's own export in a row."""

from __future__ import annotations

import io
import json
import time
from datetime import datetime
from typing import Any

import pytest

from loom.engine.registry import get_game
from loom.replay.branches import branch
from loom.replay.export import BadSelection, Selection, choose, pages, parse_ranges
from loom.replay.logfile import export_lines, import_file
from loom.replay.simulate import simulate
from loom.replay.store import Store


def chosen(store: Store, selection: Selection) -> list[int]:
    """The ids a selection chooses, in the order an export writes them."""
    choose(store.db, selection)
    return [game_id for page in pages(store.db) for game_id, _ in page]


def with_bots(store: Store, game_id: int, bots: list[str | None]) -> int:
    """A copy of a game imported with other bot names in its header; its id."""
    lines = list(export_lines(store, game_id))
    header = json.loads(lines[0]) | {"bots": bots}
    return import_file(store, io.StringIO("\n".join([json.dumps(header), *lines[1:]]) + "\n"))[0]


def every_id(recorded: dict[str, Any]) -> list[int]:
    """Every recorded game's id, in order."""
    return sorted(i for key, ids in recorded.items() if key != "cut" for i in ids)


@pytest.fixture
def recorded(store: Store) -> dict[str, Any]:
    """Games of every kind a filter tells apart: two batches apart in time, two and three players, a branch, an open
    game, and bots with a budget."""
    motto = get_game("motto")
    early = simulate(store, motto, 2, ["greedy", "random", "random"], seed=1)
    time.sleep(0.01)
    cut = datetime.now().astimezone()
    time.sleep(0.01)
    late = simulate(store, motto, 2, ["random", "random"], seed=2)
    stones = simulate(store, get_game("stones-of-fate"), 1, ["random", "random"], seed=3)
    child = branch(store, early[0], 3, [], "greedy")
    budgeted = with_bots(store, early[1], ["mcts:50", "random", None])
    lookalike = with_bots(store, early[1], ["mctsx", "random", None])
    with open("docs/examples/motto-table-game.jsonl", encoding="utf-8") as file:
        open_game = import_file(store, file)
    return {
        "cut": cut,  # the time between the two batches, for the date filters
        "early": early,
        "late": late,
        "stones": stones,
        "branch": [child],
        "budgeted": [budgeted],
        "lookalike": [lookalike],
        "open": open_game,
    }


def test_no_filter_chooses_every_game_by_id(store: Store, recorded: dict[str, Any]) -> None:
    assert chosen(store, Selection()) == every_id(recorded)


def test_the_game_filter_chooses_its_kind(store: Store, recorded: dict[str, Any]) -> None:
    assert chosen(store, Selection(game="stones-of-fate")) == recorded["stones"]


def test_since_and_until_split_at_the_moment(store: Store, recorded: dict[str, Any]) -> None:
    cut = recorded.pop("cut")
    assert chosen(store, Selection(until=cut)) == recorded["early"]
    assert chosen(store, Selection(since=cut, game="motto", players=2, finished=True)) == recorded["late"]


def test_a_bot_name_matches_every_budget_of_it(store: Store, recorded: dict[str, Any]) -> None:
    assert chosen(store, Selection(bot="mcts")) == recorded["budgeted"]
    assert chosen(store, Selection(bot="mcts:50")) == recorded["budgeted"]
    assert chosen(store, Selection(bot="mcts:5")) == []


def test_a_bot_filter_takes_the_games_where_it_sat(store: Store, recorded: dict[str, Any]) -> None:
    assert chosen(store, Selection(bot="greedy")) == sorted(recorded["early"] + recorded["branch"])


def test_players_counts_the_seats(store: Store, recorded: dict[str, Any]) -> None:
    assert chosen(store, Selection(players=2)) == sorted(recorded["late"] + recorded["stones"] + recorded["open"])


def test_finished_leaves_out_open_games(store: Store, recorded: dict[str, Any]) -> None:
    every = chosen(store, Selection())
    assert recorded["open"][0] in every
    assert recorded["open"][0] not in chosen(store, Selection(finished=True))


def test_no_branches_leaves_out_the_branch(store: Store, recorded: dict[str, Any]) -> None:
    assert recorded["branch"][0] not in chosen(store, Selection(branches=False))
    assert recorded["branch"][0] in chosen(store, Selection(branches=True))


def test_ids_and_ranges_choose_their_games(store: Store, recorded: dict[str, Any]) -> None:
    assert chosen(store, Selection(ranges=parse_ranges(["2", "4-5", "8-"]))) == [2, 4, 5, 8, 9]
    assert chosen(store, Selection(ranges=parse_ranges(["4-5"]), game="stones-of-fate")) == [5]


def test_a_range_that_cannot_be_read_is_refused() -> None:
    for text in ("x", "5-3", "1-2-3", "-4"):
        with pytest.raises(BadSelection):
            parse_ranges([text])


def test_a_streamed_export_is_each_games_export_in_a_row(store: Store, recorded: dict[str, Any]) -> None:
    choose(store.db, Selection())
    streamed = [line for page in pages(store.db, size=3) for _, lines in page for line in lines]
    ids = every_id(recorded)
    assert streamed == [line for game_id in ids for line in export_lines(store, game_id)]


def test_a_streamed_branch_carries_its_parents_prefix(store: Store, recorded: dict[str, Any]) -> None:
    [child] = recorded["branch"]
    choose(store.db, Selection(ranges=((child, child),)))
    [[(game_id, lines)]] = list(pages(store.db))
    assert game_id == child and lines == list(export_lines(store, child))
    assert json.loads(lines[1])["seq"] == 1
