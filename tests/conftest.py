"""Fixtures shared by the integration and CLI tests: stores on memory and on a file, small recorded games."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.registry import get_game
from replay.simulate import simulate
from replay.store import MEMORY, Store


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


@pytest.fixture
def db(tmp_path: Path) -> Path:
    """A database file path with four recorded Motto games in it (closed again, for the CLI)."""
    path = tmp_path / "cli.duckdb"
    with Store.open(path) as opened:
        simulate(opened, get_game("motto"), 4, ["greedy", "random", "random"], seed=11)
    return path
