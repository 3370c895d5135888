"""The pages in a real browser (headless Chromium): no JavaScript error, the slider moves, names stay text."""

from __future__ import annotations

from pathlib import Path

from loom.dashboards.report import report_html
from loom.dashboards.viewer import replay_html
from loom.replay.store import Store
from tests.browser import browser_tab
from tests.dashboards.conftest import EVIL, EVIL_GAME, LINK


def written(path: Path, html: str) -> str:
    path.write_text(html, encoding="utf-8")
    return path.as_uri()


def test_the_report_opens_from_a_file_without_errors(recorded: Path, tmp_path: Path) -> None:
    with Store.open(recorded, read_only=True) as store:
        url = written(tmp_path / "report.html", report_html(store))
    with browser_tab(url) as tab:
        drawn = tab.page.evaluate("document.querySelectorAll('.js-plotly-plot .main-svg').length")
        assert drawn >= 4 * 10
        assert tab.errors == []


def test_the_replay_slider_moves_to_another_turn_and_names_stay_text(recorded: Path, tmp_path: Path) -> None:
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
        rail = page.locator(".slider-rail-rect").bounding_box()
        page.mouse.click(rail["x"] + rail["width"] * 0.6, rail["y"] + rail["height"] / 2)
        page.wait_for_function("document.body.dataset.position !== '0'")
        assert page.inner_text("#table") != first
        assert "turn 1 " not in page.inner_text("#turn-label")
        assert tab.errors == []
