"""Worker processes end with the command that started them: killed, stopped or interrupted, `logs simulate --workers
2` and `logs import` leave no process behind, and the database holds whole batches or nothing."""

from __future__ import annotations

import os
import signal
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

import pytest

from loom.engine.registry import get_game
from loom.replay.logfile import CHUNK_LINES, export_lines
from loom.replay.simulate import BATCH, simulate
from loom.replay.store import MEMORY, Store
from loom.replay.workers import POLL, Stopped, held_signals, in_order, result_of, sigterm_stops, worker_pool
from tests.processes import processes, session_alive, wait_for

ROOT = Path(__file__).resolve().parents[2]
WORKERS_UP = 5  # the command, its resource tracker, its forkserver and two workers


class Command:
    """A `logs` command in a session of its own (as a terminal runs it), its output in files."""

    def __init__(self, tmp_path: Path, *args: str) -> None:
        self.err = tmp_path / "stderr"
        with (tmp_path / "stdout").open("w") as out, self.err.open("w") as err:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "loom.cli.main", *args],
                cwd=ROOT,
                env=os.environ | {"PYTHONPATH": str(ROOT)},
                stdout=out,
                stderr=err,
                start_new_session=True,
            )
        self.pid = self.process.pid

    def wait_for_workers(self) -> None:
        """Until both workers run (the work itself takes far longer)."""
        assert wait_for(lambda: len(session_alive(self.pid)) >= WORKERS_UP, 30), session_alive(self.pid)
        assert self.process.poll() is None, self.err.read_text()

    def end(self) -> None:
        """Whatever happens, leave nothing running."""
        for pid in session_alive(self.pid):
            os.kill(pid, signal.SIGKILL)
        self.process.wait()


Run = Callable[..., Command]


@pytest.fixture
def run(tmp_path: Path) -> Iterator[Run]:
    """Starts `logs` commands; any still running at the end of the test is killed with all its processes."""
    started: list[Command] = []

    def start(*args: str) -> Command:
        started.append(Command(tmp_path, *args))
        return started[-1]

    yield start
    for command in started:
        command.end()


def _simulation(run: Run, db: Path) -> Command:
    """`logs simulate --workers 2` of 1,000 long games: a minute's work, stopped within seconds."""
    command = run("simulate", "moorea", "-n", "1000", "-p", "4", "--workers", "2", "--db", str(db), "--json")
    command.wait_for_workers()
    return command


def _assert_nothing_left_and_whole(command: Command, db: Path) -> None:
    assert wait_for(lambda: not session_alive(command.pid), 3), session_alive(command.pid)
    with Store.open(db, read_only=True) as store:
        games = store.games(limit=10_000)
        assert len(games) % BATCH == 0  # whole batches only
        for info in games[:3]:
            assert len(store.load(info.id)) == info.last_seq


def test_killing_the_simulation_ends_its_workers_at_once(run: Run, tmp_path: Path) -> None:
    db = tmp_path / "loom.duckdb"
    command = _simulation(run, db)
    os.kill(command.pid, signal.SIGKILL)
    command.process.wait()
    _assert_nothing_left_and_whole(command, db)


def test_sigterm_stops_the_simulation_and_its_workers_with_one_line(run: Run, tmp_path: Path) -> None:
    db = tmp_path / "loom.duckdb"
    command = _simulation(run, db)
    os.kill(command.pid, signal.SIGTERM)
    assert command.process.wait(3) == 143
    assert command.err.read_text() == "stopped; nothing half-written was kept\n"
    _assert_nothing_left_and_whole(command, db)


