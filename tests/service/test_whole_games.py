"""Whole games played through a real server match the same games replayed from its database afterwards, whether
the server dealt them or a real table wrote every event itself."""

from __future__ import annotations

import json
from pathlib import Path
from random import Random
from typing import Any

import pytest

from loom.engine.registry import get_game
from loom.replay.logfile import export_lines, import_file
from loom.replay.replay import position
from loom.replay.store import Store
from loom.service.server import free_port, running
from loom.service.settings import Settings
from tests.service.client import ADMIN, Api, play_to_the_end

GAMES = ["motto", "moirai", "moorea", "stones-of-fate"]
SEEDS = {"moorea": 10}
"""Deals other than the default 7: Moorea's games are long, and this deal gives one of the shorter (369 actions)."""
EXAMPLES = Path(__file__).parents[2] / "docs" / "examples"


def _served(db: Path, play: Any) -> Any:
    """Run `play(api)` against a server on `db`, then stop the server (so the file can be opened); its result."""
    with running(Settings(str(db), port=free_port(), admin_token=ADMIN)) as base:
        api = Api(base)
        try:
            return play(api)
        finally:
            api.close()


def _record_through_api(api: Api, game: str) -> dict[str, Any]:
    created = api.create(game, ["Ann", "Ben"], seed=SEEDS.get(game, 7))
    game_id, table = created["id"], created["tokens"]["table"]
    actions = play_to_the_end(api, created, Random(game))
    middle = api.ok("GET", f"/games/{game_id}", table)["turns"] // 2
    return {
        "id": game_id,
        "actions": actions,
        "events": api.ok("GET", f"/games/{game_id}/events?limit=5000", table)["events"],
        "end": api.ok("GET", f"/games/{game_id}/state?as=all", table),
        "end_as_1": api.ok("GET", f"/games/{game_id}/state", created["tokens"]["seats"][1]),
        "middle": api.ok("GET", f"/games/{game_id}/state?turn={middle}&as=all", table),
        "summary": api.ok("GET", f"/games/{game_id}"),
    }


@pytest.mark.parametrize("game", GAMES)
def test_a_game_played_through_the_api_is_the_game_replayed_from_the_store(game: str, tmp_path: Path) -> None:
    db = tmp_path / "played.duckdb"
    seen = _served(db, lambda api: _record_through_api(api, game))
    rules = get_game(game)
    with Store.open(db, read_only=True) as store:
        logged = [json.loads(line) for line in export_lines(store, seen["id"])][1:]
        end = position(store, seen["id"])
        middle = position(store, seen["id"], turn=seen["middle"]["turn"])
        results = store.results(seen["id"])
    assert seen["actions"] > 10 and end.info.status == "finished" and end.info.source == "live"
    assert seen["events"] == logged
    assert seen["end"]["state"] == rules.describe(end.state)
    assert seen["end_as_1"]["state"] == rules.describe(rules.view(end.state, 1))
    assert seen["middle"]["state"] == rules.describe(middle.state)
    assert seen["summary"]["scores"] == [r.score for r in results] == rules.scores(end.state)
    assert seen["summary"]["winners"] == [r.seat for r in results if r.winner]


def _write_as_a_table(api: Api, lines: list[dict[str, Any]], game: str) -> dict[str, Any]:
    """The table creates the game with its first two events, then writes the rest three at a time."""
    created = api.ok("POST", "/games", ADMIN, json={"game": game, "events": lines[:2]})
    seq, table = created["seq"], created["tokens"]["table"]
    for start in range(2, len(lines), 3):
        batch = lines[start : start + 3]
        seq = api.ok("POST", f"/games/{created['id']}/events", table, json={"expected_seq": seq, "events": batch})[
            "seq"
        ]
    return created


@pytest.mark.parametrize("game", GAMES)
def test_a_table_game_written_through_the_api_is_the_same_game_imported(game: str, tmp_path: Path) -> None:
    text = (EXAMPLES / f"{game}-table-game.jsonl").read_text().splitlines()
    lines = [json.loads(line) for line in text[1:] if line.strip()]
    lines[0]["seed"] = 5  # fixed, so the imported copy's first event is the same
    db = tmp_path / "table.duckdb"
    created = _served(db, lambda api: _write_as_a_table(api, lines, game))
    with Store.open(db) as store:
        imported = import_file(store, [text[0] + "\n", *(json.dumps(line) + "\n" for line in lines)], workers=1)[0]
        assert list(export_lines(store, created["id"]))[1:] == list(export_lines(store, imported))[1:]
        assert store.game(created["id"]).status == store.game(imported).status
