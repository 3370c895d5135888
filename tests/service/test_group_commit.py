"""One writer per database, committing in groups: the writes that arrive together are checked one by one against the
live state and committed in one transaction, and each request still gets its own answer, after the commit."""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import Future
from pathlib import Path
from random import Random
from typing import Any

import httpx

from loom.engine.registry import get_game
from loom.replay.store import Store, StoreError
from loom.service import writing
from loom.service.committer import Live, Staged
from loom.service.context import Caller, Service
from loom.service.errors import Conflict
from loom.service.models import ActionBody, NewGameBody
from loom.service.server import free_port
from tests.service.client import ADMIN, Api, wait_until_serving
from tests.service.test_load import _together

GAMES = 16
MOTTO = get_game("motto")


def _new_games(service: Service, count: int) -> list[dict[str, Any]]:
    body = NewGameBody(game="motto", players=["Ann", "Ben", "Cy"], seed=1)
    return [writing.create(service, Caller(ADMIN), body.model_copy(update={"seed": i})).result() for i in range(count)]


def _a_legal_action(service: Service, game_id: int, index: int = 0) -> dict[str, Any]:
    _, state = service.db.latest(game_id)
    legal = MOTTO.legal_actions(state)
    return MOTTO.action_json(legal[index % len(legal)])  # type: ignore[no-any-return]


def _held(service: Service) -> threading.Event:
    """Keep the writer busy until the event is set: whatever is submitted meanwhile is written as one group."""
    release, holding = threading.Event(), threading.Event()

    def hold(live: Live) -> Staged[None]:
        holding.set()
        release.wait(30)
        return Staged(answer=lambda _: None)

    service.db.submit(hold)
    assert holding.wait(30)
    return release


def _one_group(service: Service, submit: list[Any], commits: int = 1) -> list[Future[Any]]:
    """Submit every write while the writer is held, so that they are written as one group (in `commits`
    transactions: one, unless the group's fails and its writes are then written alone); their futures."""
    release = _held(service)
    groups = service.db.committer.groups
    futures = [write() for write in submit]
    release.set()
    for future in futures:
        future.exception(30)
    assert service.db.committer.groups == groups + 1 + commits  # the holding job's own, then the group's
    return futures


def test_a_group_with_an_illegal_action_commits_the_others_and_refuses_that_one_with_422(service: Service) -> None:
    games = _new_games(service, 4)
    bodies = [ActionBody(expected_seq=g["seq"], action=_a_legal_action(service, g["id"])) for g in games]
    bodies[2] = ActionBody(expected_seq=games[2]["seq"], action={"type": "no-such-move"})
    futures = _one_group(
        service, [lambda g=g, b=b: writing.act(service, Caller(ADMIN), g["id"], b) for g, b in zip(games, bodies)]
    )
    assert type(futures[2].exception()).__name__ == "IllegalAction"
    reader = service.db.reader()
    for index, (game, future) in enumerate(zip(games, futures)):
        stored = reader.game_row(game["id"]).last_seq
        if index == 2:
            assert stored == game["seq"]  # nothing written for the refused one
        else:
            assert future.result()["seq"] == stored > game["seq"]


def test_a_group_expecting_the_same_seq_has_one_winner_and_409s_with_the_games_seq(service: Service) -> None:
    (game,) = _new_games(service, 1)
    bodies = [ActionBody(expected_seq=game["seq"], action=_a_legal_action(service, game["id"], i)) for i in range(5)]
    futures = _one_group(service, [lambda b=b: writing.act(service, Caller(ADMIN), game["id"], b) for b in bodies])
    won = [f.result() for f in futures if f.exception() is None]
    lost = [f.exception() for f in futures if f.exception() is not None]
    stored = service.db.reader().game_row(game["id"]).last_seq
    assert len(won) == 1 and won[0]["seq"] == stored
    assert len(lost) == 4 and all(isinstance(e, Conflict) and e.seq == stored for e in lost)


def test_a_group_whose_transaction_fails_answers_each_write_alone(service: Service) -> None:
    games = _new_games(service, 3)
    acts = [
        lambda g=g: writing.act(
            service, Caller(ADMIN), g["id"], ActionBody(expected_seq=g["seq"], action=_a_legal_action(service, g["id"]))
        )
        for g in games
    ]

    def broken(live: Live) -> Staged[None]:  # a write the database refuses, aborting the group's transaction
        return Staged(answer=lambda _: None, write=lambda store: store.set_meta(None, "no key"))  # type: ignore[arg-type]

    # The appends are one journal record, outside the refused write's transaction; it then fails alone too.
    futures = _one_group(service, [acts[0], lambda: service.db.submit(broken), acts[1], acts[2]], commits=1)
    assert isinstance(futures[1].exception(), StoreError)
    reader = service.db.reader()
    for game, future in zip(games, [futures[0], *futures[2:]]):
        assert future.result()["seq"] == reader.game_row(game["id"]).last_seq > game["seq"]
    assert reader.meta("None") is None


