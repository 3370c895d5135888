"""The recorder's choices come from the rules: a whole game of each game recorded by taps alone, through a real
server, from one phone (the table's) or two (the table's and a seat's), with an undo."""

from __future__ import annotations

import dataclasses
import html
import json
import re
from pathlib import Path
from typing import Any

import pytest

from loom.engine.play import record
from loom.engine.registry import get_game
from loom.events.parsing import parse_event
from loom.replay.logfile import export_lines, import_file
from loom.replay.store import Store
from loom.service.recorder.taps import choices, left_after
from tests.service.client import ADMIN, Api, read_stream

GAMES = ["motto", "moirai", "moorea", "stones-of-fate"]
SCORING = ("play", "buy", "lay", "keep", "flip", "stop")
"""Moves a tapping test prefers, so that its games end soon."""
OPTION = re.compile(r'<button class="option" data-choice="([^"]*)">([^<]*)</button>')


def preferred(labels: list[str], taps: int) -> int:
    """The option a test taps: a scoring move if there is one, else one in turn (so the cards vary)."""
    scoring = [i for i, label in enumerate(labels) if label.split(" ", 1)[0] in SCORING]
    pool = scoring or list(range(len(labels)))
    return pool[taps % len(pool)]


@pytest.mark.parametrize("game", GAMES)
def test_tapping_the_options_the_rules_give_records_a_whole_game(game: str) -> None:
    rules = get_game(game)
    _, first = parse_event({"type": f"{game}.started", "players": ["Ann", "Ben"]}, game)
    state, _ = record(rules, rules.blank(), first)
    taps = 0
    while rules.to_move(state) is not None:
        choice: dict[str, Any] = {}
        while (found := choices(rules, state, ["Ann", "Ben"], choice, table=True)).lines is None:
            assert found.options, "a position with nothing to tap"
            choice = found.options[preferred([o.label for o in found.options], taps)].choice
            taps += 1
            assert taps < 5000
        for line in found.lines:
            state, _ = record(rules, state, parse_event(line, game)[1])
    assert rules.winners(state) is not None


def test_a_tap_names_each_card_the_table_may_still_draw() -> None:
    rules = get_game("motto")
    _, first = parse_event({"type": "motto.started", "players": ["Ann", "Ben"]}, "motto")
    state, _ = record(rules, rules.blank(), first)
    deal = choices(rules, state, ["Ann", "Ben"], {}, table=True)
    assert deal.asking == "motto.dealt" and len(deal.options) == len(set(state.deck))  # every card, once each
    assert all(re.fullmatch(r"[a-z]+-[0-9]-[a-z]+", option.label) for option in deal.options)


def _motto_after_the_deal() -> Any:
    rules = get_game("motto")
    _, first = parse_event({"type": "motto.started", "players": ["Ann", "Ben"]}, "motto")
    state, _ = record(rules, rules.blank(), first)
    choice: dict[str, Any] = {}
    while (found := choices(rules, state, ["Ann", "Ben"], choice, table=True)).lines is None:
        choice = found.options[0].choice
    for line in found.lines:
        state, _ = record(rules, state, parse_event(line, "motto")[1])
    return state


def _swapped(state: Any) -> Any:
    """The same table for seat 0, but Ben's first hidden card is another the deck held (and the deck has his)."""
    ben = list(state.hands[1])
    other = next(c for c in state.deck if c not in ben)
    deck = list(state.deck)
    deck.remove(other)
    ben[0], deck = other, sorted([*deck, ben[0]])
    return dataclasses.replace(state, hands=(state.hands[0], tuple(sorted(ben))), deck=tuple(deck))


def _offered(state: Any, viewer: int | str) -> list[list[str]]:
    rules = get_game("motto")
    draw = next(i for i, a in enumerate(rules.legal_actions(rules.view(state, 0))) if type(a).__name__ == "Draw")
    found = choices(rules, state, ["Ann", "Ben"], {"action": draw}, table=True, viewer=viewer)
    return [[o.label for o in found.options]]


