"""Bad input of every kind gets a JSON error with a clear message and the right status, never a stack trace, and
nothing is written."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from loom.service.errors import MAX_DEPTH
from tests.service.client import ADMIN, Api


@pytest.fixture(scope="module")
def game(api: Api) -> dict[str, Any]:
    """A two-player Motto game at its first turn."""
    return api.create("motto", ["Ann", "Ben"], seed=2)


def _error(response: httpx.Response, status: int, *words: str) -> str:
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == "application/json"
    message = response.json()["error"]
    assert "\n" not in message and "Traceback" not in response.text
    assert all(word in message for word in words), message
    return message


def _unchanged(api: Api, game: dict[str, Any]) -> None:
    assert api.ok("GET", f"/games/{game['id']}")["seq"] == game["seq"]


def test_a_body_that_is_not_json_is_a_400(api: Api, game: dict[str, Any]) -> None:
    headers = {"Authorization": f"Bearer {game['tokens']['table']}", "Content-Type": "application/json"}
    response = api.http.post(f"/games/{game['id']}/actions", content=b'{"expected_seq": 2,', headers=headers)
    _error(response, 400, "not JSON")
    _unchanged(api, game)


def test_json_that_is_not_an_object_is_a_422(api: Api) -> None:
    _error(api.call("POST", "/games", ADMIN, json=[1, 2]), 422, "JSON object")


def test_a_missing_or_unknown_field_is_named(api: Api, game: dict[str, Any]) -> None:
    path, table = f"/games/{game['id']}/actions", game["tokens"]["table"]
    _error(api.call("POST", path, table, json={"action": {"type": "draw"}}), 422, "expected_seq")
    _error(api.call("POST", path, table, json={"expected_seq": 2, "action": {}, "colour": 1}), 422, "colour")
    _unchanged(api, game)


def test_an_unknown_game_kind_is_a_422(api: Api) -> None:
    _error(api.call("POST", "/games", ADMIN, json={"game": "chess", "players": ["A", "B"]}), 422, "unknown game")
    _error(api.call("GET", "/games?game=chess"), 422, "unknown game")


def test_an_unknown_game_id_is_a_404_that_does_not_name_the_servers_file(api: Api, db_path: Any) -> None:
    message = _error(api.call("GET", "/games/9999/state"), 404, "9999")
    assert str(db_path) not in message
    _error(api.call("POST", "/games/9999/actions", ADMIN, json={"expected_seq": 1, "action": {}}), 404, "9999")


def test_an_unknown_seat_is_a_404(api: Api, game: dict[str, Any]) -> None:
    _error(api.call("GET", f"/games/{game['id']}/state?as=5", ADMIN), 404, "seat 5", "0 to 1")
    _error(api.call("GET", f"/games/{game['id']}/state?as=someone", ADMIN), 404, "seat number")


def test_a_turn_or_event_out_of_range_is_a_404(api: Api, game: dict[str, Any]) -> None:
    _error(api.call("GET", f"/games/{game['id']}/state?turn=40"), 404, "turn 40 is out of range")
    _error(api.call("GET", f"/games/{game['id']}/state?seq=99"), 404, "event 99 is out of range")
    _error(api.call("GET", f"/games/{game['id']}/state?turn=x"), 422, "turn")


def test_an_oversized_body_is_a_413_and_writes_nothing(api: Api, game: dict[str, Any]) -> None:
    body = {"expected_seq": game["seq"], "action": {"type": "draw", "padding": "x" * 70_000}}
    _error(api.call("POST", f"/games/{game['id']}/actions", game["tokens"]["table"], json=body), 413, "limit")
    chunked = api.http.post(
        f"/games/{game['id']}/actions",
        content=iter([b'{"expected_seq": 2, "action": {"type": "', b"x" * 70_000, b'"}}']),
        headers={"Authorization": f"Bearer {game['tokens']['table']}", "Content-Type": "application/json"},
    )
    _error(chunked, 413, "limit")
    _unchanged(api, game)


def test_an_illegal_action_is_a_422_with_the_rules_reason_and_writes_nothing(api: Api, game: dict[str, Any]) -> None:
    body = {"expected_seq": game["seq"], "action": {"type": "play", "cards": ["red-1-love"]}}
    _error(api.call("POST", f"/games/{game['id']}/actions", game["tokens"]["table"], json=body), 422, "three cards")
    _unchanged(api, game)


def test_an_illegal_table_event_is_a_422_naming_it_and_writes_nothing(api: Api, game: dict[str, Any]) -> None:
    body = {"expected_seq": game["seq"], "events": [{"type": "motto.took", "card": "no-such-card"}]}
    _error(api.call("POST", f"/games/{game['id']}/events", game["tokens"]["table"], json=body), 422, "event 1")
    _unchanged(api, game)


def test_a_stale_sequence_number_is_a_409_with_the_games_own(api: Api, game: dict[str, Any]) -> None:
    body = {"expected_seq": game["seq"] - 1, "action": {"type": "draw"}}
    response = api.call("POST", f"/games/{game['id']}/actions", game["tokens"]["table"], json=body)
    _error(response, 409, f"at event {game['seq']}")
    assert response.json()["seq"] == game["seq"]
    _unchanged(api, game)


def test_an_unknown_page_or_method_is_json_too(api: Api) -> None:
    _error(api.call("GET", "/no/such/page"), 404, "no such page")
    _error(api.call("DELETE", "/games"), 405, "DELETE")


def test_a_last_event_id_that_is_not_ascii_digits_is_a_400(api: Api, game: dict[str, Any]) -> None:
    for given in ("²".encode("latin-1"), b"-1", b"abc", b"9" * 5000):
        headers = {"Authorization": f"Bearer {game['tokens']['table']}", "Last-Event-ID": given}
        _error(api.http.get(f"/games/{game['id']}/stream", headers=headers), 400, "Last-Event-ID", "event number")


@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, 900, 20_000])
def test_a_body_nested_too_deep_is_a_422_naming_the_limit(api: Api, game: dict[str, Any], depth: int) -> None:
    deep = "[" * depth + "]" * depth
    headers = {"Authorization": f"Bearer {game['tokens']['table']}", "Content-Type": "application/json"}
    bodies = {
        f"/games/{game['id']}/events": '{"expected_seq": SEQ, "events": [{"type": "motto.drew", "card": DEEP}]}',
        f"/games/{game['id']}/actions": '{"expected_seq": SEQ, "action": {"type": "play", "cards": DEEP}}',
    }
    for path, body in bodies.items():
        content = body.replace("SEQ", str(game["seq"])).replace("DEEP", deep)
        _error(api.http.post(path, content=content, headers=headers), 422, f"{MAX_DEPTH} levels")
    created = '{"game": "motto", "events": [{"type": "motto.started", "players": DEEP}]}'.replace("DEEP", deep)
    admin = headers | {"Authorization": f"Bearer {ADMIN}"}
    _error(api.http.post("/games", content=created, headers=admin), 422, str(MAX_DEPTH))
    _unchanged(api, game)


def test_a_body_nested_within_the_limit_reaches_the_rules(api: Api, game: dict[str, Any]) -> None:
    inside = MAX_DEPTH - 3  # in the body's object, its list and the event's: MAX_DEPTH levels
    card = "[" * inside + '"red-1-love"' + "]" * inside
    body = f'{{"expected_seq": {game["seq"]}, "events": [{{"type": "motto.drew", "card": {card}}}]}}'
    headers = {"Authorization": f"Bearer {game['tokens']['table']}", "Content-Type": "application/json"}
    _error(api.http.post(f"/games/{game['id']}/events", content=body, headers=headers), 422, "event 1")
    _unchanged(api, game)


def test_every_answer_says_nosniff(api: Api, game: dict[str, Any]) -> None:
    for response in (api.call("GET", f"/games/{game['id']}"), api.call("GET", "/no/such/page")):
        assert response.headers["x-content-type-options"] == "nosniff"
    too_big = api.call("POST", "/games", ADMIN, json={"game": "motto", "players": ["x" * 70_000]})
    assert too_big.status_code == 413 and too_big.headers["x-content-type-options"] == "nosniff"
