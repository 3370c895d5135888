"""Live updates: streams waiting for a game's next events are woken by the append that writes them.

Appends run on worker threads, streams on the event loop; the loop is told with `call_soon_threadsafe`. Only
this process writes the file, so every new event passes through here.
"""

from __future__ import annotations

import asyncio
import threading
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager


class Subscription:
    """A stream's bell for one game. Subscribed before the stream reads, so no append falls between its read
    and its wait."""

    def __init__(self) -> None:
        self.loop = asyncio.get_running_loop()
        self.rung = asyncio.Event()

    async def wait(self, timeout: float) -> bool:
        """Wait until the bell rings or `timeout` seconds pass; whether it rang. It is silenced again."""
        try:
            await asyncio.wait_for(self.rung.wait(), timeout)
            return True
        except TimeoutError:
            return False
        finally:
            self.rung.clear()

    def ring(self) -> None:
        """Ring from any thread."""
        if not self.loop.is_closed():
            self.loop.call_soon_threadsafe(self.rung.set)


class Hub:
    """Who is waiting for which game."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._subscribers: dict[int, set[Subscription]] = defaultdict(set)
        self.closing = False

    @contextmanager
    def subscribe(self, game_id: int) -> Iterator[Subscription]:
        """A subscription to game `game_id`'s appends, for the length of the block."""
        subscription = Subscription()
        with self._lock:
            self._subscribers[game_id].add(subscription)
        try:
            yield subscription
        finally:
            with self._lock:
                self._subscribers[game_id].discard(subscription)
                if not self._subscribers[game_id]:
                    del self._subscribers[game_id]

    def appended(self, game_id: int) -> None:
        """Wake every stream of game `game_id`."""
        with self._lock:
            subscribers = list(self._subscribers.get(game_id, ()))
        for subscription in subscribers:
            subscription.ring()

    def close(self) -> None:
        """Wake every stream so that it ends: the server is stopping."""
        self.closing = True
        with self._lock:
            subscribers = [s for group in self._subscribers.values() for s in group]
        for subscription in subscribers:
            subscription.ring()
