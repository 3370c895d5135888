"""What every request of a running server shares: its settings, its database, its keys and its hub."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any

from fastapi import Request

from loom.events.base import LoomError
from loom.replay.live import service_secret
from loom.replay.store import GameInfo
from loom.service.access import Grant, Keys
from loom.service.database import Database
from loom.service.hub import Hub
from loom.service.settings import Settings


@dataclass
class Service:
    """A running server's shared parts."""

    settings: Settings
    db: Database
    keys: Keys
    hub: Hub
    forward: Callable[[int, str, int, bytes, str | None], Future[Any]] | None = None
    """With more than one serving process: an append (its route, game, body and token) answered by the process that
    holds its game (service/shards.py)."""

    @classmethod
    def open(cls, settings: Settings) -> Service:
        """Open the database (creating it if needed) and read or make its secret."""
        hub = Hub()
        db = Database(settings.db, appended=hub.appended)
        try:
            secret = db.write(service_secret)
        except BaseException:
            db.close()
            raise
        return cls(settings, db, Keys(secret, settings.admin_token), hub)

    def close(self) -> None:
        """Wake the streams so they end, and close the database."""
        self.hub.close()
        self.db.close()


@dataclass(frozen=True, slots=True)
class Caller:
    """Who sent a request: the token it carried (Authorization: Bearer, or ?token= for pages and streams)."""

    token: str | None

    def grant(self, service: Service, info: GameInfo) -> Grant:
        """What the token allows on this game."""
        return service.keys.grant(self.token, info.id, info.players)


async def service_of(request: Request) -> Service:
    """The server's shared parts (a FastAPI dependency; async, as the others: none needs a thread of the pool)."""
    return request.app.state.service  # type: ignore[no-any-return]


class TokenInAddress(LoomError):
    """A token sent in the address of a route that takes it only in a header (400)."""


async def no_token_in_address(request: Request) -> None:
    """Refuse `?token=` (a FastAPI dependency of the JSON routes): an address ends up in access logs, proxies'
    logs and browser histories, so a token goes there only where a browser cannot send a header."""
    if "token" in request.query_params:
        raise TokenInAddress(
            "?token= is taken only by pages and the live stream, which a browser opens without headers; "
            "send the token as Authorization: Bearer TOKEN"
        )


def bearer(authorization: str) -> str | None:
    """The token of an Authorization header's value (`Bearer TOKEN`), if it holds one."""
    scheme, _, value = authorization.partition(" ")
    return value.strip() if scheme.lower() == "bearer" and value.strip() else None


def _bearer(request: Request) -> str | None:
    return bearer(request.headers.get("authorization", ""))


async def caller_of(request: Request) -> Caller:
    """The request's token, from its Authorization header (a FastAPI dependency)."""
    return Caller(_bearer(request))


async def browser_caller_of(request: Request) -> Caller:
    """The request's token, from its Authorization header or else `?token=` (a FastAPI dependency of the pages
    and the live stream, which a browser opens without headers: a link, an EventSource)."""
    return Caller(_bearer(request) or request.query_params.get("token") or None)
