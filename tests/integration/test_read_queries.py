"""How many DuckDB queries a replayed position and a bulk read cost, and that a kept game row is never wrong."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from loom.engine.registry import get_game
from loom.events.registry import encode_payload
from loom.replay.branches import branch, continue_game
from loom.replay.reading import SHORT_PAYLOAD
from loom.replay.replay import fold, position
from loom.replay.simulate import simulate, simulate_one
from loom.replay.store import Store, UnknownGameId


class Counting:
    """The store's real DuckDB connection, counting the statements it runs."""

    def __init__(self, con: Any) -> None:
        self.con, self.calls = con, 0

    def execute(self, *args: Any) -> Any:
        self.calls += 1
        return self.con.execute(*args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.con, name)


def _queries(store: Store, game_id: int, turn: int) -> int:
    counting = Counting(store.db.con)
    real, store.db.con = store.db.con, counting  # type: ignore[assignment]
    try:
        position(store, game_id, turn=turn)
    finally:
        store.db.con = real
    return counting.calls


def test_a_read_only_store_replays_a_game_it_has_read_in_one_query(tmp_path: Path) -> None:
    path = tmp_path / "loom.duckdb"
    with Store.open(path) as store:
        (game_id,) = simulate(store, get_game("motto"), 1, ["greedy", "random"], seed=1)
    with Store.open(path, read_only=True) as store:
        assert _queries(store, game_id, 3) == 2  # the game's row, then its events
        assert _queries(store, game_id, 5) == 1  # the row is kept: only the events
        assert position(store, game_id, turn=5).state == _fresh_state(path, game_id, 5)


def _fresh_state(path: Path, game_id: int, turn: int) -> Any:
    with Store.open(path, read_only=True) as store:
        return position(store, game_id, turn=turn).state


def test_a_writable_store_sees_a_game_grow_after_reading_it(store: Store) -> None:
    game = get_game("motto")
    ids = store.add_games([simulate_one(game, ["random", "random"], "grow")])
    open_id = branch(store, ids[0], 5, [], None)
    before = position(store, open_id).seq
    last = continue_game(store, open_id, [{"type": "draw"}], None)
    assert last > before and position(store, open_id).seq == last
    assert store.game_row(open_id).last_seq == last


# --- Every store reads a position in one query; a kept row may be older than the file, never wrong --------------


def test_a_writable_store_replays_a_game_it_has_read_in_one_query(store: Store) -> None:
    (game_id,) = simulate(store, get_game("motto"), 1, ["greedy", "random"], seed=1)
    assert _queries(store, game_id, 3) == 2  # the rows of the game and its neighbours, then its events
    assert _queries(store, game_id, 5) == 1  # the row is kept: only the events
    assert position(store, game_id, turn=5).state == _fold_before(store, game_id, 5)


def test_an_append_forgets_the_games_kept_row(store: Store) -> None:
    game = get_game("motto")
    (root,) = store.add_games([simulate_one(game, ["random", "random"], "forget")])
    open_id = branch(store, root, 5, [], None)
    before = position(store, open_id)
    assert open_id in store.rows.rows
    last = continue_game(store, open_id, [{"type": "draw"}], None)
    assert open_id not in store.rows.rows
    after = position(store, open_id)
    assert (after.seq, after.info.last_seq) == (last, last) and after.seq > before.seq


def test_a_cursor_sees_what_another_cursor_appended(store: Store) -> None:
    game = get_game("motto")
    (root,) = store.add_games([simulate_one(game, ["random", "random"], "cursors")])
    open_id = branch(store, root, 5, [], None)
    reader, writer = store.cursor(), store.cursor()  # as the service's threads: the kept rows are shared
    assert position(reader, open_id).seq == store.game_row(open_id).last_seq
    last = continue_game(writer, open_id, [{"type": "draw"}], None)
    assert position(reader, open_id).seq == last


