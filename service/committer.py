"""One writer per database, committing in groups.

Every write of a running server is a job handed to one thread. The writer takes every job waiting (those that
arrived while it committed the last group), checks each one in turn against the live state (the latest positions
kept in memory, and what the jobs before it in the group played), then writes the group in ONE transaction: one
commit, not one per request. A job is answered only once its group is committed (or refused), so an acknowledged
append survives a crash.

If the group's transaction fails (a database error, a game that moved under a state kept in memory), nothing of it
is kept, and each of its jobs runs again alone, in its own transaction: each request gets its own true answer.

With a journal (replay/journal.py, a served file's), the group's appends are not committed to DuckDB by the writer:
they are written to the journal as one record (one `os.write`), and answered then; the journal's mover thread moves
them into DuckDB. The other writes (a new game, a branch, the secret) wait for the mover to have moved every append
acknowledged before them (unless they only add rows: a new game), then run in one transaction as above.

An append may also be written by the thread that asks for it (`now`: the event loop's, for the API's fast path),
as a group of one, when the writer is idle: whoever writes a group's appends holds `busy`, so groups never
overlap. A new game's transaction is made after `busy` is released: appends are not held back by it.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

from loom.replay.journal import Journal
from loom.replay.live import Append, append_group, dealt_by_loom
from loom.replay.store import ConcurrencyError, GameInfo, Store, StoreError

log = logging.getLogger("loom.service")

T = TypeVar("T")
GROUP = 256
"""Jobs written in one transaction at most: a bound on how long the first of them waits for the commit."""
LINGER = 0.005
"""Seconds the writer waits at most for a group to fill up (and never more than half the last group took)."""


class Live:
    """The latest position of each game as a group's jobs see it: what the group played so far, else what is kept."""

    def __init__(self, store: Store, latest: Callable[[int], tuple[GameInfo, Any]]) -> None:
        self.store = store
        self._latest = latest
        self.played: dict[int, tuple[GameInfo, Any]] = {}

    def latest(self, game_id: int) -> tuple[GameInfo, Any]:
        """The game's row and its state after its last event, this group's appends included."""
        return self.played.get(game_id) or self._latest(game_id)

    def play(self, info: GameInfo, state: Any) -> None:
        """Say that a job of the group took game `info.id` to `state` (the last thing a job does when staged)."""
        self.played[info.id] = (info, state)

    def dealt_by_loom(self, game_id: int) -> bool:
        """Whether Loom dealt the game (it knows its hidden cards), or a real table reports them."""
        return dealt_by_loom(self.store, game_id)


@dataclass
class Staged(Generic[T]):
    """A checked job, ready to be written: its appends (written with the group's), anything else it writes (in the
    group's transaction, in the order of the jobs), and its answer once committed (given what `write` returned)."""

    answer: Callable[[Any], T]
    appends: Sequence[Append] = ()
    write: Callable[[Store], Any] | None = None
    after_moved: bool = True
    """With a journal: whether `write` waits for the mover to have moved every acknowledged append (it reads or
    changes games appended to); a write of new rows only (a new game) need not."""


class Job(Protocol[T]):
    """A write to check and stage; it writes nothing itself, and raises to refuse (its request's answer)."""

    def __call__(self, live: Live) -> Staged[T]: ...


class _NotAnAppend(Exception):
    """A job given to `Committer.now` that writes more than appends: the writer's to write."""


@dataclass
class _Waiting:
    job: Job[Any]
    future: Future[Any] = field(default_factory=Future)


