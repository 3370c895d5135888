"""Tokens: a seat's hidden cards reach only that seat's holder. Every answer another seat or an anonymous reader gets
is searched for the cards it must not name."""

from __future__ import annotations

import logging
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from loom.events.base import LoomError
from loom.service.server import free_port, running
from loom.service.settings import Settings, check
from tests.service.client import ADMIN, Api, read_stream


def _names(data: Any) -> set[str]:
    """Every card name in a described state (Motto's are strings like red-2-love)."""
    if isinstance(data, dict):
        return set().union(*(_names(value) for value in data.values())) if data else set()
    if isinstance(data, list):
        return set().union(*(_names(value) for value in data)) if data else set()
    return {data} if isinstance(data, str) and data.count("-") == 2 else set()


@pytest.fixture(scope="module")
def game(api: Api) -> dict[str, Any]:
    """A three-player Motto game a few turns in: seats took from the pool and drew from the deck."""
    created = api.create("motto", ["Ann", "Ben", "Cy"], seed=5)
    table = created["tokens"]["table"]
    for turn in range(6):
        now = api.ok("GET", f"/games/{created['id']}/state", table)
        wanted = "draw" if turn % 2 else "take"
        action = next(a for a in now["legal"] if a["type"] == wanted)
        api.ok("POST", f"/games/{created['id']}/actions", table, json={"expected_seq": now["seq"], "action": action})
    return created


def _secret_from(api: Api, game: dict[str, Any], reader: str | None) -> set[str]:
    """The cards in hands and the deck now that `reader` has never been shown: not in its own view now, and never
    face up (dealt to the pool, refilled, taken from it). Each card has a twin, so both copies must be secret."""
    table = game["tokens"]["table"]
    whole = api.ok("GET", f"/games/{game['id']}/state", table)["state"]
    own = api.ok("GET", f"/games/{game['id']}/state", reader)["state"]
    log = api.ok("GET", f"/games/{game['id']}/events", table)["events"]
    face_up = _names([event.get("pool") or event.get("card") for event in log if event["type"] != "motto.drew"])
    secret = (_names(whole["hands"]) | _names(whole["deck"])) - _names(own) - face_up
    assert len(secret) >= 5
    return secret


def _everything_read_by(api: Api, game: dict[str, Any], token: str | None) -> str:
    """Every answer about the game a holder of `token` can read, as one text."""
    game_id = game["id"]
    paths = [
        f"/games/{game_id}",
        f"/games/{game_id}/state",
        f"/games/{game_id}/state?turn=2",
        f"/games/{game_id}/state?seq=3",
        f"/games/{game_id}/state?as=public",
        f"/games/{game_id}/events",
        f"/games/{game_id}/events?after=4",
        "/games?game=motto",
        f"/games/{game_id}/tree",
        f"/games/{game_id}/stream?after=0",
        f"/games/{game_id}/replay",
    ]
    last = api.ok("GET", f"/games/{game_id}")["seq"]
    streamed = read_stream(api, paths[-2], token, last)
    assert f'"seq":{last}' in streamed
    texts = [api.call("GET", path, token).text for path in paths if "stream" not in path]
    return "\n".join([*texts, streamed])


def test_a_seat_reads_no_card_hidden_from_it(api: Api, game: dict[str, Any]) -> None:
    seat_1 = game["tokens"]["seats"][1]
    secret = _secret_from(api, game, seat_1)
    read = _everything_read_by(api, game, seat_1)
    assert '"as":1' in read and not {card for card in secret if card in read}


def test_an_anonymous_reader_reads_no_hidden_card(api: Api, game: dict[str, Any]) -> None:
    secret = _secret_from(api, game, None)
    read = _everything_read_by(api, game, None)
    assert '"as":"public"' in read and not {card for card in secret if card in read}


def test_the_table_token_reads_every_card(api: Api, game: dict[str, Any]) -> None:
    secret = _secret_from(api, game, None)
    events = api.call("GET", f"/games/{game['id']}/events", game["tokens"]["table"]).text
    assert all(card in events for card in secret)


def test_a_seat_view_needs_that_seats_token(api: Api, game: dict[str, Any]) -> None:
    game_id, seats = game["id"], game["tokens"]["seats"]
    assert api.call("GET", f"/games/{game_id}/state?as=0").status_code == 401
    assert api.call("GET", f"/games/{game_id}/state?as=0", seats[1]).status_code == 403
    assert api.call("GET", f"/games/{game_id}/state?as=all", seats[1]).status_code == 403
    assert api.call("GET", f"/games/{game_id}/state?as=0", "not-a-token").status_code == 403
    assert api.ok("GET", f"/games/{game_id}/state?as=0", seats[0])["as"] == 0


def test_a_games_tokens_open_no_other_game(api: Api, game: dict[str, Any]) -> None:
    other = api.create("motto", ["Dee", "Eve"], seed=6)
    assert api.call("GET", f"/games/{other['id']}/state?as=0", game["tokens"]["seats"][0]).status_code == 403
    assert api.call("GET", f"/games/{other['id']}/state?as=all", game["tokens"]["table"]).status_code == 403


def test_an_action_needs_the_movers_token_and_a_refused_one_writes_nothing(api: Api, game: dict[str, Any]) -> None:
    game_id, seats = game["id"], game["tokens"]["seats"]
    now = api.ok("GET", f"/games/{game_id}/state", game["tokens"]["table"])
    body = {"expected_seq": now["seq"], "action": {"type": "draw"}}
    other = seats[(now["to_move"] + 1) % 3]
    assert api.call("POST", f"/games/{game_id}/actions", json=body).status_code == 401
    assert api.call("POST", f"/games/{game_id}/actions", other, json=body).status_code == 403
    assert api.ok("GET", f"/games/{game_id}")["seq"] == now["seq"]


def test_a_seat_token_writes_no_chance_event(api: Api) -> None:
    created = api.ok(
        "POST", "/games", ADMIN, json={"game": "motto", "events": [{"type": "motto.started", "players": ["A", "B"]}]}
    )
    dealt = {"type": "motto.dealt", "hands": [["red-2-love", "red-2-passion"], ["blue-1-money", "purple-1-money"]],
             "pool": ["red-2-money", "blue-3-love", "purple-3-money", "red-1-love"]}  # fmt: skip
    body = {"expected_seq": 1, "events": [dealt]}
    refused = api.call("POST", f"/games/{created['id']}/events", created["tokens"]["seats"][0], json=body)
    assert refused.status_code == 403 and "chance" in refused.json()["error"]
    assert api.ok("POST", f"/games/{created['id']}/events", created["tokens"]["table"], json=body)["seq"] == 2


def test_creating_a_game_needs_the_admin_token_when_one_is_set(api: Api) -> None:
    body = {"game": "motto", "players": ["A", "B"]}
    assert api.call("POST", "/games", json=body).status_code == 401
    assert api.call("POST", "/games", "not-the-admin-token", json=body).status_code == 403


def test_a_replay_page_needs_a_token(api: Api, game: dict[str, Any]) -> None:
    assert api.call("GET", f"/games/{game['id']}/replay").status_code == 401


def test_a_server_reachable_from_other_machines_needs_an_admin_token() -> None:
    with pytest.raises(LoomError, match="without an admin token"):
        check(Settings("x.duckdb", host="0.0.0.0"))
    check(Settings("x.duckdb", host="0.0.0.0", admin_token=ADMIN))
    check(Settings("x.duckdb", host="::1"))


def test_logs_serve_refuses_a_public_address_without_an_admin_token(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "loom.cli.main", "serve", "--host", "0.0.0.0", "--db", str(tmp_path / "x.duckdb")],
        capture_output=True,
        text=True,
        timeout=60,
        env={"PATH": "/usr/bin:/bin"},
    )
    assert result.returncode == 2 and result.stderr.count("\n") == 1 and "admin token" in result.stderr
    assert not (tmp_path / "x.duckdb").exists()


def test_a_games_tokens_still_open_it_after_a_restart(tmp_path: Path) -> None:
    settings = Settings(str(tmp_path / "restart.duckdb"), port=free_port(), admin_token=ADMIN)
    with running(settings) as base:
        first = Api(base)
        created = first.create("motto", ["Ann", "Ben"])
        first.close()
    with running(settings) as base:
        again = Api(base)
        assert again.ok("GET", f"/games/{created['id']}/state", created["tokens"]["seats"][1])["as"] == 1
        assert again.call("GET", f"/games/{created['id']}/state?as=1", created["tokens"]["seats"][0]).status_code == 403
        again.close()


def _one_line(response: Any, status: int) -> str:
    assert response.status_code == status, response.text
    message = response.json()["error"]
    assert "\n" not in message
    return str(message)


@pytest.mark.parametrize("name", ["motto", "moirai", "moorea", "stones-of-fate"])
def test_a_seat_writes_no_event_in_a_game_loom_dealt(api: Api, name: str) -> None:
    created = api.create(name, ["Ann", "Ben"], seed=3)
    first = api.ok("GET", f"/games/{created['id']}/events", created["tokens"]["table"])["events"][0]
    body = {"expected_seq": created["seq"], "events": [{"type": first["type"], "players": ["Ann", "Ben"]}]}
    for seat, token in enumerate(created["tokens"]["seats"]):
        refused = _one_line(api.call("POST", f"/games/{created['id']}/events", token, json=body), 403)
        assert "dealt by Loom" in refused and f"seat {seat} plays actions" in refused
    assert api.ok("GET", f"/games/{created['id']}")["seq"] == created["seq"]


def test_a_guess_at_the_top_card_gets_the_same_refusal_right_or_wrong(api: Api) -> None:
    created = api.create("motto", ["Ann", "Ben"], seed=11)
    game_id, table, seats = created["id"], created["tokens"]["table"], created["tokens"]["seats"]
    whole = api.ok("GET", f"/games/{game_id}/state?as=all", table)
    deck = whole["state"]["deck"]
    top, other = deck[0], next(card for card in deck if card != deck[0])
    answers = set()
    for guess in (top, other):
        body = {"expected_seq": created["seq"], "events": [{"type": "motto.drew", "card": guess}]}
        response = api.call("POST", f"/games/{game_id}/events", seats[whole["to_move"]], json=body)
        assert response.status_code == 403 and top not in response.text and other not in response.text
        answers.add(response.text)
    assert len(answers) == 1
    assert api.ok("GET", f"/games/{game_id}")["seq"] == created["seq"]


def _table_game(api: Api) -> dict[str, Any]:
    """A Motto game a real table records: the table wrote the start and the deal; seat 0 is to take or draw."""
    started = {"type": "motto.started", "players": ["Ann", "Ben"]}
    dealt = {"type": "motto.dealt", "hands": [["red-2-love", "red-2-passion"], ["blue-1-money", "purple-1-money"]],
             "pool": ["red-2-money", "blue-3-love", "purple-3-money", "red-1-love"]}  # fmt: skip
    return dict(api.ok("POST", "/games", ADMIN, json={"game": "motto", "events": [started, dealt]}))


def test_whose_event_it_is_is_checked_before_its_rules(api: Api) -> None:
    created = _table_game(api)
    path, seats = f"/games/{created['id']}/events", created["tokens"]["seats"]
    not_in_play = {"expected_seq": 2, "events": [{"type": "motto.took", "card": "purple-5-love"}]}
    assert "seat 0's" in _one_line(api.call("POST", path, seats[1], json=not_in_play), 403)
    a_refill = {"expected_seq": 2, "events": [{"type": "motto.refilled", "card": "red-2-love"}]}
    assert "chance's" in _one_line(api.call("POST", path, seats[0], json=a_refill), 403)
    assert "event 1" in _one_line(api.call("POST", path, seats[0], json=not_in_play), 422)  # its own: the rules say
    assert api.ok("GET", f"/games/{created['id']}")["seq"] == 2


def test_a_seat_writes_its_own_events_in_a_table_game(api: Api) -> None:
    created = _table_game(api)
    body = {"expected_seq": 2, "events": [{"type": "motto.took", "card": "red-2-money"}]}
    written = api.ok("POST", f"/games/{created['id']}/events", created["tokens"]["seats"][0], json=body)
    assert written["seq"] == 3 and written["to_move"] == "chance"


def _played_three_turns(api: Api) -> dict[str, Any]:
    created = api.create("motto", ["Ann", "Ben"], seed=21)
    table = created["tokens"]["table"]
    for _ in range(3):
        now = api.ok("GET", f"/games/{created['id']}/state", table)
        body = {"expected_seq": now["seq"], "action": now["legal"][0]}
        api.ok("POST", f"/games/{created['id']}/actions", table, json=body)
    return created


def test_a_branch_needs_the_table_or_admin_token_and_a_seat_gets_its_what_if(api: Api) -> None:
    created = _played_three_turns(api)
    path, body = f"/games/{created['id']}/branches", {"turn": 2}
    whatif = api.ok("POST", path, created["tokens"]["seats"][1], json=body)  # dealt from seat 1's view, no game
    assert whatif["sampled"] and whatif["seat"] == 1 and "tokens" not in whatif
    assert "table token" in _one_line(api.call("POST", path, json=body), 401)
    assert _one_line(api.call("POST", path, "not-a-token", json=body), 403)
    for token in (created["tokens"]["table"], ADMIN):
        branched = api.ok("POST", path, token, json=body)
        assert branched["parent"] == created["id"] and len(branched["tokens"]["seats"]) == 2


def test_a_branch_needs_a_token_on_a_loopback_server_without_an_admin_token(tmp_path: Path) -> None:
    with running(Settings(str(tmp_path / "open.duckdb"), port=free_port())) as base:
        local = Api(base)
        created = local.ok("POST", "/games", json={"game": "motto", "players": ["Ann", "Ben"], "seed": 1})
        now = local.ok("GET", f"/games/{created['id']}/state", created["tokens"]["table"])
        body = {"expected_seq": now["seq"], "action": now["legal"][0]}
        local.ok("POST", f"/games/{created['id']}/actions", created["tokens"]["table"], json=body)
        path = f"/games/{created['id']}/branches"
        assert _one_line(local.call("POST", path, json={"turn": 1}), 401)
        assert "tokens" not in local.ok("POST", path, created["tokens"]["seats"][0], json={"turn": 1})  # a what-if
        assert local.ok("POST", path, created["tokens"]["table"], json={"turn": 1})["parent"] == created["id"]
        local.close()


def test_a_branchs_seat_reads_its_view_of_the_branch(api: Api) -> None:
    created = _played_three_turns(api)
    branched = api.ok("POST", f"/games/{created['id']}/branches", created["tokens"]["table"], json={"turn": 2})
    branch_id, seat_1 = branched["id"], branched["tokens"]["seats"][1]
    mine = api.ok("GET", f"/games/{branch_id}/state", seat_1)
    whole = api.ok("GET", f"/games/{branch_id}/state?as=all", branched["tokens"]["table"])
    assert mine["as"] == 1 and whole["state"]["deck"] and mine["state"].get("deck") != whole["state"]["deck"]
    assert api.ok("GET", f"/games/{branch_id}/state?as=public")["as"] == "public"
    assert api.ok("GET", f"/games/{branch_id}/events", seat_1)["as"] == 1
    assert _one_line(api.call("GET", f"/games/{branch_id}/state?as=0", seat_1), 403)
    streamed = read_stream(api, f"/games/{branch_id}/stream?after=0&token={seat_1}", None, branched["seq"])
    assert f'"seq":{branched["seq"]},' in streamed


def test_a_token_in_the_address_is_refused_by_the_json_routes(api: Api, game: dict[str, Any]) -> None:
    seat_0 = game["tokens"]["seats"][0]
    for path in (f"/games/{game['id']}/state?token={seat_0}", f"/games?token={seat_0}", f"/games/{game['id']}?token=x"):
        message = _one_line(api.call("GET", path), 400)
        assert "Authorization: Bearer" in message and seat_0 not in message
    body = {"game": "motto", "players": ["A", "B"]}
    assert _one_line(api.call("POST", f"/games?token={ADMIN}", json=body), 400)
    last = api.ok("GET", f"/games/{game['id']}")["seq"]
    assert f'"seq":{last},' in read_stream(api, f"/games/{game['id']}/stream?after=0&token={seat_0}", None, last)


class _Collected(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


def test_the_access_log_hides_tokens_in_addresses(tmp_path: Path) -> None:
    collected, access = _Collected(), logging.getLogger("uvicorn.access")
    settings = Settings(str(tmp_path / "logged.duckdb"), port=free_port(), admin_token=ADMIN)
    with running(settings, log_level="info") as base:
        access.addHandler(collected)
        try:
            logged = Api(base)
            created = logged.create("motto", ["Ann", "Ben"])
            seat = created["tokens"]["seats"][0]
            logged.call("GET", f"/games/{created['id']}/replay?as=0&token={seat}")
            read_stream(logged, f"/games/{created['id']}/stream?%74oken={seat}&after=0", None, created["seq"])
            logged.call("GET", f"/games/{created['id']}/state?token={seat}")
            logged.close()
        finally:
            access.removeHandler(collected)
    text = "\n".join(collected.lines)
    assert text.count("oken=[hidden]") == 3 and seat not in text and "/replay?as=0&token=" in text
