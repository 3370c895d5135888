"""The leak walk: a recorded game of each of the four games, read through every route of a real server and every view
of the command line, as each seat and as nobody. Structured answers must be that reader's view of the same position
(`describe(view(state, seat))`, or the public view); text and pages must name no card hidden from that reader at the
position they show (a page's table of each turn at that turn; what shows no position, at any); errors must name no
card hidden from their writer (test_error_leaks.py). Moirai's cards are numbers, so Moirai's views are checked through
structured answers and drawings, and its key moments by their placements.
"""

from __future__ import annotations

import html
import io
import json
import re
from pathlib import Path
from typing import Any

from rich.console import Console

from loom.dashboards.viewer import _table_html  # the page's own drawing of a table, to compare with
from loom.engine.presentation import presentation
from loom.replay.store import Store
from loom.service.views import OMNISCIENT, PUBLIC, Viewer, whole
from tests.dashboards.pages import page_tables
from tests.security.common import logs, one_line_error, one_line_refusal
from tests.security.conftest import TALLY
from tests.security.walk import (
    NAMED_CARDS,
    Findings,
    Recorded,
    api_of,
    as_values,
    check_error,
    compare_state,
    hidden_at,
    hidden_cards,
    in_text,
    readers,
    with_as,
)
from tests.service.client import read_stream, sse_messages

FORKS = 4
"""Positions of each game at which branches are opened."""


# --- The JSON routes --------------------------------------------------------------------------------------------------


def test_every_turn_read_by_a_seat_or_by_nobody_is_their_view_of_it(walk: Recorded) -> None:
    api, found = api_of(walk), Findings("API reads")
    for turn in [*walk.turns, None]:
        path = "/games/1/state" if turn is None else f"/games/1/state?turn={turn}"
        for viewer in readers(walk):
            for asked in as_values(viewer):
                where = f"{walk.name} GET {with_as(path, asked, '&' if turn else '?')} as {viewer}"
                response = api.call("GET", with_as(path, asked, "&" if turn else "?"), walk.token(viewer))
                if response.status_code != 200:
                    found.wrong(where, f"{response.status_code} {response.text}")
                    continue
                compare_state(found, walk, where, response.json(), PUBLIC if asked == PUBLIC else viewer)
    found.done()


def test_a_view_a_reader_may_not_have_is_refused_in_one_line_naming_no_card(walk: Recorded) -> None:
    api, found = api_of(walk), Findings("API refusals")
    for viewer in readers(walk):
        others = [str(s) for s in range(walk.seats) if s != viewer] + [OMNISCIENT]
        for asked in others:
            for path in (f"/games/1/state?as={asked}", f"/games/1/events?as={asked}", f"/games/1/replay?as={asked}"):
                response = api.call("GET", path, walk.token(viewer))
                found.tried()
                expected = 401 if viewer == PUBLIC else 403
                if response.status_code != expected or not one_line_error(response.json().get("error", "")):
                    found.wrong(f"{walk.name} GET {path} as {viewer}", f"{response.status_code} {response.text[:200]}")
                if walk.name in NAMED_CARDS:
                    hidden = in_text(walk, walk.hidden[viewer])
                    found.check_text(f"{walk.name} GET {path} as {viewer}", response.text, hidden)
    found.done(searched=walk.name in NAMED_CARDS)


def check_told_events(found: Findings, walk: Recorded, where: str, told: list[dict[str, Any]], viewer: Viewer) -> None:
    """Events told to a reader: each the envelope of the recorded event and the reader's view after it."""
    if [event["seq"] for event in told] != [event.seq for event in walk.events]:
        found.wrong(where, f"told {len(told)} events of {len(walk.events)}")
    for event in told:
        found.tried()
        TALLY["views compared"] += 1
        extra = set(event) - {"seq", "turn", "actor", "type", "state"}
        if extra:
            found.leak(where, f"event {event['seq']} has fields {sorted(extra)}")
        elif event.get("state") != walk.told(event["seq"], viewer):
            found.leak(where, f"the state after event {event['seq']} is not {viewer!r}'s view")


