"""The FastAPI application: routes, error handlers, the body limit, and the database opened for its lifetime."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI
from starlette.types import ASGIApp

from loom.service import api, board, errors, pages, recorder
from loom.service.context import Service
from loom.service.headers import NoSniff

DESCRIPTION = """Record, replay and branch games of Motto, Moirai, Moorea and Stones of Fate as they are played.

A game is a stream of events checked by the rules. Creating one gives a token per seat and one for the table:
send it as `Authorization: Bearer TOKEN` (`?token=TOKEN` only where a browser sends no header: a page, the live
stream). A seat's token shows that seat's cards and plays for it; without a token only what every seat can see is
shown. Errors are JSON: `{"error": "..."}`.
"""


def create_app(service: Service) -> FastAPI:
    """The application of an opened service; the service is closed when the application stops.

    The database is opened before (`Service.open`), not at start-up, so that a locked or unreadable file is one
    clear error before any server starts.
    """

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        try:
            yield
        finally:
            service.close()

    # /docs and /redoc are board's, from files of its own: FastAPI's would load Swagger UI and ReDoc from a CDN.
    app = FastAPI(title="Loom", version="1", description=DESCRIPTION, lifespan=lifespan, docs_url=None, redoc_url=None)
    app.state.service = service
    errors.install(app)
    app.include_router(api.router)
    app.include_router(api.streams)
    app.include_router(pages.router)
    app.include_router(board.router)
    app.include_router(recorder.router)
    app.add_middleware(errors.CatchAll)
    app.add_middleware(errors.BodyLimit, limit=service.settings.max_body)
    app.add_middleware(NoSniff)
    return app


def serving_app(service: Service) -> ASGIApp:
    """What the server runs: the application, with the append routes answered on their fast path first."""
    return api.FastAppends(create_app(service), service)