class Committer:
    """The writer thread of one database."""

    def __init__(
        self,
        store: Store,
        latest: Callable[[int], tuple[GameInfo, Any]],
        remember: Callable[[GameInfo, Any], None],
        forget: Callable[[int], None],
        committed: Callable[[list[int], bool], None],
        journal: Journal | None = None,
    ) -> None:
        self.store = store
        self.journal = journal
        self._latest, self._remember, self._forget, self._committed = latest, remember, forget, committed
        self._queue: queue.SimpleQueue[_Waiting | None] = queue.SimpleQueue()
        self._closed = False
        self._stopping = False
        self._lock = threading.Lock()
        self.busy = threading.RLock()  # held while a group's appends are checked and written (the writer, or `now`)
        self.groups = 0  # transactions committed, and jobs in them: how much grouping happens
        self.jobs = 0
        self._thread = threading.Thread(target=self._run, name="loom-writer", daemon=True)
        self._thread.start()

    def submit(self, job: Job[T]) -> Future[T]:
        """Hand a job to the writer; its answer once written (or its refusal)."""
        waiting = _Waiting(job)
        with self._lock:
            if self._closed:
                waiting.future.set_exception(StoreError("the server is stopping; nothing was written"))
                return waiting.future
            self._queue.put(waiting)
        return waiting.future

    def now(self, job: Job[T]) -> Future[T] | None:
        """Write an append job on the caller's thread at once, as a group of one, if the writer is idle and the
        journal needs no fsync: the same check against the live state, the same record and answer, without handing
        it to the writer and back (two wake-ups of two threads). None if the writer is busy, or if the job writes
        more than appends: submit it instead.

        The one-writer rule holds: `busy` is held by whoever writes a group, so groups never overlap."""
        journal = self.journal
        if journal is None or journal.fsync or not self.busy.acquire(blocking=False):
            return None
        try:
            if self._closed:
                return None
            future: Future[T] = Future()
            try:
                self._journal_one(job, journal, future)
            except _NotAnAppend:
                return None  # nothing was written nor kept: the writer checks it again
            except BaseException as error:  # a bug of the writer itself: answer rather than hang
                log.exception("the writer failed")
                if not future.done():
                    future.set_exception(error)
        finally:
            self.busy.release()
        return future

    def _journal_one(self, job: Job[T], journal: Journal, future: Future[T]) -> None:
        """`_journal_appends` for a group of one job that only appends (`now`), with none of a group's lists."""
        live = Live(self.store, self._latest)
        try:
            staged = job(live)
        except Exception as error:  # refused: nothing written
            future.set_exception(error)
            return
        if staged.write is not None:
            raise _NotAnAppend
        try:
            if staged.appends:
                journal.append(staged.appends)
        except Exception as error:  # nothing of the record was kept: the append is not acknowledged
            for game_id in live.played:
                self._forget(game_id)
            future.set_exception(error)
            return
        self._done(live, [staged], moved=False)
        _answer(future, staged, None)

    def close(self) -> None:
        """Answer the jobs already handed over, then stop the thread."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            self._queue.put(None)
        self._thread.join()
        with self.busy:  # a write under way on another thread (`now`) ends before the journal may close
            pass

    def _run(self) -> None:
        expected, linger = 1, 0.0
        while True:
            group = self._take(expected, linger)
            if not group:
                return
            began = time.monotonic()
            try:
                self._write_group(group)
            except BaseException as error:  # a bug of the writer itself: answer everyone rather than hang them
                log.exception("the writer failed")
                for waiting in group:
                    if not waiting.future.done():
                        waiting.future.set_exception(error)
            # The clients just answered will likely send their next writes soon, and those that wrote meanwhile
            # are waiting already: the next group waits for as many, for up to half the time a group takes.
            expected = len(group) + self._queue.qsize()
            linger = min(LINGER, (time.monotonic() - began) / 2)
            if self._stopping:
                return

    def _take(self, expected: int, linger: float) -> list[_Waiting]:
        """The next group: every job waiting, and for up to `linger` seconds more, until there are `expected`
        (clients answered together send their next writes together, but each reaches the writer only after the
        event loop has read and parsed it). Empty once the committer is closed."""
        first = self._queue.get()
        if first is None:
            return []
        group, deadline = [first], time.monotonic() + linger
        while len(group) < GROUP:
            try:
                if len(group) < expected:
                    more = self._queue.get(timeout=max(0.0, deadline - time.monotonic()))
                else:
                    more = self._queue.get_nowait()
            except queue.Empty:
                break
            if more is None:
                self._stopping = True
                break
            group.append(more)
        return group

    def _write_group(self, group: list[_Waiting]) -> None:
        """Check every job against the live state, write the staged ones in one transaction, then answer all."""
        if self.journal is not None:
            self._journal_group(group, self.journal)
            return
        if len(group) == 1:
            self._write_alone(group[0])
            return
        live = Live(self.store, self._latest)
        staged: list[tuple[_Waiting, Staged[Any] | BaseException]] = []
        try:
            with self.store.transaction():
                for waiting in group:
                    staged.append((waiting, _checked(waiting.job, live)))
                written = _written(self.store, [s for _, s in staged if isinstance(s, Staged)])
        except Exception:
            # Nothing of the group was kept: each job again, alone, for its own true answer.
            for waiting in group:
                self._write_alone(waiting)
            return
        self._done(live, [s for _, s in staged if isinstance(s, Staged)])
        results = iter(written)
        for waiting, outcome in staged:
            if isinstance(outcome, Staged):
                _answer(waiting.future, outcome, next(results))
            else:
                waiting.future.set_exception(outcome)

    def _journal_group(self, group: list[_Waiting], journal: Journal) -> None:
        """Check every job; write the appends of those that only append as one journal record and answer them; then
        the other writes, once the mover has moved every acknowledged append, in one transaction.

        Appends (here and on other threads, `now`) are written under `busy`, one group at a time. A write of new
        rows only (a new game: `after_moved` false) is made after it is released: it touches no game's live state
        and no journal, and appends to other games are not held up by its transaction."""
        with self.busy:
            writing = self._journal_appends(group, journal)
            if writing and any(staged.after_moved for _, staged in writing):
                self._journal_writes(writing, journal)
                return
        if writing:
            self._journal_writes(writing, journal)

    def _journal_appends(self, group: list[_Waiting], journal: Journal) -> list[tuple[_Waiting, Staged[Any]]]:
        """Check every job, write and answer those that only append; the others, checked and staged."""
        live = Live(self.store, self._latest)
        checked = [(waiting, _checked(waiting.job, live)) for waiting in group]
        appending = [(w, s) for w, s in checked if isinstance(s, Staged) and s.write is None]
        writing = [(w, s) for w, s in checked if isinstance(s, Staged) and s.write is not None]
        appends = [a for _, s in appending for a in s.appends]
        try:
            if appends:
                journal.append(appends)
        except Exception as error:  # nothing of the record was kept: none of them is acknowledged
            for game_id in live.played:
                self._forget(game_id)
            for waiting, _ in appending:
                waiting.future.set_exception(error)
            appending = []
        else:
            if appending:
                self._done(live, [s for _, s in appending], moved=False)
        for waiting, outcome in checked:
            if not isinstance(outcome, Staged):
                waiting.future.set_exception(outcome)
        for waiting, staged in appending:
            _answer(waiting.future, staged, None)
        return writing

    def _journal_writes(self, writing: list[tuple[_Waiting, Staged[Any]]], journal: Journal) -> None:
        """The staged writes other than appends, once the mover has moved every acknowledged append if one of them
        needs it, in one transaction."""
        try:
            if any(staged.after_moved for _, staged in writing):
                journal.caught_up()
        except Exception as error:
            for waiting, _ in writing:
                waiting.future.set_exception(error)
            return
        live = Live(self.store, self._latest)
        try:
            with self.store.transaction():
                written = _written(self.store, [s for _, s in writing])
        except Exception:
            for waiting, _ in writing:
                self._write_alone(waiting)
            return
        self._done(live, [s for _, s in writing])
        for (waiting, staged), result in zip(writing, written):
            _answer(waiting.future, staged, result)

    def _write_alone(self, waiting: _Waiting) -> None:
        """One job in its own transaction."""
        live, outcome = Live(self.store, self._latest), None
        try:
            with self.store.transaction():
                outcome = waiting.job(live)
                (written,) = _written(self.store, [outcome])
        except ConcurrencyError as error:
            waiting.future.set_exception(self._conflict(live, outcome, error))
            return
        except BaseException as error:
            waiting.future.set_exception(error)
            return
        self._done(live, [outcome])
        _answer(waiting.future, outcome, written)

    def _conflict(self, live: Live, outcome: Staged[Any] | None, error: ConcurrencyError) -> Exception:
        """A game moved under the state kept of it: forget it, and tell the client where the game really is."""
        from loom.service.errors import Conflict  # errors imports the web framework; the writer need not

        for game_id in live.played:
            self._forget(game_id)
        if outcome is None or len(outcome.appends) != 1:
            return error
        info = outcome.appends[0].info
        now = self.store.game_row(info.id).last_seq
        return Conflict(f"game {info.id} is at event {now}, not {info.last_seq}; read it again", now)

    def _done(self, live: Live, staged: list[Staged[Any]], *, moved: bool = True) -> None:
        """After a commit (or a journal record): keep the new latest states and say which games changed."""
        for info, state in live.played.values():
            self._remember(info, state)
        self.groups += 1
        self.jobs += len(staged)
        self._committed(sorted({a.info.id for s in staged for a in s.appends}), moved)


def _checked(job: Job[Any], live: Live) -> Staged[Any] | BaseException:
    """The job checked and staged, or what refused it (a refusal writes nothing: the group goes on)."""
    try:
        return job(live)
    except Exception as error:
        return error


def _written(store: Store, staged: Sequence[Staged[Any]]) -> list[Any]:
    """Write the staged jobs (in the caller's transaction): each one's own writes in order, then every append at
    once; what each one's `write` returned."""
    results = [None if s.write is None else s.write(store) for s in staged]
    appends = [a for s in staged for a in s.appends]
    if appends:
        append_group(store, appends)
    return results


def _answer(future: Future[Any], staged: Staged[Any], written: Any) -> None:
    try:
        future.set_result(staged.answer(written))
    except BaseException as error:
        future.set_exception(error)
