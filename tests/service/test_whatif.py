"""A seat's what-if through the API: dealt from the seat's own view, kept as a recipe under its parent, read only by
that seat (or the table), with chances over sampled deals; the table's branch keeps the recorded deal."""

from __future__ import annotations

from typing import Any

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
