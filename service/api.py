"""The JSON routes: games, their positions and events, actions, branches, and the live stream. Thin: each parses,
calls `service.reading` or `service.writing`, and returns what it got. The writes are async: they await the
answer of the database's writer (which checks, writes and commits them with the others that arrive meanwhile),
holding no thread of the pool.

Every route takes its token from the Authorization header only, except the live stream, which a browser's
EventSource opens without headers: it also takes `?token=`."""

from __future__ import annotations

import asyncio
import re
from concurrent.futures import Future
from typing import Annotated, Any

import orjson
from fastapi import APIRouter, Depends, Header, Query
from fastapi.responses import StreamingResponse
from pydantic import TypeAdapter, ValidationError
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from loom.events.base import LoomError
from loom.replay.live import Filter
from loom.service import reading, writing
from loom.service.context import (
    Caller,
    Service,
    bearer,
    browser_caller_of,
    caller_of,
    no_token_in_address,
    service_of,
)
from loom.service.errors import MAX_DEPTH, internal_error, loom_error_response, nesting
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
        401: {"description": "no token: branching needs a token of the game or the admin token"},
        403: {"description": "another game's token"},
    },
)
async def post_branch(game_id: int, body: BranchBody, service: Svc, caller: Who) -> dict[str, Any]:
    """Branch the game at the start of a turn or just after an event (`seq`, mid-turn too), play other actions there,
    and optionally the rest with a bot.

    With the game's table token or the admin token, the branch plays on with the game's recorded deal, and the
    answer holds its tokens: a seat's each, and its table's. With a seat's token it is that seat's what-if: the cards
    the seat could not see are dealt again from its view (from `seed` if given: the same seed, the same cards), so
    the line tells nothing of the real deal; it is kept as a recipe (`GET /games/{id}/whatifs/{n}`) and has no
    tokens. No token is refused (401), another game's too (403)."""
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


# --- The append routes' fast path ----------------------------------------------------------------------------------

_APPEND = re.compile(r"/games/([0-9]{1,18})/(actions|events)")
_JSON = b"application/json"
_HEADERS = [(b"content-type", _JSON), (b"x-content-type-options", b"nosniff")]
_ANSWER: TypeAdapter[dict[str, Any]] = TypeAdapter(dict[str, Any])


class FastAppends:
    """The two routes every move of every game goes through (POST /games/ID/actions and /events), answered before
    FastAPI's routing, dependencies and middleware, which cost more per request than the rest of its handling.

    Only a request the routes would accept is answered here: its body a JSON object within the limits that the
    route's model accepts, sent as `Content-Type: application/json`, with no query. It gets exactly what the route
    would give it: the same check of its token (in the writer), the same answer or error JSON and status, and
    `nosniff`. Every other request (a malformed body, a token in the address, anything odd) is handed to the full
    application with its body as received, for the full application's own answer. The routes stay declared above:
    they are what /docs describes, and what answers whatever this does not take.
    """

    def __init__(self, app: ASGIApp, service: Service) -> None:
        self.app = app
        self.service = service
        self.limit = service.settings.max_body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        found = None
        if scope["type"] == "http" and scope["method"] == "POST" and not scope["query_string"]:
            found = _APPEND.fullmatch(scope["path"])
        if found is None:
            await self.app(scope, receive, send)
            return
        content_type = authorization = length = None
        for name, value in scope["headers"]:  # the first of each, as Starlette's Headers.get reads them
            if name == b"content-type":
                content_type = value if content_type is None else content_type
            elif name == b"authorization":
                authorization = value if authorization is None else authorization
            elif name == b"content-length":
                length = value if length is None else length
        if content_type is None or content_type.lower() != _JSON or (length is not None and not length.isdigit()):
            await self.app(scope, receive, send)
            return
        if length is not None and int(length) > self.limit:
            await self.app(scope, receive, send)
            return
        received: list[Message] = []
        body = b""
        while True:
            message = await receive()
            received.append(message)
            if message["type"] != "http.request":
                await self._hand_over(received, scope, receive, send)
                return
            body += message.get("body", b"")
            if len(body) > self.limit:
                await self._hand_over(received, scope, receive, send)
                return
            if not message.get("more_body", False):
                break
        job = self._job(found[2], int(found[1]), body, authorization)
        if job is None:
            await self._hand_over(received, scope, receive, send)
            return
        status, headers, answer = await self._answer(job, scope["path"])
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": answer})

    def _job(self, route: str, game_id: int, body: bytes, authorization: bytes | None) -> Future[Any] | None:
        """The write the request asks for, handed to the writer; None if the full application must answer it."""
        # A body's depth is at most its count of brackets: only one with many pays the exact count.
        if body.count(b"[") + body.count(b"{") > MAX_DEPTH and nesting(body) > MAX_DEPTH:
            return None
        try:
            parsed = orjson.loads(body)  # where orjson and json.loads differ (NaN, surrogates), orjson refuses
            model = (ActionBody if route == "actions" else EventsBody).model_validate(parsed)
        except (orjson.JSONDecodeError, ValidationError):
            return None
        caller = Caller(None if authorization is None else bearer(authorization.decode("latin-1")))
        try:
            if isinstance(model, ActionBody):
                return writing.act(self.service, caller, game_id, model, now=True)
            return writing.write_events(self.service, caller, game_id, model, now=True)
        except Exception as error:  # refused before it reached the writer: answered as any refusal
            refused: Future[Any] = Future()
            refused.set_exception(error)
            return refused

    async def _answer(self, job: Future[Any], path: str) -> tuple[int, list[tuple[bytes, bytes]], bytes]:
        """The status, headers and body of the answer to a write, once it is committed or refused."""
        try:
            # Written on the loop's thread (the writer was idle): done already, no hop through the loop's queue.
            answer = _encoded(job.result() if job.done() else await asyncio.wrap_future(job))
        except LoomError as error:
            response = loom_error_response(error, self.service.db.path)
            return response.status_code, [*response.raw_headers, _HEADERS[1]], bytes(response.body)
        except Exception:
            response = internal_error("POST", path)
            return response.status_code, [*response.raw_headers, _HEADERS[1]], bytes(response.body)
        return 200, [(b"content-length", str(len(answer)).encode()), *_HEADERS], answer

    async def _hand_over(self, received: list[Message], scope: Scope, receive: Receive, send: Send) -> None:
        """Let the full application answer, its body read again from the messages already received."""
        waiting = iter(received)

        async def again() -> Message:
            return next(waiting, None) or await receive()

        await self.app(scope, again, send)


def _encoded(answer: dict[str, Any]) -> bytes:
    """The JSON of an answer: by orjson, or as FastAPI encodes it where orjson cannot (a set, a key not a string)."""
    try:
        return orjson.dumps(answer)
    except TypeError:
        return _ANSWER.dump_json(answer)
