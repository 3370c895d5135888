"""The journal in front of DuckDB: an append is acknowledged once in the journal file, a mover brings it into DuckDB,
and a journal left by a killed server is moved in when the file is next opened: whole records once, a torn one never.
"""

from __future__ import annotations

import errno
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from random import Random
from typing import Any

import pytest

from loom.engine.registry import get_game
from loom.replay import journal as journal_file
from loom.replay.connection import Connection, StoreError
from loom.replay.journal import Journal, ShardJournal, journal_path, pending
from loom.replay.live import Append, append_played, dealt_game, played_action, service_secret
from loom.replay.recorder import status_of
from loom.replay.replay import position
from loom.replay.store import Seat, Store
from loom.service import writing
from loom.service.access import Keys
from loom.service.context import Caller, Service
from loom.service.database import Database
from loom.service.errors import Conflict
from loom.service.hub import Hub
from loom.service.models import ActionBody, NewGameBody
from loom.service.server import free_port
from loom.service.settings import Settings
from tests.service.client import ADMIN, Api, wait_until_serving

MOTTO = get_game("motto")
TABLES = ("events", "snapshots", "results")


def _stored(path: Path) -> dict[str, list[str]]:
    """Every row of the tables an append writes, and the games' progress (the file opened without its journal)."""
    store = Store(Connection.open(str(path), read_only=True), read_only=True)
    try:
        rows = {t: sorted(map(repr, store.con.execute(f"SELECT * FROM {t}").fetchall())) for t in TABLES}
        progress = store.con.execute("SELECT id, last_seq, turns, status FROM games ORDER BY id").fetchall()
        rows["games"] = list(map(repr, progress))
        return rows
    finally:
        store.close()


def _journaled(tmp_path: Path, rounds: int, fsync: bool = False) -> tuple[Path, Path, bytes, list[int]]:
    """Two games in a database, a copy of it before any append, then `rounds` groups of appends (an action in each
    game) journaled with the mover held back: the database, its copy, the journal's bytes before the mover ran,
    and each round's end offset. Closing the journal then moves the appends into the database."""
    path, before = tmp_path / "moved.duckdb", tmp_path / "crashed.duckdb"
    with Store.open(path) as store:
        ids = store.add_games([dealt_game(MOTTO, [Seat("A"), Seat("B"), Seat("C")], seed) for seed in range(2)])
    shutil.copy(path, before)
    store = Store.open(path)
    journal = Journal(store.cursor(), settle=3600, fsync=fsync)
    rng, ends = Random(3), []
    live = {i: (position(store, i).info, position(store, i).state) for i in ids}
    for _ in range(rounds):
        journal.append([_next_action(live, game_id, rng) for game_id in ids])
        ends.append(journal.offset)
    data = journal.path.read_bytes()
    assert journal.moved == 0  # held back: nothing is in DuckDB yet
    journal.close()
    store.close()
    return path, before, data, ends


def _next_action(live: dict[int, tuple[Any, Any]], game_id: int, rng: Random) -> Append:
    """A random action of the game's seat to move, as the writer hands it to the journal; `live` moves on past it."""
    info, state = live[game_id]
    legal = MOTTO.legal_actions(state)
    played = played_action(MOTTO, state, info.seed, info.last_seq, MOTTO.action_json(legal[rng.randrange(len(legal))]))
    last, status = info.last_seq + len(played.steps), status_of(MOTTO, played.state)
    live[game_id] = (replace(info, last_seq=last, turns=played.steps[-1].turn, status=status), played.state)
    return Append(info, MOTTO, state, played)


def _one_game(path: Path, seed: int) -> tuple[int, dict[int, tuple[Any, Any]]]:
    """A database at `path` holding one dealt game; its id, and its live state for `_next_action`."""
    with Store.open(path) as store:
        [game_id] = store.add_games([dealt_game(MOTTO, [Seat("A"), Seat("B"), Seat("C")], seed)])
        at = position(store, game_id)
        return game_id, {game_id: (at.info, at.state)}


