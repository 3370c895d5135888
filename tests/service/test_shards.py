"""A server of two processes (`logs serve --processes 2`): the primary deals connections out in turn to itself and
its shard, each checks and answers the appends of the games it holds, and a request for a game the other holds is
answered there. Every client sees what one process would answer; nothing acknowledged is lost by `kill -9` of either.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from random import Random
from typing import Any

import pytest

from loom.replay.journal import journal_path, pending
from loom.replay.store import Store
from loom.service.server import free_port, running
from loom.service.settings import Settings
from tests.processes import wait_for
from tests.service.client import ADMIN, STARTUP, Api, follow, sse_messages, wait_until_serving

CONNECTIONS = 3
"""Clients that take turns with each move of a game: the primary deals connections out in turn (to itself, then to
its shard), so of any two new connections one is the primary's and one the shard's."""


@contextmanager
def served(db: Path, log: Path, processes: int = 2, **env: str) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    """`logs serve --processes N` on `db` (its log to `log`), in a process group of its own; it and its URL."""
    port = free_port()
    command = [sys.executable, "-m", "loom.cli.main", "serve", "--db", str(db), "--port", str(port)]
    with open(log, "wb") as out:
        server = subprocess.Popen(
            [*command, "--admin-token", ADMIN, "--processes", str(processes)],
            stdout=out,
            stderr=subprocess.STDOUT,
            env={**os.environ, **env},
            start_new_session=True,
        )
    try:
        probe = Api(f"http://127.0.0.1:{port}")
        wait_until_serving(probe, server)
        probe.close()
        assert wait_for(lambda: len(_pids(log)) == processes, STARTUP), "the shards did not start"
        yield server, f"http://127.0.0.1:{port}"
    finally:
        if server.poll() is None:  # stopped as a service manager stops it, so it removes its folder in /tmp
            server.send_signal(signal.SIGTERM)
            try:
                server.wait(STARTUP)
            except subprocess.TimeoutExpired:
                os.killpg(server.pid, signal.SIGKILL)
                server.wait(30)


def _pids(log: Path) -> list[int]:
    """The processes that said they serve (uvicorn's line as each starts): the primary first."""
    return [int(pid) for pid in re.findall(r"Started server process \[(\d+)\]", log.read_text())]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] if Path(f"/proc/{pid}").exists() else "X"
    return state not in ("Z", "X")


def _play(base: str, seeds: range, moves: int) -> tuple[list[Any], dict[int, int]]:
    """Games dealt from `seeds`, each move played through the next of CONNECTIONS clients (new connections, so
    a game's moves come to both processes) by the seat to move, with its own token, choosing by a seeded generator;
    and after each move the state read through yet another client. Every answer, and each game's last seq."""
    clients = [Api(base) for _ in range(CONNECTIONS + 1)]
    answers: list[Any] = []
    last: dict[int, int] = {}
    try:
        games = [clients[0].create("motto", ["Ann", "Ben", "Cy"], seed=seed) for seed in seeds]
        rng = Random(4)
        states = {g["id"]: clients[0].ok("GET", f"/games/{g['id']}/state", g["tokens"]["seats"][0]) for g in games}
        for move in range(moves):
            for game in games:
                now = states[game["id"]]
                if now["status"] != "open":
                    continue
                seat = game["tokens"]["seats"][now["to_move"]]
                legal = clients[0].ok("GET", f"/games/{game['id']}/state", seat)["legal"]
                body = {"expected_seq": now["seq"], "action": legal[rng.randrange(len(legal))]}
                client = clients[1 + (move + game["id"]) % CONNECTIONS]
                answer = client.ok("POST", f"/games/{game['id']}/actions", seat, json=body)
                stale = client.call("POST", f"/games/{game['id']}/actions", seat, json=body)
                answers += [answer, stale.status_code, stale.json()]
                read = clients[0].ok("GET", f"/games/{game['id']}/state", game["tokens"]["table"])
                assert read["seq"] == answer["seq"]  # a read on another connection sees the append at once
                states[game["id"]] = answer
                last[game["id"]] = answer["seq"]
        return answers, last
    finally:
        for client in clients:
            client.close()


