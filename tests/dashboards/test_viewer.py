"""The replay page: a stop per turn with the game's own table, the scores, and a seat's view only with --as."""

from __future__ import annotations

from pathlib import Path

import pytest

from loom.dashboards.viewer import frames, replay_html
from loom.events.base import LoomError
from loom.replay.replay import position
from loom.replay.store import Store
from tests.dashboards.conftest import EVIL, EVIL_GAME


def test_a_stop_per_turn_then_the_end(recorded: Path) -> None:
    with Store.open(recorded, read_only=True) as store:
        info = store.game(1)
        at_turn_3 = position(store, 1, turn=3)
        stops = frames(at_turn_3.game, store.load(1), None)
    assert [s.turn for s in stops] == list(range(1, info.turns + 2))
    assert stops[2].seq == at_turn_3.seq  # the start of turn 3 is the position `logs replay --turn 3` shows
    assert stops[-1].label == "end" and stops[-1].seq == info.last_seq


def test_the_scores_are_the_games_scores_at_each_stop(recorded: Path) -> None:
    with Store.open(recorded, read_only=True) as store:
        at = position(store, 1, turn=5)
        stops = frames(at.game, store.load(1), None)
    assert stops[4].scores == at.game.scores(at.state)


def test_as_a_seat_the_tables_show_only_its_view(recorded: Path) -> None:
    with Store.open(recorded, read_only=True) as store:
        at = position(store, 9, turn=4)  # a Moirai game: the starting cards stay hidden
        mine = frames(at.game, store.load(9), 1)
        everyone = frames(at.game, store.load(9), None)
    assert mine[3].scores == at.game.scores(at.game.view(at.state, 1))
    assert mine[3].table != everyone[3].table


def test_the_page_escapes_player_names(recorded: Path) -> None:
    with Store.open(recorded, read_only=True) as store:
        html = replay_html(store, EVIL_GAME)
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert EVIL not in html


def test_a_seat_out_of_range_is_refused(recorded: Path) -> None:
    with Store.open(recorded, read_only=True) as store, pytest.raises(LoomError, match="seat 5 is out of range"):
        replay_html(store, 1, 5)
