"""An append written on the caller's thread (the event loop's, for the fast path) when the database's writer is idle:
the same check, journal record and answer as a group of one, never two groups at once, and never held back by a new
game's transaction."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from loom.events.base import IllegalAction
from loom.replay.store import Store, StoreError
from loom.service import writing
from loom.service.committer import Staged
from loom.service.context import Caller, Service
from loom.service.errors import Conflict
from loom.service.models import ActionBody
from tests.service.client import ADMIN
from tests.service.test_group_commit import _a_legal_action, _held, _new_games


def _act_now(service: Service, game: dict[str, Any]) -> Any:
    game_id = game["id"]
    seq = service.db.latest(game_id)[0].last_seq  # read, so the game's state is kept
    body = ActionBody(expected_seq=seq, action=_a_legal_action(service, game_id))
    return writing.act(service, Caller(ADMIN), game_id, body, now=True)


def test_an_append_with_the_writer_idle_is_answered_on_return_and_read_back(service: Service) -> None:
    (game,) = _new_games(service, 1)
    answer = _act_now(service, game)
    assert answer.done()  # written on this thread: nothing handed to the writer
    seq = answer.result()["seq"]
    assert seq > game["seq"]
    assert service.db.reader().game_row(game["id"]).last_seq == seq  # in DuckDB once a read asks


def test_an_append_while_the_writer_writes_a_group_waits_for_it(service: Service) -> None:
    (game,) = _new_games(service, 1)
    release = _held(service)  # the writer is inside a group
    try:
        answer = _act_now(service, game)
        assert not answer.done()  # handed to the writer, not written beside its group
    finally:
        release.set()
    assert answer.result(30)["seq"] > game["seq"]


def test_a_new_games_transaction_does_not_hold_appends_back(service: Service) -> None:
    (game,) = _new_games(service, 1)
    writing_started, release = threading.Event(), threading.Event()

    def slow_new_rows(store: Store) -> None:
        writing_started.set()
        release.wait(30)

    created = service.db.submit(lambda live: Staged(lambda _: None, write=slow_new_rows, after_moved=False))
    assert writing_started.wait(30)
    try:
        answer = _act_now(service, game)
        assert answer.done() and answer.result()["seq"] > game["seq"]
    finally:
        release.set()
    created.result(30)


def test_a_refusal_on_the_callers_thread_writes_nothing_and_the_next_append_goes_on(service: Service) -> None:
    (game,) = _new_games(service, 1)
    seq = service.db.latest(game["id"])[0].last_seq
    stale = ActionBody(expected_seq=seq - 1, action=_a_legal_action(service, game["id"]))
    illegal = ActionBody(expected_seq=seq, action={"type": "take", "card": "no-such-card"})
    for body, refusal in ((stale, Conflict), (illegal, IllegalAction)):
        answer = writing.act(service, Caller(ADMIN), game["id"], body, now=True)
        assert answer.done() and isinstance(answer.exception(), refusal)
    assert service.db.reader().game_row(game["id"]).last_seq == seq
    assert _act_now(service, game).result()["seq"] > seq


def test_a_journal_that_cannot_take_the_record_refuses_the_append_and_forgets_the_kept_state(
    service: Service, monkeypatch: pytest.MonkeyPatch
) -> None:
    (game,) = _new_games(service, 1)
    seq = service.db.latest(game["id"])[0].last_seq
    journal = service.db.journal
    assert journal is not None

    def full_disk(appends: Any) -> None:
        raise StoreError("cannot write the journal: No space left on device")

    monkeypatch.setattr(journal, "append", full_disk)
    answer = _act_now(service, game)
    assert answer.done() and isinstance(answer.exception(), StoreError)
    assert game["id"] not in service.db._latest  # read again from the file by the next append
    monkeypatch.undo()
    assert service.db.reader().game_row(game["id"]).last_seq == seq
    assert _act_now(service, game).result()["seq"] > seq


def test_a_job_that_writes_more_than_appends_is_left_to_the_writer(service: Service) -> None:
    (game,) = _new_games(service, 1)
    service.db.latest(game["id"])
    wrote: list[str] = []

    def job(live: Any) -> Staged[str]:
        return Staged(lambda _: threading.current_thread().name, write=lambda store: wrote.append("written"))

    assert service.db.committer.now(job) is None
    assert service.db.submit(job, appends_to=game["id"]).result(30) == "loom-writer" and wrote == ["written"]
