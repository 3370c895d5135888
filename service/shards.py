"""Serving appends from more than one process: the primary's side (`logs serve --processes N`).

One process runs the interpreter's code one thread at a time: a server in one process answers its appends on one
core, whatever the machine has. With `--processes N`, the primary (this process: the file, the journal, its mover,
the projector, every read and every other write) starts N - 1 shards (service/shard.py), each a process that checks
and answers appends on a core of its own:

- The primary accepts every connection and deals them out in turn, itself included: a shard is handed the socket
  (SCM_RIGHTS over a socket pair) and serves it from then on.
- A game's appends are checked by the process that holds its live state (service/owners.py): the first to append to
  a game nobody holds takes it (a shard asks the primary for its position); a request for a game another process
  holds is forwarded to it over the link (service/link.py) and answered as that process answers it.
- A shard writes the appends it answers to a journal of its own (`<db>.journal.1`), as the primary writes its own;
  the primary's mover reads it and moves it into DuckDB with its own (replay/journal.py), a read on the primary
  first waits for every record written there before it, and a game passes between processes only once its
  appends are moved: `kill -9` of either process loses nothing acknowledged, and opening the file moves in both.
- Every other request a shard gets (reads, pages, new games, branches) it passes to the primary over a Unix socket.

A shard's appends reach a live stream of their game on the primary when its mover next looks at the shard's
journal (every `journal.SYNC` seconds), not at once.

A shard that stops (a crash, `kill -9`) is replaced: the games it held go back to the primary at once (read from
the journals and the file), its journal is moved in to its last whole record and removed, and a new shard of the
same number starts with a fresh one and is dealt connections once it is ready (at most once every `RESPAWN_GAP`
seconds, so a shard that cannot start does not take the primary's time starting it again and again).
"""

from __future__ import annotations

import asyncio
import errno
import logging
import os
import shutil
import socket
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any

from loom.events.base import LoomError
from loom.replay.live import dealt_by_loom
from loom.service import writing
from loom.service.context import Service
from loom.service.link import Link
from loom.service.owners import moving
from loom.service.settings import Settings

log = logging.getLogger("loom.service")

STOP_WAIT = 10.0
"""Seconds the primary waits for its shards to end their own requests when it stops, before it ends them."""
RESPAWN_GAP = 5.0
"""Seconds at least between the starts of a shard and of the one that replaces it."""


@dataclass
class _Shard:
    index: int
    process: Any  # multiprocessing's Process (its context's own class)
    link_end: socket.socket  # the primary's end of the link
    fds: socket.socket  # the primary's end of the socket pair that connections are handed over
    link: Link | None = None
    ready: bool = False
    gone: asyncio.Event = field(default_factory=asyncio.Event)
    started: float = field(default_factory=time.monotonic)