def test_a_journal_left_behind_is_moved_in_exactly_as_the_mover_moves_it(tmp_path: Path) -> None:
    moved, crashed, data, _ = _journaled(tmp_path, rounds=6)
    assert not journal_path(moved).exists()  # caught up and closed: no journal left
    journal_path(crashed).write_bytes(data)
    Store.open(crashed).close()
    assert not pending(crashed)
    assert _stored(crashed) == _stored(moved)


def test_a_move_of_whole_games_writes_what_appending_action_by_action_writes(tmp_path: Path) -> None:
    # One move takes every append of two games played to their end: merged per game, across snapshots and results.
    path, by_hand = tmp_path / "moved.duckdb", tmp_path / "by_hand.duckdb"
    with Store.open(path) as store:
        ids = store.add_games([dealt_game(MOTTO, [Seat("A"), Seat("B"), Seat("C")], seed) for seed in range(2)])
    shutil.copy(path, by_hand)
    store, other = Store.open(path), Store.open(by_hand)
    journal = Journal(store.cursor(), settle=3600)
    rng = Random(5)
    live = {i: (position(store, i).info, position(store, i).state) for i in ids}
    while any(MOTTO.to_move(state) is not None for _, state in live.values()):
        appends = []
        for game_id, (info, state) in live.items():
            if MOTTO.to_move(state) is None:
                continue
            legal = MOTTO.legal_actions(state)
            played = played_action(
                MOTTO, state, info.seed, info.last_seq, MOTTO.action_json(legal[rng.randrange(len(legal))])
            )
            appends.append(Append(info, MOTTO, state, played))
            append_played(other, game_id, MOTTO, state, played, info.last_seq)
            last, status = info.last_seq + len(played.steps), status_of(MOTTO, played.state)
            live[game_id] = (replace(info, last_seq=last, turns=played.steps[-1].turn, status=status), played.state)
        journal.append(appends)
    assert journal.moved == 0
    journal.close()  # one move: every append of both games
    assert journal.moves == 1
    store.close()
    other.close()
    moved = _stored(path)
    assert len(moved["snapshots"]) >= 2 and len(moved["results"]) == 6
    assert moved == _stored(by_hand)


def test_a_torn_last_record_is_ignored_and_the_whole_ones_kept(tmp_path: Path) -> None:
    _, crashed, data, ends = _journaled(tmp_path, rounds=3)
    torn = data[: ends[-1] - 5]  # the last record half written when the server died: never acknowledged
    journal_path(crashed).write_bytes(torn)
    with Store.open(crashed) as store:
        two_rounds = [store.game_row(game_id).last_seq for game_id in (1, 2)]
    (tmp_path / "again").mkdir()
    _journaled(tmp_path / "again", rounds=2)
    assert _stored(crashed) == _stored(tmp_path / "again" / "moved.duckdb")
    assert all(seq > 1 for seq in two_rounds)


@pytest.mark.parametrize("fsync", [False, True])
def test_records_past_the_space_allocated_ahead_grow_the_file_and_the_zeros_after_them_are_no_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fsync: bool
) -> None:
    monkeypatch.setattr(journal_file, "GROW", 100)  # less than a record: every append makes the file larger
    moved, crashed, data, ends = _journaled(tmp_path, rounds=6, fsync=fsync)
    assert len(data) == ends[-1] + 100  # the space allocated ahead, still zeros
    assert [end for end, _ in journal_file.records(data, journal_file.HEADER.size)] == ends
    journal_path(crashed).write_bytes(data)
    assert pending(crashed)
    Store.open(crashed).close()
    assert _stored(crashed) == _stored(moved)
    journal_path(crashed).write_bytes(data[: journal_file.HEADER.size] + bytes(4096))  # allocated, nothing written
    assert not pending(crashed)


