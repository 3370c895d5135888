"""A client of a real Loom server for the service tests: requests with a token, and a seat playing at random."""

from __future__ import annotations

import json
import subprocess
import threading
import time
from dataclasses import dataclass
from random import Random
from typing import Any

import httpx

ADMIN = "admin-token-for-the-tests"
STARTUP = 60.0
"""Seconds a `logs serve` process may take to answer (a loaded machine starts Python slowly)."""


@dataclass
class Api:
    """One HTTP client of the server at `base`."""

    base: str

    def __post_init__(self) -> None:
        self.http = httpx.Client(base_url=self.base, timeout=30)

    def call(self, method: str, path: str, token: str | None = None, **kwargs: Any) -> httpx.Response:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        return self.http.request(method, path, headers=headers, **kwargs)

    def ok(self, method: str, path: str, token: str | None = None, **kwargs: Any) -> Any:
        response = self.call(method, path, token, **kwargs)
        assert response.status_code in (200, 201), response.text
        return response.json()

    def create(self, game: str, players: list[str], seed: int = 1) -> dict[str, Any]:
        return self.ok("POST", "/games", ADMIN, json={"game": game, "players": players, "seed": seed})

    def close(self) -> None:
        self.http.close()


SCORING = frozenset({"play", "buy", "buy_tool", "lay"})
"""Actions that score (Motto's plays, Moorea's purchases): a seat takes one when it can, so games end sooner."""


def play_to_the_end(api: Api, created: dict[str, Any], rng: Random, max_actions: int = 2000) -> int:
    """Each seat in turn reads its own view and plays one of the legal actions it shows (a scoring one if it can),
    with its own token; the number of actions played."""
    game_id, tokens = created["id"], created["tokens"]["seats"]
    now = api.ok("GET", f"/games/{game_id}/state", tokens[0])
    for played in range(max_actions):
        if now["status"] == "finished":
            return played
        mover = now["to_move"]
        legal = api.ok("GET", f"/games/{game_id}/state", tokens[mover])["legal"]
        scoring = [action for action in legal if action["type"] in SCORING] or legal
        body = {"expected_seq": now["seq"], "action": scoring[rng.randrange(len(scoring))]}
        now = api.ok("POST", f"/games/{game_id}/actions", tokens[mover], json=body)
    raise AssertionError(f"game {game_id} did not end within {max_actions} actions")


def sse_messages(text: str) -> list[tuple[str, dict[str, Any]]]:
    """(event kind, data) of each message of a server-sent event stream; comments are skipped."""
    messages = []
    for block in text.split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.splitlines() if line and not line.startswith(":"))
        if "event" in fields:
            messages.append((fields["event"], json.loads(fields["data"])))
    return messages


def read_stream(api: Api, path: str, token: str | None, last_seq: int) -> str:
    """The text of a live stream, read until it has sent event `last_seq` (or ended)."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    text, read = "", 0  # the text so far, and how much of it has been read as whole messages
    with api.http.stream("GET", path, headers=headers, timeout=30) as stream:
        assert stream.status_code == 200, stream.read()
        for chunk in stream.iter_text():
            text += chunk
            whole = text.rfind("\n\n") + 2
            if whole > read:
                told, read = sse_messages(text[read:whole]), whole
                if any(kind == "end" or data.get("seq") == last_seq for kind, data in told):
                    return text
    return text


def wait_until_serving(api: Api, server: subprocess.Popen[Any]) -> None:
    """Return once the `logs serve` process `server` answers `api`'s requests; fail if it dies or never does."""
    deadline = time.monotonic() + STARTUP
    while True:
        try:
            api.http.get("/games")
            return
        except httpx.TransportError:
            assert server.poll() is None and time.monotonic() < deadline, "the server did not start"
            time.sleep(0.1)


def follow(api: Api, path: str, token: str, last_seq: int, connected: threading.Event, told: list[str]) -> None:
    """Read a stream into `told` until it has sent event `last_seq`; set `connected` once it has said hello."""
    with api.http.stream("GET", path, headers={"Authorization": f"Bearer {token}"}, timeout=30) as stream:
        text = ""
        for chunk in stream.iter_text():
            connected.set()
            text += chunk
            if f'"seq":{last_seq},' in text:
                break
    told.append(text)
