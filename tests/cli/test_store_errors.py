"""The command line never writes into a database that is not a Loom store, and a store's errors say their cause."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest

from tests.cli.run import EXAMPLES, fails, ok


@pytest.fixture
def theirs(tmp_path: Path) -> Path:
    """Someone else's DuckDB file, with one table `t`."""
    path = tmp_path / "theirs.duckdb"
    con = duckdb.connect(str(path))
    con.execute("CREATE TABLE t AS SELECT 42 AS x")
    con.close()
    return path


def _tables(path: Path) -> list[str]:
    con = duckdb.connect(str(path), read_only=True)
    try:
        return [name for (name,) in con.execute("SELECT table_name FROM duckdb_tables()").fetchall()]
    finally:
        con.close()


@pytest.mark.parametrize(
    "command",
    [
        ["list"],
        ["show", "1"],
        ["simulate", "motto", "-n", "1"],
        ["import", str(EXAMPLES / "motto-table-game.jsonl")],
        ["whatif", "1", "--turn", "2"],
    ],
)
def test_a_duckdb_file_that_is_not_a_loom_store_is_refused_and_untouched(theirs: Path, command: list[str]) -> None:
    before = theirs.read_bytes()
    message = fails(*command, "--db", theirs)
    assert f"{theirs} is a DuckDB database but not a Loom store; give another --db" in message
    assert _tables(theirs) == ["t"] and theirs.read_bytes() == before


def test_a_new_empty_file_is_made_a_store_by_a_writing_command(tmp_path: Path) -> None:
    path = tmp_path / "new.duckdb"
    path.touch()
    assert json.loads(ok("simulate", "motto", "-n", "1", "--db", path, "--json"))["ids"] == [1]
    assert len(json.loads(ok("list", "--db", path, "--json"))) == 1


def test_a_missing_path_is_made_a_store_by_a_writing_command(tmp_path: Path) -> None:
    path = tmp_path / "missing.duckdb"
    ok("import", EXAMPLES / "motto-table-game.jsonl", "--db", path)
    assert _tables(path).count("games") == 1
