"""A seat's what-if names no card the seat could not see, by any door: its line is a function of the seat's view and
its seed alone, its start keeps every card the seat saw and deals the others anew (differently from the real ones
across seeds), and it adds nothing to what the parent shows: no game, no event (so nothing in the stream, an export,
a replay or an analysis), and in the tree only its public part."""

from __future__ import annotations

import json
from dataclasses import fields, is_dataclass
from random import Random
from typing import Any

from loom.engine.protocol import HIDDEN
from loom.events.base import Event
from loom.replay.branches import WhatIf, line_of, sampled_line, sampled_start
from loom.replay.replay import position
from loom.replay.store import Store
from loom.service.views import PUBLIC, whole
from tests.security.test_leaks import forks
from tests.security.walk import Findings, Recorded, api_of, check_error

SEEDS = 5
"""What-ifs compared per seat, each with its own seed."""
PUBLIC_PART = {"whatif", "seat", "fork_turn", "fork_seq", "bot", "seed", "sampled"}
"""What the tree shows of a what-if."""
DRAWS = {"motto.drew", "moirai.drew", "moorea.drew", "stones-of-fate.drew", "stones-of-fate.peeked"}
"""Events that put a card in one seat's hand, or before its eyes, and no other's."""


def _json(value: Any) -> Any:
    return json.loads(json.dumps(value))


def _fork(walk: Recorded) -> int:
    return forks(walk)[1]


def _doors(walk: Recorded, seat: int) -> dict[str, Any]:
    """What a seat reads of the parent by the JSON routes (the tree's what-ifs aside): the list, the summary (its
    last event: the stream tells only events appended after it), the tree, the position at the fork, the last
    events."""
    api, token = api_of(walk), walk.token(seat)
    summary = api.ok("GET", "/games/1", token)
    tree = api.ok("GET", "/games/1/tree")
    tree.pop("whatifs")
    return {
        "list": api.ok("GET", "/games?limit=1000", token),
        "summary": summary,
        "tree": tree,
        "state": api.ok("GET", f"/games/1/state?turn={_fork(walk)}", token),
        "events": api.ok("GET", f"/games/1/events?after={max(0, summary['seq'] - 3)}", token),
    }


def test_a_seats_what_if_is_played_from_its_view_alone(walk: Recorded) -> None:
    api, found, game = api_of(walk), Findings("what-ifs"), walk.game
    turn = _fork(walk)
    with Store.open(walk.db, read_only=True) as store:
        at = position(store, 1, turn=turn)
    for seat in range(walk.seats):
        token = walk.token(seat)
        before = _doors(walk, seat)
        made = api.ok("POST", "/games/1/branches", token, json={"turn": turn, "bot": "random"})
        served = api.ok("GET", f"/games/1/whatifs/{made['whatif']}", token)
        found.tried()
        # Another deal the seat cannot tell from the real one: the same line must come of it.
        other = game.determinize(game.view(at.state, seat), seat, Random(f"another/{seat}"))
        real_line = sampled_line(game, at.state, seat, made["seed"], at.seq, [], "random", begun=at.turn)
        other_line = sampled_line(game, other, seat, made["seed"], at.seq, [], "random", begun=at.turn)
        if real_line.steps != other_line.steps or real_line.end != other_line.end:
            found.leak(f"{walk.name} what-if of seat {seat}", "its line depends on more than the seat's view")
        told = [whole(Event(1, s, o.turn, o.actor, o.payload)) for s, o in enumerate(real_line.steps, at.seq + 1)]
        if served["events"] != _json(told) or served["start"] != _json(game.describe(real_line.start)):
            found.leak(f"{walk.name} what-if of seat {seat}", "the served line is not the one of the seat's view")
        if game.view(real_line.start, seat) != game.view(at.state, seat):
            found.wrong(f"{walk.name} what-if of seat {seat}", "its start does not keep what the seat saw")
        if _doors(walk, seat) != before:
            found.leak(f"{walk.name} what-if of seat {seat}", "the parent's doors changed")
        for reader in (*(s for s in range(walk.seats) if s != seat), PUBLIC):
            refused = api.call("GET", f"/games/1/whatifs/{made['whatif']}", walk.token(reader))
            if refused.status_code not in (401, 403):
                found.leak(f"{walk.name} what-if of seat {seat} read by {reader}", refused.status_code)
            check_error(found, walk, f"{walk.name} what-if of {seat} by {reader}", refused, {}, walk.hidden[reader])
    public = api.ok("GET", "/games/1/tree")["whatifs"]
    if any(set(w) != PUBLIC_PART for w in public):
        found.leak(f"{walk.name} tree", f"a what-if shows more than its public part: {public[:1]}")
    found.done()


def _at_hidden(state: Any, view: Any) -> list[Any]:
    """The values of `state`, in order, at the places where `view` shows HIDDEN (its seed aside)."""
    if is_dataclass(state) and not isinstance(state, type):
        return [
            v
            for f in fields(state)
            if f.name != "seed"
            for v in _at_hidden(getattr(state, f.name), getattr(view, f.name))
        ]
    if isinstance(state, tuple) and isinstance(view, tuple) and len(state) == len(view):
        return [v for s, w in zip(state, view) for v in _at_hidden(s, w)]
    return [state] if view == HIDDEN and state != HIDDEN else []


