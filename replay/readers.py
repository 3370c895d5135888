"""The readers' copy: a read-only copy of a running server's database, published beside it.

DuckDB lets one process hold a file for writing, and while it does another process cannot even open the file
read-only. So the server publishes a copy, `loom.readers.duckdb` beside `loom.duckdb` (DESIGN.md: readers never wait
for a writer), when it starts and then, at most every `PUBLISH_EVERY` seconds (less often for a store whose copy
takes long: `pause`), after its store changed: from a thread of its own, never on a request's path. The copy is
written whole to a temporary file and renamed over the last one, so a reader never sees a half-written copy; the
server removes it when it stops cleanly, and one left by a killed server still opens (its age is told).

Reads open the database itself, and only when another process holds it open the copy instead.
"""

from __future__ import annotations

import logging
import os
import shutil
import stat
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import duckdb

from loom.replay.connection import MEMORY, Connection, StoreError, StoreLocked, default_db
from loom.replay.store import Store

PUBLISH_EVERY = 2.0
"""Seconds between two copies at most, for a store that copies quickly (see `SHARE`)."""
SHARE = 0.2
"""The most of the time the publisher spends copying. A copy is made whole, so its time grows with the store: a
1,000-game store (6 MB) took 0.25 s here, a 10,000-game one (72 MB) 1.6 to 4.9 s on a busy 2-core machine, and
DuckDB copies on every core. A large store is published less often rather than copied most of the time beside the
appends; the CLI says how old the copy it reads is."""

_ALIAS = "loom_readers_copy"
log = logging.getLogger("loom.readers")


def readers_path(path: str | Path) -> Path:
    """Where the copy of the database at `path` is published: `loom.duckdb` -> `loom.readers.duckdb`."""
    file = Path(path)
    return file.with_name(f"{file.stem}.readers{file.suffix}" if file.suffix else f"{file.name}.readers")


def _aside(copy: Path) -> Path:
    """The folder, beside the copy and readable by its owner only, where a copy is written before it is renamed into
    place: no one reads a half-written copy, nor a whole one before it has the database's permissions."""
    return copy.with_name(f".{copy.name}.partial")


def _remove(path: Path) -> None:
    """Remove a database file and its write-ahead log, if there are any."""
    for file in (path, path.with_name(path.name + ".wal")):
        file.unlink(missing_ok=True)


def _quoted(text: str, quote: str) -> str:
    """`text` quoted for SQL: a string literal (') or an identifier (")."""
    return quote + text.replace(quote, quote * 2) + quote


def publish(db: Connection, copy: Path) -> None:
    """Copy the database of `db` to `copy`, whole: written aside, then renamed over the previous copy."""
    aside = _aside(copy)
    shutil.rmtree(aside, ignore_errors=True)  # left by a publisher that was killed half-way
    aside.mkdir(mode=0o700)
    partial = aside / copy.name
    try:
        name = db.one("SELECT current_database()")[0]
        db.run(f"ATTACH {_quoted(str(partial), chr(39))} AS {_ALIAS}")
        try:
            # One read transaction: the copy is the database as of one commit, whatever is appended meanwhile.
            db.run(f"COPY FROM DATABASE {_quoted(name, chr(34))} TO {_ALIAS}")
        finally:
            db.run(f"DETACH {_ALIAS}")  # checkpoints the copy: no write-ahead log is left beside it
        # Whoever may not read the database may not read its copy either: it holds every hidden card.
        os.chmod(partial, stat.S_IMODE(os.stat(db.path).st_mode))
        os.replace(partial, copy)
    finally:
        shutil.rmtree(aside, ignore_errors=True)


def pause(every: float, took: float) -> float:
    """Seconds to wait after a copy that took `took`: `every`, or long enough that copying takes at most `SHARE`
    of the time (one copy every `every` seconds however busy the writer)."""
    return max(every, took * (1 - SHARE) / SHARE)


