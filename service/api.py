"""The JSON routes: games, their positions and events, actions, branches, and the live stream. Thin: each parses,
calls `service.reading` or `service.writing`, and returns what it got. The writes are async: they await the
answer of the database's writer (which checks, writes and commits them with the others that arrive meanwhile),
holding no thread of the pool.

Every route takes its token from the Authorization header only, except the live stream, which a browser's
EventSource opens without headers: it also takes `?token=`."""

from __future__ import annotations

import asyncio
import re
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Header, Query
from fastapi.responses import StreamingResponse

from loom.events.base import LoomError
from loom.replay.live import Filter
from loom.service import reading, writing
from loom.service.context import Caller, Service, browser_caller_of, caller_of, no_token_in_address, service_of
from loom.service.models import ActionBody, BranchBody, EventsBody, NewGameBody
from loom.service.stream import follow

EVENT_NUMBER = re.compile(r"[0-9]{1,18}")
"""A Last-Event-ID the stream resumes after: ASCII digits, short enough to be an event's number."""
router = APIRouter(dependencies=[Depends(no_token_in_address)])
streams = APIRouter()
Svc = Annotated[Service, Depends(service_of)]
Who = Annotated[Caller, Depends(caller_of)]
Browser = Annotated[Caller, Depends(browser_caller_of)]
As = Annotated[
    str | None,
    Query(alias="as", description="a seat number, 'public' or 'all' (default: what the token allows)"),
]


@router.post("/games", status_code=201, tags=["games"])
async def create_game(body: NewGameBody, service: Svc, caller: Who) -> dict[str, Any]:
    """Create a game. The answer holds a token per seat and the table's token: hand each player their seat's."""
    return await asyncio.wrap_future(writing.create(service, caller, body))


@router.get("/games", tags=["games"])
def list_games(
    service: Svc,
    game: Annotated[str | None, Query(description="only games of this kind")] = None,
    status: Annotated[str | None, Query(pattern="^(open|finished)$")] = None,
    source: Annotated[str | None, Query(description="simulated, imported, branch or live")] = None,
    parent: Annotated[int | None, Query(description="only branches of this game")] = None,
    before: Annotated[int | None, Query(description="only ids below this one: the next page")] = None,
    limit: Annotated[int, Query(ge=1, le=1000)] = 50,
) -> list[dict[str, Any]]:
    """The games, newest first."""
    return reading.list_games(service, Filter(game, status, source, parent, before, limit))


@router.get("/games/{game_id}", tags=["games"])
def read_game(game_id: int, service: Svc) -> dict[str, Any]:
    """A game: its players, status, progress, parent, and its results once it is over."""
    store = service.db.reader()
    return reading.summary(store, store.game(game_id))


@router.get("/games/{game_id}/state", tags=["games"])
def read_state(
    game_id: int,
    service: Svc,
    caller: Who,
    seat: As = None,
    turn: Annotated[int | None, Query(description="the start of this turn")] = None,
    seq: Annotated[int | None, Query(description="just after this event")] = None,
) -> dict[str, Any]:
    """The table at the start of a turn, after an event, or now, as the caller may see it; with the legal actions
    when the caller is the seat to move."""
    return reading.state_at(service, caller, game_id, turn, seq, seat)


@router.get("/games/{game_id}/events", tags=["games"])
def read_events(
    game_id: int,
    service: Svc,
    caller: Who,
    seat: As = None,
    after: Annotated[int, Query(ge=0, description="only events after this one")] = 0,
    limit: Annotated[int, Query(ge=1, le=reading.MAX_EVENTS)] = 1000,
) -> dict[str, Any]:
    """The events after `after`: whole log lines for the table and the admin; for a seat or the public, each
    event's number, turn, actor and type with the table as they see it after it."""
    return reading.events_after(service, caller, game_id, after, limit, seat)


@router.post("/games/{game_id}/actions", tags=["play"])
async def post_action(game_id: int, body: ActionBody, service: Svc, caller: Who) -> dict[str, Any]:
    """Play the seat to move's action, at the sequence number the client expects (409 with the game's own if another
    append came first; 422 with the rule's reason if the action is illegal; nothing is written either way)."""
    return await asyncio.wrap_future(writing.act(service, caller, game_id, body))


@router.post("/games/{game_id}/events", tags=["play"])
async def post_events(game_id: int, body: EventsBody, service: Svc, caller: Who) -> dict[str, Any]:
    """Write events a real table supplies (its deals and draws), each checked by the rules, all or nothing.

    The table's token writes any event; a seat's token only that seat's own, and none in a game Loom dealt (403:
    its seats play actions). Whose each event is is checked before any rule, so a refusal tells a seat nothing
    about cards it cannot see."""
    return await asyncio.wrap_future(writing.write_events(service, caller, game_id, body))


@router.post(
    "/games/{game_id}/branches",
    status_code=201,
    tags=["branches"],
    responses={
        401: {"description": "no token: branching needs the game's table token or the admin token"},
        403: {"description": "a seat's token, or another game's: a branch plays on with the recorded deal"},
    },
)
async def post_branch(game_id: int, body: BranchBody, service: Svc, caller: Who) -> dict[str, Any]:
    """Branch the game at the start of a turn, play other actions there, and optionally the rest with a bot.

    Needs the game's table token or the admin token, on every server: a branch plays on with the game's recorded
    deal, so playing it shows the cards the game deals next, which no seat has seen. A seat's token is refused
    (403), no token too (401). The answer holds the branch's tokens: a seat's each, and its table's."""
    return await asyncio.wrap_future(writing.fork(service, caller, game_id, body))


@router.get("/games/{game_id}/tree", tags=["branches"])
def read_tree(game_id: int, service: Svc) -> dict[str, Any]:
    """The game, its branches and theirs, with fork turns and outcomes."""
    return reading.branch_tree(service, game_id)


@router.get("/games/{game_id}/tokens", tags=["games"])
def read_tokens(game_id: int, service: Svc, caller: Who) -> dict[str, Any]:
    """Every token of a game (admin only), to hand out seats of a game recorded some other way."""
    return writing.tokens(service, caller, game_id)


@streams.get(
    "/games/{game_id}/stream",
    tags=["games"],
    response_class=StreamingResponse,
    responses={200: {"content": {"text/event-stream": {}}}},
)
def stream_events(
    game_id: int,
    service: Svc,
    caller: Browser,
    seat: As = None,
    after: Annotated[int | None, Query(ge=0, description="start after this event (default: now)")] = None,
    last_event_id: Annotated[str | None, Header(include_in_schema=False)] = None,
) -> StreamingResponse:
    """Server-sent events: each new event as the caller may know it, until the game is over. A browser follows it
    with `new EventSource("/games/ID/stream?token=...")`."""
    info = service.db.reader().game_row(game_id)
    viewer = reading.viewer_of(service, caller, info, seat)
    start = info.last_seq if after is None else after
    if last_event_id is not None:
        if not EVENT_NUMBER.fullmatch(last_event_id):  # not str.isdigit: '²'.isdigit() is true, and int('²') fails
            raise LoomError(f"Last-Event-ID {last_event_id[:40]!r} is not an event number")
        start = int(last_event_id)
    return StreamingResponse(
        follow(service, info, viewer, min(start, info.last_seq)),
        media_type="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )
