"""Each table's columns, read from its SQLModel class in replay/schema.py: the one place a column is defined.

The SELECT lists of replay/queries.py, the Arrow schemas of replay/writing.py and the statements creating the tables
(replay/migrations.py) are made from these. The classes are read from schema.py's source rather than imported:
importing the ORM (SQLModel, SQLAlchemy, duckdb_engine) takes a third of a second, longer than a whole `logs show`,
and was paid by every command creating a store. tests/integration/test_store_port.py checks that the columns read
here are what the ORM makes of the same classes, and tests/unit/test_create_tables.py that the statements are the
ORM's.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Collection
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pyarrow as pa

SCHEMA = Path(__file__).with_name("schema.py")
KINDS = frozenset({"int", "bigint", "str", "bool", "float", "datetime"})
SQL_TYPES = {
    "int": "INTEGER",
    "bigint": "BIGINT",
    "str": "VARCHAR",
    "bool": "BOOLEAN",
    "float": "FLOAT",
    "datetime": "TIMESTAMP WITH TIME ZONE",
}
"""Each kind's DuckDB type, as the ORM names it (SQLModel's datetime is UTCDateTime: with a time zone)."""


@dataclass(frozen=True, slots=True)
class Column:
    """A column: its name, its kind (a Python type name, or bigint for a 64-bit integer), whether it may be NULL."""

    name: str
    kind: str
    nullable: bool


@dataclass(frozen=True, slots=True)
class _Schema:
    """What schema.py's source says: each table's columns and key (in order), and the tables kept without a key."""

    tables: dict[str, tuple[Column, ...]]
    keys: dict[str, tuple[str, ...]]
    unkeyed: frozenset[str]


@cache
def _schema() -> _Schema:
    tables: dict[str, tuple[Column, ...]] = {}
    keys: dict[str, tuple[str, ...]] = {}
    unkeyed: frozenset[str] = frozenset()
    for node in ast.parse(SCHEMA.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.ClassDef) and any(k.arg == "table" for k in node.keywords):
            name = next(
                str(item.value.value)
                for item in node.body
                if isinstance(item, ast.Assign)
                and isinstance(item.targets[0], ast.Name)
                and item.targets[0].id == "__tablename__"
                and isinstance(item.value, ast.Constant)
            )
            fields = [item for item in node.body if isinstance(item, ast.AnnAssign)]
            tables[name] = tuple(_column(item) for item in fields)
            keys[name] = tuple(column.name for column, item in zip(tables[name], fields) if _is_key(item))
        elif (
            isinstance(node, ast.Assign)
            and isinstance(node.targets[0], ast.Name)
            and node.targets[0].id == "UNKEYED"
            and isinstance(node.value, ast.Call)
        ):
            unkeyed = frozenset(ast.literal_eval(node.value.args[0]))  # frozenset({...})
    return _Schema(tables, keys, unkeyed)


def tables() -> dict[str, tuple[Column, ...]]:
    """Every table's columns in order, by table name."""
    return _schema().tables


def create_tables(leave_out: Collection[str] = ()) -> list[str]:
    """The DuckDB statements creating every table but those named in `leave_out` (present already in a database of
    an older schema): what the ORM makes of schema.py's classes (its `create_tables`), without loading the ORM."""
    schema = _schema()
    statements = []
    for name, columns in schema.tables.items():
        if name in leave_out:
            continue
        lines = [f"{c.name} {SQL_TYPES[c.kind]}{'' if c.nullable else ' NOT NULL'}" for c in columns]
        if schema.keys[name] and name not in schema.unkeyed:
            lines.append(f"PRIMARY KEY ({', '.join(schema.keys[name])})")
        statements.append(f"CREATE TABLE {name} (\n\t" + ",\n\t".join(lines) + "\n)")
    return statements


def _is_key(item: ast.AnnAssign) -> bool:
    keywords = item.value.keywords if isinstance(item.value, ast.Call) else []
    return any(k.arg == "primary_key" and isinstance(k.value, ast.Constant) and k.value.value is True for k in keywords)


