"""A branch has its parent's seats and players in every command: show, list, replay --as, export and import."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb

from tests.cli.run import fails, ok


def _show(db: Path, game_id: int) -> dict[str, object]:
    return json.loads(ok("show", str(game_id), "--db", db, "--json"))


def test_a_branch_shows_its_parents_players_and_bots(db: Path) -> None:
    ok("branch", "1", "--turn", "5", "--db", db)
    parent, child = _show(db, 1), _show(db, 5)
    assert len(parent["players"]) == 3  # type: ignore[arg-type]
    assert (child["players"], child["bots"]) == (parent["players"], parent["bots"])
    table = ok("show", "5", "--db", db)
    assert all(name in table for name in parent["players"])  # type: ignore[attr-defined]


def test_a_branch_played_on_by_a_bot_names_that_bot_for_every_seat(db: Path) -> None:
    ok("branch", "1", "--turn", "5", "--bot", "random", "--db", db)
    child = _show(db, 5)
    assert child["players"] == _show(db, 1)["players"]
    assert child["bots"] == ["random", "random", "random"]


def test_list_counts_a_branchs_players(db: Path) -> None:
    ok("branch", "1", "--turn", "5", "--db", db)
    rows = json.loads(ok("list", "--db", db, "--json"))
    assert len({row["id"]: row["players"] for row in rows}[5]) == 3


def test_replay_as_a_seat_of_a_branch(db: Path) -> None:
    ok("branch", "1", "--turn", "5", "--db", db)
    data = json.loads(ok("replay", "5", "--as", "2", "--db", db, "--json"))
    assert data["as"] == 2 and None not in data["state"]["hands"][2]
    assert "game 5 has seats 0 to 2" in fails("replay", "5", "--as", "3", "--db", db)


def test_a_branch_of_a_branch_keeps_the_seats(db: Path) -> None:
    ok("branch", "1", "--turn", "5", "--db", db)
    ok("branch", "5", "--turn", "3", "--db", db)
    assert _show(db, 6)["players"] == _show(db, 1)["players"]


def test_an_exported_branch_imports_with_its_players_and_bots(db: Path, tmp_path: Path) -> None:
    ok("branch", "1", "--turn", "5", "--db", db)
    path = tmp_path / "branch.jsonl"
    ok("export", "5", "-o", path, "--db", db)
    assert json.loads(path.read_text().splitlines()[0])["bots"] == _show(db, 1)["bots"]
    other = tmp_path / "other.duckdb"
    assert json.loads(ok("import", path, "--db", other, "--json")) == {"ids": [1]}
    imported, branch = _show(other, 1), _show(db, 5)
    assert (imported["players"], imported["bots"]) == (branch["players"], branch["bots"])


def test_a_store_opened_for_writing_gives_branches_stored_without_seats_their_parents(db: Path) -> None:
    ok("branch", "1", "--turn", "5", "--db", db)
    ok("branch", "5", "--turn", "3", "--db", db)
    con = duckdb.connect(str(db))  # what an older Loom stored: branches with no seats and 0 players
    con.execute("DELETE FROM seats WHERE game_id IN (5, 6)")
    con.execute("UPDATE games SET players = 0 WHERE id IN (5, 6)")
    con.close()
    ok("rebuild", "--db", db)
    for game_id in (5, 6):
        assert _show(db, game_id)["players"] == _show(db, 1)["players"]
    assert len({row["id"]: row["players"] for row in json.loads(ok("list", "--db", db, "--json"))}[6]) == 3
