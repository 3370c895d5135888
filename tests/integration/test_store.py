"""The event store, on an in-memory and on a file database."""

from __future__ import annotations

import re
import sqlite3
import time
from contextlib import closing
from pathlib import Path

import duckdb
import pytest

from loom.engine.registry import get_game
from loom.events.base import IllegalAction
from loom.replay.branches import branch, continue_game
from loom.replay.projection_tables import replace_results_of
from loom.replay.simulate import simulate_one
from loom.replay.store import ConcurrencyError, EventColumns, NewGame, Seat, Store, StoreError, UnknownGameId
from tests.locks import held_by_another_process


def _event_count(store: Store, game_id: int) -> int:
    return store.con.execute("SELECT count(*) FROM events WHERE game_id = ?", [game_id]).fetchall()[0][0]


def test_games_get_increasing_ids_and_events_number_from_one_without_gaps(store: Store, motto_ids: list[int]) -> None:
    assert motto_ids == list(range(1, 7))
    for game_id in motto_ids:
        events = store.load(game_id)
        assert [e.seq for e in events] == list(range(1, len(events) + 1))
        assert events[0].type == "motto.started" and events[0].turn == 0 and events[0].actor is None
        assert store.game(game_id).last_seq == len(events)


def test_load_after_and_upto_select_a_slice(store: Store, motto_ids: list[int]) -> None:
    events = store.load(motto_ids[0], after=5, upto=9)
    assert [e.seq for e in events] == [6, 7, 8, 9]


def test_unknown_id_is_refused(store: Store) -> None:
    with pytest.raises(UnknownGameId, match="no game with id 42"):
        store.game(42)


def test_append_continues_an_open_game(store: Store) -> None:
    game = get_game("motto")
    ids = store.add_games([simulate_one(game, ["random", "random"], "open-test")])
    open_id = branch(store, ids[0], 5, [], None)
    before = store.game(open_id).last_seq
    last = continue_game(store, open_id, [{"type": "draw"}], None)
    assert last > before
    assert store.game(open_id).last_seq == last and store.game(open_id).status == "open"


def test_conflicting_append_fails_and_writes_nothing(store: Store, motto_ids: list[int]) -> None:
    open_id = branch(store, motto_ids[0], 4, [], None)
    fork = store.game(open_id).last_seq
    event = EventColumns([fork], [4], [0], ["motto.drew"], [1], ['{"card":"red-1-love"}'])
    with pytest.raises(ConcurrencyError, match=f"is at event {fork}, not {fork - 1}"):
        store.append(open_id, event, expected_seq=fork - 1, turns=4, status="open")
    assert store.game(open_id).last_seq == fork
    assert _event_count(store, open_id) == 0


def test_append_to_an_unknown_game_is_refused(store: Store) -> None:
    with pytest.raises(UnknownGameId):
        store.append(
            99, EventColumns([1], [1], [None], ["motto.passed"], [1], ["{}"]), expected_seq=0, turns=1, status="open"
        )


def test_a_failing_batch_writes_nothing(store: Store, motto_ids: list[int]) -> None:
    good = simulate_one(get_game("motto"), ["random", "random"], "batch")
    bad = NewGame(
        game="motto",
        seats=[Seat("a"), Seat("b")],
        source="simulated",
        seed=0,
        rules_version=1,
        events=EventColumns([1], [0], [None], [None], [1], ["{}"]),  # type: ignore[list-item]  # NOT NULL fails
    )
    with pytest.raises(StoreError):
        store.add_games([good, bad])
    assert [g.id for g in store.games(limit=100)] == sorted(motto_ids, reverse=True)


def test_an_illegal_branch_action_writes_nothing(store: Store, motto_ids: list[int]) -> None:
    with pytest.raises(IllegalAction, match="action 1"):
        branch(store, motto_ids[0], 3, [{"type": "play", "cards": ["red-1-love", "red-1-love", "red-1-love"]}], None)
    assert len(store.games(limit=100)) == len(motto_ids)


def test_file_database_keeps_games_after_reopening(tmp_path: Path) -> None:
    path = tmp_path / "kept.duckdb"
    with Store.open(path) as store:
        ids = store.add_games([simulate_one(get_game("motto"), ["greedy", "random"], "kept")])
    with Store.open(path, read_only=True) as store:
        assert store.game(ids[0]).status == "finished"
        assert len(store.load(ids[0])) == store.game(ids[0]).last_seq


def test_opening_a_missing_database_read_only_is_refused(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="no Loom database"):
        Store.open(tmp_path / "nothing.duckdb", read_only=True)


def test_a_file_that_is_not_a_database_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "notes.duckdb"
    path.write_text("shopping list\n" * 100)
    with pytest.raises(StoreError, match="not a DuckDB database"):
        Store.open(path)


def test_a_sqlite_file_is_refused_without_fetching_duckdbs_sqlite_extension(tmp_path: Path) -> None:
    # DuckDB would download `sqlite_scanner` to read it: nothing may download at run time
    path = tmp_path / "other.duckdb"
    with closing(sqlite3.connect(path)) as other:
        other.execute("CREATE TABLE games (id INTEGER)")
        other.commit()
    with pytest.raises(StoreError, match=f"^{re.escape(str(path))} is not a DuckDB database$"):
        Store.open(path)