def _column(item: ast.AnnAssign) -> Column:
    if not isinstance(item.target, ast.Name):
        raise ValueError(f"schema.py line {item.lineno}: a column is a plain name")
    annotation, nullable = item.annotation, False
    if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
        annotation, nullable = annotation.left, True  # `X | None`
    kind = annotation.id if isinstance(annotation, ast.Name) else ""
    if isinstance(item.value, ast.Call):
        for keyword in item.value.keywords:
            if keyword.arg == "sa_type" and isinstance(keyword.value, ast.Name) and keyword.value.id == "BigInteger":
                kind = "bigint"
    if kind not in KINDS:
        raise ValueError(f"schema.py line {item.lineno}: column {item.target.id} has a type Loom does not store")
    return Column(item.target.id, kind, nullable)


def names(table: str) -> tuple[str, ...]:
    """The table's column names, in order."""
    return tuple(column.name for column in tables()[table])


def select_list(table: str, *, without: tuple[str, ...] = ()) -> str:
    """The table's columns as a SELECT list, leaving out `without` (such as the game id a query is filtered by)."""
    unknown = set(without) - set(names(table))
    if unknown:
        raise ValueError(f"{table} has no column {sorted(unknown)[0]}")
    return ", ".join(name for name in names(table) if name not in without)


def arrow_schema(table: str) -> pa.Schema:
    """The Arrow schema of a batch of the table's rows."""
    import pyarrow as pa  # only writes need it: reading commands start faster without it

    types: dict[str, Any] = {
        "int": pa.int32(),
        "bigint": pa.int64(),
        "str": pa.string(),
        "bool": pa.bool_(),
        "float": pa.float64(),  # DuckDB stores it as FLOAT, rounding as it always has
        "datetime": pa.timestamp("us", tz="UTC"),
    }
    # Every field nullable, as DuckDB infers from a batch: the table's own NOT NULL refuses a missing value.
    return pa.schema([pa.field(c.name, types[c.kind]) for c in tables()[table]])


def arrow_table(table: str, columns: dict[str, list[Any]]) -> pa.Table:
    """A batch of the table's rows, given column by column; every column of the table, and no other."""
    import pyarrow as pa

    schema = arrow_schema(table)
    if set(columns) != set(schema.names):
        raise ValueError(f"a batch of {table} has columns {sorted(columns)}, not {sorted(schema.names)}")
    return pa.table([pa.array(columns[f.name], f.type) for f in schema], schema=schema)


def pick(table: str, wanted: tuple[str, ...]) -> str:
    """Some of the table's columns as a SELECT list, in the order given (checked to be the table's)."""
    unknown = set(wanted) - set(names(table))
    if unknown:
        raise ValueError(f"{table} has no column {sorted(unknown)[0]}")
    return ", ".join(wanted)


@dataclass(frozen=True, slots=True)
class Batch:
    """New games' rows, ready for the writer: an Arrow table per table, the game ids numbered from 0.

    Made where the games are checked (a worker process), it crosses to the writer as Arrow buffers, not as Python
    objects to pickle and transpose; the writer numbers the games (`numbered`) once it knows their first id."""

    games: int
    tables: dict[str, pa.Table]

    def numbered(self, first_id: int) -> dict[str, pa.Table]:
        """Each table's rows with the games' ids from `first_id` (`id` of games, `game_id` of the others)."""
        import pyarrow as pa
        import pyarrow.compute as pc

        numbered = {}
        for name, table in self.tables.items():
            key = "id" if name == "games" else "game_id"
            at = table.schema.get_field_index(key)
            shift = pa.scalar(first_id, table.schema.field(key).type)
            numbered[name] = table.set_column(at, key, pc.add(table.column(key), shift))
        return numbered


class _NoPandas:
    """An import finder that refuses pandas: see `pyarrow_without_pandas`."""

    @staticmethod
    def find_spec(name: str, path: Any = None, target: Any = None) -> None:
        if name == "pandas":
            raise ImportError("writing Arrow columns has no use for pandas")


def pyarrow_without_pandas() -> None:
    """Load pyarrow, and let it find no pandas if none is loaded yet: before a process's first batch is written.

    pyarrow's first array otherwise imports pandas (0.2 s of CPU: a twentieth of simulating 2,000 Motto games, a fifth
    of a microsecond per event of a million-event import, in each process), for nothing an import or a simulation
    does: they make Arrow tables from lists and hand them to DuckDB. pyarrow tries that import once per process;
    `import pandas` still works later, and so do pyarrow's conversions to pandas."""
    if "pandas" not in sys.modules:
        import pyarrow as pa

        sys.meta_path.insert(0, _NoPandas)  # type: ignore[arg-type]
        try:
            pa.array([0])
        finally:
            sys.meta_path.remove(_NoPandas)  # type: ignore[arg-type]
