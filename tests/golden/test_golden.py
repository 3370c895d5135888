"""Golden logs (python-chess style): each log in tests/golden/<game>/ must still produce its recorded states."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.golden.regenerate import expected

LOGS = sorted(Path(__file__).parent.glob("*/*.jsonl"))


@pytest.mark.parametrize("log", LOGS, ids=[f"{p.parent.name}/{p.stem}" for p in LOGS])
def test_golden_log_replays_to_its_recorded_states(log: Path) -> None:
    data, drawing = expected(log)
    assert data == json.loads(log.with_suffix(".expected.json").read_text())
    assert drawing == log.with_suffix(".expected.txt").read_text()
