"""The tallies of the security tests (cases tried, refused cleanly, leaks found), printed after the run."""

from __future__ import annotations

from collections import Counter
from typing import Any

TALLY: Counter[str] = Counter()
"""Counts the security tests add to as they go: `tried`, `refused`, `accepted`, `leaks`, `views compared`..."""


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """One line with the tallies, for the issue's closing note."""
    if TALLY:
        terminalreporter.write_line("security tally: " + ", ".join(f"{k} {v}" for k, v in sorted(TALLY.items())))
