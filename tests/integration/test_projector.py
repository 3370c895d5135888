"""The projector: it follows the event log from each game's stored position, a batch of games per transaction,
catches up after a crash, and readers of facts never see a game it has only half projected."""

from __future__ import annotations

import io
from collections import OrderedDict
from pathlib import Path

import duckdb
import pytest

from loom.engine.registry import PACKAGES, get_game
from loom.replay import queries
from loom.replay.facts import Facts
from loom.replay.live import add_game, append_played, dealt_game, played_action
from loom.replay.logfile import export_lines, import_file
from loom.replay.projector import Kept, Projector, Work, fold_games, project, rebuild
from loom.replay.replay import position
from loom.replay.simulate import simulate
from loom.replay.store import SCHEMA_VERSION, Seat, Store

FACTS = ("SELECT * FROM turn_facts ORDER BY ALL", "SELECT * FROM game_facts ORDER BY ALL")
POSITIONS = "SELECT game_id, seq FROM projected ORDER BY game_id"


def facts(store: Store) -> tuple[list[tuple[object, ...]], ...]:
    return tuple(store.con.execute(sql).fetchall() for sql in FACTS)


def rows(store: Store, sql: str) -> list[tuple[object, ...]]:
    return store.con.execute(sql).fetchall()


def imported_copy(store: Store, path: Path) -> Store:
    """A new store holding every game of `store`, imported from its logs (so, with no facts yet), same ids."""
    log = "\n".join(line for info in reversed(store.games(limit=1000)) for line in export_lines(store, info.id))
    copy = Store.open(path)
    import_file(copy, io.StringIO(log))
    return copy


def reported(store: Store, game: str) -> int:
    """How many games a report of `game` covers."""
    return len(store.choose_games(game).frame(queries.LENGTHS))


@pytest.mark.parametrize("name", list(PACKAGES))
def test_the_projector_from_position_0_gives_the_facts_recorded_while_simulating(tmp_path: Path, name: str) -> None:
    with Store.open(tmp_path / "played.duckdb") as played:
        simulate(played, get_game(name), 4, ["greedy", "random", "random"], seed=6, facts=True)
        recorded = facts(played)
        with imported_copy(played, tmp_path / "imported.duckdb") as copy:
            assert facts(copy) == ([], []) and copy.games_behind() == 4
            assert project(copy) == 4
            assert facts(copy) == recorded
            assert rows(copy, POSITIONS) == [(i.id, i.last_seq) for i in reversed(copy.games())]


def test_a_game_simulated_with_its_facts_is_stored_projected_to_its_last_event(store: Store) -> None:
    ids = simulate(store, get_game("motto"), 3, ["random", "random"], seed=1, facts=True)
    assert rows(store, POSITIONS) == [(i, store.game(i).last_seq) for i in ids]
    assert store.games_behind() == 0 and project(store) == 0


def test_a_simulation_leaves_the_facts_to_the_projector(store: Store) -> None:
    simulate(store, get_game("motto"), 3, ["random", "random"], seed=1)
    assert facts(store) == ([], []) and store.games_behind() == 3
    assert project(store) == 3 and store.games_behind() == 0


def test_a_crash_between_batches_leaves_each_game_at_its_old_or_new_position_and_the_next_run_completes(
    tmp_path: Path,
) -> None:
    with Store.open(tmp_path / "played.duckdb") as played:
        simulate(played, get_game("moorea"), 5, ["random", "random"], seed=2, facts=True)
        recorded = facts(played)
        copy = imported_copy(played, tmp_path / "crashed.duckdb")

    def crash(done: int) -> None:
        raise RuntimeError("killed after the first batch")

    with copy, pytest.raises(RuntimeError, match="killed"):
        Projector(copy, batch=2).catch_up(crash)
    with Store.open(tmp_path / "crashed.duckdb") as reopened:
        assert rows(reopened, POSITIONS) == [(1, reopened.game(1).last_seq), (2, reopened.game(2).last_seq)]
        projected = {game_id for (game_id,) in rows(reopened, "SELECT DISTINCT game_id FROM turn_facts")}
        assert projected == {1, 2}
        assert reopened.games_behind() == 3 and reported(reopened, "moorea") == 2
        assert project(reopened) == 3
        assert facts(reopened) == recorded and reported(reopened, "moorea") == 5


