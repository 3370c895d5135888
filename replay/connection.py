"""The one DuckDB connection of a store: opening it, transactions, Arrow inserts, and errors a user can act on.

Every statement of Loom runs through a `Connection`, so a database error always reaches the user as one line
(StoreError, ConcurrencyError) and never as a DuckDB traceback.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import TYPE_CHECKING, Any

import duckdb

from loom.events.base import LoomError
from loom.replay import queries

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa

DEFAULT_DB = "loom.duckdb"
MEMORY = ":memory:"
ABORTED = "Current transaction is aborted"
Params = Sequence[Any] | dict[str, Any]
"""A statement's parameters: positional (?) or named ($name)."""


class StoreError(LoomError):
    """The database cannot be opened or written: locked, missing, not a Loom database."""


class StoreLocked(StoreError):
    """The file is held for writing by another process (DuckDB lets one process hold a file, readers too)."""

    def __init__(self, message: str, pid: int | None) -> None:
        super().__init__(message)
        self.pid = pid


class ConcurrencyError(LoomError):
    """An append expected a sequence number that another writer has already moved past."""


def default_db() -> str:
    """`LOGS_DB` if set, else ./loom.duckdb (DESIGN.md, storage)."""
    return os.environ.get("LOGS_DB") or DEFAULT_DB


OFFLINE: dict[str, str | bool | int | float | list[str]] = {
    "autoinstall_known_extensions": False,
    "autoload_known_extensions": False,
}
"""DuckDB never fetches an extension: by default it downloads one when a query needs it (a SQLite file given as --db
asked for `sqlite_scanner` from extensions.duckdb.org). What Loom uses (Parquet, JSON, ICU) is built into the wheel."""


class Connection:
    """A DuckDB connection (or a cursor of one, for another thread) and the file it is open on."""

    def __init__(self, con: duckdb.DuckDBPyConnection, path: str) -> None:
        self.con = con
        self.path = path
        self.depth = 0  # nested transactions joined into the outermost one

    @classmethod
    def open(cls, path: str, *, read_only: bool) -> Connection:
        """Connect to the file at `path`; StoreError says why not."""
        if read_only and path != MEMORY and not Path(path).exists():
            raise StoreError(f"no Loom database at {path}; record games first (logs simulate, logs import)")
        if not read_only and path != MEMORY and _is_empty_file(path):
            Path(path).unlink()  # an empty file (touch, mktemp) holds nothing: DuckDB makes the database in its place
        try:
            return cls(duckdb.connect(path, read_only=read_only and path != MEMORY, config=OFFLINE), path)
        except duckdb.Error as error:
            raise friendly(error, path) from None

    def cursor(self) -> Connection:
        """A connection of its own on the same database, for another thread."""
        return Connection(self.con.cursor(), self.path)

    def set_threads(self, threads: int) -> None:
        """Let DuckDB use this many threads."""
        self.con.execute(f"SET threads = {int(threads)}")

    @contextmanager
    def threads(self, threads: int) -> Iterator[None]:
        """DuckDB on this many threads within the block (a setting of the whole database), then as before."""
        before = self.con.execute("SELECT current_setting('threads')").fetchall()[0][0]
        self.set_threads(threads)
        try:
            yield
        finally:
            self.set_threads(before)

    def close(self) -> None:
        """Close the connection; the file is unlocked (once every cursor is closed too)."""
        self.con.close()

    # --- Statements: a read's database error becomes a StoreError ------------------------------------------------

    def run(self, sql: str, params: Params = ()) -> list[Any]:
        """Run a statement of a write and fetch its rows; its errors are left to `written` to explain."""
        return self.con.execute(sql, params or None).fetchall()

    def all(self, sql: str, params: Params = ()) -> list[Any]:
        """Every row of a query."""
        try:
            return self.con.execute(sql, params or None).fetchall()
        except duckdb.Error as error:
            raise friendly(error, self.path) from None

    def one(self, sql: str, params: Params = ()) -> Any:
        """The first row of a query, or None."""
        # duckdb 2 refuses new work while a result is only partly fetched, so results are always fetched whole.
        rows = self.all(sql, params)
        return rows[0] if rows else None

    def named(self, sql: str, params: Params = ()) -> tuple[tuple[str, ...], list[Any]]:
        """A query's column names and rows."""
        try:
            result = self.con.execute(sql, params or None)
            rows = result.fetchall()
        except duckdb.Error as error:
            raise friendly(error, self.path) from None
        return tuple(column[0] for column in result.description or ()), rows

    def frame(self, sql: str, params: Params = ()) -> pd.DataFrame:
        """A query's rows as a pandas DataFrame."""
        try:
            return self.con.execute(sql, params or None).df()
        except duckdb.Error as error:
            raise friendly(error, self.path) from None

    def insert(self, table: str, rows: pa.Table, sql: str | None = None) -> None:
        """Add the Arrow `rows` to `table` (nothing to do for none): a plain insert of new rows, or `sql`, which
        reads them as `arrow_batch`."""
        if rows.num_rows == 0:
            return
        # DuckDB finds `arrow_batch` among this frame's variables (a replacement scan): about 40% cheaper per
        # statement than registering a view and dropping it, and a group append's cost is its statements.
        arrow_batch = rows  # noqa: F841
        try:
            self.con.execute(sql or queries.insert_batch(table))
        except duckdb.Error as error:
            if _scan_interrupted(error):
                raise KeyboardInterrupt from None
            raise

    # --- Transactions --------------------------------------------------------------------------------------------

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """All or nothing: roll back on any error. Nested uses join the outermost transaction."""
        if self.depth:
            self.depth += 1
            try:
                yield
            finally:
                self.depth -= 1
            return
        self.con.execute("BEGIN TRANSACTION")
        self.depth = 1
        try:
            yield
        except BaseException as error:
            with suppress(duckdb.Error):  # a failed rollback commits nothing either; the first error is the news
                self.con.execute("ROLLBACK")
            cause = _first_cause(error)
            if cause is error:
                raise
            raise cause from None
        finally:
            self.depth = 0
        try:
            self.con.execute("COMMIT")
        except duckdb.Error as error:
            with suppress(duckdb.Error):  # DuckDB has usually rolled back already
                self.con.execute("ROLLBACK")
            if _lost_race(error):
                message = f"another writer changed the same games; nothing was written ({error})"
                raise ConcurrencyError(message) from None
            raise friendly(error, self.path) from None  # a full disk, say: not another writer's doing

    @contextmanager
    def written(self, *, conflict: str | None = None) -> Iterator[None]:
        """A transaction whose database errors are StoreErrors that say their cause, never a traceback.

        With `conflict`, another writer getting there first (a key written twice, or a row it updated and this
        transaction updates too) is a ConcurrencyError saying it."""
        try:
            with self.transaction():
                yield
        except duckdb.Error as error:
            if conflict is not None and (isinstance(error, duckdb.ConstraintException) or _lost_race(error)):
                raise ConcurrencyError(conflict) from None
            raise friendly(error, self.path) from None


