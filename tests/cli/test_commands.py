"""Every `logs` command through typer's runner, and every error as one line on stderr with exit code 2."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from loom.engine.registry import PACKAGES
from loom.replay.branches import plan_whatif, record_whatif
from loom.replay.store import Store
from tests.cli.run import EXAMPLES, check_export_then_import, exports_of_two_runs, fails, ok
from tests.locks import held_by_another_process

EXAMPLE = EXAMPLES / "motto-table-game.jsonl"


def test_simulate_records_games_and_prints_their_ids(tmp_path: Path) -> None:
    db = tmp_path / "sim.duckdb"
    data = json.loads(ok("simulate", "motto", "--games", "3", "--players", "4", "--seed", "5", "--db", db, "--json"))
    assert data == {"ids": [1, 2, 3], "seed": 5}
    assert "recorded 2 Motto games" in ok("simulate", "motto", "-n", "2", "--bot", "greedy", "--db", db)


def test_simulate_is_reproducible_from_its_seed(tmp_path: Path) -> None:
    exports = exports_of_two_runs(tmp_path, "2", "motto", "-n", "2", "--seed", "9")
    assert exports[0] == exports[1]


def test_simulate_without_a_seed_draws_a_fresh_one_so_two_runs_are_two_samples(tmp_path: Path) -> None:
    exports = exports_of_two_runs(tmp_path, "1", "motto", "-n", "1")
    assert exports[0] != exports[1]


def test_simulate_prints_the_seed_it_drew_and_that_seed_plays_the_games_again(tmp_path: Path) -> None:
    drawn = json.loads(ok("simulate", "motto", "-n", "2", "--db", tmp_path / "a.duckdb", "--json"))["seed"]
    ok("simulate", "motto", "-n", "2", "--seed", str(drawn), "--db", tmp_path / "b.duckdb")
    first, again = (ok("export", "2", "--db", tmp_path / f"{name}.duckdb").splitlines()[1:] for name in "ab")
    assert first == again


def test_simulate_with_one_bot_per_seat(tmp_path: Path) -> None:
    db = tmp_path / "bots.duckdb"
    ok("simulate", "motto", "-n", "1", "-p", "2", "--bot", "greedy", "--bot", "random", "--db", db)
    assert sorted(json.loads(ok("show", "1", "--db", db, "--json"))["bots"]) == ["greedy", "random"]


def test_list_shows_the_newest_games_first(db: Path) -> None:
    rows = json.loads(ok("list", "--db", db, "--json", "--limit", "3"))
    assert [row["id"] for row in rows] == [4, 3, 2]
    shown = json.loads(ok("show", "4", "--db", db, "--json"))
    assert set(rows[0]) == set(shown) - {"scores", "breakdown", "seed"}  # one shape: a game's own page adds these
    assert "motto" in ok("list", "--game", "motto", "--db", db)


def test_show_gives_players_scores_winners_and_events(db: Path) -> None:
    data = json.loads(ok("show", "1", "--db", db, "--json"))
    assert {"id", "game", "players", "turns", "winners", "parent", "scores", "seq", "fork_seq"} <= set(data)
    assert max(data["scores"]) == data["scores"][data["winners"][0]]
    assert "Game 1" in ok("show", "1", "--db", db)


def test_replay_at_a_turn_as_json(db: Path) -> None:
    data = json.loads(ok("replay", "1", "--turn", "3", "--db", db, "--json"))
    assert (data["id"], data["game"], data["turn"]) == (1, "motto", 3)
    assert data["state"]["to_move"] == 2 % 3 and data["state"]["turn"] == 2


def test_replay_as_a_seat_hides_the_other_hands(db: Path) -> None:
    data = json.loads(ok("replay", "1", "--turn", "10", "--as", "0", "--db", db, "--json"))
    state = data["state"]
    assert None not in state["hands"][0]
    assert all(card is None for card in state["deck"])
    omniscient = json.loads(ok("replay", "1", "--turn", "10", "--db", db, "--json"))["state"]
    assert None not in omniscient["hands"][1]


def test_replay_draws_the_table(db: Path) -> None:
    text = ok("replay", "1", "--turn", "5", "--db", db)
    assert "start of turn 5" in text and "Pool" in text
    assert "after event" in ok("replay", "1", "--seq", "7", "--db", db)
    assert "game over" in ok("replay", "1", "--db", db)


def test_branch_prints_the_new_id_and_tree_shows_it(db: Path) -> None:
    data = json.loads(ok("branch", "1", "--turn", "6", "--bot", "greedy", "--db", db, "--json"))
    assert data == {"ids": [5]}
    ok("branch", "5", "--turn", "20", "--play", '{"type": "draw"}', "--db", db)
    tree = json.loads(ok("tree", "1", "--db", db, "--json"))
    assert tree["branches"][0]["id"] == 5 and tree["branches"][0]["branches"][0]["id"] == 6
    assert "fork at turn 6" in ok("tree", "1", "--db", db)


def test_tree_lists_a_seats_what_if_without_its_moves(db: Path) -> None:
    with Store.open(db) as store:  # as a seat's token on a served board makes it
        whatif, _ = plan_whatif(store, 1, turn=6, seat=1, actions=(), bot="greedy")
        record_whatif(store, whatif)
    assert "what-if 1 · seat 1 · fork at turn 6 after event" in ok("tree", "1", "--db", db)
    assert json.loads(ok("tree", "1", "--db", db, "--json"))["whatifs"][0]["seat"] == 1


def test_tree_reads_whole_at_80_columns_three_branches_deep(db: Path) -> None:
    for parent, new, turn in ((1, 5, 6), (5, 6, 10), (6, 7, 14)):
        assert json.loads(ok("branch", str(parent), "--turn", str(turn), "--bot", "greedy", "--db", db, "--json")) == {
            "ids": [new]
        }
    ok("branch", "7", "--turn", "18", "--as", "1", "--bot", "greedy", "--seed", str(2**63 - 1), "--db", db)
    env = {**os.environ, "COLUMNS": "80"}
    done = subprocess.run(
        [sys.executable, "-m", "loom.cli.main", "tree", "1", "--db", str(db)], capture_output=True, text=True, env=env
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert max(len(line) for line in lines) <= 80 and "…" not in done.stdout  # nothing wrapped, nothing cut
    assert [line.count("#") for line in lines[:4]] == [1, 1, 1, 1]  # a game a line
    assert lines[-2].rstrip().endswith("what-if 1 · seat 1 · fork at turn 18 after event " + lines[-2].split()[-1])
    assert lines[-1].rstrip().endswith(f"greedy · sampled deal, seed {2**63 - 1}")


def test_play_continues_an_open_branch(db: Path) -> None:
    ok("branch", "1", "--turn", "6", "--db", db)
    data = json.loads(ok("play", "5", "--play", '{"type": "draw"}', "--bot", "random", "--db", db, "--json"))
    assert data["status"] == "finished"


def test_export_then_import_round_trips(db: Path, tmp_path: Path) -> None:
    check_export_then_import(db, tmp_path, "2")


def test_import_the_hand_written_example(tmp_path: Path) -> None:
    assert "imported 1 game" in ok("import", EXAMPLE, "--db", tmp_path / "table.duckdb")


def test_demo_simulates_replays_branches_shows_the_tree_and_draws_the_dashboards(tmp_path: Path) -> None:
    text = ok("demo", "--games", "4", "--db", tmp_path / "demo.duckdb", "--pages", tmp_path)
    for part in ("Simulate", "Replay game 1", "Branch it", "tree of game 1", "fork at turn", "Draw the dashboard"):
        assert part in text
    assert (tmp_path / "dashboard.html").stat().st_size > 1_000_000  # plotly.js is inside
    assert (tmp_path / "replay-1.html").exists()


def test_rebuild_recomputes_the_projections(db: Path) -> None:
    assert "rebuilt the projections of 4 games" in ok("rebuild", "--db", db)


def test_the_database_defaults_to_logs_db(db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LOGS_DB", str(db))
    assert json.loads(ok("show", "1", "--json"))["id"] == 1


# --- Errors: one line on stderr, exit code 2, nothing written ---------------------------------------------------------


def test_unknown_game(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert "unknown game 'chess'" in fails("simulate", "chess", "--db", tmp_path / "x.duckdb")
    monkeypatch.setitem(PACKAGES, "tarot", "loom.engine.tarot")
    assert "tarot is not playable yet" in fails("simulate", "tarot", "--db", tmp_path / "x.duckdb")


def test_unknown_bot_and_bad_player_counts(tmp_path: Path) -> None:
    assert "no bot 'genius'" in fails("simulate", "motto", "--bot", "genius", "--db", tmp_path / "x.duckdb")
    assert "2 to 5 players, not 6" in fails("simulate", "motto", "-p", "6", "--db", tmp_path / "x.duckdb")


def test_unknown_id(db: Path) -> None:
    for command in ("show", "replay", "tree", "export"):
        assert "no game with id 77" in fails(command, "77", "--db", db)
    assert "no game with id 77" in fails("branch", "77", "--turn", "2", "--db", db)


def test_turn_out_of_range(db: Path) -> None:
    assert "turn 9999 is out of range" in fails("replay", "1", "--turn", "9999", "--db", db)
    assert "turn 0 is out of range" in fails("branch", "1", "--turn", "0", "--db", db)
    assert "event 9999 is out of range" in fails("replay", "1", "--seq", "9999", "--db", db)
    assert "seat 7 is out of range" in fails("replay", "1", "--as", "7", "--db", db)


def test_illegal_branch_action_writes_nothing(db: Path) -> None:
    message = fails("branch", "1", "--turn", "3", "--play", '{"type": "take", "card": "gold-9-love"}', "--db", db)
    assert "is not a Motto card" in message
    assert "not JSON" in fails("branch", "1", "--turn", "3", "--play", "{draw", "--db", db)
    assert len(json.loads(ok("list", "--db", db, "--json"))) == 4


def test_malformed_and_illegal_log_lines(db: Path, tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    lines = EXAMPLE.read_text().splitlines()
    path.write_text("\n".join([*lines[:5], "{oops", *lines[5:]]))
    assert "line 6: not JSON" in fails("import", path, "--db", db)
    path.write_text("\n".join([*lines[:3], '{"type": "motto.took", "card": "red-3-love"}']))
    assert "line 4: red-3-love is not in the pool; nothing was imported" in fails("import", path, "--db", db)
    assert "cannot read" in fails("import", tmp_path / "missing.jsonl", "--db", db)
    assert len(json.loads(ok("list", "--db", db, "--json"))) == 4


def test_missing_database_for_a_read_command(tmp_path: Path) -> None:
    assert "no Loom database" in fails("list", "--db", tmp_path / "none.duckdb")


def test_database_locked_by_another_process(db: Path) -> None:
    with held_by_another_process(db):
        assert "is locked by another process" in fails("simulate", "motto", "-n", "1", "--db", db)
        assert "is locked by another process" in fails("show", "1", "--db", db)


def test_the_installed_command_runs_in_a_fresh_process(db: Path) -> None:
    """A new process has loaded no game yet: reading events must load the game's rules by itself."""
    for args in (["export", "1"], ["replay", "1", "--turn", "3"], ["tree", "1"]):
        done = subprocess.run(
            [sys.executable, "-m", "loom.cli.main", *args, "--db", str(db)], capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr
