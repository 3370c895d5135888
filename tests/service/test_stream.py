"""The live stream: a viewer follows a game as it is played, sees it as its token allows, and the stream ends when
the game does."""

from __future__ import annotations

import threading
from typing import Any

from tests.service.client import Api, follow, read_stream, sse_messages


def _play(api: Api, game: dict[str, Any], actions: int) -> int:
    """The table plays the first legal action `actions` times; the game's last event."""
    table = game["tokens"]["table"]
    for _ in range(actions):
        now = api.ok("GET", f"/games/{game['id']}/state", table)
        body = {"expected_seq": now["seq"], "action": now["legal"][0]}
        last = api.ok("POST", f"/games/{game['id']}/actions", table, json=body)["seq"]
    return last


def test_a_seat_follows_a_game_as_it_is_played(api: Api) -> None:
    game = api.create("motto", ["Ann", "Ben"], seed=8)
    seat_0, connected, told = game["tokens"]["seats"][0], threading.Event(), []
    path = f"/games/{game['id']}/stream"
    follower = threading.Thread(target=follow, args=(Api(api.base), path, seat_0, game["seq"] + 8, connected, told))
    follower.start()
    assert connected.wait(10)
    last = _play(api, game, 4)
    follower.join(30)
    events = [data for kind, data in sse_messages(told[0]) if kind == "event"]
    assert last >= game["seq"] + 8
    assert [event["seq"] for event in events] == list(range(game["seq"] + 1, game["seq"] + 9))
    assert all(set(event) == {"seq", "turn", "actor", "type", "state"} for event in events)
    fourth = events[3]
    assert fourth["state"] == api.ok("GET", f"/games/{game['id']}/state?seq={fourth['seq']}", seat_0)["state"]


def test_a_finished_game_streams_every_event_then_ends(api: Api) -> None:
    game = api.create("moirai", ["Ann", "Ben"], seed=3)
    _play(api, game, 1)
    to_the_end = {"turn": 1, "bot": "greedy"}
    finished = api.ok("POST", f"/games/{game['id']}/branches", game["tokens"]["table"], json=to_the_end)
    assert finished["status"] == "finished"
    table = finished["tokens"]["table"]
    messages = sse_messages(read_stream(api, f"/games/{finished['id']}/stream?after=0", table, -1))
    assert messages[-1] == ("end", {"id": finished["id"], "seq": finished["seq"], "status": "finished"})
    whole_log = api.ok("GET", f"/games/{finished['id']}/events", table)["events"]
    assert [data for kind, data in messages[:-1]] == whole_log


def test_a_stream_resumes_after_the_last_event_id(api: Api) -> None:
    game = api.create("motto", ["Ann", "Ben"], seed=9)
    last = _play(api, game, 3)
    headers = {"Authorization": f"Bearer {game['tokens']['table']}", "Last-Event-ID": "3"}
    with api.http.stream("GET", f"/games/{game['id']}/stream?after=0", headers=headers) as stream:
        text = ""
        for chunk in stream.iter_text():
            text += chunk
            if f'"seq":{last}' in text:
                break
    assert [data["seq"] for kind, data in sse_messages(text)] == list(range(4, last + 1))
