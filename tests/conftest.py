"""Fixtures shared by the integration tests: stores on memory and on a file, small recorded games (the CLI tests'
databases are in tests/cli/conftest.py)."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from loom.engine.registry import get_game
from loom.replay.simulate import simulate
from loom.replay.store import MEMORY, Store

# The Ctrl-C tests press it as a terminal does. A shell starts a background job (`pytest &`, a CI step) with Ctrl-C
# ignored, which every command those tests start would inherit: here the tests' processes take it as Python does
# in a terminal, and the commands they start get the default (a handler is not inherited, an ignored signal is).
signal.signal(signal.SIGINT, signal.default_int_handler)

SLOW_FIRST = ("tests/service/test_recorder_browser.py", "tests/security/test_leaks.py")
"""Files of more than two minutes each (a whole game tapped in a browser per game; every door read as every seat),
handed to the two workers first. xdist's default order (the files with most tests first, turned off in
pyproject.toml) gave the recorder's six tests out near the end, where one worker ran them while the other ran out of
files."""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    rank = {path: n for n, path in enumerate(SLOW_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::", 1)[0], len(rank)))


@pytest.fixture(params=["memory", "file"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    """An empty store, once in memory and once on a file (STYLE.md: the same store tests on both)."""
    path = MEMORY if request.param == "memory" else str(tmp_path / "loom.duckdb")
    with Store.open(path) as opened:
        yield opened


@pytest.fixture
def motto_ids(store: Store) -> list[int]:
    """Six recorded three-player Motto games, greedy against random."""
    return simulate(store, get_game("motto"), 6, ["greedy", "random", "random"], seed=3)
