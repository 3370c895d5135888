"""A database file held open by another process, for the tests of DuckDB's lock (store and CLI)."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def held_by_another_process(path: Path) -> Iterator[None]:
    """While the block runs, another process has the database at `path` open (and so locked); it is killed after."""
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            f"import duckdb, time; c = duckdb.connect({str(path)!r}); print('ready', flush=True); time.sleep(30)",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "ready"
        yield
    finally:
        holder.kill()
        holder.wait()
