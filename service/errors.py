"""Every failure as a JSON body `{"error": "one clear line"}` with the right status code, never a stack trace."""

from __future__ import annotations

import logging
import re
from typing import Any

import numpy as np
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from loom.engine.registry import BadBudget, UnknownBot, UnknownGame
from loom.events.base import MAX_DEPTH as LINE_DEPTH
from loom.events.base import IllegalAction, LoomError, MalformedEvent
from loom.replay.branches import BadSeed
from loom.replay.replay import OutOfRange
from loom.replay.store import StoreError, UnknownGameId
from loom.service.access import Forbidden, SeatNotFound, Unauthorized

log = logging.getLogger("loom.service")


class PagesMissing(LoomError):
    """The dashboards package is not installed with this server (503)."""


class Conflict(LoomError):
    """An append that expected another sequence number than the game's (409); `seq` is the game's."""

    def __init__(self, message: str, seq: int) -> None:
        super().__init__(message)
        self.seq = seq

    def __reduce__(self) -> tuple[type[Conflict], tuple[str, int]]:  # sent whole between a server's processes
        return Conflict, (str(self), self.seq)


STATUS: tuple[tuple[type[LoomError], int], ...] = (
    (UnknownGameId, 404),
    (SeatNotFound, 404),
    (OutOfRange, 404),
    (Unauthorized, 401),
    (Forbidden, 403),
    (UnknownGame, 422),
    (UnknownBot, 422),
    (BadBudget, 422),
    (BadSeed, 422),
    (IllegalAction, 422),
    (MalformedEvent, 422),
    (StoreError, 503),
    (PagesMissing, 503),
)
"""Each of Loom's errors and its status; the first that matches counts, any other LoomError is a 400."""


def error_body(message: str, **more: Any) -> dict[str, Any]:
    """The JSON of every error response."""
    return {"error": message, **more}


def status_of(error: LoomError) -> int:
    """The HTTP status of one of Loom's errors."""
    return next((status for kind, status in STATUS if isinstance(error, kind)), 400)


def loom_error_response(error: LoomError, db_path: str) -> JSONResponse:
    """The answer to one of Loom's errors (the handler's, and the append routes' fast path's)."""
    if isinstance(error, Conflict):
        return JSONResponse(error_body(str(error), seq=error.seq), status_code=409)
    headers = {"WWW-Authenticate": "Bearer"} if isinstance(error, Unauthorized) else None
    # The store names its file in some messages; where the server keeps it is none of a client's business.
    message = str(error).replace(f" in {db_path}", "")
    return JSONResponse(error_body(message), status_code=status_of(error), headers=headers)


def internal_error(method: str | None, path: str | None) -> JSONResponse:
    """Log the exception being handled; the JSON 500 that answers it."""
    log.exception("unexpected error on %s %s", method, path)
    return JSONResponse(error_body("internal error; the server's log has the details"), 500)


def _loom_error(request: Request, error: Exception) -> JSONResponse:
    assert isinstance(error, LoomError)
    return loom_error_response(error, request.app.state.service.db.path)


def _where(location: tuple[Any, ...]) -> str:
    return ".".join(str(part) for part in location) or "the request"


def _invalid(request: Request, error: Exception) -> JSONResponse:
    assert isinstance(error, RequestValidationError)
    first: dict[str, Any] = dict(error.errors()[0]) if error.errors() else {"loc": (), "msg": "invalid request"}
    if first.get("type") == "json_invalid":
        reason = first.get("ctx", {}).get("error", "invalid JSON")
        return JSONResponse(error_body(f"the body is not JSON: {reason}"), status_code=400)
    location = tuple(first.get("loc", ()))
    if location == ("body",):
        return JSONResponse(error_body("the body must be a JSON object (Content-Type: application/json)"), 422)
    message = f"{_where(location)}: {first.get('msg', 'invalid')}"
    return JSONResponse(error_body(message), status_code=422)


def _http(request: Request, error: Exception) -> JSONResponse:
    assert isinstance(error, HTTPException)
    message = error.detail if isinstance(error.detail, str) else str(error.detail)
    if error.status_code == 404 and message == "Not Found":
        message = f"no such page: {request.method} {request.url.path}"
    if error.status_code == 405:
        message = f"{request.method} is not allowed on {request.url.path}"
    return JSONResponse(error_body(message), status_code=error.status_code, headers=error.headers)


def install(app: FastAPI) -> None:
    """Register the handlers that turn every error into a JSON body."""
    app.add_exception_handler(LoomError, _loom_error)
    app.add_exception_handler(RequestValidationError, _invalid)
    app.add_exception_handler(HTTPException, _http)


MAX_DEPTH = LINE_DEPTH + 2
"""Levels of arrays and objects a body may nest: its log lines, two levels down (`{"events": [...]}`), as deep as a
log file's. The parsers recurse once per level, so a body nested hundreds deep would end in a RecursionError
instead of a refusal."""
_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.S)
_NOT_BRACKET = re.compile(rb"[^\[\]{}]")


def nesting(body: bytes) -> int:
    """How deep the arrays and objects of a JSON text nest (its strings skipped), counted without parsing it."""
    brackets = np.frombuffer(_NOT_BRACKET.sub(b"", _STRING.sub(b"", body)), dtype=np.uint8)
    if not brackets.size:
        return 0
    steps = np.where((brackets == ord("[")) | (brackets == ord("{")), 1, -1)
    return int(np.cumsum(steps).max())


class BodyLimit:
    """Refuse a request body longer than `limit` bytes with 413 before the application reads any of it, and one
    nested deeper than MAX_DEPTH with 422 before any parser recurses into it."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope["headers"]).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.limit:
            await self._refuse(send)
            return
        body, more = bytearray(), True
        while more:  # the service's bodies are small: hold them whole, counting
            message = await receive()
            if message["type"] != "http.request":
                break
            body += message.get("body", b"")
            more = message.get("more_body", False)
            if len(body) > self.limit:
                await self._refuse(send)
                return
        if nesting(bytes(body)) > MAX_DEPTH:
            reason = f"the body nests arrays and objects more than {MAX_DEPTH} levels deep, the limit"
            await self._refuse(send, 422, reason)
            return
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": bytes(body), "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    async def _refuse(self, send: Send, status: int = 413, message: str | None = None) -> None:
        message = message or f"the body is larger than the limit of {self.limit} bytes"
        response = JSONResponse(error_body(message), status)
        await send({"type": "http.response.start", "status": status, "headers": response.raw_headers})
        await send({"type": "http.response.body", "body": response.body})


class CatchAll:
    """Answer any other exception with a JSON 500 and log it, keeping the connection (Starlette's own handler
    re-raises, and uvicorn then drops the connection)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        started = False

        async def sending(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, sending)
        except Exception:
            if scope["type"] != "http" or started:
                log.exception("unexpected error on %s %s", scope.get("method"), scope.get("path"))
                raise
            await internal_error(scope.get("method"), scope.get("path"))(scope, receive, send)