def test_the_cards_a_draw_offers_do_not_tell_a_hidden_hand_by_elimination() -> None:
    rules = get_game("motto")
    state = _motto_after_the_deal()
    other = _swapped(state)
    assert rules.view(state, 0) == rules.view(other, 0) and state.hands[1] != other.hands[1]
    assert _offered(state, 0) == _offered(other, 0)  # seat 0's page: the same list whatever Ben holds
    assert _offered(state, "all") != _offered(other, "all")  # the owner's page sees the true deck


def test_a_tapped_card_that_is_in_a_hidden_hand_is_refused_without_naming_it() -> None:
    rules = get_game("motto")
    state = _motto_after_the_deal()
    draw = next(i for i, a in enumerate(rules.legal_actions(rules.view(state, 0))) if type(a).__name__ == "Draw")
    held = state.hands[1][0]
    assert held not in state.deck
    choice = {"action": draw, "picks": [[0, held]]}
    found = choices(rules, state, ["Ann", "Ben"], choice, table=True, viewer=0)
    assert found.lines is not None and found.elsewhere
    fair = {"action": draw, "picks": [[0, state.deck[0]]]}
    assert not choices(rules, state, ["Ann", "Ben"], fair, table=True, viewer=0).elsewhere


def test_what_a_draw_takes_must_still_be_there() -> None:
    assert left_after([1, 1, 2], [1]) == [1, 2]
    with pytest.raises(Exception, match="no longer open"):
        left_after([1, 2], [3])


# --- Through a real server --------------------------------------------------------------------------------------------


def _page(api: Api, url: str) -> tuple[str, dict[str, Any]]:
    response = api.http.get(url, follow_redirects=True)
    assert response.status_code == 200, response.text
    data = re.search(r'<script type="application/json" id="page-data">(.*?)</script>', response.text)
    assert data is not None
    return response.text, {**json.loads(data[1]), "url": str(response.url)}


def _tap(api: Api, page: dict[str, Any], choice: dict[str, Any], token: str) -> str:
    body = {"seq": page["seq"], "choice": choice, "phones": page.get("phones", [])}
    return str(api.ok("POST", f"/record/{page['game']}/tap", token, json=body)["url"])


def _token(url: str) -> str:
    found = re.search(r"token=([^&]+)", url)
    assert found is not None
    return found[1]


def test_one_phone_records_a_whole_game_by_taps_and_its_export_imports_with_the_same_scores(
    api: Api, tmp_path: Path
) -> None:
    started = api.ok("POST", "/record/games", ADMIN, json={"game": "motto", "players": ["Ann", "Ben"]})
    url, taps = started["url"], 0
    while True:
        text, page = _page(api, url)
        options = [(json.loads(html.unescape(c)), html.unescape(label)) for c, label in OPTION.findall(text)]
        if not options:
            break
        choice = options[preferred([label for _, label in options], taps)][0]
        url = _tap(api, page, choice, _token(page["url"]))
        taps += 1
        assert taps < 3000
    assert 'id="replay"' in text, re.sub(r"<script.*", "", text.replace("\n", " "))[:3000]
    summary = api.ok("GET", f"/games/{page['game']}")
    assert summary["status"] == "finished"
    assert _reimported_scores(api, page["game"], tmp_path) == summary["scores"]


def _reimported_scores(api: Api, game_id: int, tmp_path: Path) -> list[int]:
    """The game's log as `logs export` writes it (read over the tokens route as the table), imported into a fresh
    store: its scores."""
    lines = api.ok("GET", f"/games/{game_id}/events?limit=5000", _table_token(api, game_id))["events"]
    header = json.dumps({"format": "loom-log", "version": 1, "game": api.ok("GET", f"/games/{game_id}")["game"]})
    with Store.open(tmp_path / "fresh.duckdb") as store:
        imported = import_file(store, [header + "\n", *(json.dumps(_log_line(e)) + "\n" for e in lines)], workers=1)[0]
        assert len(list(export_lines(store, imported))) == len(lines) + 1
        return [r.score for r in store.results(imported)]


