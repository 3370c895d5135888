"""The one database file the server owns: a cursor per thread for reads, one writer thread, the latest positions.

A store's connection is not safe across threads, and requests run on a pool of threads: each thread reads
through its own cursor of the one connection, and every write is a job of the one writer (`service.committer`),
which commits the writes that arrive together in one transaction.

A file's appends are acknowledged once in its journal (replay/journal.py), before they are in DuckDB: every read of
the store (`reader()`, and so `latest()` of a game not kept) first waits for the journal's mover to pass what was
acknowledged when the read began, which costs one comparison when nothing is pending.

Settings, from the environment (`logs serve` has no flags for them): `LOGS_JOURNAL_FSYNC=1` fsyncs the journal
after each group (an acknowledged append then survives a power loss, not only a crash of the server);
`LOGS_JOURNAL_SETTLE` is the seconds the mover lets appends gather (default 0.5; a reader never waits for it; the
journal is flushed to the disk every `journal.SYNC` seconds meanwhile).
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, TypeVar

from loom.replay.connection import MEMORY
from loom.replay.journal import SETTLE, Journal
from loom.replay.projector import Following
from loom.replay.readers import PUBLISH_EVERY, Publisher
from loom.replay.replay import Position, position
from loom.replay.store import GameInfo, Store
from loom.service.committer import Committer, Job, Staged
from loom.service.owners import PRIMARY, Elsewhere, Owners

T = TypeVar("T")

LATEST = 512
"""Games whose latest state is kept in memory: an append then starts from it instead of folding the game."""


THREADS = max(1, len(os.sched_getaffinity(0)) - 1)
"""DuckDB's threads in a server: every core but one, which the event loop keeps. The server's statements are many
and small (a move of the journal, a page's read), each on a thread of its own already; DuckDB's workers on the
loop's core only took turns with it (on two cores, about a tenth of an append's CPU: bench/profiles/httpbehind.md)."""


class Database:
    """The store of a running server."""

    def __init__(
        self,
        path: str,
        *,
        publish_every: float = PUBLISH_EVERY,
        appended: Callable[[int], None] = lambda game_id: None,
        journal: bool = True,
        fsync: bool | None = None,
        settle: float | None = None,
    ) -> None:
        self.store = Store.open(path, threads=THREADS)  # moves in the journal a killed server left behind
        self.path = self.store.path
        self._local = threading.local()
        self._cursors: list[Store] = []
        self._cursors_lock = threading.Lock()
        self._closed = False
        self._appended = appended
        self._latest: OrderedDict[int, tuple[GameInfo, Any]] = OrderedDict()
        # Who holds each game's live state, when other processes serve appends too; a game another process holds
        # is never kept here (that process changes it), and the table's lock is the kept states' lock.
        self.owners = Owners(changed=self._drop_kept)
        self._latest_lock = self.owners.lock
        # Other processes cannot open the file while this one holds it: they read the copy published beside it.
        self.publisher = Publisher.start(self.store, every=publish_every, ready=False)
        # The facts projections follow the log on a thread of their own, off the appends' hot path; the readers'
        # copy is first published once their first pass is done, and again after each batch they commit (a report
        # reads only the games projected to their end).
        publisher = self.publisher
        self.projector = (
            Following.start(self.store, publisher.changed, publisher.ready)
            if publisher is not None
            else Following.start(self.store)
        )
        self.journal: Journal | None = None
        if journal and self.store.path != MEMORY:
            self.journal = Journal(
                self.store.cursor(),
                fsync=os.environ.get("LOGS_JOURNAL_FSYNC", "0") == "1" if fsync is None else fsync,
                settle=float(os.environ.get("LOGS_JOURNAL_SETTLE", SETTLE)) if settle is None else settle,
                moved=self._moved,
            )
        self.committer = Committer(
            self.store.cursor(), self._appending, self.remember, self.forget, self._committed, self.journal
        )

    def reader(self, game_id: int | None = None) -> Store:
        """This thread's store, on its own cursor, once every append acknowledged so far (to game `game_id`, if
        given: a read of that game only) is in it."""
        if self.journal is not None:
            self.journal.caught_up(game_id)
        store = getattr(self._local, "store", None)
        if store is None:
            store = self.store.cursor()
            self._local.store = store
            with self._cursors_lock:
                self._cursors.append(store)
        return store

    def submit(self, job: Job[T], *, appends_to: int | None = None) -> Future[T]:
        """Hand a write to the writer; its answer once committed (with the writes that arrived with it).

        `appends_to`: the job only appends to this game, and may be written on the caller's thread at once (its
        Future then done on return) if the writer is idle and the game's state is kept (no read of the store)."""
        if appends_to is not None and appends_to in self._latest:
            done = self.committer.now(job)
            if done is not None:
                return done
        return self.committer.submit(job)

    def write(self, write: Callable[[Store], T]) -> T:
        """Run `write` on the writer's store (in the transaction of its group), once committed; what it returned."""
        return self.submit(lambda live: Staged(answer=lambda done: done, write=write)).result()

    def _committed(self, game_ids: list[int], moved: bool = True) -> None:
        """After each commit or journal record (on the writer's thread): wake the games' streams (their reads wait
        for the mover), and once in DuckDB, the projector and the publisher."""
        for game_id in game_ids:
            self._appended(game_id)
        if moved:
            self._moved(game_ids)

    def _moved(self, game_ids: list[int]) -> None:
        """Appends are in DuckDB: have their facts projected, and the copy published."""
        self.projector.wake()  # never waits: the facts are projected on the projector's thread
        if self.publisher is not None:
            self.publisher.changed()  # never waits: the copy is made on the publisher's thread

    def latest(self, game_id: int) -> tuple[GameInfo, Any]:
        """The game's row and its state after its last event: from memory, else read and kept.

        Only this server writes the file (DuckDB locks it), and every append it makes updates what is kept, so a
        kept game is never behind the file for longer than an append takes to return. A game another process holds
        is read from the file each time (its appends are in the journal before they are acknowledged)."""
        with self._latest_lock:
            kept = self._latest.get(game_id)
            if kept is not None:
                self._latest.move_to_end(game_id)
                return kept
            changes = self.owners.changes
        at: Position = position(self.reader(game_id), game_id)
        self.remember(at.info, at.state, since=changes)
        return at.info, at.state

    def _appending(self, game_id: int) -> tuple[GameInfo, Any]:
        """`latest`, for an append of this process's: the game is taken first; Elsewhere if another process holds it."""
        holder = self.owners.take(game_id, PRIMARY)
        if holder != PRIMARY:
            raise Elsewhere(game_id, holder)
        return self.latest(game_id)

    def hand(self, game_id: int, process: int) -> Position | None:
        """Give the game to another serving process, with its position now; None if a process holds it already
        (this one, or another). Any group of appends being written is let finish first, so the position given has
        every append of this process's."""
        with self.committer.busy:  # no group of this process's is between its check and its record meanwhile
            if self.owners.take(game_id, process) != process:
                return None
        try:
            return position(self.reader(game_id), game_id)
        except BaseException:
            self.owners.release(game_id, process)
            raise

    def remember(self, info: GameInfo, state: Any, *, since: int | None = None) -> None:
        """Keep `state` as the latest of game `info` (at its last_seq), unless a later one is kept already, another
        process holds the game, or (`since`) a game passed between processes after the state was read."""
        with self._latest_lock:
            if self.owners.of(info.id) not in (None, PRIMARY) or since not in (None, self.owners.changes):
                return
            kept = self._latest.get(info.id)
            if kept is not None and kept[0].last_seq >= info.last_seq:
                return
            self._latest[info.id] = (info, state)
            self._latest.move_to_end(info.id)
            while len(self._latest) > LATEST:
                self.owners.release(self._latest.popitem(last=False)[0], PRIMARY)

    def _drop_kept(self, game_id: int) -> None:
        self._latest.pop(game_id, None)

    def forget(self, game_id: int) -> None:
        """Drop what is kept of a game (after an append found the file ahead of it)."""
        with self._latest_lock:
            self._latest.pop(game_id, None)
            self.owners.release(game_id, PRIMARY)

    def close(self) -> None:
        """Stop publishing (the readers' copy is removed), close every cursor and the connection; the file is
        unlocked. Closing again does nothing."""
        with self._cursors_lock:
            if self._closed:
                return
            self._closed = True
            self.committer.close()  # answers the writes already handed over
            if self.journal is not None:
                self.journal.close()  # moves every acknowledged append into DuckDB
            self.projector.stop()  # its batch under way is committed or rolled back, then its cursor closes
            if self.publisher is not None:
                self.publisher.stop()  # before the connection closes: its last copy may be under way
            for store in self._cursors:
                store.close()
            self._cursors.clear()
        self.committer.store.close()
        self.store.close()
