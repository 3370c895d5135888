"""A simulated game does not depend on Python's string hashing: processes with different PYTHONHASHSEED record and
export the same logs, byte for byte (a set of strings iterated in hash order would break DESIGN.md contract 2)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

SIMULATE_AND_EXPORT = """
import sys
from loom.engine.registry import get_game
from loom.replay.logfile import export_lines
from loom.replay.simulate import simulate
from loom.replay.store import Store

with Store.open(sys.argv[1]) as store:
    ids = []
    for name in ("motto", "moirai", "moorea", "stones-of-fate"):
        ids += simulate(store, get_game(name), 1, ["greedy", "random", "mcts:2"], seed=13)
    for game_id in ids:
        sys.stdout.write("".join(line + "\\n" for line in export_lines(store, game_id)))
"""


def _simulation(hash_seed: str, db: Path) -> subprocess.Popen[bytes]:
    """A new process with this PYTHONHASHSEED simulating a game of each kind (the search bot's worlds included)
    into `db` and writing their logs to its stdout."""
    env = os.environ | {"PYTHONHASHSEED": hash_seed, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-c", SIMULATE_AND_EXPORT, str(db)]
    return subprocess.Popen(command, env=env, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def test_a_simulated_game_is_the_same_whatever_the_hash_seed(tmp_path: Path) -> None:
    running = [_simulation(hash_seed, tmp_path / f"{hash_seed}.duckdb") for hash_seed in ("0", "4242")]
    logs = []
    for process in running:
        out, err = process.communicate(timeout=120)
        assert process.returncode == 0, err.decode()
        logs.append(out)
    assert logs[0].count(b'"format": "loom-log"') == 4
    assert logs[1] == logs[0]
