"""Running the service with uvicorn: in the foreground for `logs serve`, or in a thread for the tests."""

from __future__ import annotations

import asyncio
import functools
import gc
import logging
import queue
import re
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from logging.handlers import QueueHandler, QueueListener
from types import FrameType
from typing import Any, cast
from urllib.parse import unquote_plus

import click
import uvicorn
from uvicorn.logging import AccessFormatter
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from loom.engine.registry import playable
from loom.events.base import LoomError
from loom.replay.workers import Stopped
from loom.service.app import serving_app
from loom.service.context import Service
from loom.service.settings import Settings, check
from loom.service.shards import Shards

GRACE = 2
"""Seconds the server waits for open requests when it stops, before it cancels them."""


class TunedServer(uvicorn.Server):
    """uvicorn's server, run with the interpreter tuned for serving and the access log written off the loop."""

    def __init__(self, config: uvicorn.Config) -> None:
        super().__init__(config)
        self.access_log = AccessLog.start()

    def run(self, sockets: list[socket.socket] | None = None) -> None:
        with _tuned_interpreter():
            try:
                super().run(sockets)
            finally:
                self.access_log.stop()


class LoomServer(TunedServer):
    """The server, which also ends the live streams when asked to stop (they would otherwise hold it open); with
    shards, it takes the connections itself and deals them out (service/shards.py)."""

    def __init__(self, config: uvicorn.Config, service: Service, shards: Shards | None = None) -> None:
        super().__init__(config)
        self.service = service
        self.shards = shards

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        shards = self.shards
        if shards is None:
            await super().startup(sockets)
            return
        await super().startup(sockets=[])  # the application's start; no listener of uvicorn's own
        config, loop = self.config, asyncio.get_running_loop()
        protocol = functools.partial(
            config.http_protocol_class,  # type: ignore[call-arg]
            config=config,
            server_state=self.server_state,
            app_state=self.lifespan.state,
        )

        def unlogged() -> asyncio.Protocol:  # the shards' requests: each is in the access log of the shard it came to
            made = protocol()
            made.access_log = False  # type: ignore[attr-defined]
            return cast(asyncio.Protocol, made)

        self.servers.append(await loop.create_unix_server(unlogged, path=shards.proxy_path))
        family = socket.AF_INET6 if ":" in config.host else socket.AF_INET
        listener = socket.create_server((config.host, config.port), family=family, backlog=config.backlog)
        await shards.serve(listener, cast(Callable[[], asyncio.Protocol], protocol))
        self._log_started_message([listener])

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        if self.shards is not None:
            await self.shards.stop()  # they answer what they have (their appends through this loop), then end
        await super().shutdown(sockets)

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        self.service.hub.close()
        super().handle_exit(sig, frame)

    def stop(self) -> None:
        """Stop from another thread."""
        self.service.hub.close()
        self.should_exit = True

    def close(self) -> None:
        """Close the database, and end the shards if any are left (after `run`)."""
        try:
            self.service.close()
        finally:
            if self.shards is not None:
                self.shards.close()


SWITCH = 0.001
"""Seconds a thread holds the interpreter's lock before it must offer it (Python's default: 0.005). The event loop
gives the lock up at every system call (the journal's write, waiting for the sockets); a busy background thread (the
mover, the projector) that takes it then keeps it for a whole interval, during which no request is answered."""
GC_THRESHOLDS = (100_000, 50, 100)
"""The garbage collector's thresholds while serving (Python's default: 700, 10, 10). Each request allocates a few
hundred objects: with the default, a young collection runs every few requests and a full one, over every state
kept in memory, every few hundred; about a fifth of an append's CPU on the event loop. The appends the journal
holds until the mover takes them (a few thousand objects each 50 ms) kept a young generation of 20,000 filling:
7.5 ms a collection, 4-5 us an append. With 100,000, one collection in 50,000 appends (43 ms), as caches grow."""


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

    def __init__(self, lines: queue.SimpleQueue[Any], *handlers: logging.Handler) -> None:
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
            access = logging.getLogger("uvicorn.access")
            plain = _plain_lines(access, self.handlers)
            if plain is not None:  # uvicorn's default access log: each line written as its formatter writes it
                _write_lines(self.handlers[0], [plain(line) for line in batch])
            else:
                records = []
                for record in batch:
                    if isinstance(record, tuple):  # a line `_QuickAccess` handed over: made into its record here
                        record = _record(access, *record)
                        if not access.filter(record):  # the logger's filters (HideTokens), as its handle() runs
                            continue
                    if record is not None:
                        records.append(record)
                for handler in self.handlers:
                    _emit_all(handler, records)
            if batch[-1] is None:
                return


ACCESS_LINE = '%s - "%s %s HTTP/%s" %d'
"""The message of uvicorn's access log record (the arguments: client, method, path, HTTP version, status)."""
ACCESS_FORMAT = '%(levelprefix)s %(client_addr)s - "%(request_line)s" %(status_code)s'
"""uvicorn's own format of its access log lines (its default logging configuration's)."""


