"""The error walk: at positions spread over a recorded game of each game, opened on a real server as a game Loom
dealt, each seat and nobody write the events that could come next and play the mover's actions, a card changed. A
seat may not write events in a game Loom dealt (403, before any rule is checked; nobody: 401), and no refusal names,
counts or locates a card hidden from its writer (`walk.check_error`)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from random import Random
from typing import Any

from loom.engine.protocol import CHANCE_TO_MOVE
from loom.service.views import PUBLIC, Viewer, public_view, whole
from tests.security.common import card_names
from tests.security.walk import (
    NAMED_CARDS,
    Findings,
    Recorded,
    api_of,
    card_spots,
    check_error,
    hidden_cards,
    readers,
    universe,
    variants,
)
from tests.service.client import Api


@dataclass
class Live:
    """An open game on the server at a position of the recorded game: its id and tokens, and the position."""

    api: Api
    body: dict[str, Any]  # what created it: the recorded game's events up to the position
    seq: int
    state: Any
    id: int = 0
    tokens: dict[str, Any] = field(default_factory=dict)

    def reopen(self) -> None:
        """A new game at the same position (after a write went through and moved this one on)."""
        created = self.api.ok("POST", "/games", None, json=self.body)
        self.id, self.tokens = created["id"], created["tokens"]


def live_positions(walk: Recorded, wanted: Callable[[int], bool], stops: int = 6) -> Iterator[Live]:
    """Open games at `stops` positions spread over the recorded game (those after event k for which `wanted(k)`):
    each a game a table recorded, sent whole to the server (its first event holds the deck, so Loom dealt it)."""
    candidates = [k for k in range(2, len(walk.events)) if wanted(k)]
    assert candidates, f"{walk.name}: no position to walk"
    for k in sorted({candidates[len(candidates) * i // stops] for i in range(stops)}):
        body = {"game": walk.name, "events": [whole(event) for event in walk.events[:k]]}
        live = Live(api_of(walk), body, k, walk.states[k])
        live.reopen()
        yield live


def next_events(walk: Recorded, seq: int) -> list[dict[str, Any]]:
    """Events that could come after event `seq`, as log lines without their envelope: the two the game recorded,
    those of the first legal action of each kind, or chance's."""
    game, rng, state = walk.game, Random(0), walk.states[seq]
    mover = game.to_move(state)
    if mover is None:
        return []
    payloads = [event.payload for event in walk.events[seq : seq + 2]]
    payloads += [game.chance(state, rng)] if mover == CHANCE_TO_MOVE else []
    for action in one_of_each_kind(walk, state) if mover != CHANCE_TO_MOVE else []:
        payloads += game.resolve(state, action, rng)[:2]
    return [{"type": payload.TYPE, **json.loads(json.dumps(payload.to_json()))} for payload in payloads]


def one_of_each_kind(walk: Recorded, state: Any) -> list[Any]:
    """The first legal action of each type (take, draw, play...) in `state`."""
    kinds: dict[str, Any] = {}
    for action in walk.game.legal_actions(state):
        kinds.setdefault(walk.game.action_json(action)["type"], action)
    return list(kinds.values())


def live_hidden(walk: Recorded, state: Any, viewer: Viewer) -> set[Any]:
    """The card names at the table that `viewer` cannot see there (Moirai: the card numbers)."""
    seen = public_view(walk.game, state, 3) if viewer == PUBLIC else walk.game.view(state, int(viewer))
    if walk.name not in NAMED_CARDS:
        return hidden_cards(state, seen)
    return card_names(walk.game.describe(state)) - card_names(json.loads(json.dumps(walk.game.describe(seen))))


def live_token(live: Live, viewer: Viewer) -> str | None:
    """A reader's token of the live game."""
    return None if viewer == PUBLIC else live.tokens["seats"][int(viewer)]


