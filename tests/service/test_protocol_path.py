"""Appends answered in the HTTP parser's callbacks (`AppendingHttp`) write the very bytes uvicorn's own cycle writes
for them (`CoalescingHttp`, through `FastAppends` as an ASGI application), access-log line included; what they do not
take (a bad body, one too large, a request while another of the connection is under way, an append the writer
queued) goes through uvicorn's cycle as before. Each request is sent twice, on two games dealt alike, once to each
protocol, over a transport that keeps what is written."""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
import pytest
import uvicorn
from uvicorn.server import ServerState

from loom.service import writing
from loom.service.app import serving_app
from loom.service.context import Caller, Service
from loom.service.models import ActionBody, NewGameBody
from loom.service.server import CoalescingHttp, appending_http
from loom.service.settings import Settings
from tests.service.client import ADMIN

DATE = (b"date", b"Fri, 04 Dec 2026 23:00:00 GMT")
LIMIT = 4096


class Wire(asyncio.Transport):
    """A connection's transport that keeps what is written to it."""

    def __init__(self) -> None:
        super().__init__()
        self.sent = bytearray()
        self.closed = False

    def write(self, data: bytes | bytearray | memoryview) -> None:
        self.sent += data

    def is_closing(self) -> bool:
        return self.closed

    def close(self) -> None:
        self.closed = True

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return {"peername": ("127.0.0.1", 50000), "sockname": ("127.0.0.1", 8000)}.get(name, default)


@dataclass(frozen=True)
class Exchanged:
    """What a connection wrote back, and whether uvicorn made a cycle for any of its requests."""

    sent: bytes
    cycled: bool


class Lines(logging.Handler):
    """The access log's lines."""

    def __init__(self) -> None:
        super().__init__()
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


@pytest.fixture
def service(tmp_path: Path) -> Iterator[Service]:
    opened = Service.open(Settings(str(tmp_path / "protocol.duckdb"), admin_token=ADMIN, max_body=LIMIT))
    try:
        yield opened
    finally:
        opened.close()


@pytest.fixture
def logged() -> Iterator[Lines]:
    access, lines = logging.getLogger("uvicorn.access"), Lines()
    level = access.level
    access.addHandler(lines)
    access.setLevel(logging.INFO)
    try:
        yield lines
    finally:
        access.removeHandler(lines)
        access.setLevel(level)


def _twins(service: Service) -> list[dict[str, Any]]:
    """Two three-player Motto games dealt from the same seed, each with a draw played: the writer keeps their
    states, so their next appends may be written at once."""
    body = NewGameBody(game="motto", players=["Ann", "Ben", "Cy"], seed=11)
    twins = [writing.create(service, Caller(ADMIN), body).result() for _ in range(2)]
    for game in twins:
        drawn = ActionBody(expected_seq=game["seq"], action={"type": "draw"})
        game["seq"] = writing.act(service, Caller(game["tokens"]["table"]), game["id"], drawn).result()["seq"]
    return twins


def _request(game: dict[str, Any], body: Any, route: str = "actions", role: str | int | None = "table") -> bytes:
    content = body if isinstance(body, bytes) else orjson.dumps(body)
    token = game["tokens"]["table"] if role == "table" else None if role is None else game["tokens"]["seats"][role]
    head = f"POST /games/{game['id']}/{route} HTTP/1.1\r\nhost: loom\r\ncontent-type: application/json\r\n"
    head += f"content-length: {len(content)}\r\n" + (f"authorization: Bearer {token}\r\n" if token else "")
    return head.encode() + b"\r\n" + content


def _connect(service: Service, protocol: type[CoalescingHttp], keep_alive: float = 5.0) -> tuple[CoalescingHttp, Wire]:
    """A connection of a server running `protocol`, on the running loop, and its transport."""
    config = uvicorn.Config(
        serving_app(service), http=protocol, loop="asyncio", log_config=None, timeout_keep_alive=keep_alive
    )
    config.load()
    state = ServerState()
    state.default_headers = [DATE]
    connection = protocol(config=config, server_state=state, app_state={}, _loop=asyncio.get_running_loop())
    wire = Wire()
    connection.connection_made(wire)
    return connection, wire