def _plain_lines(access: logging.Logger, handlers: Sequence[logging.Handler]) -> Callable[[Any], str | None] | None:
    """If the access log is uvicorn's default (one plain StreamHandler with uvicorn's access formatter and format,
    no filter but `HideTokens`), the text its handler writes for a line handed over as (time, message, arguments):
    the same text, without a `LogRecord` made, filtered and copied twice on the way. None otherwise."""
    if len(handlers) != 1 or not all(type(f) is HideTokens for f in access.filters):
        return None
    handler = handlers[0]
    formatter = handler.formatter
    if (
        type(handler) is not logging.StreamHandler
        or handler.filters
        or handler.level > logging.INFO
        or type(formatter) is not AccessFormatter
        or type(formatter._style) is not logging.PercentStyle
        or formatter._fmt != ACCESS_FORMAT
    ):
        return None
    hiding = bool(access.filters)
    separator = " " * (8 - len("INFO"))
    prefix = (formatter.color_level_name("INFO", logging.INFO) if formatter.use_colors else "INFO") + ":" + separator
    statuses: dict[int, str] = {}

    def plain(line: tuple[float, str, tuple[Any, ...]] | logging.LogRecord | None) -> str | None:
        if isinstance(line, logging.LogRecord):  # made on the loop (the logger was busy elsewhere): filtered there
            return _formatted(handler, line)
        if line is None:
            return None
        created, msg, args = line
        if msg != ACCESS_LINE or len(args) != 5 or type(args[4]) is not int:
            record = _record(access, created, msg, args)
            return _formatted(handler, record) if access.filter(record) else None
        if hiding:
            args = tuple(hide_tokens(arg) if isinstance(arg, str) else arg for arg in args)
        client, method, path, version, code = args
        status = statuses.get(code)
        if status is None:
            status = statuses[code] = formatter.get_status_code(code)
        request_line = f"{method} {path} HTTP/{version}"
        if formatter.use_colors:
            request_line = click.style(request_line, bold=True)  # the same bytes as uvicorn's own styling
        return f'{prefix} {client} - "{request_line}" {status}'

    return plain


def _formatted(handler: logging.Handler, record: logging.LogRecord) -> str | None:
    """The record's text as the handler writes it; None if the handler does not take it (or fails to format it)."""
    if record.levelno < handler.level or not handler.filter(record):
        return None
    try:
        return handler.format(record)
    except Exception:
        handler.handleError(record)
        return None


def _write_lines(handler: logging.Handler, texts: list[str | None]) -> None:
    """Write the lines (None: not written) through a plain StreamHandler in one write and one flush."""
    assert isinstance(handler, logging.StreamHandler)
    lines = [text + handler.terminator for text in texts if text is not None]
    if not lines:
        return
    with handler.lock:  # type: ignore[union-attr]
        try:
            handler.stream.write("".join(lines))
            handler.flush()
        except Exception:
            handler.handleError(logging.makeLogRecord({"msg": lines[-1]}))


def _record(access: logging.Logger, created: float, msg: str, args: tuple[Any, ...]) -> logging.LogRecord:
    """The access log's record of a line handed over as (time, message, arguments)."""
    record = access.makeRecord(access.name, logging.INFO, "(unknown file)", 0, msg, args, None)
    record.created, record.msecs = created, (created - int(created)) * 1000
    return record


class _QuickAccess:
    """What uvicorn's protocol logs each request's line through (its `access_logger.info`): while the access log
    is written on its thread (the logger's one handler is `_Handing`, and it does not propagate), the line's time,
    message and arguments are queued as they are, and its record is made on that thread. A `logging.Logger` makes
    the record on the event loop, and looks up the calling frame for it (about 10 us a request). Otherwise (another
    handler added, a level changed), the logger as usual."""

    __slots__ = ("_logger",)

    def __init__(self, logger: logging.Logger) -> None:
        self._logger = logger

    def info(self, msg: str, *args: Any) -> None:
        logger = self._logger
        handlers = logger.handlers
        if len(handlers) == 1 and type(handlers[0]) is _Handing and not logger.propagate and not logger.disabled:
            if logger.isEnabledFor(logging.INFO):
                handlers[0].queue.put_nowait((time.time(), msg, args))  # type: ignore[arg-type]
            return
        logger.info(msg, *args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._logger, name)


def _emit_all(handler: logging.Handler, records: list[logging.LogRecord]) -> None:
    """Have `handler` write the records it takes: a plain StreamHandler's lines in one write and one flush (one
    system call for the lines of a batch, not one a line), any other handler one record at a time."""
    taken = [r for r in records if r.levelno >= handler.level and handler.filter(r)]
    if type(handler) is not logging.StreamHandler:
        for record in taken:
            handler.handle(record)
        return
    lines: list[str | None] = []
    for record in taken:
        try:
            lines.append(handler.format(record))
        except Exception:
            handler.handleError(record)
    _write_lines(handler, lines)


BATCH = 0.05
"""Seconds the access log gathers lines before it writes them."""


