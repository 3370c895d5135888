"""`logs whatif` and `logs analyse` on recorded Motto games (greedy against random, tests/cli/conftest.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from loom.replay.store import Store
from tests.cli.run import fails, ok

FEW = ("--rollouts", "6", "--workers", "1", "--budget", "8")
"""Small runs: what is checked here does not depend on how precise the chances are."""


def whatif_json(db: Path, *args: str) -> dict:
    return json.loads(ok("whatif", "1", *args, *FEW, "--db", db, "--json"))


def test_whatif_stores_the_alternative_as_a_branch_forked_at_the_start_of_the_turn(db: Path) -> None:
    result = whatif_json(db, "--turn", "5", "--play", '{"type": "draw"}')
    branch = json.loads(ok("show", str(result["alternative"]["branch"]), "--db", db, "--json"))
    fork = json.loads(ok("replay", "1", "--turn", "5", "--db", db, "--json"))["seq"]
    assert (branch["parent"], branch["fork_seq"], branch["status"]) == (1, fork, "open")
    assert result["alternative"]["actions"] == [{"type": "draw"}]
    exported = ok("export", str(result["alternative"]["branch"]), "--db", db).splitlines()
    assert json.loads(exported[fork + 1])["type"] == "motto.drew"  # the header, the shared events, then the draw


def test_whatif_shows_the_recorded_decision_and_the_alternative_side_by_side(db: Path) -> None:
    result = whatif_json(db, "--turn", "7", "--play", '{"type": "draw"}')
    assert len(result["recorded"]["actions"]) == 1 and result["seat"] == 0
    for line in ("before", "recorded", "alternative"):
        assert sum(result[line]["chances"]) == pytest.approx(1.0)
        assert len(result[line]["margins"]) == 3 and result[line]["rollouts"] in (0, 6)
    assert result["compared_turn"] == 8  # both lines at the start of the next turn
    shown = ok("whatif", "1", "--turn", "7", "--play", '{"type": "draw"}', *FEW, "--db", db)
    assert "recorded" in shown and "alternative" in shown and "branch" in shown
    assert "at the start of turn 8 on each line" in " ".join(shown.split())


def test_whatif_without_an_alternative_asks_the_search_bot_for_another_move(db: Path) -> None:
    result = whatif_json(db, "--turn", "4")
    assert result["alternative"]["actions"] != result["recorded"]["actions"]
    assert len(result["alternative"]["actions"]) == 1


def test_whatif_gives_the_same_chances_from_the_same_seed(db: Path) -> None:
    first = whatif_json(db, "--turn", "6", "--play", '{"type": "draw"}', "--seed", "3")
    again = whatif_json(db, "--turn", "6", "--play", '{"type": "draw"}', "--seed", "3")
    assert first["alternative"] | {"branch": 0} == again["alternative"] | {"branch": 0}
    assert first["recorded"] == again["recorded"] and first["before"] == again["before"]


def test_an_illegal_alternative_is_refused_and_nothing_is_stored(db: Path) -> None:
    before = json.loads(ok("list", "--db", db, "--json"))
    error = fails("whatif", "1", "--turn", "5", "--play", '{"type": "take", "card": "red-9-love"}', *FEW, "--db", db)
    assert "error:" in error
    assert json.loads(ok("list", "--db", db, "--json")) == before


def test_whatif_refuses_a_turn_the_game_does_not_have_and_an_unknown_bot(db: Path) -> None:
    assert "out of range" in fails("whatif", "1", "--turn", "999", *FEW, "--db", db)
    assert "no bot 'clever'" in fails("whatif", "1", "--turn", "3", "--bot", "clever", *FEW, "--db", db)


def test_analyse_gives_a_curve_point_per_turn_and_the_key_moments(db: Path) -> None:
    result = json.loads(ok("analyse", "1", *FEW, "--moments", "2", "--db", db, "--json"))
    turns = json.loads(ok("show", "1", "--db", db, "--json"))["turns"]
    assert [point["turn"] for point in result["curve"]] == list(range(1, turns + 2))
    assert result["curve"][-1]["rollouts"] == 0 and 1.0 in result["curve"][-1]["chances"]  # the end is decided
    assert len(result["moments"]) == 2
    for moment in result["moments"]:
        point = next(p for p in result["curve"] if p["turn"] == moment["turn"])
        assert moment["before"] == point["chances"][moment["seat"]]
        assert moment["best_action"] != moment["action"]


def test_analyse_stores_the_curve_and_the_key_moments_and_a_new_run_replaces_them(db: Path) -> None:
    ok("analyse", "2", *FEW, "--moments", "3", "--db", db)
    ok("analyse", "2", "--rollouts", "4", "--workers", "2", "--budget", "6", "--moments", "1", "--db", db)
    turns = json.loads(ok("show", "2", "--db", db, "--json"))["turns"]
    with Store.open(db, read_only=True) as store:
        curve, moments = store.win_chances(2), store.key_moments(2)
    assert len(curve) == 3 * (turns + 1) and {row[5] for row in curve} == {0, 4}
    assert len(moments) == 1 and json.loads(moments[0][5])


def test_analyse_prints_the_curve_and_the_key_moments(db: Path) -> None:
    shown = ok("analyse", "3", *FEW, "--moments", "2", "--db", db)
    assert "Game 3: chances to win" in shown and "Key moments" in shown and "│ end" in shown


def test_analyse_refuses_an_unknown_game_id(db: Path) -> None:
    assert "no game with id 99" in fails("analyse", "99", *FEW, "--db", db)


def test_simulate_gives_the_search_bot_its_budget(tmp_path: Path) -> None:
    db = tmp_path / "mcts.duckdb"
    ok(
        "simulate",
        "motto",
        "-n",
        "1",
        "--bot",
        "mcts",
        "--bot",
        "greedy",
        "--bot",
        "greedy",
        "--budget",
        "5",
        "--db",
        db,
    )
    assert sorted(json.loads(ok("show", "1", "--db", db, "--json"))["bots"]) == ["greedy", "greedy", "mcts:5"]
    assert "--bot mcts" in fails("simulate", "motto", "-n", "1", "--bot", "greedy", "--budget", "5", "--db", db)
