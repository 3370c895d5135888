"""The append routes' fast path answers exactly as the routes do: every request is sent twice, on two games dealt
alike, once as the fast path takes it (`Content-Type: application/json`) and once as it hands it to the full
application (the same type with a charset, which the fast path leaves alone)."""

from __future__ import annotations

import asyncio
import io
import logging
import sys
from typing import Any

import httpx
import orjson
import pytest
from uvicorn.logging import AccessFormatter

from loom.service import writing
from loom.service.access import ROLES_KEPT, Keys
from loom.service.api import FastAppends
from loom.service.context import Caller, Service
from loom.service.models import NewGameBody
from loom.service.server import ACCESS_FORMAT, ACCESS_LINE, HideTokens, _plain_lines, free_port, running
from loom.service.settings import Settings
from tests.service.client import ADMIN, Api

FAST = "application/json"
FULL = "application/json; charset=utf-8"


@pytest.fixture
def twins(api: Api) -> list[dict[str, Any]]:
    """Two three-player Motto games dealt from the same seed: the same cards, the same legal actions."""
    return [api.create("motto", ["Ann", "Ben", "Cy"], seed=11) for _ in range(2)]


def _post(api: Api, game: dict[str, Any], route: str, body: Any, token: str | None, kind: str) -> httpx.Response:
    headers = {"Content-Type": kind} | ({"Authorization": f"Bearer {token}"} if token else {})
    content = body if isinstance(body, bytes) else httpx.Request("POST", "/", json=body).content
    return api.http.post(f"/games/{game['id']}/{route}", content=content, headers=headers)


def _same(fast: httpx.Response, full: httpx.Response, games: list[dict[str, Any]]) -> None:
    """The two answers alike but for the games' ids."""
    assert fast.status_code == full.status_code, (fast.text, full.text)
    for name in ("content-type", "x-content-type-options", "www-authenticate"):
        assert fast.headers.get(name) == full.headers.get(name)
    assert _without_id(fast.content, games[0]["id"]) == _without_id(full.content, games[1]["id"])


def _without_id(answer: bytes, game_id: int) -> bytes:
    for said in (f'"id":{game_id},', f"game {game_id} ", f"/games/{game_id}/"):
        answer = answer.replace(said.encode(), b"ID")
    return answer


def _both(api: Api, games: list[dict[str, Any]], route: str, body: Any, role: str | int | None) -> httpx.Response:
    """Send the request to each twin, one by each path; the fast one's answer, checked against the other's."""
    answers = []
    for game, kind in zip(games, (FAST, FULL)):
        token = game["tokens"]["table"] if role == "table" else None if role is None else game["tokens"]["seats"][role]
        answers.append(_post(api, game, route, body, token, kind))
    _same(answers[0], answers[1], games)
    return answers[0]


def test_an_action_is_answered_as_the_route_answers_it(api: Api, twins: list[dict[str, Any]]) -> None:
    now = api.ok("GET", f"/games/{twins[0]['id']}/state", twins[0]["tokens"]["table"])
    for _ in range(4):
        action = next(a for a in now["legal"] if a["type"] == "take")
        seat = now["to_move"]
        answer = _both(api, twins, "actions", {"expected_seq": now["seq"], "action": action}, seat)
        assert answer.status_code == 200
        now = api.ok("GET", f"/games/{twins[0]['id']}/state", twins[0]["tokens"]["table"])
        assert answer.json()["seq"] == now["seq"]