class AccessLog:
    """uvicorn's access log, written on a thread of its own: the event loop only hands each request's line over
    (formatting a line and writing it to the terminal took about a third of an append's time on the loop). The
    same lines, by the same handlers, in the same order, at most BATCH seconds later; the logger's filters
    (`HideTokens`) run on that thread before any handler sees a line. uvicorn's default access log (one plain
    StreamHandler, its formatter and format) gets its text without a `LogRecord` (`_plain_lines`)."""

    def __init__(self, handing: _Handing | None, handlers: list[logging.Handler], listener: QueueListener | None):
        self._handing, self._handlers, self._listener = handing, handlers, listener

    @classmethod
    def start(cls) -> AccessLog:
        """Put the access logger's handlers behind a queue (after uvicorn configured its logging)."""
        access = logging.getLogger("uvicorn.access")
        handlers = [handler for handler in access.handlers if not isinstance(handler, QueueHandler)]
        if not handlers or not access.isEnabledFor(logging.INFO):
            return cls(None, [], None)  # nothing is written (a test's server logs only warnings)
        lines: queue.SimpleQueue[Any] = queue.SimpleQueue()  # records, (time, message, arguments), None: stop
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


class _Coalesced:
    """A connection's transport whose writes within one turn of the event loop leave as one: uvicorn writes a
    response's head and its body in two calls, which were two system calls here and two wake-ups of the client.
    The bytes and their order are unchanged; closing sends what is waiting first."""

    __slots__ = ("_transport", "_loop", "_waiting")

    def __init__(self, transport: asyncio.Transport, loop: asyncio.AbstractEventLoop) -> None:
        self._transport, self._loop = transport, loop
        self._waiting: list[bytes] | None = None

    def write(self, data: bytes) -> None:
        if self._waiting is None:
            self._waiting = [data]
            self._loop.call_soon(self._flush)
        else:
            self._waiting.append(data)

    def writelines(self, lines: Iterable[bytes]) -> None:
        for data in lines:
            self.write(data)

    def _flush(self) -> None:
        waiting, self._waiting = self._waiting, None
        if waiting and not self._transport.is_closing():
            self._transport.write(waiting[0] if len(waiting) == 1 else b"".join(waiting))

    def close(self) -> None:
        self._flush()
        self._transport.close()

    def abort(self) -> None:
        self._waiting = None
        self._transport.abort()

    def is_closing(self) -> bool:
        return self._transport.is_closing()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)


class CoalescingHttp(HttpToolsProtocol):
    """uvicorn's httptools protocol, each connection's writes coalesced (`_Coalesced`)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.access_logger = cast(logging.Logger, _QuickAccess(self.access_logger))

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(cast(asyncio.Transport, _Coalesced(transport, self.loop)))


def _check_port(settings: Settings) -> None:
    """Refuse a port that is taken before anything starts, with one clear line."""
    family = socket.AF_INET6 if ":" in settings.host else socket.AF_INET
    with socket.socket(family) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((settings.host.strip("[]"), settings.port))
        except OSError as error:
            raise LoomError(f"cannot listen on {settings.host}:{settings.port}: {error.strerror}") from None


def server_for(settings: Settings, *, log_level: str = "info", processes: int = 1) -> LoomServer:
    """A server of the service, its settings checked, its port free and its database open; with `processes` > 1,
    its shards started (from the main thread)."""
    check(settings)
    if processes < 1:
        raise LoomError(f"a server runs in at least one process, not {processes}")
    _check_port(settings)
    playable()  # every game's engine imported now, not by the first request of its kind, on the event loop
    service = Service.open(settings)
    shards = None
    if processes > 1:
        shards = Shards(service, processes)
        try:
            shards.start(settings, service.keys.secret)
        except BaseException:
            shards.close()
            service.close()
            raise
    config = uvicorn.Config(
        serving_app(service),
        host=settings.host.strip("[]"),
        port=settings.port,
        log_level=log_level,
        timeout_graceful_shutdown=GRACE,
        lifespan="on",
        loop="uvloop",  # named, not "auto": the event loop and HTTP parser in C that the figures are measured on
        http=CoalescingHttp,  # httptools, each response in one write
        server_header=False,  # no `server: uvicorn` on every answer (Date, which HTTP asks for, stays)
    )
    hide_tokens_in_access_log()
    return LoomServer(config, service, shards)


def serve(server: LoomServer) -> None:
    """Serve until interrupted."""
    settings = server.service.settings
    try:
        server.run()
    except SystemExit:
        pass  # uvicorn exits when it cannot start; said below in one line
    except Stopped:
        # uvicorn stops gracefully on SIGTERM, then raises the signal again (the command's `fails_cleanly` makes
        # it `Stopped`): a stop asked for, which ends well once the file is closed; before serving, a stop as any
        if not server.started:
            raise
    finally:
        server.close()
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
            server.close()
            raise LoomError(f"the service did not start on {settings.host}:{settings.port}")
        time.sleep(0.01)
    try:
        yield f"http://{settings.host}:{settings.port}"
    finally:
        server.stop()
        thread.join(timeout)