def test_the_events_told_to_a_reader_carry_only_their_view(walk: Recorded) -> None:
    api, found = api_of(walk), Findings("API reads")
    for viewer in readers(walk):
        for asked in as_values(viewer):
            path = with_as("/games/1/events", asked)
            response = api.call("GET", path, walk.token(viewer))
            where = f"{walk.name} GET {path} as {viewer}"
            if response.status_code != 200:
                found.wrong(where, f"{response.status_code} {response.text[:200]}")
                continue
            check_told_events(found, walk, where, response.json()["events"], PUBLIC if asked == PUBLIC else viewer)
    table = api.call("GET", "/games/1/events", walk.tokens["table"]).json()["events"]
    assert table == [json.loads(json.dumps(whole(event))) for event in walk.events]
    found.done()


def test_the_live_stream_tells_a_reader_only_their_view(walk: Recorded) -> None:
    api, found = api_of(walk), Findings("API reads")
    for viewer in readers(walk):
        text = read_stream(api, "/games/1/stream?after=0", walk.token(viewer), last_seq=-1)  # to its end
        told = [data for kind, data in sse_messages(text) if kind == "event"]
        check_told_events(found, walk, f"{walk.name} stream as {viewer}", told, viewer)
    found.done()


def test_the_games_list_summary_and_tree_name_no_hidden_card(walk: Recorded) -> None:
    api, found = api_of(walk), Findings("API reads")
    for viewer in readers(walk):
        for path in ("/games", f"/games?game={walk.name}", "/games/1", "/games/1/tree"):
            response = api.call("GET", path, walk.token(viewer))
            assert response.status_code == 200, response.text
            found.check_text(f"{walk.name} GET {path} as {viewer}", response.text, in_text(walk, walk.hidden[viewer]))
            if walk.name not in NAMED_CARDS:
                found.tried()
    found.done(searched=walk.name in NAMED_CARDS)


# --- Pages ------------------------------------------------------------------------------------------------------------


def test_a_seats_served_replay_names_no_card_hidden_from_it(walk: Recorded) -> None:
    api, found = api_of(walk), Findings("pages")
    for seat in range(walk.seats):
        paths = [f"/games/1/replay?token={walk.tokens['seats'][seat]}"]
        paths += ["/games/1/replay?as=0"] if seat == 0 else []  # the header's token, once
        for path in paths:
            response = api.call("GET", path, None if "token" in path else walk.token(seat))
            assert response.status_code == 200, response.text
            check_page(found, walk, f"{walk.name} served replay as {seat}", response.text, seat)
            if walk.name == "moirai":
                check_key_moments(found, walk, f"{walk.name} served replay as {seat}", response.text, seat)
    assert walk.name in NAMED_CARDS or found.face_down_moves, "no key moment placed a card face down"
    response = api.call("GET", "/games/1/replay")
    found.tried()
    if response.status_code != 401:
        found.wrong(f"{walk.name} replay without a token", response.status_code)
    found.done(searched=walk.name in NAMED_CARDS)


def test_the_served_dashboard_names_no_hidden_card(walk: Recorded) -> None:
    api, found = api_of(walk), Findings("pages")
    for path in ("/dashboard", f"/dashboard?game={walk.name}"):
        response = api.call("GET", path)
        assert response.status_code == 200, response.text
        if walk.name in NAMED_CARDS:
            found.check_text(f"{walk.name} GET {path}", response.text, in_text(walk, walk.ended[PUBLIC]))
    found.done()


def test_pages_forbid_scripts_from_elsewhere_and_sniffing(walk: Recorded) -> None:
    api = api_of(walk)
    for path in ("/dashboard", f"/games/1/replay?token={walk.tokens['seats'][0]}"):
        headers = api.call("GET", path).headers
        assert "content-security-policy" in headers, path
        assert headers.get("x-content-type-options") == "nosniff", path


MOVE = re.compile(r'<button type="button" class="move"[^>]* data-seq="(\d+)">(.*?)</button>', re.S)
PAGE_DATA = re.compile(r'<script type="application/json" id="tables">.*?</script>', re.S)