def test_an_append_the_disk_has_no_room_for_is_refused_whole_and_the_next_one_follows_the_last_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "full.duckdb"
    game_id, live = _one_game(path, seed=1)
    monkeypatch.setattr(journal_file, "GROW", 1)  # every append needs more space
    rng = Random(5)
    with Store.open(path) as store:
        kept = Journal(store.cursor(), settle=3600)
        kept.append([_next_action(live, game_id, rng)])
        offset, acked = kept.offset, kept.acked

        def full(fd: int, offset: int, length: int) -> None:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

        refused = dict(live)
        with monkeypatch.context() as disk:
            disk.setattr(os, "posix_fallocate", full)
            with pytest.raises(StoreError, match="cannot write the journal .*No space left on device"):
                kept.append([_next_action(refused, game_id, rng)])
        assert (kept.offset, kept.acked) == (offset, acked)
        kept.append([_next_action(live, game_id, Random(6))])  # the disk has room again
        ends = [end for end, _ in journal_file.records(kept.path.read_bytes(), journal_file.HEADER.size)]
        assert len(ends) == 2 and ends[-1] == kept.offset
        kept.close()
    with Store.open(path) as store:
        assert store.game_row(game_id).last_seq == live[game_id][0].last_seq


def test_a_caught_up_mover_starts_a_fresh_file_and_the_next_records_are_written_there(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(journal_file, "CUT_AT", 0)  # every move that catches up starts a fresh file
    path = tmp_path / "cut.duckdb"
    game_id, live = _one_game(path, seed=2)
    rng = Random(7)
    with Store.open(path) as store:
        kept = Journal(store.cursor(), settle=0)
        first = kept.generation
        for _ in range(5):
            kept.append([_next_action(live, game_id, rng)])
            kept.caught_up()  # the mover cuts under the lock it tells the readers by
        assert kept.generation == first + 5
        kept.settle = 3600  # the next record stays in the file
        kept.append([_next_action(live, game_id, rng)])
        data = kept.path.read_bytes()
        assert journal_file.HEADER.unpack_from(data)[1] == kept.generation
        assert [end for end, _ in journal_file.records(data, journal_file.HEADER.size)] == [kept.offset]
        kept.close()
    with Store.open(path) as store:
        assert store.game_row(game_id).last_seq == live[game_id][0].last_seq


def test_while_the_mover_lets_appends_gather_the_journal_is_flushed_to_the_disk_every_sync_interval(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    flushed: list[int] = []
    flush = os.fdatasync

    def fdatasync(fd: int) -> None:
        flushed.append(fd)
        flush(fd)

    monkeypatch.setattr(journal_file.os, "fdatasync", fdatasync)
    path = tmp_path / "flushed.duckdb"
    game_id, live = _one_game(path, seed=4)
    with Store.open(path) as store:
        kept = Journal(store.cursor(), settle=3600)  # no move: only the flushes make the record durable
        try:
            assert not flushed  # nothing acknowledged, nothing to flush
            kept.append([_next_action(live, game_id, Random(1))])
            deadline = time.monotonic() + 10
            while not flushed and time.monotonic() < deadline:
                time.sleep(journal_file.SYNC / 5)
            assert flushed and flushed[0] == kept._file.fd
            assert kept.moved == 0
            count = len(flushed)
            time.sleep(5 * journal_file.SYNC)
            assert len(flushed) == count  # nothing new acknowledged: no flush
        finally:
            kept.close()


def test_moving_in_again_after_a_crash_between_the_commit_and_the_cut_writes_nothing_twice(tmp_path: Path) -> None:
    moved, _, data, _ = _journaled(tmp_path, rounds=4)
    before = _stored(moved)
    journal_path(moved).write_bytes(data)  # as if killed after the mover's commit, before it started a new file
    Store.open(moved).close()
    assert _stored(moved) == before
    assert not pending(moved)


def test_a_read_only_open_sees_the_journaled_appends_of_a_stopped_server(tmp_path: Path) -> None:
    moved, crashed, data, _ = _journaled(tmp_path, rounds=2)
    journal_path(crashed).write_bytes(data)
    with Store.open(crashed, read_only=True) as store:
        seqs = [store.game_row(game_id).last_seq for game_id in (1, 2)]
    with Store.open(moved, read_only=True) as store:
        assert seqs == [store.game_row(game_id).last_seq for game_id in (1, 2)]


@pytest.fixture
def held(tmp_path: Path) -> Iterator[Service]:
    """A service whose mover is held back: every append acknowledged stays in the journal until a read needs it."""
    db = Database(str(tmp_path / "held.duckdb"), settle=3600)
    service = Service(Settings(db.path, admin_token=ADMIN), db, Keys(db.write(service_secret), ADMIN), Hub())
    try:
        yield service
    finally:
        service.close()


def _game(service: Service) -> dict[str, Any]:
    body = NewGameBody(game="motto", players=["Ann", "Ben", "Cy"], seed=5)
    return writing.create(service, Caller(ADMIN), body).result()


def test_two_appends_racing_for_one_seq_have_one_winner_and_a_409(held: Service) -> None:
    game = _game(held)
    _, state = held.db.latest(game["id"])
    legal = [MOTTO.action_json(action) for action in MOTTO.legal_actions(state)]
    start, answers = threading.Barrier(8), []

    def race(index: int) -> None:
        body = ActionBody(expected_seq=game["seq"], action=legal[index % len(legal)])
        start.wait()
        future = writing.act(held, Caller(ADMIN), game["id"], body)
        answers.append(future.exception(30) or future.result())

    threads = [threading.Thread(target=race, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    won = [a for a in answers if isinstance(a, dict)]
    lost = [a for a in answers if isinstance(a, Conflict)]
    assert len(won) == 1 and len(lost) == 7
    assert all(e.seq == won[0]["seq"] for e in lost)
    # The journal is ahead of DuckDB: an append expecting the old seq is refused by the live state alone.
    late = writing.act(held, Caller(ADMIN), game["id"], ActionBody(expected_seq=game["seq"], action=legal[0]))
    assert isinstance(late.exception(30), Conflict)
    assert held.db.journal is not None and held.db.journal.moved < held.db.journal.acked
    reader = held.db.reader()  # a read waits for the mover to pass what was acknowledged
    assert reader.game_row(game["id"]).last_seq == won[0]["seq"]
    assert [e.seq for e in reader.load(game["id"])] == list(range(1, won[0]["seq"] + 1))


def test_every_append_acknowledged_with_the_mover_held_back_survives_kill_9(tmp_path: Path) -> None:
    db, port = tmp_path / "killed.duckdb", free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "loom.cli.main", "serve", "--db", str(db), "--port", str(port), "--admin-token", ADMIN],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "LOGS_JOURNAL_SETTLE": "3600"},  # the mover moves nothing unless a read needs it
    )
    api, acknowledged = Api(f"http://127.0.0.1:{port}"), {}
    try:
        wait_until_serving(api, server)
        games = [api.create("motto", ["Ann", "Ben", "Cy"], seed=index) for index in range(3)]
        created = {game["id"]: game["seq"] for game in games}
        # Each game's state read once (kept by the server): from then on the appends need no read of the store.
        now = {g["id"]: api.ok("GET", f"/games/{g['id']}/state", g["tokens"]["table"]) for g in games}
        rng = Random(1)
        for _ in range(10):
            for game in games:
                at = now[game["id"]]
                if at["status"] != "open":
                    continue
                body = {"expected_seq": at["seq"], "action": at["legal"][rng.randrange(len(at["legal"]))]}
                now[game["id"]] = api.ok("POST", f"/games/{game['id']}/actions", game["tokens"]["table"], json=body)
                acknowledged[game["id"]] = now[game["id"]]["seq"]
        server.send_signal(signal.SIGKILL)
        server.wait(30)
    finally:
        api.close()
        if server.poll() is None:
            server.kill()
            server.wait(30)
    assert pending(db)
    # The acknowledged appends were in the journal only: DuckDB has the games as they were created.
    raw = Store(Connection.open(str(db), read_only=True), read_only=True)
    try:
        assert {game_id: raw.game_row(game_id).last_seq for game_id in created} == created
    finally:
        raw.close()
    with Store.open(db) as store:
        for game_id, seq in acknowledged.items():
            assert store.game_row(game_id).last_seq == seq
            assert [event.seq for event in store.load(game_id)] == list(range(1, seq + 1))
    assert not pending(db)


def _played_out(path: Path, by_hand: Path, write: Any, seeds: range = range(2)) -> None:
    """Games dealt from `seeds` in a database at `path` (and its copy `by_hand`), played to their end: each append
    handed to `write(game index, append)` and written to the copy action by action."""
    with Store.open(path) as store:
        ids = store.add_games([dealt_game(MOTTO, [Seat("A"), Seat("B"), Seat("C")], seed) for seed in seeds])
        live = {i: (position(store, i).info, position(store, i).state) for i in ids}
    shutil.copy(path, by_hand)
    rng = Random(7)
    with Store.open(by_hand) as other:
        while any(MOTTO.to_move(state) is not None for _, state in live.values()):
            for index, game_id in enumerate(ids):
                before = live[game_id][1]
                if MOTTO.to_move(before) is None:
                    continue
                a = _next_action(live, game_id, rng)
                append_played(other, game_id, MOTTO, before, a.played, a.info.last_seq)
                write(index, a)


def test_a_shards_journal_is_moved_in_by_the_primarys_mover_as_its_own_records_are(tmp_path: Path) -> None:
    # Game 0's appends are the primary's, game 1's a shard's, as a server of two processes writes them.
    path, by_hand = tmp_path / "served.duckdb", tmp_path / "by_hand.duckdb"
    store_and_journal: list[Any] = []

    def write(index: int, a: Append) -> None:
        if not store_and_journal:
            store = Store.open(path)
            journal = Journal(store.cursor(), settle=3600)
            store_and_journal.extend([store, journal, ShardJournal(journal.follow(1), fsync=False)])
        _, journal, shard = store_and_journal
        (journal if index == 0 else shard).append([a])

    _played_out(path, by_hand, write)
    store, journal, shard = store_and_journal
    assert journal.moved == 0
    journal.caught_up()  # a read: the shard's records written so far are read from its file and moved
    assert journal.appends_moved == journal.moves and journal.moves == 1 or journal.appends_moved > 0
    shard.close()
    journal.close()
    store.close()
    assert not journal_path(path).exists() and not journal_path(path, 1).exists()
    assert _stored(path) == _stored(by_hand)


def test_a_stopped_shards_journal_is_moved_in_to_its_last_whole_record_and_its_successor_starts_a_fresh_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path, by_hand = tmp_path / "served.duckdb", tmp_path / "by_hand.duckdb"
    held: list[Any] = []
    replaced: list[int] = []

    def write(index: int, a: Append) -> None:
        if not held:
            store = Store.open(path)
            journal = Journal(store.cursor(), settle=3600)
            held.extend([store, journal, ShardJournal(journal.follow(1), fsync=False), 0])
        _, journal, shard, count = held
        held[3] += 1
        if index == 1 and count >= 16 and not replaced:
            # The shard dies copying this append's record in (never acknowledged): half of it is in its file.
            torn, mapped = journal_file.encoded_whole([a]), shard._file
            mapped.map[mapped.end : mapped.end + len(torn) // 2] = torn[: len(torn) // 2]
            shard.close()
            # The server replaces it as the mover works: the mover's connection, which refuses a second caller, is
            # not read (a shard's mark is, at start only).
            monkeypatch.setattr(journal_file, "_mark", lambda *_: pytest.fail("the store read beside the mover"))
            fresh = journal.refollow(1)  # what it wrote whole is moved in, and its file removed
            monkeypatch.undo()
            assert journal_file._generation(fresh) == 2 and fresh.stat().st_size == journal_file.HEADER.size
            held[2] = ShardJournal(fresh, fsync=False)  # its successor; the client sends the append again
            replaced.append(count)
        (journal if index == 0 else held[2]).append([a])

    _played_out(path, by_hand, write)
    store, journal, shard, _ = held
    shard.close()
    journal.close()
    store.close()
    assert replaced and not journal_path(path, 1).exists()
    assert _stored(path) == _stored(by_hand)


def test_a_shards_journal_left_by_a_killed_server_is_moved_in_when_the_file_is_next_opened(tmp_path: Path) -> None:
    path, by_hand = tmp_path / "crashed.duckdb", tmp_path / "by_hand.duckdb"
    shard: list[ShardJournal] = []

    def write(index: int, a: Append) -> None:
        if not shard:  # as the primary makes it for its shard, which then writes into it alone
            with Store.open(path) as store:
                journal = Journal(store.cursor(), settle=3600)
                shard.append(ShardJournal(journal.follow(1), fsync=False))
                journal.store.close()  # killed: its mover never moves, its file stays
                journal._file.close()
        shard[0].append([a])

    _played_out(path, by_hand, write, seeds=range(1))
    shard[0].close()
    assert pending(path)
    Store.open(path).close()  # moves the shard's journal in
    assert not pending(path) and not journal_path(path, 1).exists()
    assert _stored(path) == _stored(by_hand)


def test_a_shard_sets_its_journal_aside_for_a_fresh_one_when_the_mover_asks_and_every_record_is_moved(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(journal_file, "CUT_AT", 2048)
    path, by_hand = tmp_path / "served.duckdb", tmp_path / "by_hand.duckdb"
    held: list[Any] = []
    asked: list[int] = []  # the mover's requests, carried out on the shard's one thread (here, the test's)
    generations: set[int | None] = set()

    def write(index: int, a: Append) -> None:
        if not held:
            store = Store.open(path)
            journal = Journal(store.cursor(), settle=3600)
            journal.ask_cut = lambda _, generation: asked.append(generation)
            held.extend([store, journal, ShardJournal(journal.follow(1), fsync=False), 0])
        _, journal, shard, count = held
        held[3] = count = count + 1
        if asked and count % 3 == 2:  # set aside with a record the mover has not read yet
            shard.cut(asked.pop())
        shard.append([a])
        generations.add(journal_file._generation(journal_path(path, 1)))
        if count % 3 == 0:  # a read: what the shard wrote so far is moved, and past CUT_AT a fresh file is asked
            journal.caught_up()

    _played_out(path, by_hand, write, seeds=range(1))
    store, journal, shard, _ = held
    shard.close()
    journal.close()
    store.close()
    assert len(generations) > 2
    assert not journal_file.retired_path(journal_path(path, 1)).exists()
    assert _stored(path) == _stored(by_hand)


def test_a_shards_journal_set_aside_and_its_fresh_one_left_by_a_killed_server_are_both_moved_in(
    tmp_path: Path,
) -> None:
    path, by_hand = tmp_path / "crashed.duckdb", tmp_path / "by_hand.duckdb"
    shard: list[Any] = []

    def write(index: int, a: Append) -> None:
        if not shard:  # the file as the primary makes it for its shard (the generation after the mark: 1)
            journal_file._write_fresh(journal_path(path, 1), 1, False)
            shard.extend([ShardJournal(journal_path(path, 1), fsync=False), 0])
        shard[1] += 1
        if shard[1] == 20:  # set aside with nothing of it moved
            shard[0].cut(1)
        shard[0].append([a])

    _played_out(path, by_hand, write, seeds=range(1))
    shard[0].close()
    assert journal_file.retired_path(journal_path(path, 1)).exists()
    Store.open(path).close()  # moves the one set aside, then the fresh one
    assert not pending(path) and not journal_file.retired_path(journal_path(path, 1)).exists()
    assert _stored(path) == _stored(by_hand)