def write_wrong_events(walk: Recorded, found: Findings, live: Live, rng: Random) -> None:
    """Each reader writes events that could come next, a card changed: refused (401 or 403), naming no hidden card.
    A write that goes through is a finding; the walk goes on in a new game at the same position."""
    api = api_of(walk)
    for line in next_events(walk, live.seq):
        for event in variants(line, universe(walk), rng):
            for viewer in readers(walk):
                body = {"expected_seq": live.seq, "events": [event]}
                response = api.call("POST", f"/games/{live.id}/events", live_token(live, viewer), json=body)
                where = f"{walk.name} at event {live.seq}: {event} as {viewer}"
                expected = 401 if viewer == PUBLIC else 403
                if response.status_code != expected:
                    found.wrong(where, f"{response.status_code}, not {expected}: {response.text[:200]}")
                if response.status_code < 400:
                    live.reopen()
                    continue
                check_error(found, walk, where, response, event, live_hidden(walk, live.state, viewer))


def test_a_seat_may_not_write_events_in_a_game_loom_dealt_and_learns_nothing_trying(walk: Recorded) -> None:
    found, rng = Findings("error walk"), Random(walk.name)

    def holds_a_card(k: int) -> bool:
        return bool(card_spots(json.loads(json.dumps(whole(walk.events[k]))), universe(walk)))

    for live in live_positions(walk, holds_a_card):
        write_wrong_events(walk, found, live, rng)
    assert found.count > 20, f"{walk.name}: only {found.count} wrong events tried"
    found.done()


def action_values(walk: Recorded) -> list[Any]:
    """The strings the game's actions hold besides cards (Stones of Fate's places, Moirai's piles): more to change."""
    values: set[str] = set()
    for state in walk.states[2::5]:
        if walk.game.to_move(state) in range(walk.seats):
            for action in walk.game.legal_actions(state):
                data = json.loads(json.dumps(walk.game.action_json(action)))
                values |= card_names({key: value for key, value in data.items() if key != "type"})
    return sorted(values - set(universe(walk)))


def play_wrong_actions(walk: Recorded, found: Findings, live: Live, rng: Random) -> None:
    """Each reader plays the mover's legal actions, a card changed: refused (401 or 403 but for the mover), naming
    no card hidden from the reader."""
    api, mover = api_of(walk), walk.game.to_move(live.state)
    if mover is None or mover == CHANCE_TO_MOVE:
        return
    legal = [json.loads(json.dumps(walk.game.action_json(a))) for a in walk.game.legal_actions(live.state)]
    for action in [json.loads(json.dumps(walk.game.action_json(a))) for a in one_of_each_kind(walk, live.state)]:
        for wrong in variants(action, universe(walk) + action_values(walk), rng):
            if wrong in legal:
                continue
            for viewer in readers(walk):
                body = {"expected_seq": live.seq, "action": wrong}
                response = api.call("POST", f"/games/{live.id}/actions", live_token(live, viewer), json=body)
                where = f"{walk.name} at event {live.seq}: action {wrong} as {viewer}"
                if response.status_code < 400:  # the mover's: a legal action after all (a payment in another order)
                    if viewer != mover:
                        found.wrong(where, f"played ({response.status_code}) by a seat not to move")
                    live.reopen()
                    continue
                if viewer != mover and response.status_code != (401 if viewer == PUBLIC else 403):
                    found.wrong(where, f"{response.status_code} for a seat not to move")
                check_error(found, walk, where, response, wrong, live_hidden(walk, live.state, viewer))


def test_a_refused_action_names_no_card_hidden_from_its_writer(walk: Recorded) -> None:
    found, rng = Findings("error walk"), Random(walk.name)
    for live in live_positions(walk, lambda k: walk.game.to_move(walk.states[k]) in range(walk.seats)):
        play_wrong_actions(walk, found, live, rng)
    assert found.count > 20, f"{walk.name}: only {found.count} wrong actions tried"
    found.done()
