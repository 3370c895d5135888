"""Worker processes that end with the command that started them, however it ends.

Pools start their workers from a forkserver (a DuckDB connection or a thread is never forked), so a worker's parent
is the forkserver, not the command, and PR_SET_PDEATHSIG cannot tie it to the command. Each worker holds instead the
read end of a pipe whose only write end is the command's (its lifeline) and exits the moment that end closes: when the
command leaves the pool, is stopped, or is killed with SIGKILL. With every worker gone, the forkserver and the
resource tracker see their own pipes close and exit too.
"""

from __future__ import annotations

import os
import signal
import tempfile
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Executor, Future, ProcessPoolExecutor, wait
from contextlib import contextmanager, suppress
from multiprocessing import Pipe, forkserver, get_context
from multiprocessing.connection import Connection
from multiprocessing.context import BaseContext
from types import FrameType
from typing import Any, TypeVar

from loom.events.base import LoomError

Item = TypeVar("Item")
Result = TypeVar("Result")
POLL = 0.05
"""Seconds a wait for a future holds Ctrl-C back at most (`result_of`)."""
HELD: tuple[int, ...] = (signal.SIGINT, signal.SIGTERM)
"""The signals that stop a command, held back where the main thread takes a lock that another thread needs."""


class Stopped(KeyboardInterrupt):
    """The command was told to stop (SIGTERM) while its workers ran: it ends as Ctrl-C ends it."""


@contextmanager
def worker_pool(
    workers: int, preload: Sequence[str] = (), setup: Callable[[], None] | None = None
) -> Iterator[ProcessPoolExecutor]:
    """A pool of `workers` processes that all end when this process ends or leaves the block, for any reason.

    Leaving on an error, Ctrl-C or SIGTERM (raised here as `Stopped`) drops the work not yet begun and ends the
    workers at once, mid-task, instead of waiting for the tasks they are running. The modules `preload` names are
    imported once by the forkserver (if this starts it) rather than by every worker: none may start a thread.
    `setup` (a module's function), if given, runs first in each worker.
    """
    with sigterm_stops(), lifelined_pool(workers, preload, setup) as pool:
        yield pool


@contextmanager
def lifelined_pool(
    workers: int, preload: Sequence[str] = (), setup: Callable[[], None] | None = None
) -> Iterator[ProcessPoolExecutor]:
    """`worker_pool` without its handling of SIGTERM: for a pool that a thread keeps while a server, which handles
    its signals itself, runs."""
    context = start_forkserver(preload)
    lifeline, held = Pipe(duplex=False)
    pool = ProcessPoolExecutor(workers, mp_context=context, initializer=_hold_lifeline, initargs=(lifeline, setup))
    try:
        yield pool
    except BaseException:
        with held_signals():  # a second Ctrl-C must not stop the teardown halfway, its locks held
            held.close()  # the workers see their lifeline close and exit, mid-task
            _unblock_results(pool)
            # Waiting for them takes milliseconds, and lets one still starting up read its arguments while this
            # process (which owns their queues' semaphores) lives: else it dies on a traceback. The work not yet
            # begun is dropped by the pool's manager (cancel_futures), never here future by future: a future
            # cancelled outside fails Python 3.11's manager if the pool breaks first, with a traceback.
            pool.shutdown(wait=True, cancel_futures=True)
        raise
    else:
        pool.shutdown()
    finally:
        held.close()
        lifeline.close()


def start_forkserver(preload: Sequence[str] = ()) -> BaseContext:
    """This process's forkserver context, its server started (if it is not running) with `preload` imported there
    and, from the main thread, with Ctrl-C ignored, so that it and every worker it forks are born ignoring it.

    A terminal's Ctrl-C reaches the whole process group: one that came while the forkserver imported its modules, or
    a worker its own (before `_hold_lifeline` ignores it), printed a KeyboardInterrupt traceback. A Ctrl-C in the
    milliseconds of the start is lost. Only the main thread may change how signals are handled: started from another,
    the forkserver is left to start as Python starts it."""
    context = get_context("forkserver")
    if preload:
        context.set_forkserver_preload(["__main__", *preload])  # __main__: what the forkserver loads by default
    with children_ignore_ctrl_c():
        _ensure_forkserver()
    return context


