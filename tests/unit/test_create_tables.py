"""A store's tables are created from schema.py's classes as read by replay/columns.py: the ORM's own statements,
without loading the ORM."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from loom.replay import columns, schema


def _by_table(statements: list[str]) -> dict[str, str]:
    """Each statement by the table it creates, its spacing made plain."""
    return {statement.split()[2]: " ".join(statement.split()) for statement in statements}


def test_the_statements_read_from_schema_py_are_the_ones_the_orm_makes() -> None:
    assert _by_table(columns.create_tables()) == _by_table(schema.create_tables())


def test_a_table_without_a_key_index_is_created_without_its_classs_key() -> None:
    made = _by_table(columns.create_tables())
    assert schema.UNKEYED and all("PRIMARY KEY" not in made[name] for name in schema.UNKEYED)
    assert "PRIMARY KEY (game_id, seq, seat)" in made["win_chances"]


@pytest.mark.parametrize("leave_out", [{"games"}, {"events", "meta"}, set(columns.tables())])
def test_the_tables_a_store_has_already_are_left_out(leave_out: set[str]) -> None:
    assert _by_table(columns.create_tables(leave_out)) == _by_table(schema.create_tables(leave_out))


def test_creating_a_store_loads_no_orm(tmp_path: Path) -> None:
    script = (
        "import sys\n"
        "from loom.replay.store import Store\n"
        f"with Store.open({str(tmp_path / 'new.duckdb')!r}):\n"
        "    pass\n"
        "orm = ('sqlmodel', 'sqlalchemy', 'duckdb_engine', 'loom.replay.schema')\n"
        "print(sorted(m for m in orm if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
    assert (tmp_path / "new.duckdb").exists()
