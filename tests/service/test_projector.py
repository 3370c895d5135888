"""The server's projector: a thread of the one database that projects the facts of what appends commit."""

from __future__ import annotations

import os
import time
from functools import partial
from pathlib import Path

import httpx

from loom.engine.registry import get_game
from loom.replay.live import add_game, append_played, dealt_game, played_action
from loom.replay.projector import rebuild
from loom.replay.simulate import simulate
from loom.replay.store import Seat, Store
from loom.service.database import Database
from loom.service.server import free_port, running
from loom.service.settings import Settings
from tests.service.client import ADMIN

FACTS = ("SELECT * FROM turn_facts ORDER BY ALL", "SELECT * FROM game_facts ORDER BY ALL")
WAIT = 30.0
"""Seconds a test waits for the projector at most: far more than it takes, so a loaded machine never fails it."""


def caught_up(store: Store) -> bool:
    """Whether the projector has reached every game's last event, polled until WAIT has passed."""
    deadline = time.monotonic() + WAIT
    while store.games_behind():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


MOTTO = get_game("motto")


def _played_game(database: Database, moves: int) -> int:
    """A new game of Motto with `moves` actions appended through the database; its id."""
    game_id = database.write(partial(add_game, new=dealt_game(MOTTO, [Seat("ann"), Seat("bob")], seed=5)))
    _append_moves(database, game_id, moves)
    return game_id


def _append_moves(database: Database, game_id: int, moves: int) -> None:
    for _ in range(moves):
        info, state = database.latest(game_id)
        action = MOTTO.action_json(MOTTO.legal_actions(state)[-1])
        played = played_action(MOTTO, state, info.seed, info.last_seq, action)
        database.write(
            partial(append_played, game_id=game_id, game=MOTTO, before=state, played=played, expected_seq=info.last_seq)
        )
        database.forget(game_id)


def test_the_facts_of_appends_appear_once_the_servers_projector_has_caught_up(tmp_path: Path) -> None:
    path = tmp_path / "served.duckdb"
    database = Database(str(path))
    try:
        _played_game(database, 40)
        reader = database.reader()
        assert caught_up(reader)
        served = tuple(reader.con.execute(sql).fetchall() for sql in FACTS)
        assert served[0]
    finally:
        database.close()
    with Store.open(path) as reopened:  # the thread stopped cleanly: the file is free, its facts are a rebuild's
        assert reopened.games_behind() == 0
        rebuild(reopened)
        assert tuple(reopened.con.execute(sql).fetchall() for sql in FACTS) == served


def test_the_servers_projector_folds_in_a_worker_and_starts_another_when_it_dies(tmp_path: Path) -> None:
    path = tmp_path / "served.duckdb"
    database = Database(str(path))
    try:
        game_id = _played_game(database, 10)
        assert caught_up(database.reader())
        pool = database.projector._pool
        assert pool is not None
        (worker,) = pool._processes.values()  # type: ignore[attr-defined]
        assert worker.pid != os.getpid()
        worker.kill()
        worker.join()
        # The next pass folds on the projector's thread, the one after starts another worker, which has kept no
        # state: the game is folded on from its stored position
        for _ in range(2):
            _append_moves(database, game_id, 10)
            assert caught_up(database.reader())
        assert database.projector._pool not in (None, pool)
        served = tuple(database.reader().con.execute(sql).fetchall() for sql in FACTS)
    finally:
        database.close()
    with Store.open(path) as reopened:
        rebuild(reopened)
        assert tuple(reopened.con.execute(sql).fetchall() for sql in FACTS) == served


def test_the_servers_projector_catches_up_with_games_left_behind_when_it_starts(tmp_path: Path) -> None:
    path = tmp_path / "served.duckdb"
    with Store.open(path) as store:
        game = get_game("moirai")
        game_id = add_game(store, dealt_game(game, [Seat("ann"), Seat("bob"), Seat("cy")], seed=2))
        assert store.games_behind() == 1  # dealt: the facts of its opening events are the projector's
    database = Database(str(path))
    try:
        assert caught_up(database.reader())
        assert database.reader().con.execute("SELECT seq FROM projected WHERE game_id = ?", [game_id]).fetchall()
    finally:
        database.close()


def test_the_served_dashboard_waits_for_the_projector_to_reach_the_games_just_recorded(tmp_path: Path) -> None:
    path = tmp_path / "served.duckdb"
    with Store.open(path) as store:
        simulate(store, get_game("motto"), 3, ["greedy", "random"], seed=1)
        assert store.report_behind() == 3  # recorded without their facts: the projector's to work out
    with running(Settings(str(path), port=free_port(), admin_token=ADMIN)) as base:
        page = httpx.get(f"{base}/dashboard", timeout=WAIT)
    assert page.status_code == 200
    assert "3 finished games" in page.text and "more finished game" not in page.text


def test_a_servers_duckdb_leaves_one_core_to_the_event_loop(tmp_path: Path) -> None:
    database = Database(str(tmp_path / "served.duckdb"))
    try:
        threads = database.reader().con.execute("SELECT current_setting('threads')").fetchone()
        assert threads == (max(1, len(os.sched_getaffinity(0)) - 1),)
    finally:
        database.close()