class Shards:
    """The primary's shards: started, dealt connections, answered over their links, stopped."""

    def __init__(self, service: Service, count: int) -> None:
        self.service, self.db = service, service.db
        self.count = count
        service.forward = self.forward
        self.folder = tempfile.mkdtemp(prefix="loom-serve-")  # 0700: the primary's socket for the shards' requests
        self.proxy_path = os.path.join(self.folder, "primary.sock")
        self._shards: list[_Shard] = []
        self._turn = 0
        self._stopping = False
        self._loop: asyncio.AbstractEventLoop | None = None
        self._listener: socket.socket | None = None
        self._accepting: Callable[[], asyncio.Protocol] | None = None
        self._spawn: Callable[[int, str], _Shard] | None = None
        self._replacing: set[asyncio.Task[None]] = set()

    def start(self, settings: Settings, secret: bytes) -> None:
        """Start the shard processes (from the main thread: the forkserver, and so every shard it starts, is born
        ignoring Ctrl-C; the primary stops them)."""
        from loom.replay.workers import start_forkserver
        from loom.service import shard

        context = start_forkserver([shard.__name__])
        journal = self.db.journal
        if journal is None:
            raise LoomError("a server of more than one process needs a file of its own, with its journal")
        journal.ask_cut = self._ask_cut
        journal.shard_appended = self.service.hub.appended

        def spawn(index: int, path: str) -> _Shard:
            link_end, their_link = socket.socketpair()
            fds, their_fds = socket.socketpair()
            process = context.Process(  # type: ignore[attr-defined]
                target=shard.main,
                args=(settings, secret, their_link, their_fds, self.proxy_path, path, journal.fsync),
                name=f"loom-shard-{index}",
                daemon=True,
            )
            process.start()
            their_link.close()
            their_fds.close()
            fds.setblocking(False)
            return _Shard(index, process, link_end, fds)

        self._spawn = spawn
        self._shards = [spawn(index, str(journal.follow(index))) for index in range(1, self.count)]

    async def serve(self, listener: socket.socket, protocol: Callable[[], asyncio.Protocol]) -> None:
        """Take the listening socket's connections (on the running loop), each served by the next process in turn
        (`protocol` makes the primary's own), and answer the shards' calls."""
        loop = self._loop = asyncio.get_running_loop()
        self._listener, self._accepting = listener, protocol
        for shard in self._shards:
            await self._link(shard)
        listener.setblocking(False)
        loop.add_reader(listener.fileno(), self._accept)

    async def _link(self, shard: _Shard) -> None:
        shard.link = await Link.over(shard.link_end, self._handlers(shard), closed=lambda: self._gone(shard))

    def _close_listener(self) -> None:
        """Take no more connections (the first step of stopping)."""
        if self._listener is not None and self._loop is not None:
            self._loop.remove_reader(self._listener.fileno())
            self._listener.close()
            self._listener = None

    async def stop(self) -> None:
        """Ask each shard to stop (it answers the requests it has, over its link), and wait for it."""
        self._stopping = True
        self._close_listener()
        for task in self._replacing:  # a shard that would start again (its process, if started, ends with its link)
            task.cancel()
        await asyncio.gather(*self._replacing, return_exceptions=True)
        told = []  # a shard not yet linked never hears it: it is ended below
        for shard in self._shards:
            if shard.link is not None:
                shard.link.tell("stop")
                told.append(shard)
        for shard in told:
            try:
                await asyncio.wait_for(shard.gone.wait(), STOP_WAIT)
            except TimeoutError:
                log.warning("serving process %d did not stop in %.0f s; ended", shard.index, STOP_WAIT)
        for shard in self._shards:
            await asyncio.to_thread(_end, shard.process)

    def close(self) -> None:
        """Free what the shards used (after `stop`, or if serving never began)."""
        for shard in self._shards:
            _end(shard.process)
            shard.fds.close()
            shard.link_end.close()
        shutil.rmtree(self.folder, ignore_errors=True)

    def forward(self, process: int, route: str, game_id: int, body: bytes, token: str | None) -> Future[Any]:
        """An append for a game shard `process` holds, answered there (from any thread): its answer, or its error."""
        link = self._shards[process - 1].link
        assert self._loop is not None
        if link is None:
            refused: Future[Any] = Future()
            refused.set_exception(moving(game_id))
            return refused
        return link.call_threadsafe(self._loop, "append", route, game_id, body, token)

    def _handlers(self, shard: _Shard) -> dict[str, Callable[..., Any]]:
        db, journal = self.db, self.db.journal
        assert journal is not None  # a served file has one
        process = shard.index

        def ready() -> None:
            shard.ready = True

        async def take(game_id: int) -> tuple[Any, Any, bool] | None:
            return await asyncio.to_thread(self._hand, game_id, process)

        def release(game_id: int) -> None:
            db.owners.release(game_id, process)

        async def append(route: str, game_id: int, body: bytes, token: str | None) -> Any:
            relayed = writing.forwarded(self.service, route, game_id, body, token, relay=True)
            return await asyncio.wrap_future(relayed)

        return {"ready": ready, "take": take, "release": release, "append": append}

    def _ask_cut(self, shard: int, generation: int) -> None:
        """The mover moved a shard's journal past its size (on its thread): the shard is to start a fresh file."""
        loop, link = self._loop, self._shards[shard - 1].link
        if loop is not None and link is not None:
            loop.call_soon_threadsafe(link.tell, "cut", generation)

    def _hand(self, game_id: int, process: int) -> tuple[Any, Any, bool] | None:
        at = self.db.hand(game_id, process)
        if at is None:
            return None
        return at.info, at.state, dealt_by_loom(self.db.reader(game_id), game_id)

    def _gone(self, shard: _Shard) -> None:
        shard.link, shard.ready = None, False
        shard.gone.set()
        games = self.db.owners.drop(shard.index)
        if not self._stopping and self._loop is not None:
            log.warning("serving process %d stopped; its %d game(s) go back to the primary", shard.index, len(games))
            task = self._loop.create_task(self._replace(shard))
            self._replacing.add(task)  # the loop holds a task weakly
            task.add_done_callback(self._replacing.discard)

    async def _replace(self, gone: _Shard) -> None:
        """Start a shard in the place of one that stopped, its journal moved in first."""
        journal, spawn = self.db.journal, self._spawn
        assert journal is not None and spawn is not None
        await asyncio.sleep(gone.started + RESPAWN_GAP - time.monotonic())
        if self._stopping:
            return
        await asyncio.to_thread(_end, gone.process)
        gone.fds.close()
        gone.link_end.close()
        try:
            path = await asyncio.to_thread(journal.refollow, gone.index)
        except (LoomError, OSError) as error:  # the store far behind its journals, a full disk: the primary alone
            log.warning("serving process %d is not replaced: %s", gone.index, error)
            return
        if self._stopping:
            return
        shard = await asyncio.to_thread(spawn, gone.index, str(path))
        self._shards[gone.index - 1] = shard
        await self._link(shard)
        if self._stopping:  # stopped while it started: `stop` did not see it
            assert shard.link is not None
            shard.link.tell("stop")
            return
        log.warning("serving process %d started again", gone.index)

    def _accept(self) -> None:
        listener, loop, protocol = self._listener, self._loop, self._accepting
        assert listener is not None and loop is not None and protocol is not None
        while True:
            try:
                conn, _ = listener.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError as error:  # out of descriptors, say: the client retries; the server goes on
                if error.errno not in (errno.ECONNABORTED, errno.EPROTO):
                    log.warning("cannot accept a connection: %s", error.strerror)
                return
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            if self._hand_over(conn):
                conn.close()  # the shard holds its own descriptor of it
                continue
            conn.setblocking(False)
            loop.create_task(loop.connect_accepted_socket(protocol, conn))

    def _hand_over(self, conn: socket.socket) -> bool:
        """Give the connection to the next shard in turn, if its turn is not the primary's; whether it was given."""
        # One turn each, the primary's included: though it also moves the shards' journals in and answers the
        # reads, giving each shard two turns to its one made fewer appends/s at 8 clients (3,323-3,700 against
        # 3,455-4,161, alternating runs): the mover reads a shard's records whole, at little cost.
        turns = [None, *(s for s in self._shards if s.ready)]
        self._turn = (self._turn + 1) % len(turns)
        shard = turns[self._turn]
        if shard is None:
            return False
        try:
            socket.send_fds(shard.fds, [b"c"], [conn.fileno()])
        except OSError:  # its queue is full or it is gone: served here
            return False
        return True


def _end(process: Any) -> None:
    process.join(1.0)
    if process.is_alive():
        process.kill()
        process.join()
