"""The Parquet lake: what DuckDB and pandas read of it, appends that only add files, and a store's round trip."""

from __future__ import annotations

import hashlib
from datetime import UTC
from pathlib import Path

import duckdb
import pandas as pd
import pyarrow.dataset as ds
import pytest

from loom.engine.registry import get_game
from loom.replay.branches import branch
from loom.replay.export import Selection
from loom.replay.lake import LakeError, import_lake, write_lake
from loom.replay.projector import project
from loom.replay.simulate import simulate
from loom.replay.store import Store

TABLES = ("games", "seats", "events", "results", "turn_facts", "game_facts")


def query(lake: Path, table: str, sql: str) -> list[tuple[object, ...]]:
    """The rows of `sql` over a lake table, named `t`, as DuckDB reads it, hive partitions and all."""
    files = f"read_parquet('{lake}/{table}/**/*.parquet', hive_partitioning = true)"
    return duckdb.sql(f"WITH t AS (SELECT * FROM {files}) {sql}").fetchall()


def files(lake: Path) -> dict[str, str]:
    """Every file of a lake (hidden ones too) and a hash of its bytes."""
    return {
        str(p.relative_to(lake)): hashlib.sha256(p.read_bytes()).hexdigest() for p in lake.rglob("*") if p.is_file()
    }


@pytest.fixture
def games(store: Store) -> list[int]:
    """Four Motto games, a branch of the first, and two Stones of Fate games."""
    motto = simulate(store, get_game("motto"), 4, ["greedy", "random", "random"], seed=5)
    child = branch(store, motto[0], 4, [], "greedy")
    return [*motto, child, *simulate(store, get_game("stones-of-fate"), 2, ["random", "random"], seed=6)]


def test_duckdb_reads_every_table_with_its_partitions(store: Store, games: list[int], tmp_path: Path) -> None:
    lake = tmp_path / "lake"
    write_lake(store, lake, Selection())
    for table in TABLES:
        assert {"game", "month"} <= {
            name for (name, *_) in query(lake, table, "SELECT * FROM (DESCRIBE SELECT * FROM t)")
        }
        assert query(lake, table, "SELECT count(*) FROM t") == [(store.count(table),)]
    kinds = dict(query(lake, "games", "SELECT game, count(*) FROM t GROUP BY game"))
    assert kinds == {"motto": 5, "stones-of-fate": 2}
    assert {path.parent.name for path in (lake / "events").rglob("*.parquet")} == {
        f"month={store.game(games[0]).created_at.astimezone(UTC).strftime('%Y-%m')}"
    }


def test_pandas_and_pyarrow_read_the_lake_as_it_is(store: Store, games: list[int], tmp_path: Path) -> None:
    lake = tmp_path / "lake"
    write_lake(store, lake, Selection())
    frame = pd.read_parquet(lake / "events")
    assert len(frame) == store.count("events") and set(frame["game"]) == {"motto", "stones-of-fate"}
    dataset = ds.dataset(lake / "results", format="parquet", partitioning="hive")
    assert dataset.count_rows() == store.count("results")


def test_payloads_are_the_stored_json_text(store: Store, games: list[int], tmp_path: Path) -> None:
    lake = tmp_path / "lake"
    write_lake(store, lake, Selection(ranges=((games[0], games[0]),)))
    [(payload,)] = query(lake, "events", "SELECT payload FROM t WHERE seq = 1")
    assert payload == store.db.one("SELECT payload FROM events WHERE game_id = ? AND seq = 1", [games[0]])[0]


def test_an_append_adds_files_and_changes_none(store: Store, games: list[int], tmp_path: Path) -> None:
    lake = tmp_path / "lake"
    first = write_lake(store, lake, Selection(game="motto"))
    before = files(lake)
    second = write_lake(store, lake, Selection())
    after = files(lake)
    assert {name: after[name] for name in before} == before
    assert set(after) - set(before) == set(second.files) and second.games == 2
    assert first.run != second.run and all(second.run in name for name in second.files)
    assert query(lake, "games", "SELECT count(*) FROM t") == [(len(games),)]


def test_a_game_already_in_the_lake_is_not_written_again(store: Store, games: list[int], tmp_path: Path) -> None:
    lake = tmp_path / "lake"
    write_lake(store, lake, Selection(ranges=((games[0], games[2]),)))
    again = write_lake(store, lake, Selection(ranges=((games[1], games[3]),)))
    assert again.games == 1
    assert write_lake(store, lake, Selection()).games == len(games) - 4
    assert write_lake(store, lake, Selection()).games == 0
    assert [game_id for (game_id,) in query(lake, "games", "SELECT id FROM t ORDER BY id")] == games
    events = query(lake, "events", "SELECT count(*), count(DISTINCT (game_id, seq)) FROM t")
    assert events == [(store.count("events"), store.count("events"))]


def test_a_branch_brings_the_game_it_forks_from(store: Store, games: list[int], tmp_path: Path) -> None:
    lake = tmp_path / "lake"
    child = games[4]
    written = write_lake(store, lake, Selection(ranges=((child, child),)))
    assert written.games == 2
    assert query(lake, "games", "SELECT id FROM t ORDER BY id") == [(games[0],), (child,)]


