"""The store's tables are defined once (replay/schema.py), read by name, and opened without the rules layer."""

from __future__ import annotations

import re
import subprocess
import sys
from dataclasses import fields
from pathlib import Path

import pytest
from sqlalchemy import BigInteger, Boolean, DateTime, Float, Integer, String

from loom.engine.registry import get_game
from loom.replay import columns
from loom.replay.facts import GAME_FACT_FIELDS, TURN_FACT_FIELDS
from loom.replay.records import GameInfo, KeyMoment, ResultInfo, StoredResult, WinChance
from loom.replay.schema import TABLES
from loom.replay.simulate import simulate
from loom.replay.store import Store

KINDS = {BigInteger: "bigint", Integer: "int", String: "str", Boolean: "bool", Float: "float", DateTime: "datetime"}
ROOT = Path(__file__).resolve().parents[2]


def _kind(sql_type: object) -> str:
    made = getattr(sql_type, "impl", sql_type)  # SQLModel's AutoString and UTCDateTime decorate String and DateTime
    return next(kind for cls, kind in KINDS.items() if isinstance(made, cls))


@pytest.mark.parametrize("model", TABLES, ids=lambda model: model.__tablename__)
def test_the_columns_read_from_schema_py_are_the_ones_the_orm_creates(model: type) -> None:
    table = model.__table__  # type: ignore[attr-defined]
    made = tuple(columns.Column(c.name, _kind(c.type), bool(c.nullable)) for c in table.columns)
    assert columns.tables()[table.name] == made


def test_every_table_of_schema_py_is_read() -> None:
    assert set(columns.tables()) == {model.__tablename__ for model in TABLES}


@pytest.mark.parametrize(
    ("record", "table", "extra"),
    [
        (GameInfo, "games", ("seats",)),
        (ResultInfo, "results", ("game_id",)),
        (StoredResult, "results", ()),
        (WinChance, "win_chances", ("game_id",)),
        (KeyMoment, "key_moments", ("game_id",)),
    ],
)
def test_each_named_row_has_its_tables_columns(record: type, table: str, extra: tuple[str, ...]) -> None:
    names = [f.name for f in fields(record)] if hasattr(record, "__dataclass_fields__") else list(record._fields)
    assert set(names) ^ set(columns.names(table)) == set(extra)


def test_a_batch_with_a_column_too_many_or_too_few_is_refused() -> None:
    with pytest.raises(ValueError, match="columns"):
        columns.arrow_table("seats", {"game_id": [1], "seat": [0], "name": ["ann"]})


def test_a_stored_game_is_read_without_loading_any_game_rules(tmp_path: Path) -> None:
    path = tmp_path / "loom.duckdb"
    with Store.open(path) as store:
        simulate(store, get_game("moorea"), 1, ["random", "random"], seed=1)
    script = (
        "import sys; from loom.replay.store import Store; "
        f"events = Store.open({str(path)!r}, read_only=True).load(1); "
        "loaded = sorted(m for m in sys.modules if m == 'loom.engine.registry' or m.startswith('loom.engine.moorea')); "
        "print(len(events), loaded)"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, check=True)
    count, loaded = done.stdout.split(" ", 1)
    assert int(count) > 1 and loaded.strip() == "[]"


def test_the_schema_module_imports_nothing_of_the_store() -> None:
    script = "import sys, loom.replay.schema; print(sorted(m for m in sys.modules if m.startswith('loom.replay.')))"
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, check=True)
    assert done.stdout.strip() == "['loom.replay.schema']"


def test_a_report_runs_only_its_named_queries(store: Store) -> None:
    chosen = store.choose_games("motto")
    with pytest.raises(TypeError, match="named queries"):
        chosen.frame("SELECT * FROM events")  # type: ignore[arg-type]


@pytest.mark.parametrize("package", ["events", "engine", "cli", "dashboards", "service"])
def test_nothing_outside_replay_touches_the_database_connection(package: str) -> None:
    touching = [
        f"{path.relative_to(ROOT)}:{number}"
        for path in sorted((ROOT / package).rglob("*.py"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if re.search(r"\.con\b|duckdb", line)
    ]
    assert touching == []


def test_the_facts_fields_are_their_tables_columns_in_order() -> None:
    assert ("game_id", *TURN_FACT_FIELDS) == columns.names("turn_facts")
    assert ("game_id", *GAME_FACT_FIELDS) == columns.names("game_facts")
