"""The recorder in a real browser (Debian's Chromium, a phone's viewport): games recorded from two pages at once, the
table's and one seat's (joined by its QR code's link), with the seat's private cards never on the table's page, one
undo each, a spectator following live, and a log that `logs export` writes and `logs import` reads into a fresh store
with the same scores.

Motto and Stones of Fate are recorded whole in the browser. Moirai and Moorea are long (hundreds of taps, each a page
load): the browser records their start, the seat's join, the undo and the first BROWSER_TAPS taps with the privacy
check, then the rest is tapped through the same HTTP routes the pages post to (no rendering), as
tests/service/test_recorder.py's server tests do. LOOM_RECORDER_FULL=1 records all four whole in the browser (about
six minutes); LOOM_RECORDER_GAMES=motto,moorea chooses the games."""

from __future__ import annotations

import html
import json
import os
import re
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import segno

from loom.engine.play import record
from loom.engine.registry import get_game
from loom.events.base import LoomError
from loom.events.parsing import parse_event
from loom.replay.store import Store
from loom.service.recorder import choices
from loom.service.server import free_port, running
from loom.service.settings import Settings
from tests.browser import CHROMIUM, FLAGS, need_browser
from tests.cli.run import logs
from tests.service.client import ADMIN, Api
from tests.service.test_recorder import OPTION, preferred
from tests.service.test_recorder import _page as _route_page

PHONE = {"width": 390, "height": 844}
SCREENSHOT = Path(__file__).parents[2] / "docs" / "recorder.png"
UNDO_AFTER = 6
"""Taps into each game before its one undo."""
MAX_TAPS = 3000
ORDER = ["motto", "stones-of-fate", "moirai", "moorea"]
BROWSER_TAPS = {"moirai": 30, "moorea": 30}
"""Taps in the browser before the rest of the game goes through the HTTP routes (unless LOOM_RECORDER_FULL=1)."""
OFFSETS = {"motto": 23, "moirai": 16, "moorea": 11}
"""Where each game's tapping order starts (`preferred`): orders that give short games (Moorea in 562 taps, not 742),
found by playing the same taps without a browser; the games are the same on every run."""
"""Motto first: its page is the screenshot, its spectator the live one, its draws the private ones checked."""


def _data(page: Any) -> dict[str, Any]:
    return dict(page.evaluate("JSON.parse(document.getElementById('page-data').textContent)"))


def _at(page: Any, game_id: int, seq: int) -> None:
    """Wait until the page shows game `game_id` at event `seq` (it follows the others' taps by itself)."""
    page.wait_for_function(
        "([id, seq]) => { const d = document.getElementById('page-data');"
        " if (!d) return false; const j = JSON.parse(d.textContent); return j.game === id && j.seq === seq; }",
        arg=[game_id, seq],
        timeout=15000,
    )


class Honest:
    """An honest recorder at the table: of a page's options, it taps only those the table's whole truth offers too
    (the page lists every card it cannot rule out, but a player drawing one sees the real card)."""

    def __init__(self, api: Api, game: str) -> None:
        self.api, self.game, self.rules = api, game, get_game(game)
        self.at: tuple[int, int] | None = None
        self.state: Any = None
        self.table = ""

    def pick(self, game_id: int, seq: int, url: str, choices_shown: list[str], labels: list[str], taps: int) -> int:
        """The index of the option to tap: a preferred one among those the truth offers."""
        if self.at is None or self.at[0] != game_id:  # a new game, or the branch an undo made: read it whole
            table = self.api.ok("GET", f"/games/{game_id}/tokens", ADMIN)["tokens"]["table"]
            self.at, self.table, self.state = (game_id, 0), table, self.rules.blank()
        if self.at[1] != seq:
            path = f"/games/{game_id}/events?after={self.at[1]}&limit=5000"
            for line in self.api.ok("GET", path, self.table)["events"]:
                kept = {k: v for k, v in line.items() if k not in ("seq", "turn", "actor", "v")}
                self.state, _ = record(self.rules, self.state, parse_event(kept, self.game)[1])
            self.at = (game_id, seq)
        tapped = re.search(r"[?&]choice=([^&]*)", url)
        so_far = json.loads(unquote(tapped[1])) if tapped else {}
        true = choices(self.rules, self.state, ["Ann", "Ben"], so_far, table=True, viewer="all")
        real = {json.dumps(o.choice, sort_keys=True) for o in true.options}
        fine = [i for i, c in enumerate(choices_shown) if json.dumps(json.loads(c), sort_keys=True) in real]
        if true.lines is not None:  # the truth has decided: the options that make its events
            fine = [i for i, c in enumerate(choices_shown) if self._makes(json.loads(c), true.lines)]
        fine = fine or list(range(len(labels)))
        return fine[preferred([labels[i] for i in fine], taps)]

    def _makes(self, choice: dict[str, Any], lines: list[dict[str, Any]]) -> bool:
        try:
            found = choices(self.rules, self.state, ["Ann", "Ben"], choice, table=True, viewer="all")
        except LoomError:
            return False
        return found.lines == lines