def _exchange(service: Service, protocol: type[CoalescingHttp], *pieces: bytes, answers: int = 1) -> Exchanged:
    """What the server writes back for the request bytes, sent in these pieces on one connection."""

    async def run() -> Exchanged:
        connection, wire = _connect(service, protocol)
        for piece in pieces:
            connection.data_received(piece)
            await asyncio.sleep(0)
        for _ in range(500):
            if wire.sent.count(b"HTTP/1.1 ") >= answers:
                break
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.02)  # anything written after the answers expected would show
        cycled = connection.cycle is not None
        connection.connection_lost(None)
        return Exchanged(bytes(wire.sent), cycled)

    return asyncio.run(run())


def _both(service: Service, twins: list[dict[str, Any]], make: Any, answers: int = 1) -> Exchanged:
    """What each protocol writes for `make(game)`, on each twin: alike but for the ids; the fast one's."""
    fast = _exchange(service, appending_http(serving_app(service)), *make(twins[0]), answers=answers)
    full = _exchange(service, CoalescingHttp, *make(twins[1]), answers=answers)
    assert full.cycled
    assert _without_id(fast.sent, twins[0]["id"]) == _without_id(full.sent, twins[1]["id"])
    return fast


def _without_id(answer: bytes, game_id: int) -> bytes:
    for said in (f'"id":{game_id},', f"game {game_id} ", f"/games/{game_id}/"):
        answer = answer.replace(said.encode(), b"ID")
    return answer


def test_an_action_answered_in_the_callbacks_is_the_bytes_uvicorn_writes(service: Service, logged: Lines) -> None:
    twins = _twins(service)
    fast = _both(
        service, twins, lambda game: [_request(game, {"expected_seq": game["seq"], "action": {"type": "draw"}})]
    )
    assert not fast.cycled
    assert fast.sent.startswith(b"HTTP/1.1 200 OK\r\ndate: Fri, 04 Dec 2026 23:00:00 GMT\r\ncontent-length: ")
    assert orjson.loads(fast.sent.split(b"\r\n\r\n", 1)[1])["seq"] == twins[0]["seq"] + 1  # the draw
    taken, cycled = logged.lines
    assert _without_id(taken.encode(), twins[0]["id"]) == _without_id(cycled.encode(), twins[1]["id"])
    assert taken == f'127.0.0.1:50000 - "POST /games/{twins[0]["id"]}/actions HTTP/1.1" 200'


@pytest.mark.parametrize(
    ("body", "role", "status", "cycled"),
    [
        ({"expected_seq": 99, "action": {"type": "draw"}}, "table", b"409 Conflict", False),
        ({"action": {"type": "take", "card": "nothing"}}, "table", b"422 Unprocessable", False),
        ({"action": {"type": "draw"}}, None, b"401 Unauthorized", False),
        ({"action": {"type": "draw"}}, 2, b"403 Forbidden", False),
        (b'{"expected_seq": 3,', "table", b"400 Bad Request", True),  # not JSON: the application's own answer
    ],
)
def test_a_refusal_is_the_bytes_uvicorn_writes(
    service: Service, body: Any, role: Any, status: bytes, cycled: bool
) -> None:
    twins = _twins(service)
    sent = body if isinstance(body, bytes) else {"expected_seq": twins[0]["seq"]} | body
    fast = _both(service, twins, lambda game: [_request(game, sent, role=role)])
    assert fast.sent.startswith(b"HTTP/1.1 " + status) and fast.cycled == cycled


def test_events_are_taken_by_the_callbacks_too(service: Service) -> None:
    twins = _twins(service)
    body = {"expected_seq": 99, "events": [{"type": "motto.turn_passed"}]}
    fast = _both(service, twins, lambda game: [_request(game, body, route="events")])
    assert fast.sent.startswith(b"HTTP/1.1 409 Conflict") and not fast.cycled


def test_a_body_in_pieces_is_gathered_before_it_is_read(service: Service) -> None:
    twins = _twins(service)

    def pieces(game: dict[str, Any]) -> list[bytes]:
        request = _request(game, {"expected_seq": game["seq"], "action": {"type": "draw"}})
        return [request[:40], request[40:-7], request[-7:]]

    fast = _both(service, twins, pieces)
    assert fast.sent.startswith(b"HTTP/1.1 200 OK") and not fast.cycled


