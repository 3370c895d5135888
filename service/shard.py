"""A shard of a server: a process that checks and answers the appends of the games it holds, on a core of its own
(service/shards.py has the whole design; this is the shard's side).

It does not open the database: a game's position comes from the primary when the shard takes the game, each append
is written to the shard's own journal before it is answered (the primary's mover moves it in), and every request
that is not an append is passed to the primary as it came (`Proxy`). It is born ignoring Ctrl-C, as the primary's
other workers: the primary stops it over the link, and it ends at once if the primary is gone (its link closed).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import socket
from collections import OrderedDict
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from pathlib import Path
from typing import Any, cast

import httpx
import uvicorn
from starlette.types import Receive, Scope, Send

from loom.replay.journal import ShardJournal
from loom.replay.store import GameInfo, Store
from loom.service import writing
from loom.service.access import Keys
from loom.service.api import FastAppends
from loom.service.committer import Job, Live, Staged
from loom.service.context import Service
from loom.service.database import LATEST, Database
from loom.service.hub import Hub
from loom.service.link import Link
from loom.service.owners import PRIMARY, Elsewhere
from loom.service.server import GRACE, CoalescingHttp, TunedServer, hide_tokens_in_access_log
from loom.service.settings import Settings

HOP_BY_HOP = frozenset({b"connection", b"keep-alive", b"transfer-encoding", b"te", b"trailer", b"upgrade"})


def main(
    settings: Settings,
    secret: bytes,
    link: socket.socket,
    fds: socket.socket,
    primary: str,
    journal: str,
    fsync: bool,
) -> None:
    """The shard's process (started by the primary's forkserver)."""
    db = ShardDatabase(settings.db, ShardJournal(Path(journal), fsync))
    service = Service(settings, cast(Database, db), Keys(secret, settings.admin_token), Hub())
    config = uvicorn.Config(
        FastAppends(Proxy(primary), service),
        log_level="info",
        timeout_graceful_shutdown=GRACE,
        lifespan="off",
        loop="uvloop",
        http=CoalescingHttp,
        server_header=False,
    )
    hide_tokens_in_access_log()
    ShardServer(config, service, db, link, fds).run()


class _Held(Live):
    """The live state of the games a shard holds, as a job sees it (the primary's writer has `committer.Live`)."""

    def __init__(self, db: ShardDatabase) -> None:
        super().__init__(cast(Store, None), db.held)
        self._db = db

    def dealt_by_loom(self, game_id: int) -> bool:
        return self._db.kept[game_id][2]


class ShardDatabase:
    """What a shard's appends need of a database: the positions of the games it holds, and its own journal."""

    def __init__(self, path: str, journal: ShardJournal) -> None:
        self.path = path
        self.journal = journal
        self.kept: OrderedDict[int, tuple[GameInfo, Any, bool]] = OrderedDict()  # game -> (row, state, dealt)
        self.taking: dict[int, asyncio.Future[None]] = {}  # game -> done once the primary answers its take
        self.link: Link | None = None

    def held(self, game_id: int) -> tuple[GameInfo, Any]:
        info, state, _ = self.kept[game_id]
        return info, state

    def submit(self, job: Job[Any], *, appends_to: int | None = None) -> Future[Any]:
        """Check an append to a game and write it to this shard's journal; its answer (done on return if the game
        is held). On the loop's thread. A game not held is taken first; one the primary holds fails with Elsewhere
        (to be forwarded)."""
        future: Future[Any] = Future()
        if appends_to is None:
            future.set_exception(RuntimeError("a shard takes appends to a named game only"))
        elif appends_to in self.kept and appends_to not in self.taking:
            self._write(job, appends_to, future)
        else:
            asyncio.ensure_future(self._when_free(job, appends_to, future))
        return future

    async def _when_free(self, job: Job[Any], game_id: int, future: Future[Any]) -> None:
        """`_write` once the game is held (taken from the primary, unless it holds it: then Elsewhere)."""
        try:
            while True:
                waiting = self.taking.get(game_id)
                if waiting is not None:
                    await waiting
                elif game_id in self.kept:
                    break
                elif not await self._take(game_id):
                    raise Elsewhere(game_id, PRIMARY)
        except BaseException as error:
            future.set_exception(error)
            return
        self._write(job, game_id, future)

    async def _take(self, game_id: int) -> bool:
        """Ask the primary for the game; whether this shard holds it now."""
        assert self.link is not None
        taking = self.taking[game_id] = asyncio.get_running_loop().create_future()
        try:
            taken = await self.link.call("take", game_id)
        finally:
            del self.taking[game_id]
            taking.set_result(None)
        if taken is not None:
            self._keep(game_id, taken)
        return taken is not None

    def _write(self, job: Job[Any], game_id: int, future: Future[Any]) -> None:
        """Check the append against the game's state, write it to this shard's journal, answer (on the loop)."""
        live = _Held(self)
        try:
            staged = job(live)
            if staged.write is not None or not staged.appends:
                raise RuntimeError("a shard's job writes appends only")
            self.journal.append(staged.appends)
        except BaseException as error:  # refused, or not journaled: nothing was kept
            future.set_exception(error)
            return
        dealt = self.kept[game_id][2]
        for info, state in live.played.values():
            self._keep(info.id, (info, state, dealt))
            if info.status == "finished":  # no more appends: let the primary have it
                self._let_go(info.id)
        _answer(future, staged)

    def _keep(self, game_id: int, held: tuple[GameInfo, Any, bool]) -> None:
        self.kept[game_id] = held
        self.kept.move_to_end(game_id)
        if len(self.kept) > LATEST:
            oldest = next(g for g in self.kept if g not in self.taking)
            self._let_go(oldest)

    def _let_go(self, game_id: int) -> None:
        if self.kept.pop(game_id, None) is not None and self.link is not None:
            self.link.tell("release", game_id)


def _answer(future: Future[Any], staged: Staged[Any]) -> None:
    try:
        future.set_result(staged.answer(None))
    except BaseException as error:
        future.set_exception(error)


class Proxy:
    """Every request the shard does not answer itself, passed to the primary as it came (over a Unix socket), and
    the primary's answer passed back as it comes: a page, a read, a live stream (until the client leaves)."""

    def __init__(self, primary: str) -> None:
        self.client = httpx.AsyncClient(transport=httpx.AsyncHTTPTransport(uds=primary), timeout=None)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        left = asyncio.Event()

        async def body() -> Any:
            while True:
                message = await receive()
                if message["type"] == "http.disconnect":
                    left.set()
                    return
                yield message.get("body", b"")
                if not message.get("more_body", False):
                    return

        url = httpx.URL(scheme="http", host="loom", raw_path=scope["raw_path"] + _query(scope))
        headers = [(name, value) for name, value in scope["headers"] if name not in HOP_BY_HOP]
        request = self.client.build_request(scope["method"], url, headers=headers, content=body())
        response = await self.client.send(request, stream=True)
        try:
            await send(
                {
                    "type": "http.response.start",
                    "status": response.status_code,
                    "headers": [(k, v) for k, v in response.headers.raw if k.lower() not in HOP_BY_HOP],
                }
            )
            relay = asyncio.ensure_future(self._relay(response, send))
            gone = asyncio.ensure_future(_left(receive, left))
            await asyncio.wait({relay, gone}, return_when=asyncio.FIRST_COMPLETED)
            for task in (relay, gone):
                task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await relay
        finally:
            await response.aclose()

    @staticmethod
    async def _relay(response: httpx.Response, send: Send) -> None:
        async for chunk in response.aiter_raw():
            await send({"type": "http.response.body", "body": chunk, "more_body": True})
        await send({"type": "http.response.body", "body": b""})


def _query(scope: Scope) -> bytes:
    query: bytes = scope["query_string"]
    return b"?" + query if query else b""


async def _left(receive: Receive, left: asyncio.Event) -> None:
    """Return when the client leaves (the request's body was read already)."""
    if left.is_set():
        return
    while (await receive())["type"] != "http.disconnect":
        pass


class ShardServer(TunedServer):
    """A server with no socket of its own: it serves the connections the primary hands it."""

    def __init__(
        self, config: uvicorn.Config, service: Service, db: ShardDatabase, link: socket.socket, fds: socket.socket
    ) -> None:
        super().__init__(config)
        self.service, self.db, self._link_socket, self._fds = service, db, link, fds

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield  # Ctrl-C is the primary's to act on; it stops this process over the link

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets=[])
        loop = asyncio.get_running_loop()
        self._protocol = functools.partial(
            self.config.http_protocol_class,  # type: ignore[call-arg]
            config=self.config,
            server_state=self.server_state,
            app_state=self.lifespan.state,
        )
        handlers: dict[str, Callable[..., Any]] = {
            "stop": self._stop,
            "append": self._forwarded,
            "cut": self.db.journal.cut,
        }
        self.db.link = await Link.over(self._link_socket, handlers, closed=self._primary_gone)
        self.service.forward = self._forward
        self._fds.setblocking(False)
        loop.add_reader(self._fds.fileno(), self._receive)
        self.db.link.tell("ready")

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        asyncio.get_running_loop().remove_reader(self._fds.fileno())
        await super().shutdown(sockets)

    def _stop(self) -> None:
        self.should_exit = True

    def _primary_gone(self) -> None:
        if not self.should_exit:
            os._exit(1)  # nothing it answers now could be journaled: its connections are dropped with it

    def _forward(self, process: int, route: str, game_id: int, body: bytes, token: str | None) -> Future[Any]:
        """An append of a game the primary holds, answered there (on this loop's thread, as every append here)."""
        link = self.db.link
        assert link is not None
        return link.call_threadsafe(asyncio.get_running_loop(), "append", route, game_id, body, token)

    async def _forwarded(self, route: str, game_id: int, body: bytes, token: str | None) -> Any:
        return await asyncio.wrap_future(writing.forwarded(self.service, route, game_id, body, token))

    def _receive(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            try:
                message, fds, _, _ = socket.recv_fds(self._fds, 64, 16)
            except (BlockingIOError, InterruptedError):
                return
            if not message:  # the primary closed its end
                loop.remove_reader(self._fds.fileno())
                return
            for fd in fds:
                conn = socket.socket(fileno=fd)
                conn.setblocking(False)
                loop.create_task(loop.connect_accepted_socket(self._protocol, conn))
