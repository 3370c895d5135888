"""A store with a few recorded games of every game, shared by the report and replay page tests."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from loom.engine.registry import PACKAGES, get_game
from loom.replay.logfile import export_lines, import_file
from loom.replay.projector import project
from loom.replay.simulate import simulate
from loom.replay.store import Store

EVIL = "<script>alert(1)</script>"
LINK = "[link=javascript:alert(document.domain)]Ann[/link]"
STYLED = "[bold red]Ben"
EVIL_GAME = 4 * 8 + 1
"""The id of a copy of game 1 whose log names its players `LINK`, `EVIL` and `STYLED`: HTML and rich markup."""


def renamed(lines: list[str], names: list[str]) -> str:
    """A log whose game-started event names the players `names` instead."""
    started = json.loads(lines[1])
    started["players"] = names
    return "\n".join([lines[0], json.dumps(started), *lines[2:]])


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Eight three-player games of each game, greedy against two random bots; then game 1 again, imported from a
    log in which the players are called `LINK`, `EVIL` and `STYLED`; every game projected."""
    path = tmp_path_factory.mktemp("dashboards") / "loom.duckdb"
    with Store.open(path) as store:
        for name in PACKAGES:
            simulate(store, get_game(name), 8, ["greedy", "random", "random"], seed=11)
        log = renamed(list(export_lines(store, 1)), [LINK, EVIL, STYLED])
        assert import_file(store, io.StringIO(log)) == [EVIL_GAME]
        project(store)  # an import leaves the facts to the projector, as `logs dashboard` knows
    yield path