class Publisher:
    """A thread that publishes the readers' copy of a store at start and after changes, at most every `every` s.

    Not `ready`, it publishes nothing until told `ready()`: a server's first copy waits for the projector's first
    pass, so that no reader finds a game recorded before the server started without its facts."""

    def __init__(self, store: Store, *, every: float = PUBLISH_EVERY, ready: bool = True) -> None:
        self.copy = readers_path(store.path)
        self.every = every
        self._db = store.cursor().db  # a connection of the thread's own: the server's cursors stay its requests'
        self._changed = threading.Event()
        self._stopping = threading.Event()
        self._changed.set()  # the first copy is published as soon as the thread runs (and is ready)
        self._ready = threading.Event()
        if ready:
            self._ready.set()
        self._thread = threading.Thread(target=self._run, name="loom-readers", daemon=True)
        self.published = 0  # copies published so far, for the tests

    @classmethod
    def start(cls, store: Store, *, every: float = PUBLISH_EVERY, ready: bool = True) -> Publisher | None:
        """A running publisher for `store`, or None for an in-memory store (nobody else can read it anyway)."""
        if store.path == MEMORY:
            return None
        publisher = cls(store, every=every, ready=ready)
        publisher._thread.start()
        return publisher

    def changed(self) -> None:
        """Say that the store changed: a new copy is published within `every` seconds."""
        self._changed.set()

    def ready(self) -> None:
        """Say that the store may be copied from now on (and copy it)."""
        self._ready.set()
        self._changed.set()

    def _run(self) -> None:
        try:
            while True:
                self._changed.wait()
                if self._stopping.is_set():
                    return
                self._changed.clear()
                if not self._ready.is_set():  # a change before it is ready: `ready()` publishes it
                    continue
                started = time.monotonic()
                try:
                    publish(self._db, self.copy)
                    self.published += 1
                except (duckdb.Error, OSError, StoreError) as error:  # a full disk, say: the next change retries
                    log.warning("could not publish the readers' copy %s: %s", self.copy, error)
                took = time.monotonic() - started
                log.debug("published %s in %.2f s", self.copy, took)
                self._stopping.wait(pause(self.every, took))
        finally:
            self._db.close()

    def stop(self) -> None:
        """Stop publishing and remove the copy (a server that stops cleanly leaves no stale copy behind)."""
        self._stopping.set()
        self._changed.set()
        self._thread.join()
        _remove(self.copy)
        shutil.rmtree(_aside(self.copy), ignore_errors=True)


@dataclass(frozen=True, slots=True)
class Reading:
    """A store opened to read, and when it is the server's copy, the line that says so."""

    store: Store
    note: str | None = None


def _age(seconds: float) -> str:
    """An age a person reads at a glance: `3 s`, `4 min`, `2 h`, `3 days`."""
    if seconds < 120:
        return f"{max(0, round(seconds))} s"
    if seconds < 7200:
        return f"{round(seconds / 60)} min"
    if seconds < 172800:
        return f"{round(seconds / 3600)} h"
    return f"{round(seconds / 86400)} days"


def open_reading(path: str | Path | None = None, *, threads: int | None = None) -> Reading:
    """The database at `path` opened read-only, or, while another process holds it, the copy that process published.

    With no copy, the database's own one-line error (locked by pid N) is raised."""
    path = str(path or default_db())
    try:
        return Reading(Store.open(path, read_only=True, threads=threads))
    except StoreLocked as locked:
        copy = readers_path(path)
        try:
            age = time.time() - copy.stat().st_mtime
            store = Store.open(copy, read_only=True, threads=threads)
        except (OSError, StoreError):
            raise locked from None  # no copy (or none that opens): the database's own error is the news
        owner = f"pid {locked.pid}" if locked.pid else "another process"
        note = f"reading the copy published by the server {_age(age)} ago (the database is in use by {owner})"
        return Reading(store, note)