def _tap(page: Any, index: int) -> bool:
    """Tap an option and wait for the next page; False if the rules refused it (a card the page could not rule out
    but that is elsewhere at the table: an honest recorder never taps it), the page then read again from its start."""
    page.evaluate("window.tapped = true")
    with page.expect_response(lambda r: r.request.method == "POST" and "/tap" in r.url) as answer:
        page.locator("button.option").nth(index).click()
    if not answer.value.ok:
        assert "elsewhere" in answer.value.json()["error"]
        page.goto(re.sub(r"&choice=[^&]*", "", page.url))
        return False
    page.wait_for_function("() => window.tapped === undefined && document.getElementById('page-data') !== null")
    return True


def _tap_all(page: Any, taps: int, honest: Honest) -> int:
    """Tap the page's options (a preferred one each time) until it records nothing more for now; how many taps."""
    done = 0
    while page.locator("button.option").count():
        data = _data(page)
        shown = page.locator("button.option").evaluate_all("bs => bs.map(b => b.dataset.choice)")
        _tap(page, honest.pick(data["game"], data["seq"], page.url, shown, _labels(page), taps + done))
        done += 1
    return done


def _tap_by_routes(api: Api, game_id: int, tokens: dict[str, Any], taps: int, honest: Honest) -> int:
    """Tap the rest of the game through the routes the pages post to, as each phone would (the table's page, which
    leaves seat 1 to its phone, and seat 1's); how many taps."""
    phones = [f"/record/{game_id}?token={tokens['table']}&phones=1", f"/record/{game_id}?token={tokens['seats'][1]}"]
    while api.ok("GET", f"/record/{game_id}/now")["status"] != "finished":
        for start in phones:
            url = start
            while options := OPTION.findall((found := _route_page(api, url))[0]):
                page, labels = found[1], [html.unescape(label) for _, label in options]
                shown = [html.unescape(c) for c, _ in options]
                choice = json.loads(shown[honest.pick(game_id, page["seq"], page["url"], shown, labels, taps)])
                body = {"seq": page["seq"], "choice": choice, "phones": page["phones"]}
                token = tokens["table"] if start == phones[0] else tokens["seats"][1]
                answer = api.call("POST", f"/record/{game_id}/tap", token, json=body)
                taps += 1
                if answer.status_code != 200:  # a card elsewhere at the table: this event from its start again
                    assert "elsewhere" in answer.json()["error"], answer.text
                    url = start
                    continue
                url = answer.json()["url"]
                assert taps < MAX_TAPS
    return taps


def _labels(page: Any) -> list[str]:
    return [text.strip() for text in page.locator("button.option").all_inner_texts()]


def _words(value: Any) -> set[str]:
    """The names in an event's fields (cards, places), each a word a page would show."""
    if isinstance(value, dict):
        return {w for k, v in value.items() if k not in ("type", "seq", "turn", "actor", "v") for w in _words(v)}
    if isinstance(value, list):
        return {w for v in value for w in _words(v)}
    return {str(value)} if isinstance(value, str | int) and not isinstance(value, bool) else set()


def _record(
    api: Api, table: Any, seat: Any, watcher: Any | None, game: str, shot: bool, browser_taps: int | None
) -> dict[str, Any]:
    """Record one whole game: the table's page starts it and hands seat 1 to the seat's page; the seat's events are
    tapped there, the rest on the table's page (after `browser_taps` taps and the undo, through the routes). Returns
    what the test checks afterwards."""
    table.goto(f"{api.base}/record?token={ADMIN}")
    table.check(f"input[name=game][value={game}]")
    table.locator("input.name").nth(0).fill("Ann")
    table.locator("input.name").nth(1).fill("Ben")
    with table.expect_navigation():
        table.click("button.go")
    with table.expect_navigation():
        table.click("#phone-1")
    join = table.get_attribute("#join-1", "href")
    assert join is not None and "token=" in join
    qr = table.locator("details.seat svg").first.evaluate("svg => svg.outerHTML")
    assert _same_qr(qr, join)  # the QR code holds the seat's join link
    seat.goto(join)
    game_id = _data(table)["game"]
    tokens = api.ok("GET", f"/games/{game_id}/tokens", ADMIN)["tokens"]
    if watcher is not None:
        watcher.goto(f"{api.base}/record/{game_id}/watch")
    taps, undone, private, seen_by_watcher, offset = 0, False, 0, False, OFFSETS.get(game, 0)
    honest = Honest(api, game)
    while True:
        now = api.ok("GET", f"/record/{game_id}/now")
        if now["status"] == "finished":
            break
        _at(table, game_id, now["seq"])
        if table.locator("button.option").count():
            if not undone and taps >= UNDO_AFTER and api.ok("GET", f"/games/{game_id}/state")["turn"] >= 2:
                with table.expect_navigation():
                    table.click("#undo")
                undone, game_id = True, _data(table)["game"]
                tokens = api.ok("GET", f"/games/{game_id}/tokens", ADMIN)["tokens"]
                _at(seat, game_id, _data(table)["seq"])  # the seat's page follows to the branch by itself
                continue
            if shot and taps >= 12:  # the table's page mid-game, the deal done: the README's picture
                table.screenshot(path=str(SCREENSHOT))
                shot = False
            taps += _tap_all(table, taps + offset, honest)
        else:
            _at(seat, game_id, now["seq"])
            before = _shown(table, game_id, now["seq"])
            done = _tap_all(seat, taps + offset, honest)
            assert done, "neither page records the next event"
            taps += done
            private += _check_table_hides_seat_events(api, table, game_id, before, tokens)
        if watcher is not None and not seen_by_watcher and taps > 20:
            _at(watcher, game_id, api.ok("GET", f"/record/{game_id}/now")["seq"])  # it followed the live stream
            seen_by_watcher = True
        assert taps < MAX_TAPS
        if browser_taps is not None and undone and taps >= browser_taps:
            address = table.url
            table.goto("about:blank")  # no page follows the rest: nothing renders
            seat.goto("about:blank")
            taps = _tap_by_routes(api, game_id, tokens, taps, honest)
            now = api.ok("GET", f"/record/{game_id}/now")
            table.goto(address)
            break
    _at(table, game_id, now["seq"])
    replay = table.get_attribute("#replay", "href")
    assert replay is not None and api.http.get(replay).status_code == 200
    assert undone
    print(f"{game}: {taps} taps, {now['seq']} events")
    return {"id": game_id, "private": private, "scores": api.ok("GET", f"/games/{game_id}")["scores"]}


