"""Fixtures of the CLI tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.run import record


@pytest.fixture
def db(tmp_path: Path) -> Path:
    """A database file path with four recorded Motto games in it (closed again, for the CLI)."""
    return record(tmp_path / "cli.duckdb", "motto", 4)