def _log_line(event: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in event.items() if k not in ("seq", "turn", "actor", "v")}


def _table_token(api: Api, game_id: int) -> str:
    return str(api.ok("GET", f"/games/{game_id}/tokens", ADMIN)["tokens"]["table"])


def _tapped(api: Api, url: str, times: int) -> dict[str, Any]:
    """Tap the preferred option `times` times from the page at `url`; the last page's data."""
    for taps in range(times):
        text, page = _page(api, url)
        options = [(json.loads(html.unescape(c)), html.unescape(label)) for c, label in OPTION.findall(text)]
        url = _tap(api, page, options[preferred([label for _, label in options], taps)][0], _token(page["url"]))
    return _page(api, url)[1]


def _dealt_motto(api: Api) -> tuple[dict[str, Any], dict[str, Any]]:
    started = api.ok("POST", "/record/games", ADMIN, json={"game": "motto", "players": ["Ann", "Ben"]})
    page = _tapped(api, started["url"], 8)  # two cards to each hand, four to the pool
    tokens = api.ok("GET", f"/games/{page['game']}/tokens", ADMIN)["tokens"]
    return page, tokens


def test_a_seat_page_may_not_record_chance_nor_undo(api: Api) -> None:
    page, tokens = _dealt_motto(api)
    ben = tokens["seats"][1]
    answer = api.call("POST", f"/record/{page['game']}/tap", ben, json={"seq": page["seq"], "choice": {"action": 0}})
    assert answer.status_code == 403 and "another phone" in answer.json()["error"]  # Ann is to move
    answer = api.call("POST", f"/record/{page['game']}/undo", ben, json={"seq": page["seq"]})
    assert answer.status_code == 403


def test_the_spectators_page_shows_no_card_of_a_hand(api: Api) -> None:
    page, tokens = _dealt_motto(api)
    dealt = api.ok("GET", f"/games/{page['game']}/events?after=1&limit=1", tokens["table"])["events"][0]
    hands = {card for hand in dealt["hands"] for card in hand} - set(dealt["pool"])
    watched = api.http.get(f"/record/{page['game']}/watch")
    assert watched.status_code == 200 and hands
    assert not any(card in watched.text for card in hands)


def test_undo_branches_before_the_last_event_and_the_old_page_follows(api: Api) -> None:
    page, tokens = _dealt_motto(api)
    page = _tapped(api, page["url"], 2)
    game_id, seq = page["game"], page["seq"]
    undone = api.ok("POST", f"/record/{game_id}/undo", tokens["table"], json={"seq": seq})
    branch = api.ok("GET", f"/record/{game_id}/now")
    assert branch["id"] != game_id and branch["seq"] == seq - 1 and f"/record/{branch['id']}?" in undone["url"]
    assert api.ok("GET", f"/games/{branch['id']}")["parent"] == game_id
    followed = api.http.get(f"/record/{game_id}?token={tokens['seats'][1]}", follow_redirects=True)
    assert f"/record/{branch['id']}?token=" in str(followed.url)
    assert _data_of(followed.text)["seq"] == seq - 1


def _data_of(text: str) -> dict[str, Any]:
    found = re.search(r'<script type="application/json" id="page-data">(.*?)</script>', text)
    assert found is not None
    return dict(json.loads(found[1]))


def _table_of(text: str) -> str:
    found = re.search(r'<pre class="table".*?</pre>', text, re.S)
    assert found is not None
    return found[0]