def _shown(page: Any, game_id: int, seq: int) -> str:
    _at(page, game_id, seq)
    return str(page.inner_text("#table") + "\n" + page.inner_text("#moves"))


def _check_table_hides_seat_events(api: Api, table: Any, game_id: int, before: str, tokens: dict[str, Any]) -> int:
    """The names in seat 1's last events that seat 0 may not see (not in seat 0's view of the game) must not turn up
    on the table's page, which shows seat 0's view once seat 1 records on its own phone. How many there were."""
    now = api.ok("GET", f"/record/{game_id}/now")
    events = api.ok("GET", f"/games/{game_id}/events?after={max(0, now['seq'] - 3)}", tokens["table"])["events"]
    names = {name for event in events if event["actor"] == 1 for name in _words(event)}
    visible = json.dumps(api.ok("GET", f"/games/{game_id}/state", tokens["seats"][0]))
    secret = {name for name in names if name not in visible}
    shown = _shown(table, game_id, now["seq"])
    for name in secret:
        pattern = rf"(?<![\w-]){re.escape(name)}(?![\w-])"
        assert not re.search(pattern, shown) or re.search(pattern, before), f"the table's page shows {name!r}"
    return len(secret)


def _same_qr(svg: str, link: str) -> bool:
    expected = segno.make(link, error="m").svg_inline(scale=4, dark="#000", light="#fff")
    return re.sub(r"\s+", " ", svg.strip()) == re.sub(r"\s+", " ", expected.strip()) or (
        re.findall(r'd="([^"]+)"', svg) == re.findall(r'd="([^"]+)"', expected)
    )


def test_four_games_recorded_on_two_phones_export_and_import_with_the_same_scores(tmp_path: Path) -> None:
    need_browser()
    from playwright.sync_api import sync_playwright

    db = tmp_path / "club.duckdb"
    recorded = []
    with running(Settings(str(db), port=free_port(), admin_token=ADMIN)) as base, sync_playwright() as playwright:
        api = Api(base)
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        try:
            errors: list[str] = []
            pages = []
            for _ in range(3):
                context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
                page = context.new_page()
                page.on("pageerror", lambda error: errors.append(str(error)))
                pages.append(page)
            table, seat, watcher = pages
            full = os.environ.get("LOOM_RECORDER_FULL") == "1"
            for number, game in enumerate(os.environ.get("LOOM_RECORDER_GAMES", ",".join(ORDER)).split(",")):
                some = None if full else BROWSER_TAPS.get(game)
                recorded.append(_record(api, table, seat, watcher if number == 0 else None, game, number == 0, some))
            assert errors == []
        finally:
            browser.close()
            api.close()
    assert recorded[0]["private"] > 0, recorded  # Motto's draws, named only on Ben's phone
    fresh = tmp_path / "fresh.duckdb"
    for game in recorded:
        log = tmp_path / f"game-{game['id']}.jsonl"
        code, _, err = logs("export", str(game["id"]), "-o", str(log), "--db", str(db))
        assert code == 0, err
        code, _, err = logs("import", str(log), "--db", str(fresh))
        assert code == 0, err
    with Store.open(fresh, read_only=True) as store:
        imported = [[r.score for r in store.results(i)] for i in range(1, len(recorded) + 1)]
    assert imported == [game["scores"] for game in recorded]