def test_the_sampled_cards_differ_from_the_real_ones_across_seeds(walk: Recorded) -> None:
    game = walk.game
    with Store.open(walk.db, read_only=True) as store:
        at = position(store, 1, turn=_fork(walk))
        recipe = WhatIf(1, 1, 0, at.turn, at.seq, 1, (), "random")
        assert line_of(store, recipe).start == sampled_start(game, at.state, 0, 1)
    for seat in range(walk.seats):
        view = game.view(at.state, seat)
        real = _at_hidden(at.state, view)
        assert real, f"{walk.name}: seat {seat} sees every card"
        starts = [sampled_start(game, at.state, seat, seed) for seed in range(SEEDS)]
        sampled = [_at_hidden(start, view) for start in starts]
        assert any(cards != real for cards in sampled), f"{walk.name}: seat {seat}'s samples keep the real cards"
        assert len({tuple(cards) for cards in sampled}) > 1, f"{walk.name}: seat {seat}'s samples are all alike"
        assert all(game.view(start, seat) == view for start in starts)


# --- In the middle of a turn ------------------------------------------------------------------------------------------


def _mid_turn(walk: Recorded) -> int:
    """A position in the middle of a turn just after a seat drew (or peeked at) a card only it saw, and has more to
    do; else, in a game without one, just after a seat's move that chance follows in the same turn."""
    events = walk.events
    middle = [
        k + 1
        for k in range(len(events) - 1)
        if events[k].actor is not None and events[k + 1].turn == events[k].turn and events[k].turn > 0
    ]
    drawn = [seq for seq in middle if events[seq - 1].payload.TYPE in DRAWS and events[seq].actor is not None]
    assert middle, f"{walk.name}: no turn of several events"
    return (drawn or middle)[0]


def test_a_seats_what_if_in_the_middle_of_anothers_turn_tells_nothing_of_its_draw(walk: Recorded) -> None:
    api, found, game = api_of(walk), Findings("mid-turn what-ifs"), walk.game
    seq = _mid_turn(walk)
    drawer, state, turn = walk.events[seq - 1].actor, walk.states[seq], walk.events[seq - 1].turn
    for seat in (s for s in range(walk.seats) if s != drawer):
        token, where = walk.token(seat), f"{walk.name} what-if of seat {seat} after event {seq}"
        made = api.ok("POST", "/games/1/branches", token, json={"seq": seq, "bot": "random", "seed": 11})
        found.tried()
        if (made["fork_seq"], made["fork_turn"], made["seed"]) != (seq, turn, 11):
            found.wrong(where, f"forked at {made['fork_seq']} (turn {made['fork_turn']}), seed {made['seed']}")
        served = api.ok("GET", f"/games/1/whatifs/{made['whatif']}", token)
        # Another hand of the drawer (and every other card the seat could not see): the same line must come of it.
        other = game.determinize(game.view(state, seat), seat, Random(f"another draw/{seat}"))
        real_line = sampled_line(game, state, seat, 11, seq, [], "random", begun=turn)
        other_line = sampled_line(game, other, seat, 11, seq, [], "random", begun=turn)
        if real_line.steps != other_line.steps or real_line.end != other_line.end:
            found.leak(where, "its line depends on the drawer's hidden card")
        told = [whole(Event(1, s, o.turn, o.actor, o.payload)) for s, o in enumerate(real_line.steps, seq + 1)]
        if served["events"] != _json(told) or served["start"] != _json(game.describe(real_line.start)):
            found.leak(where, "the served line is not the one of the seat's view")
        if game.view(real_line.start, seat) != game.view(state, seat):
            found.wrong(where, "its start does not keep what the seat saw")
        if api.ok("GET", f"/games/1/whatifs/{made['whatif']}?seed=11", token) != served:
            found.wrong(where, "its recorded seed does not deal it again the same")
        # The drawer's own next move, asked for by another seat: refused, naming none of the drawer's cards.
        if game.to_move(state) == drawer:
            theirs = game.action_json(game.legal_actions(game.view(state, drawer))[0])
            body = {"seq": seq, "actions": [theirs]}
            refused = api.call("POST", "/games/1/branches", token, json=body)
            if refused.status_code != 422:
                found.wrong(where + " with the drawer's move", f"{refused.status_code}, not 422")
            check_error(found, walk, where + " with the drawer's move", refused, body, walk.hidden[seat])
    # The drawer's what-if there plays its own next move, from the legal actions its view lists at that event.
    mine = api.ok("GET", f"/games/1/state?seq={seq}", walk.token(drawer))
    if mine["to_move"] == drawer:
        body = {"seq": seq, "actions": [mine["legal"][-1]], "bot": "random"}
        made = api.ok("POST", "/games/1/branches", walk.token(drawer), json=body)
        line = api.ok("GET", f"/games/1/whatifs/{made['whatif']}", walk.token(drawer))
        if line["events"][0]["seq"] != seq + 1 or line["events"][0]["actor"] != drawer:
            found.wrong(f"{walk.name} drawer's what-if after event {seq}", line["events"][0])
    public = api.ok("GET", "/games/1/tree")["whatifs"]
    if any(set(w) != PUBLIC_PART for w in public):
        found.leak(f"{walk.name} tree", f"a what-if shows more than its public part: {public[:1]}")
    found.done()
