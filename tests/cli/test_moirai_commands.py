"""Every `logs` command for Moirai through typer's runner, as tests/cli/test_commands.py does for Motto."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.run import EXAMPLES, check_export_then_import, exports_of_two_runs, fails, ok, record

EXAMPLE = EXAMPLES / "moirai-table-game.jsonl"


@pytest.fixture
def db(tmp_path: Path) -> Path:
    """A database file with four recorded three-player Moirai games, greedy against random."""
    return record(tmp_path / "moirai.duckdb", "moirai", 4)


def test_simulate_records_games_and_prints_their_ids(tmp_path: Path) -> None:
    db = tmp_path / "sim.duckdb"
    data = json.loads(ok("simulate", "moirai", "--games", "3", "--players", "5", "--seed", "5", "--db", db, "--json"))
    assert data["ids"] == [1, 2, 3]
    assert "recorded 2 Moirai games" in ok("simulate", "moirai", "-n", "2", "-p", "2", "--bot", "greedy", "--db", db)


def test_simulate_is_reproducible_from_its_seed(tmp_path: Path) -> None:
    exports = exports_of_two_runs(tmp_path, "2", "moirai", "-n", "2", "--seed", "9")
    assert exports[0] == exports[1]


def test_bad_player_counts_are_refused(tmp_path: Path) -> None:
    assert "2 to 5 players, not 6" in fails("simulate", "moirai", "-p", "6", "--db", tmp_path / "x.duckdb")
    assert "no bot 'genius'" in fails("simulate", "moirai", "--bot", "genius", "--db", tmp_path / "x.duckdb")


def test_list_shows_moirai_games(db: Path) -> None:
    rows = json.loads(ok("list", "--game", "moirai", "--db", db, "--json"))
    assert [row["id"] for row in rows] == [4, 3, 2, 1] and {row["game"] for row in rows} == {"moirai"}
    assert "moirai" in ok("list", "--db", db)


def test_show_gives_scores_winners_and_the_breakdown_by_objective(db: Path) -> None:
    data = json.loads(ok("show", "1", "--db", db, "--json"))
    assert data["game"] == "moirai" and data["status"] == "finished"
    for seat, parts in enumerate(data["breakdown"]):
        assert len(parts) == 3 and [key.split()[0] for key in parts] == ["clotho", "lachesis", "atropos"]
        assert sum(parts.values()) == data["scores"][seat]
    best = max(data["scores"])
    assert all(data["scores"][w] == best for w in data["winners"])
    text = ok("show", "1", "--db", db)
    assert "Game 1" in text and "clotho" in text and "atropos" in text


def test_replay_at_a_turn_and_after_an_event_as_json(db: Path) -> None:
    data = json.loads(ok("replay", "1", "--turn", "4", "--db", db, "--json"))
    assert (data["id"], data["game"], data["turn"]) == (1, "moirai", 4)
    assert data["state"]["to_move"] == 0 and data["state"]["turn"] == 3 and data["state"]["drawn"] == []
    after = json.loads(ok("replay", "1", "--seq", "4", "--db", db, "--json"))["state"]
    assert after["turn"] == 1 and len(after["drawn"]) == 3  # just after seat 0's first draw
    end = json.loads(ok("replay", "1", "--db", db, "--json"))["state"]
    assert end["over"] and all(loom[0]["start"] is not None for loom in end["looms"])


def test_replay_as_a_seat_hides_the_starting_cards_and_others_draws(db: Path) -> None:
    state = json.loads(ok("replay", "1", "--seq", "4", "--as", "1", "--db", db, "--json"))["state"]
    assert all(loom[0]["start"] is None for loom in state["looms"])  # M3: nobody, not even seat 1, sees them
    assert state["drawn"] == [None, None, None]  # seat 0's draw, seen by seat 0 only
    own = json.loads(ok("replay", "1", "--seq", "4", "--as", "0", "--db", db, "--json"))["state"]
    assert None not in own["drawn"] and own["looms"][0][0]["start"] is None
    omniscient = json.loads(ok("replay", "1", "--seq", "4", "--db", db, "--json"))["state"]
    assert all(loom[0]["start"] is not None for loom in omniscient["looms"])


def test_replay_draws_the_table(db: Path) -> None:
    text = ok("replay", "1", "--turn", "5", "--db", db)
    assert "start of turn 5" in text and "Piles" in text and "Objectives" in text and "▒▒" not in text
    assert "after event" in ok("replay", "1", "--seq", "7", "--db", db)
    assert "game over" in ok("replay", "1", "--db", db)
    seen = ok("replay", "1", "--turn", "5", "--as", "2", "--db", db)
    assert "as seen by seat 2" in seen and "▒▒" in seen  # M3: the starting cards, face down


def test_branch_with_a_bot_and_with_actions_then_the_tree(db: Path) -> None:
    data = json.loads(ok("branch", "1", "--turn", "6", "--bot", "greedy", "--db", db, "--json"))
    assert data == {"ids": [5]}
    draw_then_open = ['{"type": "draw"}']
    ok("branch", "5", "--turn", "9", "--play", *draw_then_open, "--db", db)
    state = json.loads(ok("replay", "6", "--db", db, "--json"))["state"]
    kept = state["drawn"][0]
    place = json.dumps({"type": "keep", "place": [kept, "open", len(state["looms"][state["to_move"]]) + 1]})
    assert "finished" in ok("play", "6", "--play", place, "--bot", "random", "--db", db)
    tree = json.loads(ok("tree", "1", "--db", db, "--json"))
    assert tree["branches"][0]["id"] == 5 and tree["branches"][0]["branches"][0]["id"] == 6
    assert "fork at turn 6" in ok("tree", "1", "--db", db)


def test_branch_refuses_every_kind_of_impossible_placement_with_its_reason(tmp_path: Path) -> None:
    """At turn 6 of the table game Ben (life 1: 8, 40) takes the purple pile 22, 2, 66, 30; every wrong way is
    refused with its reason and nothing is written."""
    db = tmp_path / "table.duckdb"
    ok("import", EXAMPLE, "--db", db)

    def take(*placed: list[object], pile: str = "purple") -> str:
        action = json.dumps({"type": "take", "pile": pile, "place": list(placed)})
        return fails("branch", "1", "--turn", "6", "--play", action, "--db", db)

    assert "22 cannot follow 40 on life 1 (M5)" in take([22, "up", 1], [2, "open", 2], [30, "up", 2], [66, "up", 2])
    assert "only one card of a pile may go face down (M8)" in take(
        [2, "open", 2], [22, "open", 3], [30, "up", 3], [66, "up", 3]
    )
    assert "must be placed, each once (M8)" in take([2, "open", 2], [22, "up", 2], [30, "up", 2])
    ann_closes_an_empty_life = json.dumps({"type": "take", "pile": "green", "place": [[48, "close", 2]]})
    reason = "life 2 holds no face-up card yet, so it cannot be closed (M6)"
    assert reason in fails("branch", "1", "--turn", "9", "--play", ann_closes_an_empty_life, "--db", db)
    assert "there is no life 2: the loom has 1 life" in take([66, "up", 1], [2, "up", 2], [22, "up", 2], [30, "up", 2])
    assert "a new life is life 2, not life 4" in take([2, "open", 4], [22, "up", 4], [30, "up", 4], [66, "up", 4])
    assert "every card of the red pile (71) must be placed" in take([3, "up", 1], pile="red")
    assert "the green pile is empty (M8)" in take(pile="green")
    assert "is not a pile" in take(pile="gold")
    keep = json.dumps({"type": "keep", "place": [2, "up", 1]})
    assert "no cards were drawn this turn" in fails("branch", "1", "--turn", "6", "--play", keep, "--db", db)
    ok(
        "branch",
        "1",
        "--turn",
        "6",
        "--play",
        '{"type": "take", "pile": "purple", "place": [[66, "up", 1], [2, "open", 2], [22, "up", 2], [30, "up", 2]]}',
        "--db",
        db,
    )
    assert len(json.loads(ok("list", "--db", db, "--json"))) == 2  # only the legal branch was written


def test_play_continues_an_open_branch(db: Path) -> None:
    ok("branch", "1", "--turn", "6", "--db", db)
    data = json.loads(ok("play", "5", "--play", '{"type": "draw"}', "--bot", "greedy", "--db", db, "--json"))
    assert data["status"] == "finished"


def test_export_then_import_round_trips(db: Path, tmp_path: Path) -> None:
    check_export_then_import(db, tmp_path, "2", scores=True)


def test_import_the_hand_written_example_then_play_it_to_the_end(tmp_path: Path) -> None:
    db = tmp_path / "table.duckdb"
    assert "imported 1 game" in ok("import", EXAMPLE, "--db", db)
    state = json.loads(ok("replay", "1", "--as", "0", "--db", db, "--json"))["state"]
    assert state["looms"][0][1]["start"] == 5 and state["looms"][1][2]["start"] is None  # M9: Ann's own 5 only
    assert state["looms"][1][1]["start"] == 2  # M9: Ben's 2 came from a pile
    assert json.loads(ok("play", "1", "--bot", "greedy", "--db", db, "--json"))["status"] == "finished"
    end = json.loads(ok("replay", "1", "--db", db, "--json"))["state"]
    assert all(loom[0]["start"] is not None for loom in end["looms"])  # the reveal named the starting cards


def test_an_illegal_line_of_a_log_is_refused_with_its_reason(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    lines = EXAMPLE.read_text().splitlines()
    path.write_text("\n".join([*lines[:19], '{"type": "moirai.kept", "placed": [[52, "up", 1]]}']))
    message = fails("import", path, "--db", tmp_path / "x.duckdb")
    assert "line 20: 52 cannot follow 71 on life 1 (M5); nothing was imported" in message


def test_demo_with_moirai(tmp_path: Path) -> None:
    text = ok("demo", "--game", "moirai", "--games", "3", "--db", tmp_path / "demo.duckdb")
    for part in ("Simulate 3 Moirai games", "Replay game 1", "Branch it", "tree of game 1", "fork at turn"):
        assert part in text


def test_rebuild_recomputes_the_projections(db: Path) -> None:
    before = json.loads(ok("show", "3", "--db", db, "--json"))
    assert "rebuilt the projections of 4 games" in ok("rebuild", "--db", db)
    assert json.loads(ok("show", "3", "--db", db, "--json"))["breakdown"] == before["breakdown"]


def test_the_documented_example_is_the_example_file() -> None:
    """docs/log-format.md shows exactly the lines of docs/examples/moirai-table-game.jsonl in Moirai's section."""
    doc = (EXAMPLE.parents[1] / "log-format.md").read_text().split("## Moirai")[1].split("\n## ")[0]
    block = doc.split("### A game typed after a real table")[1].split("```json\n")[1].split("```")[0]
    assert block == EXAMPLE.read_text()
