"""Twenty clients at once: first each on its own game, then all racing on one. No event is lost, duplicated or out
of order, and every append that lost a race is answered 409 with the game's sequence number."""

from __future__ import annotations

import threading
from collections.abc import Callable
from random import Random
from typing import Any

from tests.service.client import Api, sse_messages

CLIENTS = 20
ACTIONS_EACH = 6
RACE_ATTEMPTS = 6


def _together(count: int, work: Callable[[int], Any]) -> list[Any]:
    """Run `work(i)` for i in 0..count-1 on as many threads, released at the same moment; their results."""
    start, results, failures = threading.Barrier(count), [None] * count, []

    def run(index: int) -> None:
        start.wait()
        try:
            results[index] = work(index)
        except BaseException as error:  # reported below, with the thread's index
            failures.append((index, error))

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert not failures, failures
    return results


def _one_move(api: Api, game_id: int, table: str, rng: Random) -> tuple[int, Any]:
    """Read the game, then try one of the legal actions of the seat to move at the sequence number read."""
    now = api.ok("GET", f"/games/{game_id}/state", table)
    action = now["legal"][rng.randrange(len(now["legal"]))]
    response = api.call("POST", f"/games/{game_id}/actions", table, json={"expected_seq": now["seq"], "action": action})
    return now["seq"], response


def _check_log(api: Api, game_id: int, table: str, appended: list[tuple[int, int]]) -> None:
    """The game's events are numbered 1..last without a gap, and the appends (expected, new last) tile them."""
    log = api.ok("GET", f"/games/{game_id}/events?limit=5000", table)
    assert [event["seq"] for event in log["events"]] == list(range(1, log["seq"] + 1))
    chain = sorted(appended)
    assert all(new == following for (_, new), (following, _) in zip(chain, chain[1:]))
    assert chain[-1][1] == log["seq"]
    player_events = [event for event in log["events"] if event["actor"] is not None]
    assert len(player_events) >= len(appended)


def test_twenty_clients_on_twenty_games_lose_nothing(api: Api) -> None:
    games = [api.create("motto", ["Ann", "Ben", "Cy"], seed=index) for index in range(CLIENTS)]

    def play(index: int) -> list[tuple[int, int]]:
        client, game, rng = Api(api.base), games[index], Random(index)
        appended = []
        for _ in range(ACTIONS_EACH):
            expected, response = _one_move(client, game["id"], game["tokens"]["table"], rng)
            assert response.status_code == 200, response.text
            appended.append((expected, response.json()["seq"]))
        client.close()
        return appended

    for game, appended in zip(games, _together(CLIENTS, play)):
        assert appended[0][0] == game["seq"] and len(appended) == ACTIONS_EACH
        _check_log(api, game["id"], game["tokens"]["table"], appended)


def _follow(api: Api, game_id: int, after: int, last: list[int], seen: list[str]) -> None:
    """Read the game's live stream into `seen` until it has sent an event after the one numbered in `last` (once
    there is one).

    The stream may lag behind the appends (it tells each event as the public sees it, on a busy machine too): it
    is read to the last event, not merely until the race is over, which once stopped it a few events short."""
    with api.http.stream("GET", f"/games/{game_id}/stream?after={after}", timeout=30) as stream:
        for chunk in stream.iter_text():
            seen.append(chunk)
            text = "".join(seen)
            told = sse_messages(text[: text.rfind("\n\n") + 2])  # whole messages only
            if last and any(kind == "event" and data["seq"] > last[0] for kind, data in told):
                return


def test_twenty_clients_racing_on_one_game_get_a_409_for_every_lost_race(api: Api) -> None:
    game = api.create("motto", ["Ann", "Ben", "Cy", "Dee"], seed=99)
    game_id, table = game["id"], game["tokens"]["table"]
    stream_api, streamed, final = Api(api.base), [], []
    follower = threading.Thread(target=_follow, args=(stream_api, game_id, game["seq"], final, streamed))
    follower.start()

    def race(index: int) -> list[tuple[int, Any]]:
        client, rng = Api(api.base), Random(index)
        outcomes = [_one_move(client, game_id, table, rng) for _ in range(RACE_ATTEMPTS)]
        client.close()
        return [(expected, response.status_code, response.json()) for expected, response in outcomes]

    outcomes = [outcome for attempts in _together(CLIENTS, race) for outcome in attempts]
    won = [(expected, body["seq"]) for expected, status, body in outcomes if status == 200]
    lost = [(expected, body) for expected, status, body in outcomes if status != 200]
    assert {status for _, status, _ in outcomes} <= {200, 409}
    assert won and lost
    assert all(body["seq"] > expected and "error" in body for expected, body in lost)
    assert len({expected for expected, _ in won}) == len(won)  # one winner per sequence number
    _check_log(api, game_id, table, won)

    last = max(new for _, new in won)
    # One more append after the race; the follower reads until the stream has sent an event of it, and so (events
    # go out in order) every event of the race.
    final.append(last)
    now = api.ok("GET", f"/games/{game_id}/state", table)
    api.ok("POST", f"/games/{game_id}/actions", table, json={"expected_seq": now["seq"], "action": now["legal"][0]})
    follower.join(30)
    stream_api.close()
    assert not follower.is_alive()
    seqs = [data["seq"] for kind, data in sse_messages("".join(streamed)) if kind == "event"]
    assert seqs[: last - game["seq"]] == list(range(game["seq"] + 1, last + 1)) and len(seqs) > last - game["seq"]
