"""The tallies of the security tests (cases tried, refused cleanly, leaks found), printed after the run, and the
recorded games the leak walks share."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest

TALLY: Counter[str] = Counter()
"""Counts the security tests add to as they go: `tried`, `refused`, `accepted`, `leaks`, `views compared`..."""


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """One line with the tallies, for the issue's closing note."""
    if TALLY:
        terminalreporter.write_line("security tally: " + ", ".join(f"{k} {v}" for k, v in sorted(TALLY.items())))


@pytest.fixture(scope="session", params=["motto", "moirai", "moorea", "stones-of-fate"])
def walk(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """A recorded game of each game (`walk.Recorded`), and a default server (loopback, no admin token) on a copy of
    its file, shared by the leak walks."""
    from loom.service.server import free_port, running
    from loom.service.settings import Settings
    from tests.security.walk import record
    from tests.service.client import Api

    folder = tmp_path_factory.mktemp(request.param)
    recorded = record(folder, request.param)
    served = folder / "served.duckdb"
    served.write_bytes(recorded.db.read_bytes())
    with running(Settings(str(served), port=free_port())) as base:
        recorded.api = Api(base)
        yield recorded
        recorded.api.close()