def check_page(found: Findings, walk: Recorded, where: str, page: str, seat: int) -> None:
    """A replay page for `seat`: the table after each event names no card hidden from the seat at that position, and
    the rest of the page (summary, charts, key moments) names no card hidden from it anywhere."""
    tables = page_tables(page)
    assert len(tables) > 1, where
    for seq, table in tables:
        label = f"the table after event {seq}"
        found.check_text(f"{where}, {label}", table, in_text(walk, hidden_at(walk, seq, seat)))
        # Motto draws its cards as glyphs, so each table is also compared with the drawing of the seat's view (drawn
        # with a memo of the seat's tables, as a page draws them: tests/dashboards/test_page_memo.py checks that a
        # table drawn so is the table drawn alone).
        TALLY["tables compared"] += 1
        if (seq, seat) not in walk.tables:
            memo = walk.memos.setdefault(seat, {})
            walk.tables[seq, seat] = _table_html(walk.game, walk.seen(seq, seat), seat, memo)
        if table != walk.tables[seq, seat]:
            whole_table = table == _table_html(walk.game, walk.states[seq], None)
            (found.leak if whole_table else found.wrong)(f"{where}, {label}", "not the drawing of the seat's view")
    # Each move names what the seat saw of its event: nothing hidden from it both before and after that event.
    for seq, told in MOVE.findall(page):
        hidden = hidden_at(walk, int(seq), seat) & hidden_at(walk, max(int(seq) - 1, 1), seat)
        found.check_text(f"{where}, move {seq}", told, in_text(walk, hidden))
    rest = MOVE.sub("", PAGE_DATA.sub("", page))
    found.check_text(f"{where}, outside the tables and moves", rest, in_text(walk, walk.hidden[seat]))


def drawn(renderable: Any) -> str:
    """A rendering as `logs` prints it under typer's runner: 80 columns, no colour."""
    console = Console(width=80, file=io.StringIO(), highlight=False, color_system=None)
    console.print(renderable)
    return console.file.getvalue()  # type: ignore[attr-defined,no-any-return]


def placed_cards(action: Any) -> list[Any]:
    """The cards of a Moirai action's placements (`[card, how, life]`), in order."""
    if isinstance(action, list) and len(action) == 3 and action[1] in ("up", "open", "close"):
        return [action[0]]
    if isinstance(action, list):
        return [card for item in action for card in placed_cards(item)]
    if isinstance(action, dict):
        return [card for value in action.values() for card in placed_cards(value)]
    return []


def moment_rows(page: str) -> list[dict[str, str]]:
    """The cells (as text) of each row of the page's key moments table, by their headings: turn, seat, played, best
    found (and chance to win, on the page for the whole game)."""
    section = page.partition("Key moments")[2].partition("</table>")[0]
    headings = [html.unescape(h).strip() for h in re.findall(r"<th[^>]*>(.*?)</th>", section, re.S)]
    rows = [re.findall(r"<td[^>]*>(.*?)</td>", row, re.S) for row in re.findall(r"<tr[^>]*>(.*?)</tr>", section, re.S)]
    cells = [[html.unescape(re.sub(r"<[^>]+>", "", cell)).strip() for cell in row] for row in rows]
    return [dict(zip(headings, row)) for row in cells if len(row) == len(headings)]


def shown_cards(cell: str, moment_action: Any) -> set[Any]:
    """The cards a cell of a key moment shows: those of its placements if it is an action's JSON, else every number
    in it but the stored action's life numbers."""
    try:
        return set(placed_cards(json.loads(cell)))
    except json.JSONDecodeError:
        lives = {place[2] for place in _placements(moment_action)}
        return {int(n) for n in re.findall(r"\b\d+\b", cell)} - lives


def _placements(action: Any) -> list[list[Any]]:
    if isinstance(action, list) and len(action) == 3 and action[1] in ("up", "open", "close"):
        return [action]
    if isinstance(action, list):
        return [place for item in action for place in _placements(item)]
    if isinstance(action, dict):
        return [place for value in action.values() for place in _placements(value)]
    return []


def check_key_moments(found: Findings, walk: Recorded, where: str, page: str, seat: int) -> None:
    """Moirai's key moments on a seat's page: another seat's move, and the search bot's alternative to it, show no
    card the seat cannot see once the move is made (a drawn card placed face down; the others go to the piles)."""
    moments = {moment["turn"]: moment for moment in walk_moments(walk)}
    players = list(walk.states[-1].players)
    for row in moment_rows(page):
        turn, name, played, best = row["turn"], row["seat"], row["played"], row["best found"]
        found.tried()
        TALLY["key moments checked"] += 1
        moment, mover = moments[int(turn)], players.index(name)
        if mover == seat:
            continue
        after = walk.states[moment["seq"]]
        secret = hidden_cards(after, walk.game.view(after, seat))
        found.face_down_moves += any(card in secret for card in placed_cards(moment["action"]))
        shown = (shown_cards(played, moment["action"]) | shown_cards(best.rpartition(" (")[0] or best, {})) & secret
        if shown:
            found.leak(f"{where}, key moment of turn {turn} (seat {mover})", f"shows {sorted(shown)}, face down")


