"""How many DuckDB queries a replayed position costs, and that a kept game row is never stale."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from loom.engine.registry import get_game
from loom.replay.branches import branch, continue_game
from loom.replay.replay import position
from loom.replay.simulate import simulate, simulate_one
from loom.replay.store import Store


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