def test_a_body_over_the_limit_is_the_applications_413(service: Service) -> None:
    twins = _twins(service)
    padded = b'{"expected_seq": 1, "action": {"type": "draw"}' + b" " * LIMIT + b"}"

    def pieces(game: dict[str, Any]) -> list[bytes]:
        request = _request(game, padded).replace(f"content-length: {len(padded)}\r\n".encode(), b"")
        head, body = request.split(b"\r\n\r\n", 1)
        chunks = [body[: LIMIT // 2], body[LIMIT // 2 :]]  # no length given: the limit is crossed on the way
        return (
            [head + b"\r\ntransfer-encoding: chunked\r\n\r\n"]
            + [b"%x\r\n%s\r\n" % (len(c), c) for c in chunks]
            + [b"0\r\n\r\n"]
        )

    fast = _both(service, twins, pieces)
    assert fast.sent.startswith(b"HTTP/1.1 413 ") and fast.cycled


def test_pipelined_appends_are_answered_in_their_order(service: Service) -> None:
    twins = _twins(service)

    def pipelined(game: dict[str, Any]) -> list[bytes]:
        seq = game["seq"]
        first = _request(game, {"expected_seq": seq, "action": {"type": "draw"}})
        second = _request(game, {"expected_seq": seq + 1, "action": {"type": "draw"}})
        return [first + second]

    fast = _both(service, twins, pipelined, answers=2)
    seqs = [orjson.loads(part.split(b"HTTP/1.1", 1)[0])["seq"] for part in fast.sent.split(b"\r\n\r\n")[1:]]
    assert seqs == [twins[0]["seq"] + 1, twins[0]["seq"] + 2] and not fast.cycled


def test_an_append_the_writer_queued_is_answered_once_written_and_the_next_after_it(service: Service) -> None:
    game = _twins(service)[0]
    held, release = threading.Event(), threading.Event()

    def hold_the_writer() -> None:
        with service.db.committer._busy:  # as a group being written by the writer
            held.set()
            release.wait(10)

    holder = threading.Thread(target=hold_the_writer)
    holder.start()
    held.wait(10)
    threading.Timer(0.3, release.set).start()
    began = time.monotonic()
    seq = game["seq"]
    first = _request(game, {"expected_seq": seq, "action": {"type": "draw"}})
    second = _request(game, {"expected_seq": seq + 1, "action": {"type": "draw"}})  # while the first waits
    queued = _exchange(service, appending_http(serving_app(service)), first + second, answers=2)
    holder.join()
    assert time.monotonic() - began >= 0.3  # answered once the writer could write it, not before
    assert queued.sent.startswith(b"HTTP/1.1 200 OK") and queued.cycled
    seqs = [orjson.loads(part.split(b"HTTP/1.1", 1)[0])["seq"] for part in queued.sent.split(b"\r\n\r\n")[1:]]
    assert seqs == [seq + 1, seq + 2]


KEEP = 0.4
"""The keep-alive timeout of the tests below, in seconds."""


def test_a_connection_answering_within_the_keep_alive_timeout_stays_open_and_idle_it_is_closed(
    service: Service,
) -> None:
    game = _twins(service)[0]

    async def run() -> list[bool]:
        connection, wire = _connect(service, appending_http(serving_app(service)), keep_alive=KEEP)
        closed = []
        for step in range(4):  # an answer every half timeout: two timeouts in all
            connection.data_received(_request(game, {"expected_seq": game["seq"] + step, "action": {"type": "draw"}}))
            await asyncio.sleep(KEEP / 2)
            closed.append(wire.closed)
        await asyncio.sleep(KEEP / 2 + 0.2)  # idle a whole timeout since the last answer
        closed.append(wire.closed)
        connection.connection_lost(None)
        return closed

    assert asyncio.run(run()) == [False, False, False, False, True]


def test_a_request_under_way_is_not_cut_by_the_keep_alive_timeout(service: Service) -> None:
    game = _twins(service)[0]

    async def run() -> tuple[bool, bool, bool, bytes]:
        connection, wire = _connect(service, appending_http(serving_app(service)), keep_alive=KEEP)
        connection.data_received(_request(game, {"expected_seq": game["seq"], "action": {"type": "draw"}}))
        await asyncio.sleep(0.05)
        request = _request(game, {"expected_seq": game["seq"] + 1, "action": {"type": "draw"}})
        connection.data_received(request[:-5])  # its body's end comes two timeouts later
        await asyncio.sleep(2 * KEEP)
        waiting = wire.closed
        connection.data_received(request[-5:])
        await asyncio.sleep(KEEP / 2)
        answered = wire.closed
        await asyncio.sleep(KEEP / 2 + 0.2)
        idle = wire.closed
        connection.connection_lost(None)
        return waiting, answered, idle, bytes(wire.sent)

    waiting, answered, idle, sent = asyncio.run(run())
    assert (waiting, answered, idle) == (False, False, True)
    assert sent.count(b"HTTP/1.1 200 OK") == 2