_MOMENTS: dict[Path, list[dict[str, Any]]] = {}


def walk_moments(walk: Recorded) -> list[dict[str, Any]]:
    """The key moments `logs analyse` stored for the game (the table's own, every card named)."""
    if walk.db not in _MOMENTS:
        with Store.open(walk.db, read_only=True) as store:
            rows = store.key_moments(1)
        _MOMENTS[walk.db] = [{"seq": row[0], "turn": row[1], "action": json.loads(row[5])} for row in rows]
    assert _MOMENTS[walk.db], "the analysis found no key moment"
    return _MOMENTS[walk.db]


# --- Branches ---------------------------------------------------------------------------------------------------------


def forks(walk: Recorded) -> list[int]:
    """The turns at which the error walk opens a branch, spread over the game."""
    turns = walk.turns[:-1]
    return sorted({turns[len(turns) * k // FORKS] for k in range(FORKS)})


def branch_at(walk: Recorded, turn: int) -> dict[str, Any]:
    """A branch of the game at the start of `turn`, opened with the table's token."""
    response = api_of(walk).call("POST", "/games/1/branches", walk.tokens["table"], json={"turn": turn})
    assert response.status_code == 201, response.text
    return response.json()  # type: ignore[no-any-return]


def test_nobody_may_not_branch_and_a_seat_gets_a_what_if_without_any_token(walk: Recorded) -> None:
    api, found = api_of(walk), Findings("branches")
    turn = forks(walk)[-1]
    for viewer in readers(walk):
        response = api.call("POST", "/games/1/branches", walk.token(viewer), json={"turn": turn})
        found.tried()
        expected = 401 if viewer == PUBLIC else 201
        if response.status_code != expected:
            found.wrong(f"{walk.name} branch by {viewer}", f"{response.status_code}, not {expected}")
        if response.status_code == 201:
            made = response.json()
            if "tokens" in made or "id" in made:
                found.leak(f"{walk.name} what-if by {viewer}", "got a game or tokens: they would read the real deal")
        else:
            check_error(found, walk, f"{walk.name} branch by {viewer}", response, {}, walk.hidden[viewer])
    found.done()


def test_a_branch_has_its_parents_seats_and_each_reads_its_own_view(walk: Recorded) -> None:
    api, found = api_of(walk), Findings("branches")
    branch = branch_at(walk, forks(walk)[1])
    seats = branch["tokens"]["seats"]
    assert len(seats) == walk.seats
    summary = api.ok("GET", f"/games/{branch['id']}")
    assert summary["players"] == list(walk.states[-1].players)
    for seat, token in enumerate(seats):
        for asked in (None, str(seat), PUBLIC):
            response = api.call("GET", with_as(f"/games/{branch['id']}/state", asked), token)
            where = f"{walk.name} branch state as {seat} ({asked})"
            if response.status_code != 200:
                found.wrong(where, f"{response.status_code} {response.text[:200]}")
                continue
            compare_state(found, walk, where, response.json(), PUBLIC if asked == PUBLIC else seat)
        refused = api.call("GET", f"/games/{branch['id']}/state?as=all", token)
        found.tried()
        if refused.status_code != 403:
            found.leak(f"{walk.name} branch as=all by seat {seat}", refused.status_code)
    found.done()


# --- The command line -------------------------------------------------------------------------------------------------


def cli_turns(walk: Recorded) -> list[int | None]:
    """About six turns spread over the game, and the end."""
    turns = walk.turns
    return [*turns[:: max(1, len(turns) // 6)], None]


def test_logs_replay_as_a_seat_shows_its_view_at_every_turn(walk: Recorded) -> None:
    found = Findings("CLI views")
    for seat in range(walk.seats):
        for turn in cli_turns(walk):
            at = () if turn is None else ("--turn", str(turn))
            code, stdout, stderr = logs("replay", "1", *at, "--as", str(seat), "--json", "--db", walk.db)
            assert code == 0, stderr
            answer = json.loads(stdout)
            compare_state(found, walk, f"{walk.name} logs replay --turn {turn} --as {seat} --json", answer, seat)
            code, stdout, stderr = logs("replay", "1", *at, "--as", str(seat), "--db", walk.db)
            assert code == 0, stderr
            if walk.name in NAMED_CARDS:
                hidden = hidden_at(walk, answer["seq"], seat)
                found.check_text(f"{walk.name} logs replay --turn {turn} --as {seat}", stdout, in_text(walk, hidden))
            if drawn(presentation(walk.game.name).render(walk.seen(answer["seq"], seat), seat)) not in stdout:
                whole_table = drawn(presentation(walk.game.name).render(walk.states[answer["seq"]], None)) in stdout
                where = f"{walk.name} logs replay --turn {turn} --as {seat}"
                (found.leak if whole_table else found.wrong)(where, "not the drawing of the seat's view")
    found.done(searched=walk.name in NAMED_CARDS)


def test_logs_replay_html_as_a_seat_names_no_card_hidden_from_it(walk: Recorded, tmp_path: Path) -> None:
    found = Findings("CLI pages")
    for seat in range(walk.seats):
        page = tmp_path / f"seat-{seat}.html"
        code, _, stderr = logs("replay", "1", "--html", page, "--as", str(seat), "--db", walk.db)
        assert code == 0, stderr
        text = page.read_text(encoding="utf-8")
        check_page(found, walk, f"{walk.name} logs replay --html --as {seat}", text, seat)
        if walk.name == "moirai":
            check_key_moments(found, walk, f"{walk.name} logs replay --html --as {seat}", text, seat)
    assert walk.name in NAMED_CARDS or found.face_down_moves, "no key moment placed a card face down"
    found.done(searched=walk.name in NAMED_CARDS)


def test_the_public_commands_name_no_hidden_card(walk: Recorded) -> None:
    found = Findings("CLI views")
    for args in (("show", "1"), ("show", "1", "--json"), ("list",), ("list", "--json"), ("tree", "1")):
        code, stdout, stderr = logs(*args, "--db", walk.db)
        assert code == 0, stderr
        if walk.name in NAMED_CARDS:
            found.check_text(f"{walk.name} logs {' '.join(args)}", stdout, in_text(walk, walk.hidden[PUBLIC]))
        else:
            found.tried()
    found.done(searched=walk.name in NAMED_CARDS)


def test_a_branch_made_by_the_command_line_keeps_its_seats(walk: Recorded, tmp_path: Path) -> None:
    db = tmp_path / "branching.duckdb"
    db.write_bytes(walk.db.read_bytes())
    turn = forks(walk)[1]
    code, stdout, stderr = logs("branch", "1", "--turn", str(turn), "--json", "--db", db)
    assert code == 0, stderr
    (branch,) = json.loads(stdout)["ids"]
    code, stdout, stderr = logs("show", str(branch), "--json", "--db", db)
    assert json.loads(stdout)["players"] == list(walk.states[-1].players)
    found = Findings("CLI views")
    for seat in range(walk.seats):
        code, stdout, stderr = logs("replay", str(branch), "--as", str(seat), "--json", "--db", db)
        if code != 0:
            found.wrong(f"{walk.name} logs replay BRANCH --as {seat}", stderr)
            continue
        compare_state(found, walk, f"{walk.name} logs replay BRANCH --as {seat}", json.loads(stdout), seat)
    found.done()


def test_a_seat_out_of_range_is_refused_in_one_line(walk: Recorded) -> None:
    for args in (("replay", "1", "--as", "3"), ("replay", "1", "--as", "-1"), ("replay", "1", "--as", "99")):
        code, _, stderr = logs(*args, "--db", walk.db)
        assert code == 2 and one_line_refusal(stderr), stderr


def test_a_token_in_the_query_opens_only_pages_and_streams(walk: Recorded) -> None:
    api, seat = api_of(walk), walk.tokens["seats"][0]
    for path in (f"/games/1/state?as=0&token={seat}", f"/games/1/events?as=0&token={seat}"):
        response = api.call("GET", path)
        assert response.status_code in (400, 401), (path, response.status_code)
        assert one_line_error(response.json()["error"])
    assert api.call("GET", f"/games/1/replay?token={seat}").status_code == 200
    with api.http.stream("GET", f"/games/1/stream?after=0&as=0&token={seat}", timeout=30) as stream:
        assert stream.status_code == 200
