"""Running the service with uvicorn: in the foreground for `logs serve`, or in a thread for the tests."""

from __future__ import annotations

import gc
import logging
import queue
import re
import socket
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from logging.handlers import QueueHandler, QueueListener
from types import FrameType
from urllib.parse import unquote_plus

import uvicorn

from loom.events.base import LoomError
from loom.service.app import serving_app
from loom.service.context import Service
from loom.service.settings import Settings, check

GRACE = 2
"""Seconds the server waits for open requests when it stops, before it cancels them."""


class LoomServer(uvicorn.Server):
    """uvicorn's server, which also ends the live streams when asked to stop (they would otherwise hold it open)."""

    def __init__(self, config: uvicorn.Config, service: Service) -> None:
        super().__init__(config)
        self.service = service
        self.access_log = AccessLog.start()

    def run(self, sockets: list[socket.socket] | None = None) -> None:
        with _tuned_interpreter():
            try:
                super().run(sockets)
            finally:
                self.access_log.stop()

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        self.service.hub.close()
        super().handle_exit(sig, frame)

    def stop(self) -> None:
        """Stop from another thread."""
        self.service.hub.close()
        self.should_exit = True


SWITCH = 0.001
"""Seconds a thread holds the interpreter's lock before it must offer it (Python's default: 0.005). The event loop
gives the lock up at every system call (the journal's write, waiting for the sockets); a busy background thread (the
mover, the projector) that takes it then keeps it for a whole interval, during which no request is answered."""
GC_THRESHOLDS = (20_000, 50, 100)
"""The garbage collector's thresholds while serving (Python's default: 700, 10, 10). Each request allocates a few
hundred objects: with the default, a young collection runs every few requests and a full one, over every state
kept in memory, every few hundred; about a fifth of an append's CPU on the event loop."""


@contextmanager
def _tuned_interpreter() -> Iterator[None]:
    """The switch interval and collector thresholds for serving, for the block; the objects made while starting
    (modules, the games' tables) frozen out of every collection."""
    switch, thresholds = sys.getswitchinterval(), gc.get_threshold()
    sys.setswitchinterval(SWITCH)
    gc.set_threshold(*GC_THRESHOLDS)
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()
        gc.set_threshold(*thresholds)
        sys.setswitchinterval(switch)


_PARAMETER = re.compile(r"(?P<key>[?&][^=&#\s]*)=(?P<value>[^&#\s]*)")


def hide_tokens(path: str) -> str:
    """The path with the value of every `token=` in its query blanked (`%74oken=` too, which reads the same)."""

    def blank(found: re.Match[str]) -> str:
        return f"{found['key']}=[hidden]" if unquote_plus(found["key"][1:]) == "token" else found[0]

    return _PARAMETER.sub(blank, path) if "=" in path else path  # most lines have no query: no search


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


class _Handing(QueueHandler):
    """Hands each record over as it is: formatting it is the writing thread's work, off the event loop. (The
    access log's arguments are strings and numbers, safe to read on another thread.)"""

    def prepare(self, record: logging.LogRecord) -> logging.LogRecord:
        return record


class _Batches(QueueListener):
    """A QueueListener that wakes once for the lines of the next moments, not once a line: a thread woken per
    request takes the interpreter's lock from the event loop each time."""

    def __init__(self, lines: queue.SimpleQueue[logging.LogRecord | None], *handlers: logging.Handler) -> None:
        super().__init__(lines, *handlers, respect_handler_level=True)
        self._lines = lines

    def _monitor(self) -> None:
        lines = self._lines
        while True:
            batch = [lines.get()]
            if batch[0] is not None:
                time.sleep(BATCH)  # meanwhile the loop only appends to the queue: no thread to wake
            while batch[-1] is not None:
                try:
                    batch.append(lines.get_nowait())
                except queue.Empty:
                    break
            for record in batch:
                if record is not None:
                    self.handle(record)
            if batch[-1] is None:
                return


BATCH = 0.05
"""Seconds the access log gathers lines before it writes them."""


class AccessLog:
    """uvicorn's access log, written on a thread of its own: the event loop only hands each request's record over
    (formatting a line and writing it to the terminal took about a third of an append's time on the loop). The
    same lines, by the same handlers, in the same order, at most BATCH seconds later; loggers' filters
    (`HideTokens`) still run first, on the loop."""

    def __init__(self, handing: _Handing | None, handlers: list[logging.Handler], listener: QueueListener | None):
        self._handing, self._handlers, self._listener = handing, handlers, listener

    @classmethod
    def start(cls) -> AccessLog:
        """Put the access logger's handlers behind a queue (after uvicorn configured its logging)."""
        access = logging.getLogger("uvicorn.access")
        handlers = [handler for handler in access.handlers if not isinstance(handler, QueueHandler)]
        if not handlers or not access.isEnabledFor(logging.INFO):
            return cls(None, [], None)  # nothing is written (a test's server logs only warnings)
        lines: queue.SimpleQueue[logging.LogRecord | None] = queue.SimpleQueue()
        handing = _Handing(lines)
        for handler in handlers:
            access.removeHandler(handler)
        access.addHandler(handing)
        listener = _Batches(lines, *handlers)
        listener.start()
        return cls(handing, handlers, listener)

    def stop(self) -> None:
        """Write what is queued, and give the logger its handlers back (unless another server configured it)."""
        if self._listener is None:
            return
        access = logging.getLogger("uvicorn.access")
        if self._handing in access.handlers:
            access.removeHandler(self._handing)
            for handler in self._handlers:
                access.addHandler(handler)
        self._listener.stop()
        self._listener = None


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
        serving_app(service),
        host=settings.host.strip("[]"),
        port=settings.port,
        log_level=log_level,
        timeout_graceful_shutdown=GRACE,
        lifespan="on",
        loop="uvloop",  # named, not "auto": the event loop and HTTP parser in C that the figures are measured on
        http="httptools",
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
