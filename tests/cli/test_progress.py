"""Long commands show their progress on a terminal and nothing in a pipe; Ctrl-C stops them within a second and
keeps nothing half-written. Real subprocesses, a real pseudo-terminal and real signals."""

from __future__ import annotations

import codecs
import contextlib
import os
import pty
import re
import select
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from loom.engine.registry import get_game
from loom.replay.logfile import CHUNK_LINES, WINDOW, export_lines
from loom.replay.simulate import BATCH, simulate
from loom.replay.store import Store
from tests.cli.run import ok
from tests.processes import wait_for

ROOT = Path(__file__).parents[2]
ENV = os.environ | {"PYTHONPATH": str(ROOT), "TERM": "xterm-256color", "COLUMNS": "100"}
if sys.platform != "linux":  # pragma: no cover
    pytest.skip("pseudo-terminals and signals as Linux has them", allow_module_level=True)


def _logs(*args: str | Path) -> list[str]:
    return [sys.executable, "-m", "loom.cli.main", *map(str, args)]


def _on_a_terminal(*args: str | Path) -> tuple[int, str]:
    """Run `logs` with its stderr on a pseudo-terminal: its exit code and what the terminal received."""
    master, slave = pty.openpty()
    process = subprocess.Popen(_logs(*args), cwd=ROOT, env=ENV, stdout=subprocess.DEVNULL, stderr=slave)
    os.close(slave)
    received = b""
    while True:
        ready, _, _ = select.select([master], [], [], 60)
        if not ready:
            break
        try:
            chunk = os.read(master, 65536)
        except OSError:  # the command ended: the terminal is closed
            break
        if not chunk:
            break
        received += chunk
    os.close(master)
    return process.wait(60), received.decode(errors="replace")


def _games(db: Path) -> list[tuple[int, int]]:
    with Store.open(db, read_only=True) as store:
        return [(info.id, info.last_seq) for info in store.games(limit=100_000)]


def test_simulate_shows_its_progress_game_by_game_on_a_terminal(tmp_path: Path) -> None:
    code, shown = _on_a_terminal("simulate", "moorea", "-n", "40", "-p", "4", "--db", tmp_path / "t.duckdb")
    assert code == 0
    assert "simulating" in shown and "/40" in shown
    counts = {text.split("/")[0].split()[-1] for text in shown.split("\r") if "/40" in text}
    assert len(counts) > 2  # not a batch of 250 at once: the count moved game by game


def test_import_and_rebuild_show_their_progress_on_a_terminal(tmp_path: Path) -> None:
    db, log = tmp_path / "t.duckdb", tmp_path / "log.jsonl"
    with Store.open(db) as store:
        ids = simulate(store, get_game("motto"), 30, ["random"] * 3, seed=1)
        log.write_text("".join(line + "\n" for game_id in ids for line in export_lines(store, game_id)))
    code, shown = _on_a_terminal("import", log, "--db", tmp_path / "other.duckdb")
    assert code == 0 and "importing lines" in shown
    code, shown = _on_a_terminal("rebuild", "--db", db)
    assert code == 0 and "rebuilding" in shown and "/30" in shown


