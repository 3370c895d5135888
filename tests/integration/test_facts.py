"""The per-turn and game facts projections: kept as games are recorded (by a simulation, or by the projector after
appends), equal to what a rebuild from events gives."""

from __future__ import annotations

from pathlib import Path

import pytest

from loom.engine.registry import PACKAGES, get_game
from loom.replay.branches import branch, continue_game
from loom.replay.live import add_game, append_played, dealt_game, played_action
from loom.replay.projector import project, rebuild
from loom.replay.replay import position
from loom.replay.simulate import simulate
from loom.replay.store import Seat, Store

TURN_FACTS = "SELECT * FROM turn_facts ORDER BY ALL"
GAME_FACTS = "SELECT * FROM game_facts ORDER BY ALL"


def rows(store: Store, sql: str) -> list[tuple[object, ...]]:
    return store.con.execute(sql).fetchall()


@pytest.mark.parametrize("name", list(PACKAGES))
def test_facts_kept_while_simulating_equal_those_rebuilt_from_events(store: Store, name: str) -> None:
    simulate(store, get_game(name), 3, ["greedy", "random", "random"], seed=5, facts=True)
    kept = rows(store, TURN_FACTS), rows(store, GAME_FACTS)
    assert kept[0]
    rebuild(store)
    assert (rows(store, TURN_FACTS), rows(store, GAME_FACTS)) == kept


def test_a_turn_has_a_row_per_seat_with_the_score_at_its_end(store: Store) -> None:
    (game_id,) = simulate(store, get_game("motto"), 1, ["greedy", "random"], seed=2)
    project(store)
    info = store.game(game_id)
    facts = rows(store, "SELECT turn, seat, score FROM turn_facts ORDER BY turn, seat")
    assert [(t, s) for t, s, _ in facts] == [(t, s) for t in range(1, info.turns + 1) for s in range(2)]
    at_turn_5 = position(store, game_id, turn=6)  # the start of turn 6 is the end of turn 5
    assert [score for t, _, score in facts if t == 5] == at_turn_5.game.scores(at_turn_5.state)


def test_a_game_played_action_by_action_gets_the_facts_a_rebuild_gives(store: Store) -> None:
    (root,) = simulate(store, get_game("moirai"), 1, ["random"] * 3, seed=4)
    game_id = branch(store, root, 5, [], None)  # an open game forked at turn 5
    game = get_game("moirai")
    for _ in range(7):
        at = position(store, game_id)
        continue_game(store, game_id, [game.action_json(game.legal_actions(at.state)[0])], None)
        project(store)  # the projector after every append: a turn projected in parts
    continue_game(store, game_id, [], "random")
    project(store)
    kept = rows(store, TURN_FACTS), rows(store, GAME_FACTS)
    rebuild(store)
    assert (rows(store, TURN_FACTS), rows(store, GAME_FACTS)) == kept


def test_a_branch_keeps_facts_of_its_own_turns_only(store: Store) -> None:
    (root,) = simulate(store, get_game("motto"), 1, ["random"] * 3, seed=4)
    child = branch(store, root, 10, [], "random")
    project(store)
    turns = rows(store, f"SELECT min(turn) FROM turn_facts WHERE game_id = {child}")
    assert turns == [(10,)]


def test_a_database_of_schema_1_gains_the_new_projections_when_opened(tmp_path: Path) -> None:
    path = tmp_path / "old.duckdb"
    with Store.open(path) as old:
        simulate(old, get_game("motto"), 1, ["random"] * 2, seed=1)
        old.con.execute("DROP TABLE turn_facts; DROP TABLE game_facts; DROP TABLE win_chances; DROP TABLE key_moments")
        old.con.execute("UPDATE meta SET value = '1' WHERE key = 'schema_version'")
    with Store.open(path) as upgraded:
        assert rows(upgraded, "SELECT value FROM meta WHERE key = 'schema_version'") == [("5",)]
        assert rebuild(upgraded) == 1
        assert rows(upgraded, "SELECT count(*) FROM turn_facts")[0][0] > 0


def test_a_live_game_appended_action_by_action_gets_the_facts_a_rebuild_gives(store: Store) -> None:
    game = get_game("stones-of-fate")
    game_id = add_game(store, dealt_game(game, [Seat("ann", None), Seat("bob", None)], seed=8))
    while game.to_move((at := position(store, game_id)).state) is not None:
        action = game.action_json(game.legal_actions(at.state)[-1])
        played = played_action(game, at.state, at.info.seed, at.seq, action)
        append_played(store, game_id, game, at.state, played, at.seq)
        project(store)
    kept = rows(store, TURN_FACTS), rows(store, GAME_FACTS)
    assert kept[1]
    rebuild(store)
    assert (rows(store, TURN_FACTS), rows(store, GAME_FACTS)) == kept


def test_the_facts_tables_carry_no_key_index(store: Store) -> None:
    keyed = rows(store, "SELECT table_name FROM duckdb_constraints() WHERE constraint_type = 'PRIMARY KEY'")
    assert {name for (name,) in keyed}.isdisjoint({"turn_facts", "game_facts"})
    assert {"games", "results"} <= {name for (name,) in keyed}


def test_games_appended_side_by_side_and_projected_together_get_the_facts_a_rebuild_gives(store: Store) -> None:
    # Each pass projects three games at once, each continuing a turn it had partly projected: merged as a batch.
    game = get_game("motto")
    ids = [add_game(store, dealt_game(game, [Seat("A"), Seat("B"), Seat("C")], seed=seed)) for seed in (1, 2, 3)]
    for _ in range(40):
        for game_id in ids:
            at = position(store, game_id)
            if game.to_move(at.state) is None:
                continue
            action = game.action_json(game.legal_actions(at.state)[0])
            played = played_action(game, at.state, at.info.seed, at.seq, action)
            append_played(store, game_id, game, at.state, played, at.seq)
        assert project(store) == len(ids)
    kept = rows(store, TURN_FACTS), rows(store, GAME_FACTS)
    assert kept[0]
    rebuild(store)
    assert (rows(store, TURN_FACTS), rows(store, GAME_FACTS)) == kept
