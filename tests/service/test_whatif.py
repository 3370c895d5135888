"""A seat's what-if through the API: dealt from the seat's own view, kept as a recipe under its parent, read only by
that seat (or the table), with chances over sampled deals; the table's branch keeps the recorded deal."""

from __future__ import annotations

from typing import Any

import pytest

from tests.service.client import ADMIN, Api


def _played(api: Api, turns: int = 3, seed: int = 21) -> dict[str, Any]:
    created = api.create("motto", ["Ann", "Ben"], seed=seed)
    table = created["tokens"]["table"]
    for _ in range(turns):
        now = api.ok("GET", f"/games/{created['id']}/state", table)
        api.ok(
            "POST",
            f"/games/{created['id']}/actions",
            table,
            json={"expected_seq": now["seq"], "action": now["legal"][0]},
        )
    return created


def _visible_in(view: Any, full: Any) -> bool:
    """Whether `full` shows every card `view` shows: equal where the view names a value; a list may hold its
    hidden (null) cards anywhere (a sampled hand is sorted again)."""
    if isinstance(view, dict):
        return view.keys() == full.keys() and all(_visible_in(view[k], full[k]) for k in view)
    if isinstance(view, list):
        if len(view) != len(full) or None in full:
            return False
        if None not in view:
            return all(_visible_in(v, f) for v, f in zip(view, full))
        left = list(full)
        for card in (v for v in view if v is not None):
            if card not in left:
                return False
            left.remove(card)
        return True
    return view is None or view == full


def test_a_seat_makes_a_what_if_from_its_own_view_of_the_position(api: Api) -> None:
    created = _played(api)
    game, seat_1 = created["id"], created["tokens"]["seats"][1]
    mine = api.ok("GET", f"/games/{game}/state?turn=2", seat_1)
    assert mine["to_move"] == 1 and mine["legal"]
    made = api.ok(
        "POST", f"/games/{game}/branches", seat_1, json={"turn": 2, "actions": [mine["legal"][0]], "bot": "random"}
    )
    assert made["whatif"] == 1 and made["sampled"] and made["seat"] == 1 and made["fork_turn"] == 2
    assert "tokens" not in made and "id" not in made  # no game and no token of it: nothing to read the real deal by
    line = api.ok("GET", f"/games/{game}/whatifs/1", seat_1)
    assert _visible_in(mine["state"], line["start"]) and line["start"] != mine["state"]  # hidden cards dealt
    assert line["events"][0]["seq"] == mine["seq"] + 1 and line["events"][0]["actor"] == 1
    assert line["status"] == made["status"] == "finished" and line["winners"] == made["winners"]
    assert api.ok("GET", f"/games/{game}/whatifs/1", seat_1) == line  # played again from its seed, the same


def test_a_what_if_is_kept_as_a_recipe_under_its_parent_and_read_only_by_its_seat(api: Api) -> None:
    created = _played(api)
    game, tokens = created["id"], created["tokens"]
    before = api.ok("GET", f"/games/{game}", None)
    listed = len(api.ok("GET", "/games?limit=100", None))
    api.ok("POST", f"/games/{game}/branches", tokens["seats"][0], json={"turn": 3, "bot": "greedy"})
    assert api.ok("GET", f"/games/{game}", None) == before  # the parent's log is unchanged
    assert len(api.ok("GET", "/games?limit=100", None)) == listed  # no new game: nothing to export
    tree = api.ok("GET", f"/games/{game}/tree")
    assert tree["branches"] == [] and [(w["whatif"], w["seat"], w["fork_turn"]) for w in tree["whatifs"]] == [(1, 0, 3)]
    assert "actions" not in tree["whatifs"][0]
    assert api.call("GET", f"/games/{game}/whatifs/1", tokens["seats"][1]).status_code == 403
    assert api.call("GET", f"/games/{game}/whatifs/1").status_code == 401
    for token in (tokens["seats"][0], tokens["table"], ADMIN):
        assert api.ok("GET", f"/games/{game}/whatifs/1", token)["seat"] == 0
    assert api.call("GET", f"/games/{game}/whatifs/2", tokens["seats"][0]).status_code == 404


def test_a_seat_may_not_branch_a_game_it_does_not_sit_in(api: Api) -> None:
    mine, theirs = _played(api), _played(api, seed=22)
    refused = api.call("POST", f"/games/{theirs['id']}/branches", mine["tokens"]["seats"][0], json={"turn": 2})
    assert refused.status_code == 403 and "table token" in refused.json()["error"]
    assert api.ok("GET", f"/games/{theirs['id']}/tree")["whatifs"] == []


def test_a_seat_plays_only_its_own_moves_in_a_what_if(api: Api) -> None:
    created = _played(api)
    game, seat_0 = created["id"], created["tokens"]["seats"][0]
    theirs = api.ok("GET", f"/games/{game}/state?turn=2", created["tokens"]["table"])["legal"][0]
    refused = api.call("POST", f"/games/{game}/branches", seat_0, json={"turn": 2, "actions": [theirs]})
    assert refused.status_code == 422 and "plays only seat 0's moves" in refused.json()["error"]
    assert api.ok("GET", f"/games/{game}/tree")["whatifs"] == []


