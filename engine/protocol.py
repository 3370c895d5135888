"""What every game provides to the store, the replayer, the bots and the command line."""

from __future__ import annotations

from collections.abc import Sequence
from random import Random
from typing import Any, ClassVar, Protocol

from rich.console import RenderableType

from events.base import Payload

CHANCE_TO_MOVE = -1
"""`to_move` of a position in which chance acts next (a refill, a reshuffle, a deal)."""

HIDDEN = -1
"""A card the viewer cannot see, in a state returned by `view`."""


class Bot(Protocol):
    """Chooses one of the legal actions, seeing only its own seat's view."""

    def choose(self, view: Any, legal: Sequence[Any], rng: Random) -> Any: ...


class Game(Protocol):
    """The rules of one game. Every method is pure.

    A game lives in a package `engine/<name>/` whose `__init__` exposes `GAME`, an object with these members made
    by `engine.binding.bind_game` from its rules modules; its events live in `events/<name>.py` and are registered
    when the package is imported. Conventions the rest of Loom
    relies on:
    - The first setup event has the fields `players` (names in seat order; seat 0 moves first) and `seed` (the seed
      of chance that the log does not fix; None in a hand-written log, where import draws one).
    - States are frozen dataclasses whose fields are plain values, tuples and nested tuples (no sets or dicts), so
      a snapshot stores them as JSON and reads them back as equal states (`replay/snapshots.py`).
    - Actions are small frozen values; `parse_action`/`action_json` give their JSON form, `{"type": ..., ...}`.
    """

    name: ClassVar[str]
    title: ClassVar[str]
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    rules_version: ClassVar[int]
    bots: ClassVar[dict[str, type[Bot]]]
    state_type: ClassVar[type]

    def setup(self, players: Sequence[str], rng: Random) -> list[Payload]:
        """The opening chance events of a new game with these players in turn order."""
        ...

    def blank(self) -> Any:
        """The state before the first event."""
        ...

    def check(self, state: Any, payload: Payload) -> None:
        """Raise `IllegalAction` with the reason if `payload` cannot happen next in `state`."""
        ...

    def apply(self, state: Any, payload: Payload) -> Any:
        """The state after `payload` (a checked event); never mutates `state`."""
        ...

    def to_move(self, state: Any) -> int | None:
        """The seat to act, `CHANCE_TO_MOVE`, or None when the game is over."""
        ...

    def next_turn(self, state: Any, by_chance: bool) -> int:
        """The turn that the next event belongs to, by chance or by the seat to move (0 is the setup)."""
        ...

    def legal_actions(self, state: Any) -> list[Any]:
        """The actions of the seat to move, in a deterministic order; works on a seat's view too."""
        ...

    def resolve(self, state: Any, action: Any, rng: Random) -> list[Payload]:
        """The events that `action` of the seat to move produces; `rng` decides only what the log does not fix."""
        ...

    def chance(self, state: Any, rng: Random) -> Payload:
        """The next chance event, when `to_move` is `CHANCE_TO_MOVE`."""
        ...

    def view(self, state: Any, seat: int) -> Any:
        """The state as `seat` may know it: hidden cards are `HIDDEN`."""
        ...

    def determinize(self, state: Any, seat: int | None, rng: Random) -> Any:
        """A full state consistent with `state` as `seat` sees it (its view): each card hidden from the seat dealt at
        random from the cards it has not seen, the deck's order (when the game knows one) shuffled. With `seat`
        None, `state` is a full state and only what no seat has seen (the deck's order, ...) is drawn anew.
        Every seat's view of the result is that seat's view of `state`."""
        ...

    def scores(self, state: Any) -> list[int]:
        """Points per seat."""
        ...

    def winners(self, state: Any) -> list[int]:
        """The winning seats of a finished game (several on a shared victory)."""
        ...

    def breakdown(self, state: Any) -> list[dict[str, int]]:
        """Points per seat by source, for the results projection."""
        ...

    def facts(self, before: Any, payload: Payload, after: Any) -> tuple[tuple[int | None, str, str, int], ...]:
        """The notable facts of one event for the dashboards: (seat or None, kind, key, value), often none."""
        ...

    def render(self, state: Any, seat: int | None) -> RenderableType:
        """The table drawn for a person; `seat` is the viewer (None: omniscient)."""
        ...

    def describe(self, state: Any) -> dict[str, Any]:
        """The state as readable JSON (card names, hidden cards as null)."""
        ...

    def parse_action(self, data: Any) -> Any:
        """An action from its JSON form; `IllegalAction` if it is not one of this game's."""
        ...

    def action_json(self, action: Any) -> dict[str, Any]:
        """The JSON form of an action."""
        ...
