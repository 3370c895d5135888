"""The pages people open in a browser: the dashboards and a game's replay, made by the `dashboards` package.

A replay shows every card unless it is made for one seat, so it follows the access rules of the JSON routes: a
seat's replay needs that seat's token (`?token=`, as a link cannot send a header), the whole replay the game's
table token or the admin token. Every page has a Content-Security-Policy that runs its own scripts only: its inline
ones and plotly.js, which it loads from this server (service/board.py), each allowed by its hash.

A served replay is a board with what-if in place: its script calls the JSON routes with the page's own token (sent
as a header), so it can list, branch and estimate exactly what that token may, and no more.
"""

from __future__ import annotations

import hashlib
import threading
import time
import weakref
from collections import OrderedDict
from datetime import datetime
from typing import Annotated

from fastapi import APIRouter, Depends, Query
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from loom.engine.registry import get_game
from loom.service.access import Forbidden, Unauthorized
from loom.service.board import PLOTLY_JS
from loom.service.context import Caller, Service, browser_caller_of, service_of
from loom.service.errors import PagesMissing
from loom.service.headers import html_page
from loom.service.reading import viewer_of
from loom.service.views import OMNISCIENT, PUBLIC

CATCH_UP = 5.0
"""Seconds the dashboard waits at most for the projector to reach the games it reports on; past that, the page says
how many it left out."""

router = APIRouter(tags=["pages"])
Svc = Annotated[Service, Depends(service_of)]
Who = Annotated[Caller, Depends(browser_caller_of)]


@router.get("/", include_in_schema=False)
def home() -> RedirectResponse:
    """The dashboards are the front page."""
    return RedirectResponse("/dashboard")


@router.get("/favicon.ico", include_in_schema=False)
def favicon() -> Response:
    """No icon: an empty answer, so a browser does not log a missing one as an error."""
    return Response(status_code=204)


@router.get("/dashboard", response_class=HTMLResponse)
def dashboard(
    service: Svc,
    game: Annotated[str | None, Query(description="only games of this kind")] = None,
    since: Annotated[datetime | None, Query(description="only games recorded since, e.g. 2026-12-01")] = None,
    bot: Annotated[str | None, Query(description="only games this bot played, at any budget (mcts: mcts:50)")] = None,
    self_play: Annotated[bool, Query(description="only games in which one bot played every seat")] = False,
) -> HTMLResponse:
    """The dashboards of the recorded games: results, bots and balance (no hidden card is in them)."""
    if game is not None:
        get_game(game)
    try:
        from loom.dashboards.report import report_html
    except ImportError as error:
        raise PagesMissing(f"the dashboards are not available on this server ({error})") from None
    since = since.astimezone() if since else None  # a date without a zone is the server's local time, as the CLI's
    reader = service.db.reader()
    if reader.report_behind(game):  # the games just recorded: their facts follow within a moment
        service.db.projector.hurry()
        deadline = time.monotonic() + CATCH_UP
        while reader.report_behind(game) and time.monotonic() < deadline:
            time.sleep(0.05)
    from loom.dashboards.page import linked

    return _served(linked(report_html(reader, game=game, since=since, bot=bot, self_play=self_play), PLOTLY_JS))


@router.get("/games/{game_id}/replay", response_class=HTMLResponse)
def replay(
    game_id: int,
    service: Svc,
    caller: Who,
    seat: Annotated[str | None, Query(alias="as", description="a seat number, or 'all'")] = None,
) -> HTMLResponse:
    """A game's replay, turn by turn: as one seat saw it (that seat's token) or whole (the table or admin token)."""
    info = service.db.reader().game_row(game_id)
    viewer = viewer_of(service, caller, info, seat)
    if viewer == PUBLIC:
        refused = Forbidden if caller.token is not None else Unauthorized
        raise refused("a replay shows the cards in play: open it with a seat's token (?token=...) or the table's")
    try:
        from loom.dashboards.viewer import replay_html
    except ImportError as error:
        raise PagesMissing(f"the replay viewer is not available on this server ({error})") from None
    shown = None if viewer == OMNISCIENT else int(viewer)
    reader = service.db.reader()
    if info.status != "finished":  # an open game's page is made afresh: it must show the latest move
        return _served(replay_html(reader, game_id, seat=shown, plotly=PLOTLY_JS, whatif=True))
    # A finished game's events never change; its page still follows its row (notes) and its analysis (logs analyse).
    analysis = hashlib.sha256(
        (reader.win_chance_frame(game_id).to_json() + reader.key_moment_frame(game_id).to_json()).encode()
    ).hexdigest()
    key = (game_id, shown, repr(info), analysis)
    pages = _finished_pages(service)
    with _PAGES_LOCK:
        page = pages.get(key)
        if page is not None:
            pages.move_to_end(key)
    if page is None:
        page = replay_html(reader, game_id, seat=shown, plotly=PLOTLY_JS, whatif=True)
        with _PAGES_LOCK:
            pages[key] = page
            while len(pages) > FINISHED_PAGES:
                pages.popitem(last=False)
    return _served(page)


FINISHED_PAGES = 32
"""Replay pages of finished games a server keeps (by game and view, the most recently read): the second reader of a
long game's page does not wait for it to be drawn again."""

_PAGES: dict[int, tuple[weakref.ref[Service], OrderedDict[tuple[object, ...], str]]] = {}
_PAGES_LOCK = threading.Lock()


def _finished_pages(service: Service) -> OrderedDict[tuple[object, ...], str]:
    """The kept pages of this server (a Service is not hashable: kept by its id, and dropped once it is gone)."""
    with _PAGES_LOCK:
        for number, (ref, _) in list(_PAGES.items()):
            if ref() is None:
                del _PAGES[number]
        found = _PAGES.get(id(service))
        if found is None or found[0]() is not service:
            found = _PAGES[id(service)] = (weakref.ref(service), OrderedDict())
        return found[1]


def _served(page: str) -> HTMLResponse:
    """A page that loads plotly.js from this server: its policy allows that one script too, by its integrity hash."""
    from loom.dashboards.page import plotly_hash

    response = html_page(page)
    policy = response.headers["Content-Security-Policy"]
    response.headers["Content-Security-Policy"] = policy.replace("script-src ", f"script-src '{plotly_hash()}' ", 1)
    return response
