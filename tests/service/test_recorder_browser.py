"""The recorder in a real browser (Debian's Chromium, a phone's viewport): a whole game of each of the four games (one
test each) recorded by taps from two pages at once, the table's and one seat's (joined by its QR code's link), with
the seat's hand dealt on its own phone and its private cards never on the table's page, one undo each, a spectator
following Motto live, and a log that `logs export` writes and `logs import` reads into a fresh store with the same
scores.

Every tap is a click in the browser; the pages change in place (a tap's answer, or the other phone's event by the
live stream), never loading again but for the undo. The players choose their moves as the game's greedy bot would
(`SEEDS`: seeds found for short games by playing the same choices without a browser), and an honest recorder taps,
of the cards a page offers, one that the table's truth offers too."""

from __future__ import annotations

import html
import json
import os
import re
import time
from pathlib import Path
from random import Random
from typing import Any

import pytest
import segno

from loom.engine.play import record
from loom.engine.protocol import CHANCE_TO_MOVE
from loom.engine.registry import get_game
from loom.events.base import LoomError
from loom.events.parsing import parse_event
from loom.replay.store import Store
from loom.service.recorder.taps import StaleChoice, choices
from loom.service.server import free_port, running
from loom.service.settings import Settings
from tests.browser import CHROMIUM, FLAGS, need_browser
from tests.cli.run import logs
from tests.service.client import ADMIN, Api

PHONE = {"width": 390, "height": 844}
SCREENSHOT = Path(__file__).parents[2] / "docs" / "recorder.png"
"""The README's picture, taken again when LOOM_SCREENSHOTS=1 (else the test's screenshot goes to its own folder)."""
UNDO_AFTER = 6
"""Taps into each game before its one undo."""
MAX_TAPS = 1500
SEEDS = {"motto": 7, "stones-of-fate": 0, "moirai": 10, "moorea": 18}
"""The players' and the recorder's choices per game (Motto first: its page is the screenshot, its spectator the live
one); about 110, 80, 150 and 410 taps."""
PLAYERS = ["Ann", "Ben"]
READ = """async (before) => {
  // the time on the clock, not the ticks counted: a busy browser runs a 5 ms timer far later, and 3,000 ticks
  // could then take most of an hour before the error
  for (const began = performance.now(); window.renders <= before; ) {
    if (performance.now() - began > 15000) throw new Error('the page did not answer the tap');
    await new Promise(done => setTimeout(done, 5));
  }
  const buttons = [...document.querySelectorAll('button.option')];
  return {renders: window.renders, data: JSON.parse(document.getElementById('page-data').textContent),
    options: buttons.map(b => b.dataset.choice),
    where: buttons.map(b => { const r = b.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })};
}"""
"""The page's data and options (and where each button is) once it has shown more than `before` answers."""
WHERE = """([i, renders]) => { const b = document.querySelectorAll('button.option')[i];
  if (!b || window.renders !== renders) return null;
  b.scrollIntoView({block: 'nearest'});
  const r = b.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; }"""
"""Where option `i` is, scrolled into view as a finger would; None if the page has shown anything since it was read
(`renders`): the options read are no longer those on the page."""


def _data(page: Any) -> dict[str, Any]:
    return dict(page.evaluate("JSON.parse(document.getElementById('page-data').textContent)"))


def _at(page: Any, game_id: int, seq: int) -> None:
    """Wait until the page shows game `game_id` at event `seq` (it follows the other phone's taps by itself)."""
    page.wait_for_function(
        "([id, seq]) => { const d = document.getElementById('page-data');"
        " if (!d) return false; const j = JSON.parse(d.textContent); return j.game === id && j.seq === seq; }",
        arg=[game_id, seq],
        polling=10,  # a timer, not every animation frame: a page that waits draws nothing
        timeout=15000,
    )


