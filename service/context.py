"""What every request of a running server shares: its settings, its database, its keys and its hub."""

from __future__ import annotations

from dataclasses import dataclass

from fastapi import Request

from replay.live import service_secret
from replay.store import GameInfo
from service.access import Grant, Keys
from service.database import Database
from service.hub import Hub
from service.settings import Settings


@dataclass
class Service:
    """A running server's shared parts."""

    settings: Settings
    db: Database
    keys: Keys
    hub: Hub

    @classmethod
    def open(cls, settings: Settings) -> Service:
        """Open the database (creating it if needed) and read or make its secret."""
        db = Database(settings.db)
        try:
            with db.writer() as store:
                secret = service_secret(store)
        except BaseException:
            db.close()
            raise
        return cls(settings, db, Keys(secret, settings.admin_token), Hub())

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


def service_of(request: Request) -> Service:
    """The server's shared parts (a FastAPI dependency)."""
    return request.app.state.service  # type: ignore[no-any-return]


def caller_of(request: Request) -> Caller:
    """The request's token (a FastAPI dependency)."""
    header = request.headers.get("authorization", "")
    scheme, _, value = header.partition(" ")
    if scheme.lower() == "bearer" and value.strip():
        return Caller(value.strip())
    return Caller(request.query_params.get("token") or None)
