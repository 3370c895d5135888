"""Every `logs` command for Moorea through typer's runner, as tests/cli/test_commands.py does for Motto."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.run import EXAMPLES, check_export_then_import, fails, ok, recorded_databases

EXAMPLE = EXAMPLES / "moorea-table-game.jsonl"

# `recorded`: three three-player Moorea games, greedy against random, made once for the module; `db`: a fresh copy.
recorded, db = recorded_databases("moorea", 3)


def test_simulate_records_moorea_games_for_every_player_count(tmp_path: Path) -> None:
    db = tmp_path / "sim.duckdb"
    for players in (2, 5):
        ok("simulate", "moorea", "-n", "1", "-p", str(players), "--bot", "greedy", "--db", db)
    data = json.loads(ok("simulate", "moorea", "-n", "1", "-p", "3", "--seed", "5", "--db", db, "--json"))
    assert data == {"ids": [3], "seed": 5}
    assert "2 to 5 players, not 6" in fails("simulate", "moorea", "-p", "6", "--db", db)


def test_list_and_show_with_the_breakdown(recorded: Path) -> None:
    rows = json.loads(ok("list", "--game", "moorea", "--db", recorded, "--json"))
    assert [row["id"] for row in rows] == [3, 2, 1] and {row["game"] for row in rows} == {"moorea"}
    data = json.loads(ok("show", "1", "--db", recorded, "--json"))
    assert data["game"] == "moorea" and data["status"] == "finished"
    for seat, parts in enumerate(data["breakdown"]):
        assert set(parts) == {"products", "tools", "stores", "necklaces"}
        assert sum(parts.values()) == data["scores"][seat]
    text = ok("show", "1", "--db", recorded)
    assert "Moorea" in text and "necklaces" in text


def test_replay_at_a_turn_by_event_and_as_a_seat(recorded: Path) -> None:
    data = json.loads(ok("replay", "1", "--turn", "7", "--db", recorded, "--json"))
    assert (data["game"], data["turn"]) == ("moorea", 7)
    assert data["state"]["turn"] == 6 and data["state"]["to_move"] == 6 % 3 and data["state"]["phase"] == "draw"
    seen = json.loads(ok("replay", "1", "--turn", "7", "--as", "0", "--db", recorded, "--json"))["state"]
    assert None not in seen["hands"][0] and all(card is None for card in seen["hands"][1] + seen["hands"][2])
    assert all(card is None for card in seen["deck"] + seen["pile"])
    omniscient = data["state"]
    assert None not in omniscient["hands"][1] and omniscient["layout"] == seen["layout"]
    assert "after event 9" in ok("replay", "1", "--seq", "9", "--db", recorded)
    text = ok("replay", "1", "--turn", "5", "--as", "1", "--db", recorded)
    assert "start of turn 5" in text and "Layout" in text and "as seen by seat 1" in text and "▒▒" in text
    assert "game over" in ok("replay", "1", "--db", recorded)


def test_branch_with_a_bot_and_with_actions_then_tree(db: Path) -> None:
    data = json.loads(ok("branch", "1", "--turn", "6", "--bot", "greedy", "--db", db, "--json"))
    assert data == {"ids": [4]}
    assert json.loads(ok("show", "4", "--db", db, "--json"))["status"] == "finished"
    ok("branch", "4", "--turn", "10", "--play", '{"type": "draw"}', "--play", '{"type": "pass"}', "--db", db)
    tree = json.loads(ok("tree", "1", "--db", db, "--json"))
    assert tree["branches"][0]["id"] == 4 and tree["branches"][0]["branches"][0]["id"] == 5
    assert "fork at turn 6" in ok("tree", "1", "--db", db)


def test_an_illegal_branch_action_is_refused_and_writes_nothing(db: Path) -> None:
    message = fails("branch", "1", "--turn", "3", "--play", '{"type": "pass"}', "--db", db)
    assert "must draw a commodity card first (R4)" in message
    assert "is not a Moorea product card" in fails(
        "branch", "1", "--turn", "3", "--play", '{"type": "buy", "product": "castle-1", "paid": []}', "--db", db
    )
    assert len(json.loads(ok("list", "--db", db, "--json"))) == 3


def test_play_continues_an_open_branch(db: Path) -> None:
    ok("branch", "1", "--turn", "6", "--db", db)
    ok("play", "4", "--play", '{"type": "draw"}', "--db", db)
    data = json.loads(ok("play", "4", "--play", '{"type": "pass"}', "--bot", "random", "--db", db, "--json"))
    assert data["status"] == "finished"


def test_export_then_import_round_trips(db: Path, tmp_path: Path) -> None:
    check_export_then_import(db, tmp_path, "2", scores=True)


def test_import_the_hand_written_example(tmp_path: Path) -> None:
    db = tmp_path / "table.duckdb"
    assert "imported 1 game" in ok("import", EXAMPLE, "--db", db)
    state = json.loads(ok("replay", "1", "--db", db, "--json"))["state"]
    assert state["players"] == ["Andrea", "Ben"] and state["tools"] == [[], ["spear"]]
    assert state["stores"][0] == {"jetty-1": ["canoe"]} and state["scores"] == [5, 4]


def test_a_broken_hand_written_line_is_refused_with_its_reason(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    lines = EXAMPLE.read_text().splitlines()
    path.write_text(
        "\n".join([*lines[:4], '{"type": "moorea.bought", "product": "jetty-1", "paid": ["wood", "wood"]}'])
    )
    message = fails("import", path, "--db", tmp_path / "x.duckdb")
    assert "line 5: the payment for jetty is 1 card(s) short; nothing was imported" in message


def test_demo_with_moorea(tmp_path: Path) -> None:
    text = ok("demo", "--game", "moorea", "--games", "2", "--db", tmp_path / "demo.duckdb")
    for part in ("Simulate 2 Moorea games", "Replay game 1", "Branch it", "tree of game 1", "fork at turn"):
        assert part in text


def test_rebuild_recomputes_moorea_results(db: Path) -> None:
    assert "rebuilt the projections of 3 games" in ok("rebuild", "--db", db)