class Table:
    """The table's whole truth, read as the admin, and the players' and the honest recorder's choices in it."""

    def __init__(self, api: Api, game: str) -> None:
        self.api, self.game, self.rules = api, game, get_game(game)
        self.bot = self.rules.bots["greedy"]()
        self.rng = Random(SEEDS[game])
        self.at: tuple[int, int] = (0, 0)
        self.state: Any = None

    def follow(self, game_id: int, seq: int) -> Any:
        """The state after the newest event of game `game_id` (a new one, or the branch an undo made: read whole);
        its seq is `self.at[1]`, which may be past `seq` if the game has moved on since."""
        if self.at[0] != game_id:
            self.at, self.state = (game_id, 0), self.rules.blank()
        if self.at[1] < seq:
            path = f"/games/{game_id}/events?after={self.at[1]}&limit=5000"
            for line in self.api.ok("GET", path, ADMIN)["events"]:
                kept = {k: v for k, v in line.items() if k not in ("seq", "turn", "actor", "v")}
                self.state, _ = record(self.rules, self.state, parse_event(kept, self.game)[1])
                self.at = (game_id, line["seq"])
        return self.state

    def pick(self, data: dict[str, Any], shown: list[str]) -> int | None:
        """The index of the option to tap: the mover's move as the greedy bot plays it, else a card the truth
        offers too (the page lists every card it cannot rule out; a player drawing one sees the real card). None
        while the page is a moment behind the game: nothing is tapped on it (a tap there may land once the page has
        changed in place, on an option nobody chose), the page is waited for."""
        state = self.follow(data["game"], data["seq"])
        if self.at != (data["game"], data["seq"]):
            return None
        options = [json.loads(c) for c in shown]
        mover = self.rules.to_move(state)
        if all(set(o) == {"action"} for o in options) and mover not in (None, CHANCE_TO_MOVE):
            view = self.rules.view(state, mover)
            legal = self.rules.legal_actions(view)
            return options.index({"action": legal.index(self.bot.choose(view, legal, self.rng))})
        if len(options) == 1:
            return 0
        so_far = {k: v for k, v in options[0].items() if k == "action"}
        so_far["picks"] = options[0].get("picks", [])[:-1]
        try:
            true = choices(self.rules, state, PLAYERS, so_far, table=True, viewer="all")
        except StaleChoice:
            # An earlier tap of this draw chose a card the page could not rule out but that is elsewhere (the page
            # offers it, as at a real table): any option finishes the draw, which the service then refuses naming
            # no card, and the page starts it again.
            return 0
        if true.lines is not None:  # the truth has decided: the options that make its events
            fine = [i for i, c in enumerate(options) if self._makes(c, true.lines)]
        else:
            real = [json.dumps(o.choice, sort_keys=True) for o in true.options]
            fine = [i for i, c in enumerate(options) if json.dumps(c, sort_keys=True) in real]
        fine = fine or list(range(len(options)))
        return fine[self.rng.randrange(len(fine))]

    def _makes(self, choice: dict[str, Any], lines: list[dict[str, Any]]) -> bool:
        try:
            found = choices(self.rules, self.state, PLAYERS, choice, table=True, viewer="all")
        except LoomError:
            return False
        return found.lines == lines


def _offers(page: Any, game_id: int, seq: int) -> bool:
    """Whether the page, once at event `seq`, offers something to tap."""
    _at(page, game_id, seq)
    return bool(page.evaluate(READ, -1)["options"])


def _tap_all(page: Any, table: Table) -> int:
    """Tap the page's options with a finger (a touch screen's tap where the button is) until it records nothing more
    for now, each tap answered in place; how many taps."""
    done, now = 0, page.evaluate(READ, -1)
    while now["options"]:
        index = table.pick(now["data"], now["options"])
        if index is None:  # the game is ahead of the page: wait until the page shows its newest event
            _at(page, now["data"]["game"], table.at[1])
            now = page.evaluate(READ, -1)
            continue
        where = page.evaluate(WHERE, [index, now["renders"]])
        if where is None:  # the page changed in place meanwhile (the other phone's event): read it again
            now = page.evaluate(READ, -1)
            continue
        x, y = where
        page.touchscreen.tap(x, y)
        # the page once the tap's answer shows the next one (a refused tap: once it has read itself again)
        now = page.evaluate(READ, now["renders"])
        done += 1
    return done


def _words(value: Any) -> set[str]:
    """The names in an event's fields (cards, places), each a word a page would show."""
    if isinstance(value, dict):
        return {w for k, v in value.items() if k not in ("type", "seq", "turn", "actor", "v") for w in _words(v)}
    if isinstance(value, list):
        return {w for v in value for w in _words(v)}
    return {str(value)} if isinstance(value, str) else set()