@pytest.mark.parametrize("processes", [2, 3])
def test_games_played_through_every_process_get_every_answer_one_process_gives(tmp_path: Path, processes: int) -> None:
    # With three, a shard asked for a game the other shard holds passes the request to the primary, which passes
    # it on to that shard.
    moves = 40 if processes == 2 else 16  # with three, enough for each shard to be asked for the other's games
    with served(tmp_path / "many.duckdb", tmp_path / "many.log", processes) as (_, base):
        many, _ = _play(base, range(4), moves)
    settings = Settings(str(tmp_path / "one.duckdb"), port=free_port(), admin_token=ADMIN)
    with running(settings) as base:
        one, _ = _play(base, range(4), moves)
    assert many == one
    assert all(code == 409 for code in many[1::3])  # the same move again: the game had moved on


def test_both_processes_answered_appends_from_journals_of_their_own(tmp_path: Path) -> None:
    db = tmp_path / "served.duckdb"
    with served(db, tmp_path / "served.log", LOGS_JOURNAL_SETTLE="3600") as (server, base):
        _play(base, range(2), moves=6)
        assert journal_path(db, 1).stat().st_size > 64  # the shard's records, not yet moved (reads hurried some)
        os.killpg(server.pid, signal.SIGINT)
        server.wait(30)
    assert not pending(db)


def test_sigterm_stops_the_server_as_ctrl_c_does(tmp_path: Path) -> None:
    # as `docker stop` and Kubernetes stop it; uvicorn raises the signal again once it has stopped gracefully
    db, log = tmp_path / "stopped.duckdb", tmp_path / "stopped.log"
    with tempfile.TemporaryDirectory() as scratch:  # short: a Unix socket's path holds at most 107 bytes
        with served(db, log, LOGS_JOURNAL_SETTLE="3600", TMPDIR=scratch) as (server, base):
            _, last = _play(base, range(3), moves=8)
            os.kill(server.pid, signal.SIGTERM)
            assert server.wait(30) == 0
        assert not os.listdir(scratch)  # the primary's folder for its shards' socket, and the forkserver's, removed
    assert "stopped;" not in log.read_text()  # the shard was stopped, not lost
    assert "Traceback" not in log.read_text()
    with Store.open(db) as store:
        for game_id, seq in last.items():
            assert [event.seq for event in store.load(game_id)] == list(range(1, seq + 1))
    assert not pending(db)


def test_kill_9_of_the_primary_loses_no_append_either_process_acknowledged(tmp_path: Path) -> None:
    db, log = tmp_path / "killed.duckdb", tmp_path / "killed.log"
    with served(db, log, LOGS_JOURNAL_SETTLE="3600") as (server, base):
        _, last = _play(base, range(3), moves=12)
        primary, shard = _pids(log)
        os.kill(primary, signal.SIGKILL)
        server.wait(30)
        assert wait_for(lambda: not _alive(shard), 10), "the shard outlived its primary"
    with Store.open(db) as store:  # both journals moved in
        for game_id, seq in last.items():
            assert [event.seq for event in store.load(game_id)] == list(range(1, seq + 1))
    assert not pending(db)


def test_kill_9_of_the_shard_leaves_nothing_lost_and_a_new_shard_serves_in_its_place(tmp_path: Path) -> None:
    db, log = tmp_path / "shard.duckdb", tmp_path / "shard.log"
    with served(db, log, LOGS_JOURNAL_SETTLE="3600") as (server, base):
        _, last = _play(base, range(3), moves=8)
        _, shard = _pids(log)
        os.kill(shard, signal.SIGKILL)
        assert wait_for(lambda: "serving process 1 stopped" in log.read_text(), STARTUP), "the primary did not notice"
        api = Api(base)  # a new connection: the primary's, the only process serving until the new shard is ready
        try:
            for game_id, seq in last.items():
                now = api.ok("GET", f"/games/{game_id}/state", ADMIN)
                assert now["seq"] == seq
                if now["status"] == "open":
                    body = {"expected_seq": seq, "action": now["legal"][0]}
                    last[game_id] = api.ok("POST", f"/games/{game_id}/actions", ADMIN, json=body)["seq"]
        finally:
            api.close()
        assert wait_for(lambda: "serving process 1 started again" in log.read_text(), 30), "no shard took its place"
        assert wait_for(lambda: len(_pids(log)) == 3, STARTUP), "the new shard does not serve"
        assert _alive(_pids(log)[2])
        _, more = _play(base, range(10, 13), moves=6)
        assert journal_path(db, 1).stat().st_size > 64  # the new shard answered appends, into a journal of its own
        os.killpg(server.pid, signal.SIGINT)
        assert server.wait(30) in (0, 130)
    with Store.open(db) as store:
        for game_id, seq in {**last, **more}.items():
            assert [event.seq for event in store.load(game_id)] == list(range(1, seq + 1))
    assert not pending(db)


