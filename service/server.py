"""Running the service with uvicorn: in the foreground for `logs serve`, or in a thread for the tests."""

from __future__ import annotations

import logging
import re
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType
from urllib.parse import unquote_plus

import uvicorn

from loom.events.base import LoomError
from loom.service.app import create_app
from loom.service.context import Service
from loom.service.settings import Settings, check

GRACE = 2
"""Seconds the server waits for open requests when it stops, before it cancels them."""


class LoomServer(uvicorn.Server):
    """uvicorn's server, which also ends the live streams when asked to stop (they would otherwise hold it open)."""

    def __init__(self, config: uvicorn.Config, service: Service) -> None:
        super().__init__(config)
        self.service = service

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        self.service.hub.close()
        super().handle_exit(sig, frame)

    def stop(self) -> None:
        """Stop from another thread."""
        self.service.hub.close()
        self.should_exit = True


_PARAMETER = re.compile(r"(?P<key>[?&][^=&#\s]*)=(?P<value>[^&#\s]*)")


def hide_tokens(path: str) -> str:
    """The path with the value of every `token=` in its query blanked (`%74oken=` too, which reads the same)."""

    def blank(found: re.Match[str]) -> str:
        return f"{found['key']}=[hidden]" if unquote_plus(found["key"][1:]) == "token" else found[0]

    return _PARAMETER.sub(blank, path)


class HideTokens(logging.Filter):
    """Keeps tokens out of uvicorn's access log, which prints each request's path with its query: a page or a
    stream opened with `?token=` would otherwise leave the token to whoever reads the log."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple):
            record.args = tuple(hide_tokens(arg) if isinstance(arg, str) else arg for arg in record.args)
        return True


def hide_tokens_in_access_log() -> None:
    """Install `HideTokens` on uvicorn's access logger (after uvicorn configures its logging); once."""
    access = logging.getLogger("uvicorn.access")
    if not any(isinstance(known, HideTokens) for known in access.filters):
        access.addFilter(HideTokens())


def _check_port(settings: Settings) -> None:
    """Refuse a port that is taken before anything starts, with one clear line."""
    family = socket.AF_INET6 if ":" in settings.host else socket.AF_INET
    with socket.socket(family) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((settings.host.strip("[]"), settings.port))
        except OSError as error:
            raise LoomError(f"cannot listen on {settings.host}:{settings.port}: {error.strerror}") from None


def server_for(settings: Settings, *, log_level: str = "info") -> LoomServer:
    """A server of the service, its settings checked, its port free and its database open."""
    check(settings)
    _check_port(settings)
    service = Service.open(settings)
    config = uvicorn.Config(
        create_app(service),
        host=settings.host.strip("[]"),
        port=settings.port,
        log_level=log_level,
        timeout_graceful_shutdown=GRACE,
        lifespan="on",
    )
    hide_tokens_in_access_log()
    return LoomServer(config, service)


def serve(server: LoomServer) -> None:
    """Serve until interrupted."""
    settings = server.service.settings
    try:
        server.run()
    except SystemExit:
        pass  # uvicorn exits when it cannot start; said below in one line
    finally:
        server.service.close()
    if not server.started:
        raise LoomError(f"the server did not start on {settings.host}:{settings.port}")


def free_port(host: str = "127.0.0.1") -> int:
    """A port nobody listens on now."""
    with socket.socket() as probe:
        probe.bind((host, 0))
        return int(probe.getsockname()[1])


@contextmanager
def running(settings: Settings, *, timeout: float = 20.0, log_level: str = "warning") -> Iterator[str]:
    """The service running in a thread of this process for the block; its base URL."""
    server = server_for(settings, log_level=log_level)
    thread = threading.Thread(target=server.run, name="loom-service", daemon=True)
    thread.start()
    deadline = time.monotonic() + timeout
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            server.service.close()
            raise LoomError(f"the service did not start on {settings.host}:{settings.port}")
        time.sleep(0.01)
    try:
        yield f"http://{settings.host}:{settings.port}"
    finally:
        server.stop()
        thread.join(timeout)