def test_refusals_are_answered_as_the_route_answers_them(api: Api, twins: list[dict[str, Any]]) -> None:
    seq = twins[0]["seq"]
    cases: list[tuple[str, Any, str | int | None, int]] = [
        ("actions", {"expected_seq": seq + 5, "action": {"type": "draw"}}, "table", 409),
        ("actions", {"expected_seq": seq, "action": {"type": "play", "cards": ["red-1-love"]}}, "table", 422),
        ("actions", {"expected_seq": seq, "action": {"type": "draw"}}, None, 401),
        ("actions", {"expected_seq": seq, "action": {"type": "draw"}}, 1, 403),
        ("actions", {"expected_seq": seq, "action": {"type": "draw"}, "seat": 7}, "table", 422),
        ("actions", {"expected_seq": seq, "action": {"type": "draw"}, "extra": 1}, "table", 422),
        ("actions", {"expected_seq": -1, "action": {"type": "draw"}}, "table", 422),
        ("actions", [1, 2], "table", 422),
        ("actions", b'{"expected_seq": 1,', "table", 400),
        ("actions", b'{"expected_seq": NaN, "action": {}}', "table", 422),
        ("actions", b'{"expected_seq": "1", "action": {"type": "draw"}}', "table", 409),  # pydantic converts "1"
        ("events", {"expected_seq": seq, "events": [{"type": "motto.took", "card": "no-such-card"}]}, "table", 422),
        ("events", {"expected_seq": seq, "events": [{"type": "motto.drew", "card": "red-1-love"}]}, 0, 403),
        ("events", {"expected_seq": seq, "events": []}, "table", 422),
        ("events", {"expected_seq": seq, "events": [{"type": "motto.drew"}]}, None, 401),
    ]
    for route, body, role, status in cases:
        assert _both(api, twins, route, body, role).status_code == status, (route, body, role)
    for game in twins:
        assert api.ok("GET", f"/games/{game['id']}")["seq"] == seq


def test_an_unknown_game_is_a_404_by_either_path(api: Api) -> None:
    body = {"expected_seq": 1, "action": {"type": "draw"}}
    answers = [_post(api, {"id": 10**17}, "actions", body, ADMIN, kind) for kind in (FAST, FULL)]
    assert [a.status_code for a in answers] == [404, 404] and answers[0].content == answers[1].content


def test_a_token_in_the_address_is_refused_on_the_append_routes_too(api: Api, twins: list[dict[str, Any]]) -> None:
    table = twins[0]["tokens"]["table"]
    body = {"expected_seq": twins[0]["seq"], "action": {"type": "draw"}}
    response = api.http.post(f"/games/{twins[0]['id']}/actions?token={table}", json=body)
    assert response.status_code == 400 and "Authorization: Bearer" in response.json()["error"]


def test_the_append_routes_are_still_described_at_docs(api: Api) -> None:
    paths = api.ok("GET", "/openapi.json")["paths"]
    assert "post" in paths["/games/{game_id}/actions"] and "post" in paths["/games/{game_id}/events"]


def test_each_token_opens_what_it_did_when_its_games_tokens_are_kept() -> None:
    keys = Keys(b"s" * 32, ADMIN)
    for _ in range(2):  # worked out, then kept
        assert keys.grant(keys.token(7, "table"), 7, 3).everything
        assert keys.grant(keys.token(7, 2), 7, 3).seat == 2
        assert keys.grant(keys.token(8, 2), 7, 3).anonymous  # another game's seat
        assert keys.grant(keys.token(7, 3), 7, 3).anonymous  # a seat the game does not have
        assert keys.grant(ADMIN, 7, 3).everything and keys.grant(None, 7, 3).anonymous
    for game_id in range(ROLES_KEPT + 1):  # past what is kept: worked out again
        keys.grant("nobody", game_id, 2)
    assert keys.grant(keys.token(7, 1), 7, 3).seat == 1


def test_the_access_log_is_written_off_the_loop_with_every_line(tmp_path: Any, monkeypatch: Any) -> None:
    written = io.StringIO()
    monkeypatch.setattr(sys, "stdout", written)  # where uvicorn's configuration points the access log
    settings = Settings(str(tmp_path / "logged.duckdb"), port=free_port(), admin_token=ADMIN)
    access = logging.getLogger("uvicorn.access")
    with running(settings, log_level="info") as base:
        handlers = list(access.handlers)
        client = Api(base)
        created = client.create("motto", ["Ann", "Ben"])
        now = client.ok("GET", f"/games/{created['id']}/state", created["tokens"]["table"])
        body = {"expected_seq": now["seq"], "action": now["legal"][0]}
        client.ok("POST", f"/games/{created['id']}/actions", created["tokens"]["table"], json=body)
        client.close()
    assert [type(handler).__name__ for handler in handlers] == ["_Handing"]
    assert [type(handler).__name__ for handler in access.handlers] == ["StreamHandler"]  # given back
    lines = written.getvalue().splitlines()
    assert any(f'"POST /games/{created["id"]}/actions HTTP/1.1" 200' in line for line in lines), lines
    assert any('"POST /games HTTP/1.1" 201' in line for line in lines), lines