def test_a_seats_chances_are_over_sampled_deals(api: Api) -> None:
    created = _played(api)
    game, tokens = created["id"], created["tokens"]
    made = api.ok("POST", f"/games/{game}/branches", tokens["seats"][1], json={"turn": 2, "bot": "random"})
    real = api.ok("GET", f"/games/{game}/chances?turn=3&rollouts=8", tokens["seats"][1])
    assert real["sampled"] and real["as"] == 1 and real["rollouts"] == 8 and abs(sum(real["chance"]) - 1) < 1e-9
    line = api.ok("GET", f"/games/{game}/whatifs/{made['whatif']}/chances?turn=3&rollouts=8", tokens["seats"][1])
    assert line["sampled"] and line["whatif"] == made["whatif"] and abs(sum(line["chance"]) - 1) < 1e-9
    assert api.ok("GET", f"/games/{game}/chances?turn=3&rollouts=8", tokens["table"])["sampled"] is False


def test_the_table_still_branches_with_the_recorded_deal(api: Api) -> None:
    created = _played(api)
    game, table = created["id"], created["tokens"]["table"]
    branched = api.ok("POST", f"/games/{game}/branches", table, json={"turn": 2})
    assert branched["parent"] == game and len(branched["tokens"]["seats"]) == 2
    at_fork = api.ok("GET", f"/games/{game}/state?turn=2&as=all", table)["state"]
    assert api.ok("GET", f"/games/{branched['id']}/state?as=all", branched["tokens"]["table"])["state"] == at_fork
    assert api.ok("GET", f"/games/{game}/tree")["whatifs"] == []


# --- At the exact position, and from a chosen seed --------------------------------------------------------------------


def _moirai(api: Api) -> tuple[dict[str, Any], int]:
    """A Moirai game whose first player has drawn and must now keep a card: its position in the middle of turn 1."""
    created = api.create("moirai", ["Ann", "Ben", "Cy"], seed=5)
    table = created["tokens"]["table"]
    now = api.ok("GET", f"/games/{created['id']}/state", table)
    drawn = api.ok(
        "POST",
        f"/games/{created['id']}/actions",
        table,
        json={"expected_seq": now["seq"], "action": {"type": "draw"}},
    )
    assert drawn["turn"] == 1 and drawn["to_move"] == now["to_move"]  # the same seat, the same turn: it keeps next
    return created, drawn["seq"]


def test_a_what_if_forks_at_the_exact_event_in_the_middle_of_a_turn(api: Api) -> None:
    created, seq = _moirai(api)
    game, tokens = created["id"], created["tokens"]
    mover = api.ok("GET", f"/games/{game}/state", tokens["table"])["to_move"]
    mine = api.ok("GET", f"/games/{game}/state?seq={seq}", tokens["seats"][mover])
    assert mine["legal"] and all(action["type"] == "keep" for action in mine["legal"])  # that position's actions
    body = {"seq": seq, "actions": [mine["legal"][-1]], "bot": "random"}
    made = api.ok("POST", f"/games/{game}/branches", tokens["seats"][mover], json=body)
    assert (made["fork_seq"], made["fork_turn"]) == (seq, 1)
    line = api.ok("GET", f"/games/{game}/whatifs/{made['whatif']}", tokens["seats"][mover])
    assert _visible_in(mine["state"], line["start"])  # the seat's view at that event, its drawn cards included
    first = line["events"][0]
    assert (first["seq"], first["turn"], first["actor"], first["type"]) == (seq + 1, 1, mover, "moirai.kept")
    tree = api.ok("GET", f"/games/{game}/tree")
    assert [(w["fork_seq"], w["fork_turn"]) for w in tree["whatifs"]] == [(seq, 1)]


def test_a_what_if_of_no_moves_in_the_middle_of_a_turn_counts_that_turn_begun(api: Api) -> None:
    created, seq = _moirai(api)
    game, tokens = created["id"], created["tokens"]
    mover = api.ok("GET", f"/games/{game}/state", tokens["table"])["to_move"]
    made = api.ok("POST", f"/games/{game}/branches", tokens["seats"][mover], json={"seq": seq})
    assert (made["seq"], made["turns"], made["status"]) == (seq, 1, "open")


def test_a_seat_not_to_move_in_the_middle_of_a_turn_lets_the_bot_play_on_from_there(api: Api) -> None:
    created, seq = _moirai(api)
    game, tokens = created["id"], created["tokens"]
    mover = api.ok("GET", f"/games/{game}/state", tokens["table"])["to_move"]
    other = (mover + 1) % 3
    theirs = api.ok("GET", f"/games/{game}/state?seq={seq}", tokens["seats"][other])
    assert theirs["to_move"] == mover and theirs["legal"] is None  # the drawn cards are not its to list
    refused = api.call(
        "POST", f"/games/{game}/branches", tokens["seats"][other], json={"seq": seq, "actions": [{"type": "draw"}]}
    )
    assert refused.status_code == 422 and f"plays only seat {other}'s moves" in refused.json()["error"]
    made = api.ok("POST", f"/games/{game}/branches", tokens["seats"][other], json={"seq": seq, "bot": "random"})
    line = api.ok("GET", f"/games/{game}/whatifs/{made['whatif']}", tokens["seats"][other])
    assert line["events"][0]["seq"] == seq + 1 and line["events"][0]["actor"] == mover and line["status"] == "finished"