def test_a_store_whose_kept_row_is_behind_the_file_still_reads_the_newest_state(store: Store) -> None:
    game = get_game("motto")
    (root,) = store.add_games([simulate_one(game, ["random", "random"], "behind")])
    open_id = branch(store, root, 5, [], None)
    behind = Store(store.db.cursor())  # rows kept apart from the writer's: it never hears of the append
    old = position(behind, open_id)
    last = continue_game(store, open_id, [], "random")  # played to its end
    assert behind.kept_row(open_id).last_seq == old.seq < last  # its kept row is now older than the file
    assert behind.load(open_id, after=old.seq - 1, upto=last) == store.load(open_id, after=old.seq - 1)
    end = position(behind, open_id)
    assert (end.seq, end.info.last_seq, end.state) == (last, last, position(store, open_id).state)
    newest = store.game_row(open_id)
    at = position(behind, open_id, turn=newest.turns)  # a turn beyond the kept row: the row is read again
    assert at.state == _fold_before(store, open_id, newest.turns)


def test_a_late_position_of_a_long_game_is_one_query_from_a_snapshot(store: Store) -> None:
    moorea = get_game("moorea")
    (game_id,) = simulate(store, moorea, 1, ["random"] * 4, seed=1)
    info = store.game_row(game_id)
    position(store, game_id, turn=2)  # its row is kept, and where its snapshots are, once a position needed them
    turn = info.turns - 2
    read = []
    real = store.read_position

    def reading(*args: Any) -> Any:
        read.append(real(*args))
        return read[-1]

    store.read_position = reading  # type: ignore[method-assign]
    assert _queries(store, game_id, turn) == 1
    assert read[-1][0] is not None  # it started from a snapshot
    assert position(store, game_id, turn=turn).state == fold(moorea, [e for e in store.load(game_id) if e.turn < turn])


def test_a_kept_snapshot_dropped_from_the_file_is_not_needed(store: Store) -> None:
    moorea = get_game("moorea")
    (game_id,) = simulate(store, moorea, 1, ["random"] * 4, seed=1)
    turn = store.game_row(game_id).turns - 2
    position(store, game_id, turn=turn - 1)
    assert store.rows.get(store.db, game_id).snapshots  # their places are kept with the row
    store.con.execute("DELETE FROM snapshots WHERE game_id = ?", [game_id])
    assert position(store, game_id, turn=turn).state == fold(moorea, [e for e in store.load(game_id) if e.turn < turn])


def test_many_games_read_in_bulk_are_each_games_events(store: Store) -> None:
    game = get_game("motto")
    ids = simulate(store, game, 5, ["greedy", "random"], seed=2)
    child = branch(store, ids[1], 6, [], "greedy")
    wanted = [child, *ids[::-1]]
    read = list(store.load_many(wanted, chunk=2))
    assert [info.id for info, _ in read] == wanted
    for info, events in read:
        assert info == store.game_row(info.id)
        assert events == store.load(info.id)
    assert read[0][1][0].game_id == child and read[0][1][-1].seq == store.game_row(child).last_seq


def test_many_games_cost_two_queries_a_chunk(store: Store) -> None:
    ids = simulate(store, get_game("motto"), 6, ["greedy", "random"], seed=2)
    counting = Counting(store.db.con)
    real, store.db.con = store.db.con, counting  # type: ignore[assignment]
    try:
        assert len(list(store.load_many(ids, chunk=3))) == 6
    finally:
        store.db.con = real
    assert counting.calls == 4  # per chunk: the rows, then the events


def test_many_games_with_an_unknown_id_fail_with_its_id(store: Store) -> None:
    ids = simulate(store, get_game("motto"), 2, ["greedy", "random"], seed=2)
    with pytest.raises(UnknownGameId, match="no game with id 99"):
        list(store.load_many([ids[0], 99]))


def _fold_before(store: Store, game_id: int, turn: int) -> Any:
    game = get_game(store.game_row(game_id).game)
    return fold(game, [e for e in store.load(game_id) if e.turn < turn])


def test_a_short_payload_is_decoded_once_and_a_long_one_every_time(store: Store) -> None:
    (game_id,) = simulate(store, get_game("motto"), 1, ["greedy", "random"], seed=4)
    first, again = store.load(game_id), store.load(game_id)
    assert first == again
    short = [n for n, e in enumerate(first) if len(encode_payload(e.payload)) <= SHORT_PAYLOAD]
    long = [n for n, e in enumerate(first) if len(encode_payload(e.payload)) > SHORT_PAYLOAD]
    assert short and long  # draws and takes; the deal and the shuffled deck
    assert all(first[n].payload is again[n].payload for n in short)  # immutable: one object serves every read
    assert not any(first[n].payload is again[n].payload for n in long)  # kept only while few: a deck is one-off
