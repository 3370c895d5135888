"""The `logs` command run through typer's runner for the CLI tests, and the databases of recorded games they read."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from loom.cli.main import app
from loom.engine.registry import get_game
from loom.replay.simulate import simulate
from loom.replay.store import Store

runner = CliRunner()
EXAMPLES = Path(__file__).parents[2] / "docs" / "examples"


def logs(*args: str | Path) -> tuple[int, str, str]:
    result = runner.invoke(app, [str(a) for a in args])
    return result.exit_code, result.stdout, result.stderr


def ok(*args: str | Path) -> str:
    code, stdout, stderr = logs(*args)
    assert code == 0, stderr
    return stdout


def fails(*args: str | Path) -> str:
    code, stdout, stderr = logs(*args)
    assert code == 2, (stdout, stderr)
    assert stderr.count("\n") == 1 and "Traceback" not in stderr
    return stderr


def record(path: Path, game: str, games: int) -> Path:
    """`path`, a database file with `games` recorded three-player games of `game`, greedy against random (seed 11),
    closed again for the CLI."""
    with Store.open(path) as opened:
        simulate(opened, get_game(game), games, ["greedy", "random", "random"], seed=11)
    return path


def recorded_databases(game: str, games: int) -> tuple[Callable[..., Any], Callable[..., Any]]:
    """The fixtures `recorded` (the database `record` makes, built once for the module) and `db` (a fresh copy of it,
    for a test that writes), for a test module to bind: `recorded, db = recorded_databases(...)`."""

    @pytest.fixture(scope="module", name="recorded")
    def recorded_fixture(tmp_path_factory: pytest.TempPathFactory) -> Path:
        return record(tmp_path_factory.mktemp(game) / "cli.duckdb", game, games)

    @pytest.fixture(name="db")
    def db_fixture(recorded: Path, tmp_path: Path) -> Path:
        copy = tmp_path / "cli.duckdb"
        copy.write_bytes(recorded.read_bytes())
        return copy

    return recorded_fixture, db_fixture


def exports_of_two_runs(tmp_path: Path, game_id: str, *simulation: str) -> list[list[str]]:
    """Game `game_id` exported (its lines after the header) from two new databases, each filled by the same
    `simulate` command (`simulation`: its arguments)."""
    for name in ("a", "b"):
        ok("simulate", *simulation, "--db", tmp_path / f"{name}.duckdb")
    return [ok("export", game_id, "--db", tmp_path / f"{name}.duckdb").splitlines()[1:] for name in ("a", "b")]


def check_export_then_import(db: Path, tmp_path: Path, game_id: str, *, scores: bool = False) -> None:
    """Game `game_id` exported to a file is refused by its own database (stored already) and imported into another
    as a game whose export is the file's but for the header line (and, with `scores`, whose scores are the same)."""
    path = tmp_path / "one.jsonl"
    ok("export", game_id, "-o", path, "--db", db)
    assert f"line 1: the same game as game {game_id}, stored already" in fails("import", path, "--db", db)
    other = tmp_path / "other.duckdb"
    assert json.loads(ok("import", path, "--db", other, "--json")) == {"ids": [1]}
    assert ok("export", "1", "--db", other).splitlines()[1:] == path.read_text().splitlines()[1:]
    if scores:
        assert (
            json.loads(ok("show", "1", "--db", other, "--json"))["scores"]
            == json.loads(ok("show", game_id, "--db", db, "--json"))["scores"]
        )