def test_a_chosen_seed_is_kept_in_the_recipe_and_deals_the_same_line_again(api: Api) -> None:
    created = _played(api)
    game, seat_1 = created["id"], created["tokens"]["seats"][1]
    first = api.ok("POST", f"/games/{game}/branches", seat_1, json={"turn": 2, "bot": "random", "seed": 2**63 - 1})
    again = api.ok("POST", f"/games/{game}/branches", seat_1, json={"turn": 2, "bot": "random", "seed": 2**63 - 1})
    other = api.ok("POST", f"/games/{game}/branches", seat_1, json={"turn": 2, "bot": "random", "seed": 0})
    assert first["seed"] == again["seed"] == 2**63 - 1 and other["seed"] == 0
    lines = [api.ok("GET", f"/games/{game}/whatifs/{n}", seat_1) for n in (1, 2, 3)]
    assert lines[0] | {"whatif": 0} == lines[1] | {"whatif": 0}  # the same recipe, the same line
    assert lines[0]["start"] != lines[2]["start"]  # another seed, another deal
    assert [w["seed"] for w in api.ok("GET", f"/games/{game}/tree")["whatifs"]] == [2**63 - 1, 2**63 - 1, 0]
    dealt_again = api.ok("GET", f"/games/{game}/whatifs/3?seed={2**63 - 1}", seat_1)
    assert dealt_again | {"whatif": 0} == lines[0] | {"whatif": 0}  # a recipe read from another seed: nothing kept
    assert len(api.ok("GET", f"/games/{game}/tree")["whatifs"]) == 3
    chances = api.ok("GET", f"/games/{game}/whatifs/3/chances?turn=3&rollouts=4&seed=7", seat_1)
    assert chances["seed"] == 7 and chances["sampled"]


@pytest.mark.parametrize("seed", [-1, 2**63, "7", True, 1.5, None])
def test_a_seed_that_is_no_integer_in_range_is_refused_in_one_line_and_nothing_kept(api: Api, seed: Any) -> None:
    created = _played(api)
    game, seat_0 = created["id"], created["tokens"]["seats"][0]
    body = {"turn": 3, "bot": "random", "seed": seed} if seed is not None else {"turn": 3, "seed": {"n": 1}}
    refused = api.call("POST", f"/games/{game}/branches", seat_0, json=body)
    error = refused.json()["error"]
    assert refused.status_code == 422 and error.startswith("body.seed: ") and "\n" not in error
    assert api.ok("GET", f"/games/{game}/tree")["whatifs"] == []
    bad_query = api.call("GET", f"/games/{game}/whatifs/1?seed={seed}", seat_0)
    assert bad_query.status_code in (404, 422)  # no what-if 1 yet, or a seed refused first


def test_a_what_if_read_from_a_seed_out_of_range_is_refused(api: Api) -> None:
    created = _played(api)
    game, seat_0 = created["id"], created["tokens"]["seats"][0]
    api.ok("POST", f"/games/{game}/branches", seat_0, json={"turn": 3, "bot": "random"})
    for seed in ("-1", str(2**63), "x"):
        refused = api.call("GET", f"/games/{game}/whatifs/1?seed={seed}", seat_0)
        assert refused.status_code == 422 and refused.json()["error"].startswith("query.seed: ")


@pytest.mark.parametrize("body", [{}, {"turn": 2, "seq": 5}, {"seq": 0}])
def test_a_fork_is_at_a_turn_or_just_after_an_event_one_of_them(api: Api, body: dict[str, Any]) -> None:
    created = _played(api)
    refused = api.call("POST", f"/games/{created['id']}/branches", created["tokens"]["seats"][0], json=body)
    assert refused.status_code == 422 and refused.json()["error"].startswith("body.seq: ")


def test_the_table_branches_at_an_exact_event_with_the_recorded_deal_and_takes_no_seed(api: Api) -> None:
    created = _played(api)
    game, table = created["id"], created["tokens"]["table"]
    refused = api.call("POST", f"/games/{game}/branches", table, json={"seq": 3, "seed": 4})
    error = refused.json()["error"]
    assert refused.status_code == 422 and error.startswith("body.seed: ") and "a seat's what-if" in error
    assert "\n" not in error
    assert api.ok("GET", f"/games/{game}/tree")["branches"] == []
    at = api.ok("GET", f"/games/{game}/state?seq=3&as=all", table)
    branched = api.ok("POST", f"/games/{game}/branches", table, json={"seq": 3})
    assert api.ok("GET", f"/games/{branched['id']}/state?as=all", branched["tokens"]["table"])["state"] == at["state"]
    (made,) = api.ok("GET", f"/games/{game}/tree")["branches"]
    assert (made["fork_seq"], made["fork_turn"]) == (3, at["turn"])