@contextmanager
def children_ignore_ctrl_c() -> Iterator[None]:
    """Within the block, Ctrl-C is ignored in the main thread, so that the processes it starts are born ignoring it
    (SIG_IGN is kept through exec, which resets a handler): a terminal's Ctrl-C reaches the whole process group, and
    the command, not each child with a traceback, is the one to stop them. Elsewhere than in the main thread, where
    signals' handling cannot be changed, it changes nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        _put_back(signal.SIGINT, previous)


def _ensure_forkserver() -> None:
    try:
        forkserver.ensure_running()
    except OSError as error:  # its socket lives in the temporary folder: a path over 107 bytes cannot be bound
        raise LoomError(
            f"cannot start worker processes: {error.strerror or error} (their socket goes in the temporary folder, "
            f"{tempfile.gettempdir()}; set TMPDIR to a shorter or writable one)"
        ) from None


def in_order(pool: Executor, work: Callable[[Item], Result], items: Iterable[Item], window: int) -> Iterator[Result]:
    """`work` of each item, in order, with at most `window` items in the pool whose results are not yet taken.

    Unlike `pool.map`, which takes every item at once, this takes the next item only when a result is taken, so a
    large file is read as fast as it is stored, and never queued whole. As with `map`, an error taking an item (a bad
    line of the file) comes after the results of the items before it. Left early, it leaves the items it handed over
    to the pool's owner (`worker_pool` drops them as it ends on the error that left).
    """
    source = iter(items)
    pending: deque[Future[Result]] = deque()
    failure: Exception | None = None
    exhausted = False
    while True:
        while not exhausted and len(pending) < max(window, 1):
            try:
                item = next(source)
            except StopIteration:
                exhausted = True
                break
            except Exception as error:  # noqa: BLE001  # raised in its turn, once the items before it are done
                failure, exhausted = error, True
                break
            with held_signals():
                pending.append(pool.submit(work, item))
        if not pending:
            break
        yield result_of(pending.popleft())
    if failure is not None:
        raise failure


@contextmanager
def held_signals() -> Iterator[None]:
    """Within the block, Ctrl-C and SIGTERM are held back and raised as they would have been once it ends.

    Python raises their exception at whichever line the main thread runs when they come, in the standard library's
    too: one that comes between taking a lock and the `with` that would give it back leaves the lock taken for ever
    (a future's, or a pool's). The pool's manager thread, which needs that lock to complete or cancel the future,
    then waits for ever, and so does the command that waits for the manager as it ends: an import hung after
    Ctrl-C, seen in CI. Only code that takes such locks and does not block is run within the block.
    Elsewhere than in the main thread, where Python never runs a signal's handler, it changes nothing.

    A signal may come at any line here too, the handlers' swaps included: so the handler that holds them passes
    them on once the block has ended, should one be left in place."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    came: list[int] = []
    previous: dict[int, Any] = {number: signal.getsignal(number) for number in HELD}
    holding = True

    def hold(number: int, frame: FrameType | None) -> None:
        if holding:
            came.append(number)
        else:
            _deliver(number, previous[number])

    try:
        for each in HELD:
            signal.signal(each, hold)
        yield
    finally:
        holding = False
        for each, handler in previous.items():
            _put_back(each, handler)
        for each in dict.fromkeys(came):  # each once, in the order they came
            _deliver(each, previous[each])


def _put_back(number: int, handler: Any) -> None:
    """Handle signal `number` again as `handler`, what `signal.signal` or `signal.getsignal` gave: None (a handler
    not set from Python) is put back as the default."""
    signal.signal(number, signal.SIG_DFL if handler is None else handler)


def _deliver(number: int, handler: Any) -> None:
    """Handle signal `number` as `handler`, what `signal.getsignal` gave, would have."""
    if callable(handler):
        handler(number, None)
    elif handler != signal.SIG_IGN:
        signal.raise_signal(number)  # the default (or a handler not set from Python, put back as the default)


def result_of(future: Future[Result]) -> Result:
    """The future's result, waited for in slices of POLL seconds within which a Ctrl-C is held back (`held_signals`):
    it stops the wait within POLL seconds, and never while the future's lock is taken."""
    while True:
        with held_signals():
            if wait((future,), timeout=POLL).done:
                return future.result()


def _unblock_results(pool: ProcessPoolExecutor) -> None:
    """Let the pool's manager see the end of its results pipe once the workers are gone.

    A worker that exits mid-way through sending a result leaves half a message in the pipe, and the manager thread
    waits for the rest for as long as any write end is open. This process holds one too (the pool keeps it to start
    workers), so it is closed here, when no worker will be started again: the manager then reads the end of the
    pipe, takes the pool as broken and ends, and `shutdown` returns instead of waiting forever.
    """
    results = getattr(pool, "_result_queue", None)
    writer = getattr(results, "_writer", None)
    if writer is not None:
        writer.close()


@contextmanager
def sigterm_stops() -> Iterator[None]:
    """Within the block, SIGTERM raises `Stopped` (where signals can be handled: in the main thread)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _stop)
    try:
        yield
    finally:
        _put_back(signal.SIGTERM, previous)


def _stop(signum: int, frame: FrameType | None) -> None:
    raise Stopped(f"stopped by signal {signum}")


def _hold_lifeline(lifeline: Connection, setup: Callable[[], None] | None = None) -> None:
    """In each worker, first: leave Ctrl-C to the command, and exit when the command's end of the lifeline closes;
    then the pool's own `setup`."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a terminal's Ctrl-C reaches the whole process group
    threading.Thread(target=_exit_when_closed, args=(lifeline,), name="lifeline", daemon=True).start()
    if setup is not None:
        setup()


def _exit_when_closed(lifeline: Connection) -> None:
    with suppress(EOFError, OSError):
        lifeline.recv_bytes()  # nothing is ever sent: this returns only at EOF, when the command's end is closed
    os._exit(1)  # at once, mid-task: the command wants none of this worker's results any more
