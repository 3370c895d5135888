"""A lean file: the events carry no key index; the writer keeps one event per (game, seq); old stores migrate."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from loom.engine.registry import get_game
from loom.replay.branches import branch, continue_game
from loom.replay.logfile import export_lines
from loom.replay.simulate import simulate
from loom.replay.store import ConcurrencyError, EventColumns, NewGame, Seat, Store

# The events table as schema 2 created it: with its primary key.
SCHEMA_2_EVENTS = """
CREATE TABLE events (
    game_id INTEGER NOT NULL, seq INTEGER NOT NULL, turn INTEGER NOT NULL, actor INTEGER, type VARCHAR NOT NULL,
    version INTEGER NOT NULL, payload VARCHAR NOT NULL, PRIMARY KEY (game_id, seq)
)
"""
EVENTS = "SELECT * FROM events ORDER BY game_id, seq"
GAMES = "SELECT * EXCLUDE (fingerprint) FROM games ORDER BY id"  # the migration computes the fingerprints
VERSION = "SELECT value FROM meta WHERE key = 'schema_version'"


def rows(store: Store, sql: str, params: list[object] | None = None) -> list[tuple[object, ...]]:
    return store.con.execute(sql, params).fetchall()


def event_keys(store: Store) -> set[str]:
    """The constraints on the events table other than NOT NULL, and its indexes."""
    constraints = rows(store, "SELECT constraint_type FROM duckdb_constraints() WHERE table_name = 'events'")
    indexes = rows(store, "SELECT index_name FROM duckdb_indexes() WHERE table_name = 'events'")
    return {kind for (kind,) in constraints if kind != "NOT NULL"} | {name for (name,) in indexes}


def one_event(seq: int) -> EventColumns:
    return EventColumns([seq], [4], [0], ["motto.drew"], [1], ['{"card":"red-1-love"}'])


def open_game(store: Store) -> int:
    (root,) = simulate(store, get_game("motto"), 1, ["random"] * 3, seed=5)
    return branch(store, root, 4, [], None)


def exported(store: Store) -> list[list[str]]:
    return [list(export_lines(store, game.id)) for game in store.all_games()]


def test_a_new_store_keeps_its_events_without_a_key_index(store: Store) -> None:
    assert event_keys(store) == set()
    assert "PRIMARY KEY" in {kind for (kind,) in rows(store, "SELECT constraint_type FROM duckdb_constraints()")}


def test_a_game_whose_events_repeat_a_seq_is_refused_before_anything_is_written(store: Store) -> None:
    twice = EventColumns([1, 1], [0, 0], [None, None], ["motto.passed"] * 2, [1, 1], ["{}", "{}"])
    game = NewGame(game="motto", seats=[Seat("a"), Seat("b")], source="imported", seed=0, rules_version=1, events=twice)
    with pytest.raises(ValueError, match="numbered from 1 without gaps"):
        store.add_games([game])
    assert rows(store, "SELECT count(*) FROM events") == [(0,)]


def test_a_second_append_at_the_same_expected_seq_fails_and_writes_nothing(store: Store) -> None:
    game_id = open_game(store)
    at = store.game(game_id).last_seq
    store.append(game_id, one_event(at + 1), expected_seq=at, turns=4, status="open")
    kept = rows(store, EVENTS)
    with pytest.raises(ConcurrencyError, match=f"is at event {at + 1}, not {at}"):
        store.append(game_id, one_event(at + 1), expected_seq=at, turns=4, status="open")
    assert rows(store, EVENTS) == kept and store.game(game_id).last_seq == at + 1


def test_an_append_racing_an_uncommitted_one_fails_and_writes_nothing(store: Store) -> None:
    game_id = open_game(store)
    at = store.game(game_id).last_seq
    other = store.cursor()
    with store.transaction():
        store.append(game_id, one_event(at + 1), expected_seq=at, turns=4, status="open")  # not committed yet
        with pytest.raises(ConcurrencyError, match="another writer"):
            other.append(game_id, one_event(at + 1), expected_seq=at, turns=4, status="open")
    assert rows(store, "SELECT count(*) FROM events WHERE game_id = ? AND seq = ?", [game_id, at + 1]) == [(1,)]
    assert store.game(game_id).last_seq == at + 1


def test_an_append_that_another_writer_committed_past_fails_and_writes_nothing(store: Store) -> None:
    game_id = open_game(store)
    at = store.game(game_id).last_seq
    other = store.cursor()
    with pytest.raises(ConcurrencyError), store.transaction():
        assert store.game(game_id).last_seq == at  # this transaction's snapshot sees the game at `at`
        other.append(game_id, one_event(at + 1), expected_seq=at, turns=4, status="open")  # commits first
        store.append(game_id, one_event(at + 1), expected_seq=at, turns=4, status="open")
    assert rows(store, "SELECT count(*) FROM events WHERE game_id = ? AND seq = ?", [game_id, at + 1]) == [(1,)]


def schema_2_store(path: Path) -> None:
    """A store as schema 2 wrote it: its events under a primary key, not all in (game, seq) order."""
    with Store.open(path) as store:
        simulate(store, get_game("motto"), 3, ["greedy", "random"], seed=7)
        child = branch(store, 2, 6, [], None)  # its events come after game 3's in the file
        continue_game(store, child, [], "random")
        simulate(store, get_game("moirai"), 2, ["random"] * 3, seed=7)
    con = duckdb.connect(str(path))
    con.execute("CREATE TABLE unsorted AS SELECT * FROM events")
    con.execute("DROP TABLE events")
    con.execute(SCHEMA_2_EVENTS)
    con.execute("INSERT INTO events SELECT * FROM unsorted ORDER BY seq DESC")  # out of order on purpose
    con.execute("DROP TABLE unsorted")
    for column in ("fingerprint", "played", "place", "event", "round", "notes"):  # schema 5's
        con.execute(f"ALTER TABLE games DROP COLUMN {column}")
    con.execute("UPDATE meta SET value = '2' WHERE key = 'schema_version'")
    con.close()


def test_a_store_of_schema_2_is_read_as_it_is(tmp_path: Path) -> None:
    path = tmp_path / "old.duckdb"
    schema_2_store(path)
    with Store.open(path, read_only=True) as old:
        assert rows(old, VERSION) == [("2",)]
        assert event_keys(old) == {"PRIMARY KEY"}
        assert len(exported(old)) == 6


def test_a_store_of_schema_2_loses_the_event_key_and_keeps_every_game_and_event(tmp_path: Path) -> None:
    path = tmp_path / "old.duckdb"
    schema_2_store(path)
    with Store.open(path, read_only=True) as old:
        before = exported(old), rows(old, GAMES), rows(old, EVENTS)
    with Store.open(path) as migrated:
        assert rows(migrated, VERSION) == [("5",)]
        assert event_keys(migrated) == set()
        assert (exported(migrated), rows(migrated, GAMES), rows(migrated, EVENTS)) == before
        stored = rows(migrated, "SELECT game_id, seq FROM events")  # in the order of the file
        assert stored == sorted(stored)
        assert {name for (name,) in rows(migrated, "SELECT table_name FROM duckdb_tables()")} >= {"events", "games"}
        assert "events_keyed" not in {name for (name,) in rows(migrated, "SELECT table_name FROM duckdb_tables()")}


def test_a_migrated_store_still_refuses_a_conflicting_append(tmp_path: Path) -> None:
    path = tmp_path / "old.duckdb"
    schema_2_store(path)
    with Store.open(path) as migrated:
        game_id = open_game(migrated)
        at = migrated.game(game_id).last_seq
        migrated.append(game_id, one_event(at + 1), expected_seq=at, turns=4, status="open")
        with pytest.raises(ConcurrencyError):
            migrated.append(game_id, one_event(at + 1), expected_seq=at, turns=4, status="open")
        assert rows(migrated, "SELECT count(*) FROM events WHERE game_id = ?", [game_id]) == [(1,)]
