"""Every `logs` command for Stones of Fate through typer's runner, as tests/cli/test_commands.py does for Motto."""

from __future__ import annotations

import json
from pathlib import Path

from loom.engine.registry import get_game
from tests.cli.run import EXAMPLES, check_export_then_import, exports_of_two_runs, fails, ok, recorded_databases

EXAMPLE = EXAMPLES / "stones-of-fate-table-game.jsonl"
GAME = "stones-of-fate"

# `recorded`: four three-player games, greedy against random, built once for the module; `db`: a fresh copy.
recorded, db = recorded_databases(GAME, 4)


def test_simulate_records_games_for_two_to_four_players(tmp_path: Path) -> None:
    db = tmp_path / "sim.duckdb"
    for players in ("2", "3", "4"):
        ok("simulate", GAME, "-n", "1", "-p", players, "--seed", "5", "--db", db)
    data = json.loads(ok("simulate", GAME, "-n", "2", "--bot", "greedy", "--db", db, "--json"))
    assert data["ids"] == [4, 5]
    assert "2 to 4 players, not 5" in fails("simulate", GAME, "-p", "5", "--db", db)


def test_simulate_is_reproducible_from_its_seed(tmp_path: Path) -> None:
    exports = exports_of_two_runs(tmp_path, "1", GAME, "-n", "1", "--seed", "9")
    assert exports[0] == exports[1]


def test_list_and_show_with_the_breakdown(db: Path) -> None:
    rows = json.loads(ok("list", "--game", GAME, "--db", db, "--json"))
    assert [row["id"] for row in rows] == [4, 3, 2, 1] and {row["game"] for row in rows} == {GAME}
    data = json.loads(ok("show", "1", "--db", db, "--json"))
    assert max(data["scores"]) == data["scores"][data["winners"][0]]
    breakdown = data["breakdown"][0]
    assert set(breakdown) == {"printed", "rules", "cards", "major"}
    assert "printed" in ok("show", "1", "--db", db) and "Stones of Fate" in ok("show", "1", "--db", db)


def test_replay_at_a_turn_and_an_event_as_json_and_drawn(db: Path) -> None:
    data = json.loads(ok("replay", "1", "--turn", "3", "--db", db, "--json"))
    assert (data["game"], data["turn"], data["state"]["turn"], data["state"]["to_move"]) == (GAME, 3, 2, 2)
    assert len(data["state"]["spread"]) == 9 and data["state"]["actions"] == 0
    text = ok("replay", "1", "--turn", "5", "--db", db)
    assert "start of turn 5" in text and "Spread" in text and "supply" in text
    assert "after event 7" in ok("replay", "1", "--seq", "7", "--db", db)
    assert "game over" in ok("replay", "1", "--db", db)


def test_replay_as_a_seat_shows_exactly_what_it_knows(db: Path) -> None:
    """`--as` hides the deck and the cards refilled unseen; the setup spread is remembered by every seat."""
    first = json.loads(ok("replay", "1", "--turn", "1", "--as", "1", "--db", db, "--json"))["state"]
    assert all(cell["card"] for cell in first["spread"]) and set(first["deck"]) == {None}
    omniscient = json.loads(ok("replay", "1", "--turn", "30", "--db", db, "--json"))["state"]
    seen = [
        json.loads(ok("replay", "1", "--turn", "30", "--as", str(s), "--db", db, "--json"))["state"] for s in range(3)
    ]
    for seat, view in enumerate(seen):
        assert view["known"][(seat + 1) % 3] == {} and view["deck_top"] in (
            None,
            *(c for c in omniscient["deck"] or []),
        )
        for mine, full in zip(view["spread"], omniscient["spread"], strict=True):
            assert mine["card"] in (None, full["card"])
    assert any(cell["card"] is None for view in seen for cell in view["spread"] if not cell["empty"])
    assert "as seen by seat 2" in ok("replay", "1", "--turn", "30", "--as", "2", "--db", db)


def test_branch_with_a_played_action_and_a_bot_then_the_tree(db: Path) -> None:
    data = json.loads(ok("branch", "1", "--turn", "4", "--bot", "greedy", "--db", db, "--json"))
    assert data == {"ids": [5]}
    ok("branch", "5", "--turn", "6", "--play", '{"type": "peek", "at": "deck"}', "--play",
       '{"type": "move", "from": "supply", "to": "b2-left"}', "--db", db)  # fmt: skip
    tree = json.loads(ok("tree", "1", "--db", db, "--json"))
    assert tree["branches"][0]["id"] == 5 and tree["branches"][0]["branches"][0]["id"] == 6
    assert "fork at turn 4" in ok("tree", "1", "--db", db)
    state = json.loads(ok("replay", "6", "--db", db, "--json"))["state"]
    assert state["stones"][(6 - 1) % 3].get("b1-right", 0) >= 1  # turn 6 is seat 2's; b2-left is the edge b1-right


def test_play_continues_an_open_branch(db: Path) -> None:
    ok("branch", "1", "--turn", "6", "--db", db)
    data = json.loads(
        ok("play", "5", "--play", '{"type": "flip", "at": "b2"}', "--bot", "random", "--db", db, "--json")
    )
    assert data["status"] == "finished"


def test_an_illegal_action_writes_nothing(db: Path) -> None:
    message = fails(
        "branch", "1", "--turn", "3", "--play", '{"type": "move", "from": "a9-top", "to": "supply"}', "--db", db
    )
    assert "is not an edge" in message
    assert "not a Stones of Fate action" in fails(
        "branch", "1", "--turn", "3", "--play", '{"type": "dance"}', "--db", db
    )
    assert len(json.loads(ok("list", "--db", db, "--json"))) == 4


def test_export_then_import_round_trips(db: Path, tmp_path: Path) -> None:
    check_export_then_import(db, tmp_path, "2")


def test_import_the_hand_written_example_and_continue_it(tmp_path: Path) -> None:
    db = tmp_path / "table.duckdb"
    assert "imported 1 game" in ok("import", EXAMPLE, "--db", db)
    state = json.loads(ok("replay", "1", "--db", db, "--json"))["state"]
    assert state["scores"] == [5, 1] and state["deck"] is None and not state["over"]
    assert json.loads(ok("play", "1", "--bot", "greedy", "--db", db, "--json"))["status"] == "finished"


def test_an_illegal_line_in_a_log_names_its_reason(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    lines = EXAMPLE.read_text().splitlines()
    path.write_text(
        "\n".join([*lines[:8], '{"type": "stones-of-fate.won", "at": "a1", "card": "the-empress", "winner": 1}'])
    )
    assert "line 9: the-empress is won by seat 0 (S8), not 1; nothing was imported" in fails(
        "import", path, "--db", tmp_path / "x.duckdb"
    )
    get_game("motto")  # Motto's events are known, but not Stones of Fate's
    path.write_text("\n".join([*lines[:3], '{"type": "motto.took", "card": "red-3-love"}']))
    assert "motto.took is not an event of stones-of-fate" in fails("import", path, "--db", tmp_path / "x.duckdb")


def test_demo_for_stones_of_fate(tmp_path: Path) -> None:
    text = ok("demo", "--game", GAME, "--games", "3", "--db", tmp_path / "demo.duckdb")
    for part in ("Simulate", "Stones of Fate", "Branch it", "fork at turn"):
        assert part in text


def test_rebuild_recomputes_the_projections(db: Path) -> None:
    assert "rebuilt the projections of 4 games" in ok("rebuild", "--db", db)