def test_a_temporary_folder_too_long_for_the_workers_socket_is_one_line(tmp_path: Path) -> None:
    long = tmp_path / ("t" * 110)  # a Unix socket's path holds at most 107 bytes
    long.mkdir()
    db = tmp_path / "loom.duckdb"
    command = [sys.executable, "-m", "loom.cli.main", "simulate", "motto", "-n", "40", "--workers", "2"]
    command += ["--db", str(db)]
    done = subprocess.run(command, env=os.environ | {"TMPDIR": str(long)}, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr.startswith("error: cannot start worker processes: AF_UNIX path too long")
    assert done.stderr.count("\n") == 1
    with Store.open(db, read_only=True) as store:
        assert store.games() == []


def test_ctrl_c_ends_the_simulation_and_its_workers_within_a_second(run: Run, tmp_path: Path) -> None:
    """A terminal's Ctrl-C sends SIGINT to the whole process group: the workers leave it to the command."""
    db = tmp_path / "loom.duckdb"
    command = _simulation(run, db)
    pressed = time.monotonic()
    os.killpg(command.pid, signal.SIGINT)
    assert command.process.wait(3) == 130
    assert time.monotonic() - pressed < 1.5
    assert command.err.read_text() == "interrupted; nothing half-written was kept\n"
    _assert_nothing_left_and_whole(command, db)


CTRL_C_AT_IMPORT = """
import os, signal, time
os.kill(os.getpid(), signal.SIGINT)  # a terminal's Ctrl-C, while the forkserver imports this module
time.sleep(0.2)  # taken by now, if it is taken at all
"""
A_POOL_WITH_THAT_PRELOADED = """
import os
from loom.replay.workers import worker_pool
with worker_pool(1, preload=["ctrl_c_at_import"]) as pool:
    print(pool.submit(os.getpid).result() != os.getpid())
"""


def test_ctrl_c_while_the_forkserver_imports_its_modules_prints_nothing_and_the_pool_works(tmp_path: Path) -> None:
    """The forkserver, and so every worker it forks, is born ignoring Ctrl-C. Before, one that came while it
    imported the pool's modules (or while a new worker imported its own) raised KeyboardInterrupt there: a
    traceback under the command's "interrupted" line."""
    (tmp_path / "ctrl_c_at_import.py").write_text(CTRL_C_AT_IMPORT)
    done = subprocess.run(
        [sys.executable, "-c", A_POOL_WITH_THAT_PRELOADED],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": str(tmp_path)},
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "True\n", "")


def test_killing_an_import_ends_its_workers_and_stores_nothing(run: Run, tmp_path: Path) -> None:
    """A file of three chunks or more (one long game many times over), checked by two workers."""
    db, log = tmp_path / "loom.duckdb", tmp_path / "big.jsonl"
    with Store.open(db) as store:
        (game_id,) = simulate(store, get_game("moorea"), 1, ["random"] * 4, seed=1)
        lines = "".join(line + "\n" for line in export_lines(store, game_id))
    log.write_text(lines * (3 * CHUNK_LINES // lines.count("\n") + 1))
    command = run("import", str(log), "--db", str(db))
    command.wait_for_workers()
    os.kill(command.pid, signal.SIGKILL)
    command.process.wait()
    assert wait_for(lambda: not session_alive(command.pid), 3), session_alive(command.pid)
    with Store.open(db, read_only=True) as store:
        assert [info.id for info in store.games(limit=10)] == [game_id]


# --- In one process: leaving the pool on an error ------------------------------------------------------------------


def _workers_of(pid: int) -> set[int]:
    """The live grandchildren of `pid`: its pool's workers (its children are the forkserver and resource tracker)."""
    running = processes()
    children = {child for child, (_, parent, _) in running.items() if parent == pid}
    return {p for p, (state, parent, _) in running.items() if parent in children and state != "Z"}


def test_games_played_by_two_workers_are_the_games_played_by_one(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("loom.replay.simulate.BATCH", 2)  # three batches, so the pool is used
    motto = get_game("motto")
    with Store.open(MEMORY) as one, Store.open(MEMORY) as two:
        simulate(one, motto, 6, ["greedy", "random"], seed=4)
        simulate(two, motto, 6, ["greedy", "random"], seed=4, workers=2)
        assert [list(export_lines(two, i)) for i in range(1, 7)] == [list(export_lines(one, i)) for i in range(1, 7)]


def _sleep_then_say(seconds: float) -> float:
    time.sleep(seconds)
    return seconds


def test_leaving_the_pool_on_an_error_ends_busy_workers_at_once() -> None:
    before = _workers_of(os.getpid())
    with pytest.raises(RuntimeError, match="a chunk was bad"), worker_pool(2) as pool:
        for _ in range(4):
            pool.submit(_sleep_then_say, 60)
        assert wait_for(lambda: len(_workers_of(os.getpid()) - before) == 2, 30)
        workers = _workers_of(os.getpid()) - before
        left = time.monotonic()
        raise RuntimeError("a chunk was bad")
    assert time.monotonic() - left < 3  # not the minute the tasks would take
    assert wait_for(lambda: not workers & _workers_of(os.getpid()), 3)


def _send_half_a_result_then_sleep(written: Path) -> None:
    """Send the first half of a result, as a worker ended mid-way through sending one leaves it, then sleep."""
    results = sys._getframe(1).f_locals["result_queue"]  # the pool's worker loop called this task
    os.write(results._writer.fileno(), struct.pack("!i", 1 << 20) + bytes(1000))  # a 1 MiB message: 1,000 bytes
    written.touch()
    time.sleep(60)


def test_leaving_the_pool_while_a_worker_sends_a_result_ends_at_once(tmp_path: Path) -> None:
    """Ctrl-C came as a worker sent its chunk's columns: the pool's manager must not wait for the rest forever."""
    written = tmp_path / "written"
    with pytest.raises(KeyboardInterrupt), worker_pool(2) as pool:
        pool.submit(_send_half_a_result_then_sleep, written)
        assert wait_for(written.exists, 30)
        left = time.monotonic()
        raise KeyboardInterrupt
    assert time.monotonic() - left < 3


_SET_UP = False


def _set_up() -> None:
    global _SET_UP  # noqa: PLW0603  # what a worker's setup leaves behind, for the test to see
    _SET_UP = True


def _was_set_up(task: int) -> bool:
    return _SET_UP


def test_a_pool_s_setup_runs_first_in_each_worker() -> None:
    with worker_pool(2, setup=_set_up) as pool:
        assert all(pool.map(_was_set_up, range(4)))
    assert not _SET_UP  # in the workers only


def test_a_pool_broken_after_in_order_was_left_early_ends_without_a_traceback(monkeypatch: pytest.MonkeyPatch) -> None:
    """The work `in_order` leaves waiting is dropped by the pool's owner, not cancelled one by one: Python 3.11's pool
    manager fails on a cancelled future when the pool breaks (as when Ctrl-C ends the workers before the pool has
    dropped it), and a traceback followed the command's "interrupted" line."""
    failures: list[BaseException | None] = []
    monkeypatch.setattr(threading, "excepthook", lambda hook: failures.append(hook.exc_value))
    before = _workers_of(os.getpid())
    with worker_pool(2) as pool:
        for _ in in_order(pool, _sleep_then_say, [0.01] + [60] * 8, window=8):
            break
        probe = pool.submit(_sleep_then_say, 60)
        for worker in _workers_of(os.getpid()) - before:
            os.kill(worker, signal.SIGKILL)
        assert isinstance(probe.exception(timeout=10), BrokenProcessPool)
    assert failures == []


def test_a_ctrl_c_within_held_signals_comes_once_the_block_has_ended() -> None:
    """A Ctrl-C that came as the main thread took a future's lock, before the `with` that gives it back, left the lock
    taken: the pool's manager waited for it for ever, and the import with it (seen in CI)."""
    handler = signal.getsignal(signal.SIGINT)
    lock = threading.Lock()
    ran: list[str] = []
    with pytest.raises(KeyboardInterrupt), held_signals():
        signal.raise_signal(signal.SIGINT)
        lock.acquire()  # as Condition.__enter__ takes a future's lock: no handler may raise between this line ...
        ran.append("taken")
        lock.release()  # ... and this one
        ran.append("given back")
    assert ran == ["taken", "given back"] and not lock.locked()
    assert signal.getsignal(signal.SIGINT) is handler


def test_a_sigterm_within_held_signals_stops_the_command_once_the_block_has_ended() -> None:
    with pytest.raises(Stopped), sigterm_stops():
        with held_signals():
            signal.raise_signal(signal.SIGTERM)
            ran = True
        ran = False  # not reached: the block's end raised
    assert ran


def test_held_signals_without_a_signal_changes_nothing() -> None:
    handlers = [signal.getsignal(number) for number in (signal.SIGINT, signal.SIGTERM)]
    with held_signals():
        pass
    assert [signal.getsignal(number) for number in (signal.SIGINT, signal.SIGTERM)] == handlers


def test_a_ctrl_c_stops_a_wait_for_a_result_within_a_poll_and_leaves_the_future_free() -> None:
    with ThreadPoolExecutor(1) as pool:
        future = pool.submit(_sleep_then_say, 1.0)
        threading.Timer(0.1, os.kill, (os.getpid(), signal.SIGINT)).start()
        began = time.monotonic()
        with pytest.raises(KeyboardInterrupt):
            result_of(future)
        assert time.monotonic() - began < 0.1 + 5 * POLL
        assert future.result(timeout=5) == 1.0  # the thread could complete it: its lock was free