def friendly(error: duckdb.Error, path: str) -> StoreError:
    """A database error as one line a user can act on."""
    text = str(error)
    if "Could not set lock" in text:
        found = re.search(r"PID (\d+)", text)
        pid = int(found.group(1)) if found else None
        owner = f" (pid {pid})" if pid else ""
        message = f"database {path} is locked by another process{owner}; wait for it to finish and retry"
        return StoreLocked(message, pid)
    if "not a valid DuckDB database" in text or re.search(r"Extension .* not found", text):
        return StoreError(f"{path} is not a DuckDB database")  # another kind (SQLite) needs an extension Loom lacks
    if "No such file or directory" in text or "Cannot open file" in text:
        return StoreError(f"cannot open database {path}: no such file or directory")
    first_line = text.splitlines()[0] if text else type(error).__name__
    return StoreError(f"database {path}: {first_line}")


def _is_empty_file(path: str) -> bool:
    """Whether `path` is a regular file of no bytes (never a device such as /dev/null, nor a link)."""
    try:
        found = os.lstat(path)
    except OSError:
        return False
    return stat.S_ISREG(found.st_mode) and found.st_size == 0


def _scan_interrupted(error: duckdb.Error) -> bool:
    """Whether Ctrl-C came as DuckDB read `arrow_batch` from Python: it then reports the scan failing (the
    interruption named in its message) or, having lost the interruption, the variable as missing."""
    message = str(error)
    return "KeyboardInterrupt" in message or (
        isinstance(error, duckdb.CatalogException) and "arrow_batch does not exist" in message
    )


def _lost_race(error: duckdb.Error) -> bool:
    """Whether a statement or COMMIT lost to another writer: a write-write conflict, or the same key written first."""
    text = str(error).lower()
    return isinstance(error, duckdb.TransactionException) and ("conflict" in text or "constraint" in text)


def _first_cause(error: BaseException) -> BaseException:
    """The error that aborted a transaction, rather than a later statement's `Current transaction is aborted`."""
    cause = error
    while isinstance(cause, duckdb.Error) and ABORTED in str(cause) and cause.__context__ is not None:
        cause = cause.__context__
    return cause
