"""The routes of the served board: plotly.js and the API docs' files from the installed packages (compressed once,
cached by browsers), the API docs without any CDN, a position's win chances for what-if in place, and a seat's
what-ifs (replay/branches.py says how they are kept and why they name no card the seat could not see).

A served page loads plotly.js from here instead of embedding its 4.8 MB; the address carries plotly's version, so
a browser keeps the file for good and asks again only after an upgrade. The docs' files are fastapi-offline's copies
of Swagger UI and ReDoc: nothing is downloaded at run time.
"""

from __future__ import annotations

import gzip
import hashlib
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path
from typing import Annotated, Any

import plotly
from fastapi import APIRouter, Depends, Query, Request
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html, get_swagger_ui_oauth2_redirect_html
from fastapi.responses import HTMLResponse, Response
from starlette.exceptions import HTTPException

from loom.engine.protocol import Game
from loom.events.base import Event
from loom.replay.branches import MAX_SEED, WhatIf, line_of, sampled_chances, whatif_of
from loom.replay.replay import position
from loom.replay.store import Store
from loom.service import reading
from loom.service.access import Forbidden, Unauthorized
from loom.service.context import Caller, Service, caller_of, no_token_in_address, service_of
from loom.service.views import whole

PLOTLY_JS = f"/static/plotly.min.js?v={plotly.__version__}"
"""Where a served page loads plotly.js from."""
DOCS_FILES = {
    "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
    "swagger-ui.css": "text/css; charset=utf-8",
    "redoc.standalone.js": "text/javascript; charset=utf-8",
    "favicon.png": "image/png",
}
"""The files of the API docs, served under /static/docs/."""
KEEP = "public, max-age=31536000, immutable"
"""A year: a file's address changes with the package that ships it (plotly's version; the docs' files follow the
server's, so they are kept a day instead)."""

router = APIRouter()
Svc = Annotated[Service, Depends(service_of)]
Who = Annotated[Caller, Depends(caller_of)]
Seed = Annotated[
    int | None,
    Query(
        ge=0,
        le=MAX_SEED,
        description="deal the what-if's unseen cards again from this seed instead of its own (nothing is kept)",
    ),
]


@dataclass(frozen=True)
class Asset:
    """A static file, as is and gzipped, with its entity tag."""

    body: bytes
    zipped: bytes
    etag: str
    media_type: str


def _asset(body: bytes, media_type: str) -> Asset:
    return Asset(body, gzip.compress(body, 6, mtime=0), f'"{hashlib.sha256(body).hexdigest()[:32]}"', media_type)


@cache
def _plotly() -> Asset:
    from loom.dashboards.page import plotly_bytes  # the dashboards are optional on a server (PagesMissing)

    return _asset(plotly_bytes(), "text/javascript; charset=utf-8")


@cache
def _docs_file(name: str) -> Asset:
    import fastapi_offline

    return _asset((Path(fastapi_offline.__file__).parent / "static" / name).read_bytes(), DOCS_FILES[name])


def _send(request: Request, asset: Asset, keep: str) -> Response:
    """The file, gzipped when the client takes gzip; 304 when the client has it already."""
    headers = {"Cache-Control": keep, "ETag": asset.etag, "Vary": "Accept-Encoding"}
    if request.headers.get("if-none-match") == asset.etag:
        return Response(status_code=304, headers=headers)
    if "gzip" in request.headers.get("accept-encoding", "").lower():
        return Response(asset.zipped, media_type=asset.media_type, headers=headers | {"Content-Encoding": "gzip"})
    return Response(asset.body, media_type=asset.media_type, headers=headers)


@router.get("/static/plotly.min.js", include_in_schema=False)
def plotly_js(request: Request) -> Response:
    """plotly.js, which every served page loads from here once."""
    return _send(request, _plotly(), KEEP)


@router.get("/static/docs/{name}", include_in_schema=False)
def docs_file(name: str, request: Request) -> Response:
    """A file of Swagger UI or ReDoc, for /docs and /redoc."""
    if name not in DOCS_FILES:
        raise HTTPException(404, "Not Found")
    return _send(request, _docs_file(name), "public, max-age=86400")


@router.get("/docs", include_in_schema=False)
def docs(request: Request) -> HTMLResponse:
    """The API's interactive docs (Swagger UI), from this server's own files."""
    app = request.app
    return get_swagger_ui_html(
        openapi_url=app.openapi_url,
        title=f"{app.title} - API docs",
        oauth2_redirect_url=app.swagger_ui_oauth2_redirect_url,
        swagger_js_url="/static/docs/swagger-ui-bundle.js",
        swagger_css_url="/static/docs/swagger-ui.css",
        swagger_favicon_url="/static/docs/favicon.png",
        swagger_ui_parameters=app.swagger_ui_parameters,
    )


@router.get("/docs/oauth2-redirect", include_in_schema=False)
def docs_redirect() -> HTMLResponse:
    """Swagger UI's OAuth2 redirect page."""
    return get_swagger_ui_oauth2_redirect_html()


@router.get("/redoc", include_in_schema=False)
def redoc(request: Request) -> HTMLResponse:
    """The API's docs as one page (ReDoc), from this server's own files, without web fonts."""
    app = request.app
    return get_redoc_html(
        openapi_url=app.openapi_url,
        title=f"{app.title} - ReDoc",
        redoc_js_url="/static/docs/redoc.standalone.js",
        redoc_favicon_url="/static/docs/favicon.png",
        with_google_fonts=False,
    )


