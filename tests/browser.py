"""Headless Chromium for the browser tests: Debian's package, driven by Playwright, never downloaded.

`.ci/run` installs Chromium and sets LOOM_REQUIRE_BROWSER=1, so there a missing browser fails the tests; on a
machine without it they are skipped and say why.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import pytest

CHROMIUM = os.environ.get("LOOM_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
# Without the background-networking flags Chromium keeps trying to reach Google, which this closed network refuses.
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def need_browser() -> None:
    """Skip (or, in CI, fail) when there is no Chromium to run."""
    if os.path.exists(CHROMIUM):
        return
    message = f"no Chromium at {CHROMIUM}: install Debian's chromium package (apt-get install chromium)"
    if os.environ.get("LOOM_REQUIRE_BROWSER"):
        pytest.fail(message)
    pytest.skip(message)


@dataclass
class Tab:
    """An open page and the JavaScript errors it raised."""

    page: object
    errors: list[str] = field(default_factory=list)


@contextmanager
def browser_tab(url: str) -> Iterator[Tab]:
    """`url` opened in a fresh headless Chromium; every uncaught exception or console error is collected."""
    need_browser()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 1000})
            tab = Tab(page)
            page.on("pageerror", lambda error: tab.errors.append(str(error)))
            page.on("console", lambda message: message.type == "error" and tab.errors.append(message.text))
            page.goto(url)
            page.wait_for_function(
                "typeof Plotly !== 'undefined' && document.querySelectorAll('.js-plotly-plot').length > 0"
            )
            yield tab
        finally:
            browser.close()
