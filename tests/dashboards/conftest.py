"""A store with a few recorded games of every game, shared by the report and replay page tests."""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.registry import PACKAGES, get_game
from replay.logfile import export_lines, import_file
from replay.simulate import simulate
from replay.store import Store

EVIL = "<script>alert(1)</script>"
EVIL_GAME = 4 * 8 + 1
"""The id of a copy of game 1 whose log names a player `EVIL`."""


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Eight three-player games of each game, greedy against two random bots; then game 1 again, imported from a
    log in which one player is called `EVIL`."""
    path = tmp_path_factory.mktemp("dashboards") / "loom.duckdb"
    with Store.open(path) as store:
        for name in PACKAGES:
            simulate(store, get_game(name), 8, ["greedy", "random", "random"], seed=11)
        log = "\n".join(export_lines(store, 1)).replace("greedy 1", EVIL)
        assert import_file(store, io.StringIO(log)) == [EVIL_GAME]
    yield path