def test_sixteen_clients_on_sixteen_games_are_all_acknowledged_and_stored(api: Api) -> None:
    games = [api.create("motto", ["Ann", "Ben", "Cy"], seed=100 + index) for index in range(GAMES)]

    def play(index: int) -> list[int]:
        client, game, rng = Api(api.base), games[index], Random(index)
        table, seqs = game["tokens"]["table"], []
        now = client.ok("GET", f"/games/{game['id']}/state", table)
        for _ in range(4):
            action = now["legal"][rng.randrange(len(now["legal"]))]
            body = {"expected_seq": now["seq"], "action": action}
            now = client.ok("POST", f"/games/{game['id']}/actions", table, json=body)
            seqs.append(now["seq"])
        client.close()
        return seqs

    for game, seqs in zip(games, _together(GAMES, play)):
        log = api.ok("GET", f"/games/{game['id']}/events?limit=5000", game["tokens"]["table"])
        assert seqs == sorted(seqs) and log["seq"] == seqs[-1]
        assert [event["seq"] for event in log["events"]] == list(range(1, seqs[-1] + 1))


def test_every_acknowledged_append_survives_kill_9(tmp_path: Path) -> None:
    db, port = tmp_path / "killed.duckdb", free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "loom.cli.main", "serve", "--db", str(db), "--port", str(port), "--admin-token", ADMIN],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    api, acknowledged, stop = Api(f"http://127.0.0.1:{port}"), {}, threading.Event()
    try:
        wait_until_serving(api, server)
        games = [api.create("motto", ["Ann", "Ben", "Cy"], seed=index) for index in range(4)]

        def play(index: int) -> None:
            client, game, rng = Api(api.base), games[index], Random(index)
            table = game["tokens"]["table"]
            try:
                now = client.ok("GET", f"/games/{game['id']}/state", table)
                while not stop.is_set() and now["status"] == "open":
                    body = {"expected_seq": now["seq"], "action": now["legal"][rng.randrange(len(now["legal"]))]}
                    now = client.ok("POST", f"/games/{game['id']}/actions", table, json=body)
                    acknowledged[game["id"]] = now["seq"]
            except (httpx.TransportError, AssertionError):
                pass  # the server was killed under this request: it was never acknowledged
            finally:
                client.close()

        threads = [threading.Thread(target=play, args=(i,)) for i in range(len(games))]
        for thread in threads:
            thread.start()
        time.sleep(1.5)
        server.send_signal(signal.SIGKILL)
        server.wait(30)
        stop.set()
        for thread in threads:
            thread.join(30)
    finally:
        api.close()
        if server.poll() is None:
            server.kill()
            server.wait(30)
    assert acknowledged
    with Store.open(db) as store:
        for game_id, seq in acknowledged.items():
            assert store.game_row(game_id).last_seq >= seq
            assert [event.seq for event in store.load(game_id)][:seq] == list(range(1, seq + 1))


def _played_out(path: Path, group: bool) -> dict[str, list[Any]]:
    """Three games played to the end, one action each in turn, appended alone or a round of the three at once;
    every row stored of them, table by table."""
    from loom.replay.live import Append, append_group, append_played, dealt_game, played_action
    from loom.replay.replay import position
    from loom.replay.store import Seat

    with Store.open(path) as store:
        ids = [store.add_games([dealt_game(MOTTO, [Seat("A"), Seat("B"), Seat("C")], seed)])[0] for seed in range(3)]
        live = {i: (position(store, i).info, position(store, i).state) for i in ids}
        rng = Random(7)
        while live:
            round_ = []
            for info, state in list(live.values()):
                legal = MOTTO.legal_actions(state)
                action = MOTTO.action_json(legal[rng.randrange(len(legal))])
                round_.append(Append(info, MOTTO, state, played_action(MOTTO, state, info.seed, info.last_seq, action)))
            if group:
                append_group(store, round_)
            else:
                for a in round_:
                    append_played(store, a.info.id, MOTTO, a.before, a.played, a.info.last_seq)
            for a in round_:
                info = store.game_row(a.info.id)
                if info.status == "finished":
                    del live[info.id]
                else:
                    live[info.id] = (info, a.played.state)
        tables = ("events", "snapshots", "results", "turn_facts", "game_facts")
        rows = {t: sorted(map(repr, store.con.execute(f"SELECT * FROM {t}").fetchall())) for t in tables}
        rows["games"] = sorted(map(repr, store.con.execute("SELECT id, last_seq, turns, status FROM games").fetchall()))
        return rows


def test_a_group_stores_exactly_what_the_same_appends_store_one_by_one(tmp_path: Path) -> None:
    assert _played_out(tmp_path / "grouped.duckdb", True) == _played_out(tmp_path / "alone.duckdb", False)