def test_a_failed_batch_writes_nothing(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    simulate(store, get_game("motto"), 2, ["random", "random"], seed=3)
    store.con.execute("DELETE FROM turn_facts; DELETE FROM game_facts; DELETE FROM projected")
    projector = Projector(store)
    monkeypatch.setattr(projector, "_write", lambda *args: (_ for _ in ()).throw(RuntimeError("disk full")))
    with pytest.raises(RuntimeError, match="disk full"):
        projector.step()
    assert facts(store) == ([], []) and rows(store, POSITIONS) == [] and store.games_behind() == 2


def test_a_reader_never_sees_a_half_projected_game(store: Store) -> None:
    game = get_game("stones-of-fate")
    game_id = add_game(store, dealt_game(game, [Seat("ann"), Seat("bob")], seed=8))
    while game.to_move((at := position(store, game_id)).state) is not None:
        played = played_action(game, at.state, at.info.seed, at.seq, game.action_json(game.legal_actions(at.state)[-1]))
        append_played(store, game_id, game, at.state, played, at.seq)
        if at.seq % 3 == 0:
            project(store)  # projected now and then: part of the game, a turn in parts
    assert store.game(game_id).status == "finished"
    assert store.report_behind("stones-of-fate") == 1 and reported(store, "stones-of-fate") == 0
    project(store)
    assert store.report_behind("stones-of-fate") == 0 and reported(store, "stones-of-fate") == 1


def schema_3_store(path: Path) -> None:
    """A store as schema 3 left it: every game's facts written with its events, no positions table."""
    with Store.open(path) as store:
        simulate(store, get_game("motto"), 3, ["greedy", "random"], seed=7, facts=True)
    con = duckdb.connect(str(path))
    con.execute("DROP TABLE projected")
    con.execute("UPDATE meta SET value = '3' WHERE key = 'schema_version'")
    con.close()


def test_a_store_of_schema_3_is_read_as_projected_without_being_written(tmp_path: Path) -> None:
    path = tmp_path / "old.duckdb"
    schema_3_store(path)
    with Store.open(path, read_only=True) as old:
        assert rows(old, "SELECT value FROM meta WHERE key = 'schema_version'") == [("3",)]
        assert old.games_behind() == 0 and reported(old, "motto") == 3


def test_a_store_of_schema_3_migrates_without_projecting_anything_twice(tmp_path: Path) -> None:
    path = tmp_path / "old.duckdb"
    schema_3_store(path)
    with duckdb.connect(str(path)) as con:  # a game stored before its facts were kept (a schema-1 store's)
        con.execute("DELETE FROM turn_facts WHERE game_id = 3; DELETE FROM game_facts WHERE game_id = 3")
    with Store.open(path) as migrated:
        before = facts(migrated)
        assert rows(migrated, "SELECT value FROM meta WHERE key = 'schema_version'") == [(str(SCHEMA_VERSION),)]
        assert rows(migrated, POSITIONS) == [(1, migrated.game(1).last_seq), (2, migrated.game(2).last_seq)]
        assert project(migrated) == 1  # game 3 only
        after = facts(migrated)
        assert [row for row in after[0] if row[0] != 3] == before[0]
        assert rebuild(migrated) == 3
        assert facts(migrated) == after


def _play_on(store: Store, game_id: int, moves: int) -> None:
    game = get_game("motto")
    for _ in range(moves):
        at = position(store, game_id)
        played = played_action(game, at.state, at.info.seed, at.seq, game.action_json(game.legal_actions(at.state)[-1]))
        append_played(store, game_id, game, at.state, played, at.seq)


def test_a_state_kept_by_a_pass_that_was_rolled_back_is_never_folded_on(store: Store) -> None:
    """A failed pass leaves its game at its old position, while the folder kept its state at the new one: the next
    pass reads the state at the old position again, and the facts are a rebuild's."""
    game_id = add_game(store, dealt_game(get_game("motto"), [Seat("ann"), Seat("bob")], seed=8))
    projector = Projector(store)
    projector.catch_up()
    _play_on(store, game_id, 6)
    projector._write = lambda *args: (_ for _ in ()).throw(RuntimeError("disk full"))  # type: ignore[method-assign]
    with pytest.raises(RuntimeError, match="disk full"):
        projector.step()
    assert projector.kept[game_id][0] == store.game(game_id).last_seq > rows(store, POSITIONS)[0][1]
    del projector._write
    assert projector.catch_up() == 1
    projected = facts(store)
    rebuild(store)
    assert facts(store) == projected


def test_a_folder_without_the_state_at_a_games_position_asks_for_it(store: Store) -> None:
    simulate(store, get_game("motto"), 1, ["random", "random"], seed=3)
    (info,) = store.games()
    kept: Kept = OrderedDict({info.id: (info.last_seq - 1, get_game("motto").blank())})
    assert fold_games([Work(info, info.last_seq - 2, [], None, False)], kept) == [None]
    folded = fold_games([Work(info, info.last_seq, [], position(store, info.id).state, False)], kept)
    assert folded == [(Facts(), [])] and kept[info.id][0] == info.last_seq
