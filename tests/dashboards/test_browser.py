"""The pages in a real browser (headless Chromium): no JavaScript error, the board steps and jumps, names stay text,
and a phone's width holds the whole page."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from loom.dashboards.report import report_html
from loom.dashboards.viewer import replay_html
from loom.replay.analysis import analyse
from loom.replay.store import Store
from tests.browser import browser_tab
from tests.dashboards.conftest import EVIL, EVIL_GAME, LINK
from tests.dashboards.pages import page_tables

MOIRAI_GAME = 9


def written(path: Path, html: str) -> str:
    path.write_text(html, encoding="utf-8")
    return path.as_uri()


@pytest.fixture(scope="module")
def analysed(recorded: Path) -> Path:
    """The store, with a Moirai game analysed by `logs analyse` (a few rollouts: a curve and three key moments)."""
    analyse(str(recorded), MOIRAI_GAME, rollouts=4, bot="random", budget=50, moments=3)
    return recorded


def test_the_report_opens_from_a_file_without_errors(recorded: Path, tmp_path: Path) -> None:
    with Store.open(recorded, read_only=True) as store:
        url = written(tmp_path / "report.html", report_html(store))
    with browser_tab(url) as tab:
        drawn = tab.page.evaluate("document.querySelectorAll('.js-plotly-plot .main-svg').length")
        assert drawn >= 4 * 10
        assert tab.errors == []


def test_the_replay_steps_to_the_next_move_and_names_stay_text(recorded: Path, tmp_path: Path) -> None:
    with Store.open(recorded, read_only=True) as store:
        url = written(tmp_path / "replay.html", replay_html(store, EVIL_GAME))
    with browser_tab(url) as tab:
        page = tab.page
        assert EVIL in page.inner_text("body")  # a player's name, shown to the reader as text
        assert LINK in page.inner_text("#table")  # rich markup too: no link, no style
        assert page.evaluate("[...document.links].every(a => !a.href.trim().toLowerCase().startsWith('javascript:'))")
        assert page.evaluate(f"[...document.scripts].every(s => !s.textContent.includes({EVIL!r}))")
        first, start = page.inner_text("#table"), position(page)
        assert "turn 1 starts" in page.inner_text("#turn-label")  # the board opens once the cards are dealt
        page.click("#next")
        assert position(page) == start + 1
        assert page.inner_text("#table") != first and f"after event {start + 2}" in page.inner_text("#turn-label")
        assert tab.errors == []


def cursor(page: Any, figure: str) -> float:
    """Where the dotted cursor of a chart stands (a turn)."""
    return float(page.evaluate(f"document.getElementById('{figure}').layout.shapes[0].x0"))


def position(page: Any) -> int:
    """The position shown: k is the table right after the (k+1)-th event."""
    return int(page.evaluate("document.body.dataset.position"))


def test_the_board_steps_a_move_at_a_time_and_jumps_from_a_move_a_key_moment_and_the_chart(
    analysed: Path, tmp_path: Path
) -> None:
    with Store.open(analysed, read_only=True) as store:
        html = replay_html(store, MOIRAI_GAME)
        events = store.load(MOIRAI_GAME)
    tables = [table for _, table in page_tables(html)]
    with browser_tab(written(tmp_path / "board.html", html)) as tab:
        page = tab.page

        def shows(k: int) -> bool:
            """The board is at position k: its table, its move marked, both charts' cursors at its turn."""
            turn = max(1, turns[k])
            return (
                position(page) == k
                and page.inner_html("#table") == tables[k]
                and page.get_attribute("#moves li.current button", "data-stop") == str(k)
                and cursor(page, "figure-1") == cursor(page, "figure-2") == turn
            )

        turns = page.evaluate("JSON.parse(document.getElementById('board-data').textContent).turns")
        start = position(page)
        assert shows(start) and turns[start] == 1 and events[start + 1].turn == 1  # turn 1's first move is next
        for key in ("ArrowRight", "ArrowRight", "ArrowLeft", "ArrowRight"):
            page.keyboard.press(key)
        assert shows(start + 2)  # a move at a time: the win-chance cursor follows the turn of the move
        assert page.is_hidden("#final")
        page.keyboard.press("Shift+ArrowRight")
        now = position(page)
        assert turns[now] == turns[start + 2] + 1 and turns[now - 1] == turns[start + 2] and shows(now)  # next turn
        page.keyboard.press("End")
        assert shows(len(tables) - 1) and "won" in page.inner_text("#final")
        page.keyboard.press("Home")
        assert shows(0)

        move = page.locator("#moves button.move").nth(20)  # a move within a turn: the table right after it
        move.click()
        assert shows(20) and move.get_attribute("data-seq") == "21"
        assert "after event 21" in page.inner_text("#turn-label")

        moment = page.locator("#moments tr.moment").last
        assert "→" in moment.inner_text()  # the chance swing
        wanted = int(moment.get_attribute("data-stop") or -1)
        moment.click()
        assert shows(wanted) and events[wanted].seq == int(moment.get_attribute("data-seq") or -1)

        page.evaluate("document.getElementById('figure-2').emit('plotly_click', {points: [{x: 7}]})")
        now = position(page)
        assert turns[now] == 7 and turns[now - 1] == 6 and shows(now)  # the start of turn 7
        assert tab.errors == []


OVERFLOWING = """() => {
  const width = document.documentElement.clientWidth;
  const clipped = (e) => {
    for (let p = e.parentElement; p; p = p.parentElement) {
      const s = getComputedStyle(p);
      if (p.tagName === 'svg' || ['auto', 'scroll', 'hidden', 'clip'].includes(s.overflowX)) return true;
    }
    return false;
  };
  return [...document.body.querySelectorAll('*')]
    .filter(e => e.id !== 'js-plotly-tester')  // plotly's measuring element, kept off screen on purpose
    .filter(e => e.getClientRects().length && !clipped(e))
    .filter(e => { const r = e.getBoundingClientRect(); return r.left < -1 || r.right > width + 1; })
    .map(e => e.tagName + '#' + e.id + '.' + e.className);
}"""


@pytest.mark.parametrize("seat", [None, 1])
def test_at_a_phones_width_nothing_overflows_the_page(analysed: Path, tmp_path: Path, seat: int | None) -> None:
    with Store.open(analysed, read_only=True) as store:
        url = written(tmp_path / "phone.html", replay_html(store, MOIRAI_GAME, seat))
    with browser_tab(url) as tab:
        page = tab.page
        page.set_viewport_size({"width": 390, "height": 844})
        page.wait_for_timeout(300)  # plotly redraws its figures at the new width
        page.keyboard.press("End")
        page.screenshot(path=tmp_path / "phone.png", full_page=True)
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        assert page.evaluate(OVERFLOWING) == []
        assert page.evaluate("document.querySelector('meta[name=viewport]').content").startswith("width=device-width")
        assert tab.errors == []