def test_the_access_log_writes_its_lines_as_uvicorns_formatter_does_tokens_hidden() -> None:
    lines = [
        ("127.0.0.1:50000", "POST", "/games/1/actions", "1.1", 200),
        ("[::1]:7", "GET", "/games/2/stream?token=abc&after=3", "1.1", 409),
        ("", "GET", '/games/3/replay?as=0&%74oken=s"x', "1.0", 599),
    ]
    for colours in (False, True):
        handler = logging.StreamHandler(io.StringIO())
        handler.setFormatter(AccessFormatter(ACCESS_FORMAT, use_colors=colours))
        access = logging.Logger("access")
        access.addFilter(HideTokens())
        plain = _plain_lines(access, [handler])
        assert plain is not None
        for args in lines:
            record = access.makeRecord(access.name, logging.INFO, "(unknown file)", 0, ACCESS_LINE, args, None)
            assert access.filter(record)
            assert plain((0.0, ACCESS_LINE, args)) == handler.format(record)
            assert "abc" not in handler.format(record) and "=s" not in handler.format(record)
        handler.addFilter(lambda record: True)
        assert _plain_lines(access, [handler]) is None  # a handler of its own: records made, as any logger's


def _asked(fast: FastAppends, path: str, body: bytes, headers: list[tuple[bytes, bytes]], query: bytes = b"") -> int:
    """The status the fast path answers a request with (0: it handed the request over)."""
    scope = {"type": "http", "method": "POST", "path": path, "query_string": query, "headers": headers}
    parts = [body[:5], body[5:]]  # in two messages, as a client may send it

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": parts.pop(0), "more_body": bool(parts)}

    sent: list[dict[str, Any]] = []

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    asyncio.run(fast(scope, receive, send))
    return sent[0]["status"] if sent else 0


def test_only_what_the_routes_accept_is_answered_on_the_fast_path_the_rest_handed_over_whole(tmp_path: Any) -> None:
    service = Service.open(Settings(str(tmp_path / "fast.duckdb"), admin_token=ADMIN, max_body=2048))
    try:
        new = NewGameBody(game="motto", players=["Ann", "Ben"], seed=3)
        created = writing.create(service, Caller(ADMIN), new).result()
        handed: list[bytes] = []

        async def full(scope: Any, receive: Any, send: Any) -> None:
            message, body = {"more_body": True}, b""
            while message.get("more_body"):
                message = await receive()
                body += message["body"]
            handed.append(body)

        fast = FastAppends(full, service)
        path, table = f"/games/{created['id']}/actions", f"Bearer {created['tokens']['table']}".encode()
        json_type, auth = (b"content-type", b"application/json"), (b"authorization", table)
        good = orjson.dumps({"expected_seq": created["seq"] + 1, "action": {"type": "draw"}})
        assert _asked(fast, path, good, [json_type, auth]) == 409 and not handed
        refused = {
            b'{"expected_seq": 1,': [json_type, auth],
            good: [(b"content-type", b"text/plain"), auth],
            good + b" " * 3000: [json_type, auth],
        }
        for body, headers in refused.items():
            assert _asked(fast, path, body, headers) == 0 and handed[-1] == body
        assert _asked(fast, path, good, [json_type], query=b"token=x") == 0 and handed[-1] == good
        assert _asked(fast, path + "/", good, [json_type, auth]) == 0 and handed[-1] == good
    finally:
        service.close()