def test_nothing_but_the_summary_is_written_in_a_pipe(tmp_path: Path) -> None:
    done = subprocess.run(
        _logs("simulate", "motto", "-n", "300", "--db", tmp_path / "t.duckdb"),
        cwd=ROOT,
        env=ENV,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0 and done.stderr == ""
    assert done.stdout.startswith("recorded 300 Motto games: ids 1 to 300 (--seed ")


class _Terminal:
    """A `logs` command with its stderr on a pseudo-terminal, as a person runs it. The terminal reads all the time,
    as a real one does: a command whose terminal is not read blocks once it has written 20 KB to it (a second of
    the pulsing bar), and an interrupted one then never ends."""

    def __init__(self, *args: str | Path, stdin: int | None = None) -> None:
        self.master, slave = pty.openpty()
        self.process = subprocess.Popen(
            _logs(*args), cwd=ROOT, env=ENV, stdin=stdin, stdout=subprocess.DEVNULL, stderr=slave
        )
        os.close(slave)
        self.received = ""
        self.reading = threading.Thread(target=self._read, daemon=True)
        self.reading.start()

    def _read(self) -> None:
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        while True:
            try:
                chunk = os.read(self.master, 65536)
            except OSError:  # the command and its workers ended: the terminal is closed
                return
            if not chunk:
                return
            self.received += decoder.decode(chunk)

    def wait_for(self, pattern: str, seconds: float = 60) -> None:
        """Until the regular expression `pattern` matches what the terminal shows."""
        assert wait_for(lambda: bool(re.search(pattern, self.received)), seconds), self.received[-300:]

    def ctrl_c(self) -> tuple[int, float, str]:
        """Press Ctrl-C: the exit code, the seconds it took to end, and its last line."""
        pressed = time.monotonic()
        self.process.send_signal(signal.SIGINT)
        code = self.process.wait(10)
        took = time.monotonic() - pressed
        self.reading.join(5)
        os.close(self.master)
        shown = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", self.received)  # the terminal's controls: what a person reads
        return code, took, shown.strip().splitlines()[-1]


@pytest.fixture
def terminal() -> Iterator[Callable[..., _Terminal]]:
    """Starts `logs` commands on a pseudo-terminal; any still running when the test ends (it failed) is killed, so
    a simulation of 100,000 games does not go on beside the rest of the suite."""
    started: list[_Terminal] = []

    def start(*args: str | Path, stdin: int | None = None) -> _Terminal:
        started.append(_Terminal(*args, stdin=stdin))
        return started[-1]

    yield start
    for command in started:
        if command.process.poll() is None:
            command.process.kill()
            command.process.wait()


def test_ctrl_c_stops_an_import_within_a_second_and_leaves_the_store_as_it_was(
    terminal: Callable[..., _Terminal], tmp_path: Path
) -> None:
    """Chunks are staged (committed where no reader looks) when Ctrl-C comes, the file still coming: all of it goes."""
    db = tmp_path / "t.duckdb"
    with Store.open(db) as store:
        simulate(store, get_game("motto"), 1000, ["random"] * 3, seed=2)
    exported = tmp_path / "games.jsonl"
    ok("export", "-o", exported, "--db", db)  # streamed: a game at a time took 12 s
    text = exported.read_text()
    fresh = tmp_path / "fresh.duckdb"
    with Store.open(fresh) as store:
        simulate(store, get_game("motto"), 2, ["random"] * 3, seed=3)
    before = _games(fresh)
    # More chunks than the workers hold in flight (2 workers): the first is staged while the file still comes.
    assert text.count("\n") > (2 * WINDOW + 1) * CHUNK_LINES
    command = terminal("import", "-", "--db", fresh, stdin=subprocess.PIPE)
    stdin = command.process.stdin
    assert stdin is not None
    head = text[: text.rindex('{"format"')].encode()  # every game but the last: the file goes on, as from a pipe

    def feed() -> None:
        with contextlib.suppress(BrokenPipeError):
            stdin.write(head)
            stdin.flush()

    feeding = threading.Thread(target=feed, daemon=True)
    feeding.start()
    command.wait_for(r"[1-9][0-9]*/\?")  # a chunk checked and staged: the bar counts its lines
    code, took, said = command.ctrl_c()
    feeding.join(5)
    stdin.close()
    assert (code, said) == (130, "interrupted; nothing half-written was kept")
    assert took < 1.5
    assert _games(fresh) == before
    with Store.open(fresh, read_only=True) as store:
        staged = "SELECT count(*) FROM duckdb_tables() WHERE starts_with(table_name, 'staging_')"
        assert store.con.execute(staged).fetchone() == (0,)


def test_ctrl_c_stops_a_simulation_within_a_second_keeping_whole_batches_only(
    terminal: Callable[..., _Terminal], tmp_path: Path
) -> None:
    db = tmp_path / "t.duckdb"
    command = terminal("simulate", "moorea", "-n", "100000", "-p", "4", "--db", db)
    command.wait_for("simulating")
    time.sleep(1)
    code, took, said = command.ctrl_c()
    assert (code, said) == (130, "interrupted; nothing half-written was kept")
    assert took < 1.5
    games = _games(db)
    assert len(games) % BATCH == 0 and len(games) < 100_000
    with Store.open(db, read_only=True) as store:
        for game_id, last_seq in games[:5]:
            assert len(store.load(game_id)) == last_seq
