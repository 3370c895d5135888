"""The link between two processes of one server: calls and their answers over a Unix socket, in both directions.

Each message is a length and a pickle of (id, kind, arguments); id 0 asks for no answer, and an answer is kind
`""` with (ok, value). Both ends are this program, on this machine, over a socket pair nobody else holds, so
pickle is safe here, and it carries game states and Loom's errors as they are. Messages that arrive together are
taken in one turn of the loop, in their order, and those sent in one turn leave in one write.
"""

from __future__ import annotations

import asyncio
import logging
import pickle
import struct
from collections.abc import Awaitable, Callable
from concurrent.futures import Future
from typing import Any

log = logging.getLogger("loom.service")

_LENGTH = struct.Struct("<I")
_ANSWER = ""

Handler = Callable[..., Any]
"""What answers one kind of call: its value (or an awaitable of it), or it raises; on the loop's thread."""


class LinkClosed(ConnectionError):
    """The other process is gone (its answers will not come)."""


class Link(asyncio.Protocol):
    """One end of the link."""

    def __init__(self, handlers: dict[str, Handler], closed: Callable[[], None] = lambda: None) -> None:
        self._handlers = handlers
        self._closed = closed
        self._buffer = bytearray()
        self._outgoing = bytearray()
        self._waiting: dict[int, Callable[[bool, Any], None]] = {}
        self._next = 0
        self.transport: asyncio.Transport | None = None

    @classmethod
    async def over(cls, sock: Any, handlers: dict[str, Handler], closed: Callable[[], None] = lambda: None) -> Link:
        """The link over a connected Unix socket, served on the running loop."""
        link = cls(handlers, closed)
        await asyncio.get_running_loop().connect_accepted_socket(lambda: link, sock)
        return link

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def connection_lost(self, exc: Exception | None) -> None:
        self.transport = None
        waiting, self._waiting = self._waiting, {}
        for answer in waiting.values():
            answer(False, LinkClosed("the server's other process stopped"))
        self._closed()

    def data_received(self, data: bytes) -> None:
        buffer = self._buffer
        buffer += data
        at, end = 0, len(buffer)
        messages = []
        while end - at >= _LENGTH.size:
            (length,) = _LENGTH.unpack_from(buffer, at)
            if end - at - _LENGTH.size < length:
                break
            at += _LENGTH.size
            messages.append(pickle.loads(buffer[at : at + length]))
            at += length
        del buffer[:at]
        for message in messages:
            self._take(*message)

    def call(self, kind: str, *args: Any) -> asyncio.Future[Any]:
        """Ask the other end; its answer (or its error, raised)."""
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()

        def answer(ok: bool, value: Any) -> None:
            if not future.done():
                future.set_result(value) if ok else future.set_exception(value)

        if self.transport is None:
            answer(False, LinkClosed("the server's other process stopped"))
            return future
        self._next += 1
        self._waiting[self._next] = answer
        self._send(self._next, kind, args)
        return future

    def call_threadsafe(self, loop: asyncio.AbstractEventLoop, kind: str, *args: Any) -> Future[Any]:
        """`call` from any thread (the link's loop given): a future of the answer that any thread may wait on."""

        async def called() -> Any:
            return await self.call(kind, *args)

        return asyncio.run_coroutine_threadsafe(called(), loop)

    def tell(self, kind: str, *args: Any) -> None:
        """Tell the other end, no answer wanted (nothing if it is gone)."""
        if self.transport is not None:
            self._send(0, kind, args)

    def _send(self, number: int, kind: str, args: tuple[Any, ...]) -> None:
        """Queue a message: those of one turn of the loop leave in one write (one system call, one wake-up)."""
        data = pickle.dumps((number, kind, args), pickle.HIGHEST_PROTOCOL)
        if not self._outgoing:
            asyncio.get_running_loop().call_soon(self._flush)
        self._outgoing += _LENGTH.pack(len(data))
        self._outgoing += data

    def _flush(self) -> None:
        outgoing, self._outgoing = self._outgoing, bytearray()
        if self.transport is not None:
            self.transport.write(outgoing)

    def _take(self, number: int, kind: str, args: tuple[Any, ...]) -> None:
        if kind == _ANSWER:
            answer = self._waiting.pop(number, None)
            if answer is not None:
                answer(*args)
            return
        try:
            value = self._handlers[kind](*args)
        except Exception as error:
            self._answer(number, False, error)
            return
        if isinstance(value, Awaitable):
            asyncio.ensure_future(self._answer_later(number, value))
        else:
            self._answer(number, True, value)

    async def _answer_later(self, number: int, value: Awaitable[Any]) -> None:
        try:
            result = await value
        except Exception as error:
            self._answer(number, False, error)
            return
        self._answer(number, True, result)

    def _answer(self, number: int, ok: bool, value: Any) -> None:
        if number and self.transport is not None:
            try:
                self._send(number, _ANSWER, (ok, value))
            except Exception as error:  # an answer that does not pickle: a bug, said as one
                log.exception("cannot send an answer over the link")
                self._send(number, _ANSWER, (False, RuntimeError(f"unsendable answer: {error}")))