def _record(api: Api, pages: dict[str, Any], game: str, shot: Path | None, watcher: Any | None) -> dict[str, Any]:
    """Record one whole game: the table's page starts it and hands seat 1 to the seat's page; each page taps what it
    records. Returns what the test checks afterwards."""
    table, seat = pages["table"], pages["seat"]
    table.goto(f"{api.base}/record?token={ADMIN}")
    table.check(f"input[name=game][value={game}]")
    table.locator("input.name").nth(0).fill(PLAYERS[0])
    table.locator("input.name").nth(1).fill(PLAYERS[1])
    with table.expect_navigation():
        table.click("button.go")
    with table.expect_navigation():
        table.click("#phone-1")
    join = table.get_attribute("#join-1", "href")
    assert join is not None and "token=" in join
    qr = table.locator("details.seat svg").first.evaluate("svg => svg.outerHTML")
    assert re.findall(r'd="([^"]+)"', qr) == re.findall(r'd="([^"]+)"', _qr(join))  # the seat's join link
    seat.goto(join)
    game_id = _data(table)["game"]
    if watcher is not None:
        watcher.goto(f"{api.base}/record/{game_id}/watch")
    truth = Table(api, game)
    began = time.monotonic()
    taps, undone, private, watched, hands = 0, False, 0, False, 0
    while True:
        now = api.ok("GET", f"/record/{game_id}/now")
        if now["status"] == "finished":
            break
        state = truth.follow(game_id, now["seq"])
        if truth.rules.to_move(state) == CHANCE_TO_MOVE and _offers(seat, game_id, now["seq"]):
            hands += 1  # a deal: Ben's phone taps Ben's hand, the table's page the rest
            taps += _tap_all(seat, truth)
            continue
        if truth.rules.to_move(state) == 1:  # Ben's phone records Ben's moves and draws
            _at(seat, game_id, now["seq"])
            done = _tap_all(seat, truth)
            assert done, "Ben's page records nothing"
            taps += done
            private += _check_table_hides_seat_events(api, pages, game_id, now["seq"])
            continue
        _at(table, game_id, now["seq"])
        if not undone and taps >= UNDO_AFTER and api.ok("GET", f"/games/{game_id}/state")["turn"] >= 2:
            with table.expect_navigation():
                table.click("#undo")
            undone, game_id = True, _data(table)["game"]
            _at(seat, game_id, _data(table)["seq"])  # the seat's page follows to the branch by itself
            continue
        if shot is not None and taps >= 12:  # the table's page mid-game, the deal done: the README's picture
            table.screenshot(path=str(shot))
            shot = None
        done = _tap_all(table, truth)
        assert done, "the table's page records nothing"
        taps += done
        if watcher is not None and not watched and taps > 20:
            _at(watcher, game_id, api.ok("GET", f"/record/{game_id}/now")["seq"])  # it followed the live stream
            watched = True
        assert taps < MAX_TAPS
    _at(table, game_id, now["seq"])
    replay = table.get_attribute("#replay", "href")
    assert replay is not None and api.http.get(replay).status_code == 200
    assert undone and (watcher is None or watched)
    print(f"{game}: {taps} taps, {now['seq']} events, {time.monotonic() - began:.1f} s")
    return {"id": game_id, "private": private, "hands": hands, "scores": api.ok("GET", f"/games/{game_id}")["scores"]}


def _check_table_hides_seat_events(api: Api, pages: dict[str, Any], game_id: int, before: int) -> int:
    """After Ben's taps, the table's page shows the table as the spectators' page does (the public view: what
    everyone at the table sees), and its moves name none of the cards of Ben's events. 1 if Ben's own page showed
    more than that (his private cards), else 0."""
    now = api.ok("GET", f"/record/{game_id}/now")["seq"]
    events = api.ok("GET", f"/games/{game_id}/events?after={before}", ADMIN)["events"]
    names = {name for event in events if event["actor"] == 1 for name in _words(event)}
    public = api.ok("GET", f"/record/{game_id}/watch/part")["html"]
    public = _text(html.unescape(re.sub(r"<[^>]+>", "", re.findall(r'<pre class="table".*?</pre>', public, re.S)[0])))
    _at(pages["table"], game_id, now)
    assert _text(pages["table"].inner_text("#table")) == public
    moves = pages["table"].inner_text("#moves")
    for name in names:
        assert not re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", moves), f"the table's page names {name!r}"
    _at(pages["seat"], game_id, now)
    return int(_text(pages["seat"].inner_text("#table")) != public)


def _text(text: str) -> str:
    return "\n".join(line.rstrip() for line in text.strip().splitlines())


def _qr(link: str) -> str:
    return str(segno.make(link, error="m").svg_inline(scale=4, dark="#000", light="#fff"))


@pytest.mark.parametrize("game", list(SEEDS))
def test_a_game_recorded_on_two_phones_exports_and_imports_with_the_same_scores(game: str, tmp_path: Path) -> None:
    """One game per test, each with its own server and browser."""
    need_browser()
    wanted = os.environ.get("LOOM_RECORDER_GAMES")
    if wanted and game not in wanted.split(","):
        pytest.skip(f"LOOM_RECORDER_GAMES={wanted}")
    from playwright.sync_api import sync_playwright

    first = game == "motto"  # its table's page is the README's picture, its spectator the live one
    db = tmp_path / "club.duckdb"
    with running(Settings(str(db), port=free_port(), admin_token=ADMIN)) as base, sync_playwright() as playwright:
        api = Api(base)
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        try:
            errors: list[str] = []
            pages = {}
            for name in ("table", "seat", "watcher") if first else ("table", "seat"):
                context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
                page = context.new_page()
                page.on("pageerror", lambda error: errors.append(str(error)))
                pages[name] = page
            picture = SCREENSHOT if os.environ.get("LOOM_SCREENSHOTS") == "1" else tmp_path / "recorder.png"
            recorded = _record(api, pages, game, picture if first else None, pages.get("watcher"))
            assert errors == []
        finally:
            browser.close()
            api.close()
    if first:
        assert recorded["private"] > 0, recorded  # Motto's draws, named only on Ben's phone
        assert recorded["hands"] > 0, recorded  # Motto's deal: Ben's hand tapped on Ben's phone, not the table's
    log, fresh = tmp_path / "game.jsonl", tmp_path / "fresh.duckdb"
    code, _, err = logs("export", str(recorded["id"]), "-o", str(log), "--db", str(db))
    assert code == 0, err
    code, _, err = logs("import", str(log), "--db", str(fresh))
    assert code == 0, err
    with Store.open(fresh, read_only=True) as store:
        assert [r.score for r in store.results(1)] == recorded["scores"]