@router.get("/games/{game_id}/chances", tags=["branches"], dependencies=[Depends(no_token_in_address)])
def read_chances(
    game_id: int,
    service: Svc,
    caller: Who,
    turn: Annotated[int | None, Query(ge=1, description="the start of this turn (past the last: the end)")] = None,
    bot: Annotated[str | None, Query(description="the bot that plays the rollouts (default: greedy)")] = None,
    rollouts: Annotated[int, Query(ge=1, le=reading.MAX_ROLLOUTS)] = reading.ROLLOUTS,
) -> dict[str, Any]:
    """Each seat's chance to win from a position (the end without `turn`), by games played out with a bot: from
    every hand for the game's table token or the admin token; for a seat's token, over sampled deals (each rollout
    deals the cards that seat cannot see anew: `"sampled": true`)."""
    store = service.db.reader()
    info = store.game_row(game_id)
    grant = caller.grant(service, info)
    if grant.everything or grant.seat is None:
        return reading.chances_at(service, caller, game_id, turn, bot, rollouts) | {"sampled": False}
    at = position(store, game_id, turn=turn) if turn is not None and turn <= info.turns else position(store, game_id)
    return _sampled(at.game, at.state, grant.seat, bot, rollouts) | {"id": game_id, "turn": at.turn, "seq": at.seq}


def _sampled(game: Game, state: Any, seat: int, bot: str | None, rollouts: int) -> dict[str, Any]:
    """A position's chances as `seat` may know them, over sampled deals."""
    bot = bot if bot is not None else "greedy" if "greedy" in game.bots else sorted(game.bots)[0]
    found = sampled_chances(game, state, seat, rollouts=rollouts, bot=bot)
    return {
        "as": seat,
        "sampled": True,
        "chance": list(found.chance),
        "margin": list(found.margin),
        "rollouts": found.rollouts,
        "bot": found.bot,
    }


def _whatif(
    service: Service, caller: Caller, game_id: int, number: int, seed: int | None = None
) -> tuple[Store, WhatIf]:
    """What-if `number` of the game (dealt from `seed` if given), if the caller may read it: its seat's token of the
    game, the table's or the admin's (it shows that seat's own cards at the fork)."""
    store = service.db.reader()
    info = store.game_row(game_id)
    grant = caller.grant(service, info)
    whatif = whatif_of(store, game_id, number)
    if not grant.everything and grant.seat != whatif.seat:
        refused = Forbidden if caller.token is not None else Unauthorized
        raise refused(
            f"this what-if of game {game_id} is seat {whatif.seat}'s: it needs seat {whatif.seat}'s token of the "
            "game, its table token or the admin token"
        )
    return store, whatif if seed is None else replace(whatif, seed=seed)


@router.get("/games/{game_id}/whatifs/{number}", tags=["branches"], dependencies=[Depends(no_token_in_address)])
def read_whatif(game_id: int, number: int, service: Svc, caller: Who, seed: Seed = None) -> dict[str, Any]:
    """A seat's what-if, played again from its recipe: its start at the fork (the seat's view, the cards it could
    not see dealt from its seed, or from `seed` to see another deal of the same recipe), its events after the fork
    and its end. Every card in it is the seat's own, one it saw, or a sampled one, so the seat reads it whole."""
    store, whatif = _whatif(service, caller, game_id, number, seed)
    line = line_of(store, whatif)
    game = line.game
    over = game.to_move(line.end) is None
    events = [
        whole(Event(game_id, seq, one.turn, one.actor, one.payload))
        for seq, one in enumerate(line.steps, start=whatif.fork_seq + 1)
    ]
    return whatif.to_json() | {
        "game": game.name,
        "start": game.describe(line.start),
        "events": events,
        "end": game.describe(line.end),
        "status": "finished" if over else "open",
        "scores": game.scores(line.end),
        "winners": game.winners(line.end) if over else [],
    }


@router.get("/games/{game_id}/whatifs/{number}/chances", tags=["branches"], dependencies=[Depends(no_token_in_address)])
def read_whatif_chances(
    game_id: int,
    number: int,
    service: Svc,
    caller: Who,
    turn: Annotated[int | None, Query(ge=1, description="the start of this turn of the line (none: its end)")] = None,
    bot: Annotated[str | None, Query(description="the bot that plays the rollouts (default: greedy)")] = None,
    rollouts: Annotated[int, Query(ge=1, le=reading.MAX_ROLLOUTS)] = reading.ROLLOUTS,
    seed: Seed = None,
) -> dict[str, Any]:
    """Each seat's chance to win on a what-if's line at the start of `turn` (the line dealt from `seed` if given),
    over sampled deals from the what-if's seat's view (as its chances of the real line are)."""
    store, whatif = _whatif(service, caller, game_id, number, seed)
    line = line_of(store, whatif)
    state = line.end if turn is None else line.at_turn(turn)
    answer = {"id": game_id, "whatif": number, "turn": turn, "seed": whatif.seed}
    return _sampled(line.game, state, whatif.seat, bot, rollouts) | answer
