"""`logs simulate --cluster ADDRESS --lake DIR` on a real Dask LocalCluster (scheduler and worker processes): the same
games, event for event, on 2 workers, on 1 and without a cluster; a lake that imports with the same scores; and
`logs analyse --cluster`, whose rollouts give the chances of one process."""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest
from distributed import LocalCluster

from loom.replay.store import Store
from tests.cli.run import fails, ok
from tests.processes import session_alive, wait_for

SIMULATION = ("simulate", "motto", "-n", "6", "--seed", "3", "--bot", "greedy", "--bot", "random", "--bot", "random")
EVENTS = "SELECT game_id, seq, turn, actor, type, version, payload FROM {} ORDER BY game_id, seq"


@pytest.fixture(scope="module")
def two_workers() -> Iterator[str]:
    """The address of a LocalCluster of two worker processes, one thread each, shared by the module's tests."""
    with LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        dashboard_address=None,
        scheduler_kwargs={"dashboard_address": ":0"},
        silence_logs=logging.ERROR,
    ) as cluster:
        yield cluster.scheduler_address


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The same simulation recorded into a store, without a cluster."""
    path = tmp_path_factory.mktemp("store") / "loom.duckdb"
    ok(*SIMULATION, "--db", path)
    return path


@pytest.fixture(scope="module")
def lake(two_workers: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The simulation played on the two workers, two games a task, into a new lake."""
    path = tmp_path_factory.mktemp("lake") / "lake"
    ok(*SIMULATION, "--cluster", two_workers, "--lake", path, "--chunk", "2")
    return path


def lake_events(lake: Path) -> list[tuple[object, ...]]:
    return duckdb.sql(EVENTS.format(f"read_parquet('{lake}/events/**/*.parquet')")).fetchall()


def test_two_workers_play_the_games_of_one_worker_and_of_a_store(lake: Path, stored: Path, tmp_path: Path) -> None:
    one = tmp_path / "one"
    ok(*SIMULATION, "--cluster", "local", "--workers", "1", "--lake", one, "--chunk", "4")
    with duckdb.connect(str(stored), read_only=True) as con:
        expected = con.sql(EVENTS.format("events")).fetchall()
    assert len(expected) > 6 * 50
    # A new lake's ids start at 1, as a new store's do: game `index` is game 1 + index in all three.
    assert lake_events(lake) == expected
    assert lake_events(one) == expected


def test_a_clusters_lake_imports_into_a_fresh_store_with_the_same_scores(
    lake: Path, stored: Path, tmp_path: Path
) -> None:
    fresh = tmp_path / "fresh.duckdb"
    assert "imported 6 games" in ok("import", "--lake", lake, "--db", fresh)
    with Store.open(fresh, read_only=True) as imported, Store.open(stored, read_only=True) as original:
        for game_id in range(1, 7):
            assert [(r.seat, r.score, r.rank) for r in imported.results(game_id)] == [
                (r.seat, r.score, r.rank) for r in original.results(game_id)
            ]


def test_a_second_run_takes_the_next_ids(two_workers: str, tmp_path: Path) -> None:
    path = tmp_path / "lake"
    ok("simulate", "motto", "-n", "3", "--cluster", two_workers, "--lake", path, "--chunk", "1")
    said = ok("simulate", "motto", "-n", "2", "--cluster", two_workers, "--lake", path)
    assert "ids 4 to 5" in " ".join(said.split())  # the line wraps at 80 columns where the lake's path is long
    ids = duckdb.sql(f"SELECT id FROM '{path}/games/**/*.parquet' ORDER BY id").fetchall()
    assert ids == [(1,), (2,), (3,), (4,), (5,)]


def test_an_unreachable_cluster_is_one_line_and_writes_nothing(tmp_path: Path) -> None:
    error = fails("simulate", "motto", "-n", "2", "--cluster", "tcp://127.0.0.1:1", "--lake", tmp_path / "lake")
    assert "cannot reach a Dask scheduler at tcp://127.0.0.1:1" in error
    assert not (tmp_path / "lake").exists()


def test_a_cluster_needs_a_lake(tmp_path: Path) -> None:
    assert "give --lake DIR" in fails("simulate", "motto", "--cluster", "local", "--db", tmp_path / "x.duckdb")
    assert not (tmp_path / "x.duckdb").exists()


def test_analyse_on_the_cluster_finds_the_chances_of_one_process(
    two_workers: str, stored: Path, tmp_path: Path
) -> None:
    here, there = tmp_path / "here.duckdb", tmp_path / "there.duckdb"
    here.write_bytes(stored.read_bytes())
    there.write_bytes(stored.read_bytes())
    rollouts = ("-k", "8", "--moments", "1", "--json")
    expected = ok("analyse", "1", *rollouts, "--workers", "1", "--db", here)
    assert ok("analyse", "1", *rollouts, "--cluster", two_workers, "--db", there) == expected


def test_a_lake_without_a_cluster_plays_in_one_process(tmp_path: Path) -> None:
    error = fails("simulate", "motto", "--lake", tmp_path / "lake", "--workers", "2")
    assert "--cluster local --workers N" in error
    assert not (tmp_path / "lake").exists()


def test_sigterm_stops_a_local_cluster_with_one_line_and_leaves_nothing_hidden(tmp_path: Path) -> None:
    """SIGTERM stops the command as Ctrl-C does: the tasks cancelled, the workers ended, their staging removed."""
    lake = tmp_path / "lake"
    command = [sys.executable, "-m", "loom.cli.main", "simulate", "moorea", "-n", "3000", "--cluster", "local"]
    command += ["--workers", "2", "--chunk", "5", "--lake", str(lake)]
    process = subprocess.Popen(command, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while not any(lake.glob(".staging-*")):  # the workers are playing
            assert process.poll() is None and time.monotonic() < deadline, "the workers never began"
            time.sleep(0.05)
        os.kill(process.pid, signal.SIGTERM)
        assert process.wait(30) == 143
        assert process.stderr is not None and process.stderr.read() == "stopped; nothing half-written was kept\n"
        assert wait_for(lambda: not session_alive(process.pid), 10), "a worker outlived the command"
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
    assert sorted(p.name for p in lake.iterdir() if p.name.startswith(".")) == [".ids"]  # ids reserved stay unused


def _half_of(number: int) -> int:
    if number == 3:
        raise ValueError("three is odd")
    return number // 2


def test_a_clusters_tasks_give_their_results_in_order_and_a_failed_one_is_one_line(two_workers: str) -> None:
    """`mapper_of` (logs analyse --cluster's rollouts): the results in the order of the items, whatever order the
    tasks end in; a task that raises stops the run with one line naming its error."""
    from distributed import Client

    from loom.replay.cluster import ClusterError, mapper_of

    with Client(two_workers) as client:
        run = mapper_of(client)
        assert run(_half_of, [8, 6, 2, 4, 0]) == [4, 3, 1, 2, 0]
        with pytest.raises(ClusterError, match="^a task failed on the cluster: ValueError: three is odd$"):
            run(_half_of, [2, 3, 4])