def test_the_tables_page_shows_the_public_view_once_a_seat_records_on_its_own_phone(api: Api) -> None:
    page, tokens = _dealt_motto(api)
    alone = api.ok("GET", f"/record/{page['game']}/part?token={tokens['table']}")
    shared = api.ok("GET", f"/record/{page['game']}/part?token={tokens['table']}&phones=1")
    public = api.ok("GET", f"/record/{page['game']}/watch/part")
    assert _table_of(shared["html"]) == _table_of(public["html"])  # what everyone at the table sees
    assert _table_of(alone["html"]) != _table_of(public["html"])  # one phone alone: its owner sees every hand
    assert shared["data"]["stream"].startswith(f"/games/{page['game']}/stream?as=public")


def test_a_tap_answers_with_the_next_page_to_show_in_place(api: Api) -> None:
    page, tokens = _dealt_motto(api)
    body = {"seq": page["seq"], "choice": {"action": 0}, "phones": []}
    answer = api.ok("POST", f"/record/{page['game']}/tap", tokens["table"], json=body)
    assert answer["data"]["game"] == page["game"] and answer["data"]["seq"] >= page["seq"]
    assert 'id="status"' in answer["html"] and "<script" not in answer["html"]


# --- A deal recorded in parts: each seat's hand on its own phone ------------------------------------------------------


def _options(answer: dict[str, Any]) -> list[dict[str, Any]]:
    return [json.loads(html.unescape(c)) for c, _ in OPTION.findall(answer["html"])]


def _shown(answer: dict[str, Any]) -> str:
    """A page's answer but its options: what it shows of the table (the options list every card not yet seen by
    the page, a hand's cards among them, whatever they are: they tell nothing)."""
    shown = re.sub(r'<div class="options" id="options">.*?</div>', "", answer["html"], flags=re.S)
    return shown + json.dumps(answer["data"])


def _tap_part(api: Api, game_id: int, token: str, phones: list[int], last: bool) -> list[str]:
    """Tap this page's part of the deal (the first or, `last`, the last card offered each time) until it offers
    nothing or the deal is written; what each answer shows (`_shown`)."""
    query = f"token={token}" + (f"&phones={','.join(map(str, phones))}" if phones else "")
    answer = api.ok("GET", f"/record/{game_id}/part?{query}")
    texts = [_shown(answer)]
    seq = answer["data"]["seq"]
    while answer["data"]["seq"] == seq and (options := _options(answer)):
        body = {"seq": answer["data"]["seq"], "choice": options[-1 if last else 0], "phones": phones}
        answer = api.ok("POST", f"/record/{game_id}/tap", token, json=body)
        texts.append(_shown(answer))
        assert len(texts) < 60
    return texts


def _events(api: Api, game_id: int, table: str) -> list[dict[str, Any]]:
    return list(api.ok("GET", f"/games/{game_id}/events?limit=100", table)["events"])


def _seat_rows(event: dict[str, Any], seats: int) -> dict[str, list[Any]]:
    """The fields of a deal event that hold one row per seat (its hands)."""
    return {
        k: v
        for k, v in event.items()
        if isinstance(v, list) and len(v) == seats and all(isinstance(r, list) for r in v)
    }


def _cards(event: dict[str, Any]) -> list[Any]:
    """Every card an event names (its fields, not its envelope)."""
    return [leaf for k, v in event.items() if k not in ENVELOPE for _, leaf in _leaves(v)]


def _leaves(data: Any, path: str = "") -> list[tuple[str, Any]]:
    if isinstance(data, list):
        return [leaf for i, value in enumerate(data) for leaf in _leaves(value, f"{path}/{i}")]
    return [] if data is None else [(path, data)]


ENVELOPE = ("seq", "turn", "actor", "v", "type")


def _named(card: Any, text: str) -> bool:
    return re.search(rf"(?<![\w-]){re.escape(str(card))}(?![\w-])", text) is not None


