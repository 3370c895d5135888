"""`simulate` stores its games batch by batch on a writer thread and commits a transaction of several batches at once:
the store holds the same rows as one written batch by batch, and whole transactions only when the simulation stops."""

from __future__ import annotations

from pathlib import Path

import pytest

from loom.engine.registry import get_game
from loom.replay.logfile import export_lines
from loom.replay.simulate import simulate
from loom.replay.store import Store

BOTS = ["greedy", "random", "random"]

ROWS = {
    "events": "SELECT game_id, seq, turn, actor, type, version, payload FROM events ORDER BY game_id, seq",
    "snapshots": "SELECT * FROM snapshots ORDER BY game_id, seq",
    "results": "SELECT * FROM results ORDER BY game_id, seat",
    "seats": "SELECT * FROM seats ORDER BY game_id, seat",
    "games": "SELECT * EXCLUDE (created_at) FROM games ORDER BY id",
}


def _stored(db: Path) -> dict[str, list[tuple[object, ...]]]:
    with Store.open(db, read_only=True) as store:
        return {table: store.con.execute(sql).fetchall() for table, sql in ROWS.items()}


def test_games_stored_in_transactions_of_several_batches_are_the_games_stored_one_batch_each(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    motto = get_game("motto")
    monkeypatch.setattr("loom.replay.simulate.BATCH", 3)
    monkeypatch.setattr("loom.replay.simulate.TRANSACTION", 3)
    with Store.open(tmp_path / "one.duckdb") as store:
        simulate(store, motto, 11, BOTS, seed=8)
        lines = [list(export_lines(store, game_id)) for game_id in range(1, 12)]
    monkeypatch.setattr("loom.replay.simulate.TRANSACTION", 9)
    with Store.open(tmp_path / "many.duckdb") as store:
        assert simulate(store, motto, 11, BOTS, seed=8) == list(range(1, 12))
        assert [list(export_lines(store, game_id)) for game_id in range(1, 12)] == lines
    assert _stored(tmp_path / "many.duckdb") == _stored(tmp_path / "one.duckdb")


def test_a_simulation_stopped_by_an_error_keeps_whole_transactions_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("loom.replay.simulate.BATCH", 2)
    monkeypatch.setattr("loom.replay.simulate.TRANSACTION", 4)
    played = 0

    def progress(done: int) -> None:
        nonlocal played
        played += done
        if played == 11:  # batches of games 9-10 stored, its transaction (9-12) still open
            raise RuntimeError("stopped by the caller")

    with Store.open(tmp_path / "t.duckdb") as store:
        with pytest.raises(RuntimeError, match="stopped by the caller"):
            simulate(store, get_game("motto"), 20, BOTS, seed=3, progress=progress)
        assert store.count("games") == 8
        assert store.count("events") == sum(len(store.load(game_id)) for game_id in range(1, 9))
        assert simulate(store, get_game("motto"), 1, BOTS, seed=3) == [9]  # the store goes on where it was


def test_the_writer_s_one_duckdb_thread_is_the_simulation_s_alone(tmp_path: Path) -> None:
    """DuckDB's threads are a setting of the whole database: after a simulation, its readers have them all again."""
    with Store.open(tmp_path / "loom.duckdb", threads=2) as store:
        simulate(store, get_game("motto"), 2, BOTS, seed=1)
        assert store.con.execute("SELECT current_setting('threads')").fetchall() == [(2,)]
