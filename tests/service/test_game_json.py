"""A game has one JSON shape at every door (README, "A game as JSON"): the service's game, list and tree answers and
`logs show`, `logs list` and `logs tree --json` on the same database give the same fields and values."""

from __future__ import annotations

import json
from pathlib import Path
from random import Random
from typing import Any

from loom.service.server import free_port, running
from loom.service.settings import Settings
from tests.cli.run import ok
from tests.service.client import ADMIN, Api, play_to_the_end

RESULTS = ("scores", "breakdown")


def _served_game(db: Path) -> dict[str, Any]:
    """A two-player Motto game played to the end through a server on `db` (stopped afterwards), and what the
    service said of it when it was new and when it was finished."""
    with running(Settings(str(db), port=free_port(), admin_token=ADMIN)) as base:
        api = Api(base)
        try:
            created = api.create("motto", ["Ann", "Ben"], seed=7)
            new = api.ok("GET", f"/games/{created['id']}")
            play_to_the_end(api, created, Random(1))
            return {
                "new": new,
                "finished": api.ok("GET", f"/games/{created['id']}"),
                "listed": api.ok("GET", "/games"),
                "tree": api.ok("GET", f"/games/{created['id']}/tree"),
            }
        finally:
            api.close()


def test_every_door_gives_a_game_in_one_shape(tmp_path: Path) -> None:
    db = tmp_path / "served.duckdb"
    served = _served_game(db)
    new, finished = served["new"], served["finished"]
    assert (new["players"], new["turns"], new["seq"]) == (["Ann", "Ben"], 0, 2)
    assert all(new[key] is None for key in ("winners", *RESULTS))
    assert len(finished["scores"]) == len(finished["breakdown"]) == 2 and finished["winners"]
    row = {key: value for key, value in finished.items() if key not in RESULTS}
    assert served["listed"] == [row]
    assert served["tree"] == row | {"fork_turn": None, "branches": [], "whatifs": []}
    shown = json.loads(ok("show", "1", "--db", db, "--json"))
    assert shown == finished | {"seed": shown["seed"]}  # the command line may see the seed; the service keeps it
    assert json.loads(ok("list", "--db", db, "--json")) == [row]
    assert json.loads(ok("tree", "1", "--db", db, "--json")) == served["tree"]