def test_another_stores_lake_is_refused(store: Store, games: list[int], tmp_path: Path) -> None:
    lake = tmp_path / "lake"
    with Store.open(tmp_path / "other.duckdb") as other:
        simulate(other, get_game("motto"), 1, ["random", "random"], seed=99)
        write_lake(other, lake, Selection())
    before = files(lake)
    with pytest.raises(LakeError, match="a lake holds the games of one store"):
        write_lake(store, lake, Selection())
    assert files(lake) == before


def test_a_lake_round_trips_to_a_fresh_store_and_back(store: Store, games: list[int], tmp_path: Path) -> None:
    lake, back = tmp_path / "lake", tmp_path / "back"
    write_lake(store, lake, Selection(branches=False))
    with Store.open(tmp_path / "fresh.duckdb") as fresh:
        mapping = import_lake(fresh, lake, Selection())
        assert list(mapping) == [i for i in games if i != games[4]] and sorted(mapping.values()) == [1, 2, 3, 4, 5, 6]
        for old, new in mapping.items():
            assert fresh.load(new) == [
                type(event)(new, event.seq, event.turn, event.actor, event.payload) for event in store.load(old)
            ]
            assert fresh.results(new) == store.results(old)
            assert fresh.game(new).seats == store.game(old).seats
        write_lake(fresh, back, Selection())
    events = "SELECT seq, turn, actor, type, version, payload FROM t ORDER BY game_id, seq"
    assert query(lake, "events", events) == query(back, "events", events)
    scores = "SELECT seat, score, rank, winner, breakdown FROM t ORDER BY game_id, seat"
    assert query(lake, "results", scores) == query(back, "results", scores)


def test_a_lake_import_takes_the_filters(store: Store, games: list[int], tmp_path: Path) -> None:
    lake = tmp_path / "lake"
    write_lake(store, lake, Selection())
    with Store.open(tmp_path / "fresh.duckdb") as fresh:
        mapping = import_lake(fresh, lake, Selection(game="stones-of-fate"))
        assert list(mapping) == games[5:]
        branched = import_lake(fresh, lake, Selection(ranges=((games[4], games[4]),)))
        assert fresh.load(branched[games[4]])[-1].payload == store.load(games[4])[-1].payload


def test_a_lake_import_is_all_or_nothing(store: Store, games: list[int], tmp_path: Path) -> None:
    lake = tmp_path / "lake"
    write_lake(store, lake, Selection())
    event = next((lake / "events").rglob("*.parquet"))
    table = duckdb.sql(
        f"SELECT * EXCLUDE (payload), CASE WHEN seq = 5 THEN '{{}}' ELSE payload END AS payload "
        f"FROM read_parquet('{event}')"
    )
    table.write_parquet(str(event), compression="zstd")
    with Store.open(tmp_path / "fresh.duckdb") as fresh:
        with pytest.raises(Exception, match="line"):
            import_lake(fresh, lake, Selection())
        assert fresh.count("games") == 0 and fresh.count("events") == 0


def test_a_folder_without_a_lake_is_refused(store: Store, tmp_path: Path) -> None:
    with pytest.raises(LakeError, match="no lake"):
        import_lake(store, tmp_path, Selection())


def test_an_export_from_a_writable_store_lets_the_projector_finish_the_facts_first(
    store: Store, games: list[int], tmp_path: Path
) -> None:
    assert store.games_behind() > 0  # simulate leaves the facts to the projector
    written = write_lake(store, tmp_path / "lake", Selection())
    assert (written.games, written.behind) == (len(games), 0)
    assert store.games_behind() == 0
    facts = query(tmp_path / "lake", "turn_facts", "SELECT count(*) FROM t")
    assert facts == [(store.count("turn_facts"),)]


def test_games_behind_the_projector_of_a_read_only_store_and_their_branches_are_left_out(tmp_path: Path) -> None:
    path, lake = tmp_path / "loom.duckdb", tmp_path / "lake"
    with Store.open(path) as store:
        first = simulate(store, get_game("motto"), 2, ["greedy", "random", "random"], seed=5)
        later = simulate(store, get_game("motto"), 1, ["greedy", "random", "random"], seed=6)
        child = branch(store, later[0], 4, [], "greedy")
        project(store)
        store.con.execute("DELETE FROM projected WHERE game_id = ?", [later[0]])  # its branch is projected; it is not
    with Store.open(path, read_only=True) as store:
        written = write_lake(store, lake, Selection())
    assert (written.games, written.behind) == (2, 2)
    assert query(lake, "games", "SELECT id FROM t ORDER BY id") == [(first[0],), (first[1],)]
    with Store.open(path) as store:  # once projected, the next export adds them
        assert write_lake(store, lake, Selection()).games == 2
    assert query(lake, "games", "SELECT id FROM t ORDER BY id") == [(first[0],), (first[1],), (later[0],), (child,)]
