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


def test_the_replay_steps_to_another_turn_and_names_stay_text(recorded: Path, tmp_path: Path) -> None:
    with Store.open(recorded, read_only=True) as store:
        url = written(tmp_path / "replay.html", replay_html(store, EVIL_GAME))
    with browser_tab(url) as tab:
        page = tab.page
        assert EVIL in page.inner_text("body")  # a player's name, shown to the reader as text
        assert LINK in page.inner_text("#table")  # rich markup too: no link, no style
        assert page.evaluate("[...document.links].every(a => !a.href.trim().toLowerCase().startsWith('javascript:'))")
        assert page.evaluate(f"[...document.scripts].every(s => !s.textContent.includes({EVIL!r}))")
        first = page.inner_text("#table")
        assert "turn 1 " in page.inner_text("#turn-label")
        page.click("#next")
        assert page.evaluate("document.body.dataset.position") == "1"
        assert page.inner_text("#table") != first and "turn 1 " not in page.inner_text("#turn-label")
        assert tab.errors == []


def cursor(page: Any, figure: str) -> float:
    """Where the dotted cursor of a chart stands (a turn)."""
    return float(page.evaluate(f"document.getElementById('{figure}').layout.shapes[0].x0"))


def position(page: Any) -> int:
    return int(page.evaluate("document.body.dataset.position"))


def test_the_board_steps_with_the_keyboard_and_jumps_from_a_move_a_key_moment_and_the_chart(
    analysed: Path, tmp_path: Path
) -> None:
    with Store.open(analysed, read_only=True) as store:
        url = written(tmp_path / "board.html", replay_html(store, MOIRAI_GAME))
    with browser_tab(url) as tab:
        page = tab.page
        turns = page.evaluate("JSON.parse(document.getElementById('board-data').textContent).turns")
        assert cursor(page, "figure-1") == cursor(page, "figure-2") == turns[0]
        first = page.inner_text("#table")
        page.keyboard.press("ArrowRight")
        page.keyboard.press("ArrowRight")
        page.keyboard.press("ArrowLeft")
        page.keyboard.press("ArrowRight")
        assert position(page) == 2 and page.inner_text("#table") != first
        assert cursor(page, "figure-2") == turns[2]  # the win-chance chart's cursor follows the board
        assert page.is_hidden("#final")
        page.keyboard.press("End")
        assert position(page) == len(turns) - 1 and "won" in page.inner_text("#final")
        page.keyboard.press("Home")
        assert position(page) == 0

        move = page.locator("#moves button.move").nth(20)
        wanted = int(move.get_attribute("data-stop"))
        move.click()
        assert position(page) == wanted and cursor(page, "figure-2") == turns[wanted]
        assert page.evaluate("document.querySelector('#moves li.current button').dataset.stop") == str(wanted)
        table = page.inner_text("#table")

        moment = page.locator("#moments tr.moment").last
        assert "→" in moment.inner_text()  # the chance swing
        wanted = int(moment.get_attribute("data-stop"))
        moment.click()
        assert position(page) == wanted and cursor(page, "figure-2") == turns[wanted]
        assert page.inner_text("#table") != table

        page.evaluate("document.getElementById('figure-2').emit('plotly_click', {points: [{x: 7}]})")
        assert turns[position(page)] == 7 and cursor(page, "figure-1") == 7
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
