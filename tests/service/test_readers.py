"""Readers while `logs serve` runs: the CLI reads the copy the server publishes beside its database, says so in one
line, and still refuses to write; the copy is removed when the server stops."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from loom.replay.readers import Publisher, pause, publish, readers_path
from loom.replay.store import Store
from loom.service.context import Service
from loom.service.server import free_port
from loom.service.settings import Settings
from tests.cli.run import logs, ok, record
from tests.locks import held_by_another_process
from tests.service.client import ADMIN, Api

STARTUP = 60.0
PUBLISHED = 30.0  # seconds a new game may take to reach the copy on a busy machine (published every 2 s)


class Served:
    """A `logs serve` process on a database file, and a client of it."""

    def __init__(self, db: Path) -> None:
        port = free_port()
        self.db = db
        self.process = subprocess.Popen(
            [sys.executable, "-m", "loom.cli.main", "serve", "--db", str(db), "--port", str(port)]
            + ["--admin-token", ADMIN],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.api = Api(f"http://127.0.0.1:{port}")
        deadline = time.monotonic() + STARTUP
        while True:
            assert self.process.poll() is None, self.process.stderr.read() if self.process.stderr else ""
            try:
                if self.api.http.get("/games").status_code < 500:
                    return
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, "the server did not start"
            time.sleep(0.1)

    def stop(self) -> int:
        """Stop the server as Ctrl-C does; its exit code."""
        self.api.close()
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
        return self.process.wait(STARTUP)


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """A server running on a database of two recorded games, with a game created through its API."""
    db = record(tmp_path_factory.mktemp("readers") / "served.duckdb", "motto", 2)
    server = Served(db)
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def created(served: Served) -> dict[str, Any]:
    """A game created through the API, once the copy readers see has it."""
    game = served.api.create("motto", ["Ann", "Ben", "Cy"], seed=5)
    eventually(lambda: game["id"] in _listed_ids(served.db), "the new game never reached the readers' copy")
    return game


def eventually(condition: Callable[[], bool], what: str) -> None:
    """Wait until `condition()` holds: at most PUBLISHED seconds, or the test fails saying `what` never happened."""
    deadline = time.monotonic() + PUBLISHED
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.2)


def _listed_ids(db: Path) -> set[int]:
    return {row["id"] for row in json.loads(ok("list", "--db", db, "--json"))}


def _note(stderr: str, pid: int) -> None:
    """The one line that says the copy is read, and whose the database is."""
    assert stderr.count("\n") == 1, stderr
    assert stderr.startswith("reading the copy published by the server ")
    assert stderr.rstrip().endswith(f"s ago (the database is in use by pid {pid})")


def test_the_server_publishes_a_copy_beside_its_database(served: Served) -> None:
    assert readers_path(served.db) == served.db.with_name("served.readers.duckdb")
    eventually(readers_path(served.db).exists, "no copy was published")


def test_logs_list_reads_the_copy_and_says_so(served: Served, created: dict[str, Any]) -> None:
    code, stdout, stderr = logs("list", "--db", served.db, "--json")
    assert code == 0 and created["id"] in {row["id"] for row in json.loads(stdout)}
    _note(stderr, served.process.pid)


def test_show_replay_and_export_read_a_game_created_through_the_api(served: Served, created: dict[str, Any]) -> None:
    game_id = str(created["id"])
    assert json.loads(ok("show", game_id, "--db", served.db, "--json"))["id"] == created["id"]
    assert ok("replay", game_id, "--db", served.db)
    exported = ok("export", game_id, "--db", served.db).splitlines()
    assert len(exported) >= 2 and json.loads(exported[1])["seq"] == 1


def test_the_dashboard_and_a_replay_page_read_the_copy(served: Served, tmp_path: Path) -> None:
    ok("dashboard", "--db", served.db, "-o", tmp_path / "dash.html")
    ok("replay", "1", "--html", tmp_path / "one.html", "--db", served.db)
    assert "<html" in (tmp_path / "dash.html").read_text().lower()
    assert "<html" in (tmp_path / "one.html").read_text().lower()


def test_a_write_is_refused_in_one_line_while_the_server_runs(served: Served) -> None:
    code, _, stderr = logs("rebuild", "--db", served.db)
    assert code == 2 and stderr.count("\n") == 1
    assert f"is locked by another process (pid {served.process.pid})" in stderr


def test_a_server_stopped_cleanly_removes_its_copy(tmp_path: Path) -> None:
    db = record(tmp_path / "stops.duckdb", "motto", 1)
    server = Served(db)
    eventually(readers_path(db).exists, "no copy was published")
    server.stop()
    assert not readers_path(db).exists()
    assert [path.name for path in tmp_path.iterdir() if "readers" in path.name] == []


def test_a_copy_left_behind_is_read_and_its_age_told(tmp_path: Path) -> None:
    db = record(tmp_path / "left.duckdb", "motto", 2)
    with Store.open(db) as store:
        publish(store.db, readers_path(db))
    with held_by_another_process(db):
        code, stdout, stderr = logs("list", "--db", db, "--json")
    assert code == 0 and len(json.loads(stdout)) == 2
    assert stderr.startswith("reading the copy published by the server ") and "(the database is in use by pid" in stderr


def test_the_copy_is_no_easier_to_read_than_the_database(tmp_path: Path) -> None:
    db = record(tmp_path / "private.duckdb", "motto", 1)
    db.chmod(0o600)
    with Store.open(db) as store:
        publish(store.db, readers_path(db))
    assert readers_path(db).stat().st_mode & 0o777 == 0o600


def test_without_a_copy_a_locked_database_is_the_same_one_line_error(tmp_path: Path) -> None:
    db = record(tmp_path / "nocopy.duckdb", "motto", 1)
    with held_by_another_process(db):
        code, _, stderr = logs("list", "--db", db)
    assert code == 2 and stderr.count("\n") == 1 and "is locked by another process" in stderr


def test_a_quick_copy_is_published_every_two_seconds_and_a_slow_one_at_most_a_fifth_of_the_time() -> None:
    assert pause(2.0, 0.25) == 2.0
    assert pause(2.0, 5.0) == pytest.approx(20.0)  # 5 s copying, 20 s waiting: a fifth of the time


def test_a_publisher_not_ready_publishes_nothing_until_told(tmp_path: Path) -> None:
    db = record(tmp_path / "waits.duckdb", "motto", 1)
    with Store.open(db) as store:
        publisher = Publisher.start(store, every=0.05, ready=False)
        assert publisher is not None
        try:
            publisher.changed()
            time.sleep(0.3)
            assert publisher.published == 0 and not readers_path(db).exists()
            publisher.ready()
            eventually(lambda: publisher.published > 0, "nothing was published once ready")
        finally:
            publisher.stop()


def test_the_servers_first_copy_has_the_facts_of_the_games_recorded_before_it_started(tmp_path: Path) -> None:
    db = record(tmp_path / "before.duckdb", "motto", 3)
    service = Service.open(Settings(str(db), admin_token=ADMIN))
    try:
        eventually(readers_path(db).exists, "no copy was published")
        with Store.open(readers_path(db), read_only=True) as copy:  # `logs simulate` leaves the facts to project
            last = copy.db.all("SELECT id, last_seq FROM games ORDER BY id")
            projected = copy.db.all("SELECT game_id, seq FROM projected ORDER BY game_id")
            facts = copy.db.all("SELECT count(DISTINCT game_id) FROM game_facts")[0][0]
        assert len(last) == 3 and projected == last and facts == 3
    finally:
        service.close()