def test_ctrl_c_while_a_shard_is_being_replaced_stops_the_server_with_no_traceback(tmp_path: Path) -> None:
    log = tmp_path / "replacing.log"
    with served(tmp_path / "replacing.duckdb", log) as (server, base):
        _play(base, range(1), moves=4)
        _, shard = _pids(log)
        os.kill(shard, signal.SIGKILL)
        assert wait_for(lambda: "serving process 1 stopped" in log.read_text(), STARTUP), "the primary did not notice"
        os.killpg(server.pid, signal.SIGINT)  # before its successor starts (RESPAWN_GAP after the shard did)
        code = server.wait(30)
    text = log.read_text()
    assert code in (0, 130) and "Traceback" not in text and "Error" not in text, text
    assert "started again" not in text and len(_pids(log)) == 2


def test_ctrl_c_stops_both_processes_with_no_traceback(tmp_path: Path) -> None:
    log = tmp_path / "stopped.log"
    with served(tmp_path / "stopped.duckdb", log) as (server, base):
        _play(base, range(1), moves=4)
        primary, shard = _pids(log)
        os.killpg(server.pid, signal.SIGINT)  # a terminal's Ctrl-C reaches the whole group
        code = server.wait(30)
        assert wait_for(lambda: not _alive(shard), 10), "the shard outlived the server"
    text = log.read_text()
    assert code in (0, 130) and "Traceback" not in text and "Error" not in text
    assert text.count("Finished server process") == 2


@pytest.mark.parametrize("processes", [0])
def test_a_server_of_no_process_is_refused_in_one_line(tmp_path: Path, processes: int) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "loom.cli.main", "serve", "--db", str(tmp_path / "x.duckdb"), "--processes", "0"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode != 0 and "Traceback" not in done.stderr


def test_pages_reads_and_live_streams_through_either_process_are_the_primarys(tmp_path: Path) -> None:
    with served(tmp_path / "reads.duckdb", tmp_path / "reads.log") as (_, base):
        clients = [Api(base) for _ in range(CONNECTIONS)]  # one of them the shard's: it passes them on
        try:
            game = clients[0].create("motto", ["Ann", "Ben"], seed=3)
            seat, table = game["tokens"]["seats"][0], game["tokens"]["table"]
            stream = f"/games/{game['id']}/stream"
            streams: list[list[str]] = [[] for _ in clients]
            connected = [threading.Event() for _ in clients]
            last = game["seq"] + 6
            followers = [
                threading.Thread(target=follow, args=(client, stream, seat, last, connected[i], streams[i]))
                for i, client in enumerate(clients)
            ]
            for follower in followers:
                follower.start()
            assert all(event.wait(20) for event in connected)
            played = Api(base)
            while (now := played.ok("GET", f"/games/{game['id']}/state", table))["seq"] < last:
                played.ok(
                    "POST",
                    f"/games/{game['id']}/actions",
                    table,
                    json={"expected_seq": now["seq"], "action": now["legal"][0]},
                )
            played.close()
            for follower in followers:
                follower.join(30)
            told = [[data["seq"] for kind, data in sse_messages(text[0]) if kind == "event"] for text in streams]
            assert all(seqs[: last - game["seq"]] == list(range(game["seq"] + 1, last + 1)) for seqs in told)
            replay = f"/games/{game['id']}/replay?token={seat}"
            pages = [client.http.get(replay, headers={"accept-encoding": "gzip"}) for client in clients]
            assert len({(page.status_code, page.content) for page in pages}) == 1 and pages[0].status_code == 200
            missing = [client.call("GET", "/games/9999/state", ADMIN) for client in clients]
            assert {(r.status_code, r.text) for r in missing} == {(404, missing[0].text)}
        finally:
            for client in clients:
                client.close()
