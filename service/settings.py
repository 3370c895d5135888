"""How a server runs: where, on which file, with which admin token and body limit; and the check before it starts."""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass

from loom.events.base import LoomError

MAX_BODY = 1_048_576
"""Bytes a request body may have: a whole table game's opening fits in a few kilobytes."""


@dataclass(frozen=True, slots=True)
class Settings:
    """A server's settings."""

    db: str
    host: str = "127.0.0.1"
    port: int = 8000
    admin_token: str | None = None
    max_body: int = MAX_BODY


def is_loopback(host: str) -> bool:
    """Whether `host` is only reachable from this machine."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check(settings: Settings) -> None:
    """Refuse to serve beyond this machine without an admin token, or with one too short to guess at."""
    if settings.admin_token is not None and len(settings.admin_token) < 16:
        raise LoomError("the admin token must be at least 16 characters long")
    if not is_loopback(settings.host) and settings.admin_token is None:
        raise LoomError(
            f"refusing to serve on {settings.host}, which other machines can reach, without an admin token; "
            "set --admin-token or LOGS_ADMIN_TOKEN"
        )
    if settings.max_body < 1024:
        raise LoomError("the body limit must be at least 1024 bytes")
