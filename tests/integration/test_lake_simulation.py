"""A simulation written straight into a lake (no cluster): its ids reserved in the lake, its games those of a store."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from loom.engine.registry import get_game
from loom.replay.cluster import simulate_to_lake
from loom.replay.export import Selection
from loom.replay.lake import LakeError, cancelled_file, discard_run, reserve_ids, write_games, write_lake
from loom.replay.simulate import game_seed, simulate, simulate_one
from loom.replay.store import Store

BOTS = ["greedy", "random", "random"]


def test_reserved_blocks_follow_each_other_and_never_overlap(tmp_path: Path) -> None:
    lake = tmp_path / "lake"
    assert [reserve_ids(lake, 5), reserve_ids(lake, 1), reserve_ids(lake, 3)] == [1, 6, 7]
    assert sorted(path.name for path in (lake / ".ids").iterdir()) == ["0000000001", "0000000006", "0000000007"]


def test_a_block_starts_past_the_games_a_lake_holds(store: Store, tmp_path: Path) -> None:
    simulate(store, get_game("motto"), 3, BOTS, seed=1)
    lake = tmp_path / "lake"
    write_lake(store, lake, Selection())
    assert reserve_ids(lake, 2) == 4


def test_a_block_past_the_largest_id_is_refused(tmp_path: Path) -> None:
    lake = tmp_path / "lake"
    reserve_ids(lake, 2**31 - 10)
    with pytest.raises(LakeError, match="no room for 10 more games"):
        reserve_ids(lake, 10)


def test_chunks_in_this_process_are_the_stores_games(store: Store, tmp_path: Path) -> None:
    simulate(store, get_game("motto"), 5, BOTS, seed=2)
    done = simulate_to_lake(tmp_path / "lake", get_game("motto"), 5, BOTS, seed=2, chunk=2)
    assert list(done.ids) == [1, 2, 3, 4, 5] and [c.games for c in done.chunks] == [2, 2, 1]
    events = "SELECT game_id, seq, turn, actor, type, version, payload FROM {} ORDER BY game_id, seq"
    lake = duckdb.sql(events.format(f"read_parquet('{tmp_path}/lake/events/**/*.parquet')")).fetchall()
    assert lake == store.db.all(events.format("events"))
    assert not list((tmp_path / "lake").glob(".staging-*"))


def test_a_store_is_not_exported_into_a_simulated_lake(store: Store, tmp_path: Path) -> None:
    simulate(store, get_game("motto"), 1, BOTS, seed=3)
    simulate_to_lake(tmp_path / "lake", get_game("motto"), 1, BOTS, seed=3)
    with pytest.raises(LakeError, match="holds simulated games"):
        write_lake(store, tmp_path / "lake", Selection())


def test_a_cancelled_run_moves_no_file_into_the_lake(tmp_path: Path) -> None:
    lake = tmp_path / "lake"
    game = get_game("motto")
    first = reserve_ids(lake, 1)
    cancelled = cancelled_file(lake, "run")
    cancelled.touch()
    played = simulate_one(game, BOTS, game_seed("motto", 0, 0))
    assert write_games(lake, [played], first, "run-0000000000", cancelled) == ()
    assert sorted(path.name for path in lake.iterdir()) == [".cancelled-run", ".ids"]
    discard_run(lake, "run")
    assert sorted(path.name for path in lake.iterdir()) == [".ids"]