@pytest.mark.parametrize("game", GAMES)
def test_a_seat_records_its_own_hand_of_the_deal_and_the_table_never_sees_it(api: Api, game: str) -> None:
    started = api.ok("POST", "/record/games", ADMIN, json={"game": game, "players": ["Ann", "Ben"]})
    game_id = started["id"]
    tokens = api.ok("GET", f"/games/{game_id}/tokens", ADMIN)["tokens"]
    table, ben = tokens["table"], tokens["seats"][1]
    before = api.ok("GET", f"/record/{game_id}/now")["seq"]
    bens = _tap_part(api, game_id, ben, [], last=True)
    assert api.ok("GET", f"/record/{game_id}/now")["seq"] == before  # Ben's part alone writes nothing
    tables = _tap_part(api, game_id, table, [1], last=False)
    events = _events(api, game_id, table)
    deals = [e for e in events if e["seq"] > before and e["actor"] is None]
    assert deals and deals[0]["seq"] == before + 1  # the deal, written with the table's rights once all parts are in
    deal = deals[0]
    rows = _seat_rows(deal, 2)
    assert bool(rows) == (len(bens) > 1)  # Ben taps a part only where the deal gives him a hand of his own
    bens_cards = [c for row in rows.values() for _, c in _leaves(row[1])]
    # the table's page tapped each card of the deal but Ben's (and no more)
    assert len(tables) - 1 <= len(_cards(deal)) - len(bens_cards)
    others = {str(c) for c in _cards(deal)} - {str(c) for c in bens_cards} | {
        str(c) for row in rows.values() for c in row[0]
    }
    own = {str(c) for c in bens_cards} - others  # Ben's cards that no other place of the deal names
    after = api.ok("GET", f"/record/{game_id}/part?token={table}&phones=1")
    stream = read_stream(api, f"/games/{game_id}/stream?as=public&after=0", table, events[-1]["seq"])
    for text in [*tables, _shown(after), stream]:
        assert not any(_named(card, text) for card in own)
    if game == "motto":
        assert own  # the check above has cards to look for


def test_the_tables_part_alone_writes_nothing_and_a_hand_naming_a_card_dealt_elsewhere_is_refused_naming_none(
    api: Api,
) -> None:
    started = api.ok("POST", "/record/games", ADMIN, json={"game": "motto", "players": ["Ann", "Ben"]})
    game_id = started["id"]
    tokens = api.ok("GET", f"/games/{game_id}/tokens", ADMIN)["tokens"]
    table, ben = tokens["table"], tokens["seats"][1]
    before = api.ok("GET", f"/record/{game_id}/now")["seq"]
    _tap_part(api, game_id, table, [1], last=False)  # Ann's two cards and the pool: the lowest cards, twice each
    assert api.ok("GET", f"/record/{game_id}/now")["seq"] == before
    answer = api.ok("GET", f"/record/{game_id}/part?token={ben}")
    low = _options(answer)[0]  # a card the table's part dealt twice already (Motto's deck holds two of each)
    first = api.ok("POST", f"/record/{game_id}/tap", ben, json={"seq": before, "choice": low, "phones": []})
    second = _options(first)[0]
    refused = api.call("POST", f"/record/{game_id}/tap", ben, json={"seq": before, "choice": second, "phones": []})
    assert refused.status_code == 422 and "do not fit together" in refused.json()["error"]
    assert not re.search(r"[a-z]+-[0-9]-[a-z]+", refused.text)  # no card named
    assert api.ok("GET", f"/record/{game_id}/now")["seq"] == before  # nothing written; Ben taps his part again
    assert _tap_part(api, game_id, ben, [], last=True)
    assert api.ok("GET", f"/record/{game_id}/now")["seq"] == before + 1


def test_the_public_view_is_headed_as_such_not_as_every_card_shown(api: Api) -> None:
    page, tokens = _dealt_motto(api)
    alone = api.ok("GET", f"/record/{page['game']}/part?token={tokens['table']}")
    public = api.ok("GET", f"/record/{page['game']}/watch/part")
    assert "the public view" in _table_of(public["html"]) and "all cards shown" not in _table_of(public["html"])
    assert "all cards shown" in _table_of(alone["html"])  # one phone alone: its owner does see every card
