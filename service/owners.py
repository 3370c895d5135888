"""Which process of a server holds the live state of each game being appended to.

A server may serve from more than one process (`logs serve --processes N`, service/shards.py). Appends to a game are
checked against its live state, so one process at a time may take them: the one that holds the game. The primary
(process 0, which holds the file) keeps this table; a game nobody holds is read from the store by whoever takes it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from loom.replay.store import StoreError

PRIMARY = 0


class Elsewhere(Exception):
    """A game another process holds: its appends are that process's to check (a request is forwarded there)."""

    def __init__(self, game_id: int, process: int) -> None:
        super().__init__(f"game {game_id} is held by process {process}")
        self.game_id, self.process = game_id, process


def moving(game_id: int) -> StoreError:
    """The answer to an append caught as its game passes between processes (a 503: the client tries again)."""
    return StoreError(f"game {game_id} is moving between the server's processes; try again")


class Owners:
    """Who holds each game. `changed` is told of every game that passes to or from another process than the
    primary, under the table's lock: the primary drops what it kept of it, which that process will change."""

    def __init__(self, changed: Callable[[int], None] = lambda game_id: None) -> None:
        self._of: dict[int, int] = {}
        self._changed = changed
        self.lock = threading.RLock()
        self.changes = 0  # how many times a game passed to or from another process: a read began before one is stale

    def of(self, game_id: int) -> int | None:
        """The process that holds the game; None if none does."""
        return self._of.get(game_id)

    def take(self, game_id: int, process: int) -> int:
        """Give the game to `process` unless another holds it; the one that holds it now."""
        with self.lock:
            holder = self._of.setdefault(game_id, process)
            if holder == process != PRIMARY:
                self._moved(game_id)
            return holder

    def release(self, game_id: int, process: int) -> None:
        """`process` lets the game go (if it holds it)."""
        with self.lock:
            if self._of.get(game_id) == process:
                del self._of[game_id]
                if process != PRIMARY:
                    self._moved(game_id)

    def drop(self, process: int) -> list[int]:
        """Every game `process` holds let go (it stopped); their ids."""
        with self.lock:
            games = [game_id for game_id, holder in self._of.items() if holder == process]
            for game_id in games:
                self.release(game_id, process)
            return games

    def _moved(self, game_id: int) -> None:
        self.changes += 1
        self._changed(game_id)