def test_a_database_locked_by_another_process_is_refused_with_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "locked.duckdb"
    Store.open(path).close()
    with held_by_another_process(path):
        started = time.monotonic()
        with pytest.raises(StoreError, match=r"locked by another process \(pid \d+\)"):
            Store.open(path)
        assert time.monotonic() - started < 10


def _foreign(path: Path) -> Path:
    """A DuckDB file of someone else's, with one table `t`."""
    con = duckdb.connect(str(path))
    con.execute("CREATE TABLE t (x INTEGER)")
    con.execute("INSERT INTO t VALUES (42)")
    con.close()
    return path


def _tables(path: Path) -> list[str]:
    con = duckdb.connect(str(path), read_only=True)
    try:
        return [name for (name,) in con.execute("SELECT table_name FROM duckdb_tables() ORDER BY 1").fetchall()]
    finally:
        con.close()


@pytest.mark.parametrize("read_only", [False, True])
def test_a_duckdb_file_that_is_not_a_loom_store_is_refused_and_left_untouched(tmp_path: Path, read_only: bool) -> None:
    path = _foreign(tmp_path / "theirs.duckdb")
    before = path.read_bytes()
    with pytest.raises(StoreError, match="is a DuckDB database but not a Loom store; give another --db"):
        Store.open(path, read_only=read_only)
    assert _tables(path) == ["t"]
    assert path.read_bytes() == before


@pytest.mark.parametrize("table", ["meta (x INTEGER)", "meta (key VARCHAR, value VARCHAR)"])
def test_someone_elses_table_named_meta_is_not_a_loom_store(tmp_path: Path, table: str) -> None:
    path = tmp_path / "meta.duckdb"
    con = duckdb.connect(str(path))
    con.execute(f"CREATE TABLE {table}")
    con.close()
    with pytest.raises(StoreError, match="is a DuckDB database but not a Loom store"):
        Store.open(path)
    assert _tables(path) == ["meta"]


def test_an_empty_file_becomes_a_store(tmp_path: Path) -> None:
    path = tmp_path / "new.duckdb"
    path.touch()
    with Store.open(path) as store:
        store.add_games([simulate_one(get_game("motto"), ["random", "random"], "empty")])
    with Store.open(path, read_only=True) as store:
        assert len(store.games()) == 1


def test_an_empty_duckdb_database_becomes_a_store(tmp_path: Path) -> None:
    path = tmp_path / "blank.duckdb"
    duckdb.connect(str(path)).close()
    Store.open(path).close()
    assert "meta" in _tables(path)


def _game_of(events: EventColumns) -> NewGame:
    seats = [Seat("a"), Seat("b")]
    return NewGame(game="motto", seats=seats, source="imported", seed=0, rules_version=1, events=events)


def test_a_failed_insert_reports_its_own_cause(store: Store, motto_ids: list[int]) -> None:
    untyped = EventColumns([1], [0], [None], [None], [1], ["{}"])  # type: ignore[list-item]
    with pytest.raises(StoreError, match="NOT NULL constraint failed: events") as refused:
        store.add_games([_game_of(untyped)])
    assert "aborted" not in str(refused.value)
    assert len(store.games(limit=100)) == len(motto_ids)
    assert store.add_games([simulate_one(get_game("motto"), ["random", "random"], "after")]) == [7]  # still usable


def test_a_failed_analysis_write_reports_its_own_cause_and_keeps_the_old_rows(
    store: Store, motto_ids: list[int]
) -> None:
    store.replace_analysis(motto_ids[0], [(1, 0, 1, 0.5, 0.25, 10, "greedy")], [])
    twice = [(2, 0, 1, 0.5, 0.25, 10, "greedy")] * 2  # the same (game, seq, seat) twice
    with pytest.raises(StoreError, match="duplicate key") as refused:
        store.replace_analysis(motto_ids[0], twice, [])
    assert "aborted" not in str(refused.value)
    assert store.win_chances(motto_ids[0]) == [(1, 0, 1, 0.5, 0.25, 10, "greedy")]


def test_a_game_without_seats_is_never_stored(store: Store) -> None:
    with pytest.raises(ValueError, match="seats"):
        store.add_games([NewGame(game="motto", seats=[], source="branch", seed=0, rules_version=1)])
    assert store.games() == []


def test_a_commit_that_loses_to_another_writer_is_a_concurrency_error(store: Store) -> None:
    other = store.cursor()
    game = get_game("motto")
    with pytest.raises(ConcurrencyError, match="another writer"), store.transaction():
        store.add_games([simulate_one(game, ["random", "random"], "first")])  # joins the open transaction: id 1
        other.add_games([simulate_one(game, ["random", "random"], "second")])  # commits id 1 first
    assert [g.id for g in store.games()] == [1]
    assert store.add_games([simulate_one(game, ["random", "random"], "third")]) == [2]  # the store is usable


def test_a_failed_rebuild_of_results_reports_its_own_cause_and_keeps_the_old_rows(
    store: Store, motto_ids: list[int]
) -> None:
    kept = store.results(motto_ids[0])
    twice = [(motto_ids[0], 0, 1, 1, True, "{}")] * 2  # the same (game, seat) twice
    with pytest.raises(StoreError, match="duplicate key") as refused:
        replace_results_of(store.db, [motto_ids[0]], twice)  # a rebuild's batch
    assert "aborted" not in str(refused.value)
    assert store.results(motto_ids[0]) == kept
