"""The replay page: a position after every event with the game's own table, the scores, and a seat's view only with
--as; each line of the tables written once."""

from __future__ import annotations

from pathlib import Path

import pytest

from loom.dashboards.viewer import _table_html, positions, replay_html, turn_starts
from loom.engine.registry import get_game
from loom.events.base import LoomError
from loom.replay.replay import fold, position
from loom.replay.store import Store
from tests.dashboards.conftest import EVIL, EVIL_GAME
from tests.dashboards.pages import page_tables, script_data


def test_a_position_after_every_event_and_a_stop_at_each_turns_start(recorded: Path) -> None:
    with Store.open(recorded, read_only=True) as store:
        info = store.game(1)
        at_turn_3 = position(store, 1, turn=3)
        stops = positions(at_turn_3.game, store.load(1), None)
    assert [p.seq for p in stops] == list(range(1, info.last_seq + 1))
    starts = [stops[k] for k in turn_starts(stops)]
    assert [p.turn for p in starts] == list(range(1, info.turns + 2))
    assert starts[2].seq == at_turn_3.seq  # the start of turn 3 is the position `logs replay --turn 3` shows
    assert starts[-1] == stops[-1]  # then the end
    assert starts[2].table == _table_html(at_turn_3.game, at_turn_3.state, None)


def test_the_scores_are_the_games_scores_at_each_position(recorded: Path) -> None:
    with Store.open(recorded, read_only=True) as store:
        events = store.load(1)
        at = position(store, 1, turn=5)
        stops = positions(at.game, events, None)
    assert stops[at.seq - 1].scores == at.game.scores(at.state)
    assert stops[-1].scores == at.game.scores(fold(at.game, events))


def test_as_a_seat_the_tables_show_only_its_view(recorded: Path) -> None:
    with Store.open(recorded, read_only=True) as store:
        at = position(store, 9, turn=4)  # a Moirai game: the starting cards stay hidden
        mine = positions(at.game, store.load(9), 1)
        everyone = positions(at.game, store.load(9), None)
    assert mine[at.seq - 1].scores == at.game.scores(at.game.view(at.state, 1))
    assert mine[at.seq - 1].table == _table_html(at.game, at.game.view(at.state, 1), 1)
    assert mine[at.seq - 1].table != everyone[at.seq - 1].table


def test_the_page_writes_each_line_once_and_rebuilds_every_table(recorded: Path) -> None:
    with Store.open(recorded, read_only=True) as store:
        events = store.load(2)  # a Motto game: its tables change a little at each event
        html = replay_html(store, 2, 2)
        stops = positions(get_game("motto"), events, 2)
    assert page_tables(html) == [(p.seq, p.table) for p in stops]
    lines = script_data(html, "tables")["lines"]
    assert len(lines) == len(set(lines))
    assert len(lines) * 3 < sum(len(p.lines) for p in stops) * 2  # many lines carry over from one event to the next
    assert all(p.lines for p in stops)


def test_the_page_escapes_player_names(recorded: Path) -> None:
    with Store.open(recorded, read_only=True) as store:
        html = replay_html(store, EVIL_GAME)
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert EVIL not in html


def test_a_seat_out_of_range_is_refused(recorded: Path) -> None:
    with Store.open(recorded, read_only=True) as store, pytest.raises(LoomError, match="seat 5 is out of range"):
        replay_html(store, 1, 5)
