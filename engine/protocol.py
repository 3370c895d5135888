"""What every game provides to the store, the replayer, the bots and the command line."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from random import Random
from typing import Any, Generic, Protocol, TypeVar

from loom.events.base import Payload

CHANCE_TO_MOVE = -1
"""`to_move` of a position in which chance acts next (a refill, a reshuffle, a deal)."""

HIDDEN = -1
"""A card the viewer cannot see, in a state returned by `view`."""

S = TypeVar("S")
"""A game's state: a frozen dataclass."""
A = TypeVar("A")
"""A game's action: a small frozen value."""

Fact = tuple[int | None, str, str, int]
"""A notable fact of one event for the dashboards: (seat or None, kind, key, value)."""

REPORT_SECTIONS = frozenset({"points-by-source", "objectives", "token-race", "products", "card-wins", "zones"})
"""The kinds of figure a game may ask the report for, beyond those every game has (dashboards draws them)."""


class Bot(Protocol):
    """Chooses one of the legal actions, seeing only its own seat's view."""

    def choose(self, view: Any, legal: Sequence[Any], rng: Random) -> Any: ...


@dataclass(frozen=True, slots=True)
class Tuning:
    """How one game's decisions are searched and its playouts played and scored (`engine/search.py`)."""

    budget: int = 50  # playouts per decision when `mcts` is asked for without a number
    candidates: int = 6  # the greedy bot's best actions that are searched
    policy: str = "greedy"  # the game's bot that plays the playouts
    explore: float = 0.1  # its chance of playing a random legal action instead, so playouts differ
    horizon: int = 30  # decisions played out before an unfinished game is scored
    spread: float = 4.0  # points: a lead of this much at the end makes the chance to win e (2.7) times larger
    blend: float = 0.5  # the weight of that chance against the share of a finished game's victory
    confidence: float = 1.0  # standard errors by which a candidate must beat the greedy bot's choice to be played
    seconds: float = 0.0  # when above 0, a time budget per decision in place of `budget` iterations
    exploration: float = 0.7  # UCB1's constant below the root (rewards in [0, 1]; Cowling, Powley and Whitehouse's)
    widening: float = 0.5  # a node below the root visited n times may have 1 + widening * sqrt(n) children
    policy_replies: bool = False  # the others' moves below the root: the light policy's from their view in each world
    observed: bool = False  # the searcher's own nodes below the root told apart by what it has seen there (its view)
    promise: float = 0.0  # the weight of the game's `promise` in the points that score an unfinished playout (0: off)
    value: bool = False  # an unfinished playout scored by the game's `value` (its chances to win), not its points
    options: bool = False  # the root's candidates: the greedy bot's best of each distinct option first (`Game.option`)


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)  # one object per game: equal only to itself, hashable
class Game(Generic[S, A]):
    """The rules of one game, over its state type S and action type A. Every function is pure.

    A game lives in a package `engine/<name>/` whose `__init__` builds `GAME`, a `Game[State, Action]` naming each
    of its functions, so mypy checks every one against the types here. Its events live in `events/<name>.py` and
    are registered when the package is imported; how it is drawn for a person is its `render` module
    (`engine/presentation.py`). Conventions the rest of Loom relies on:
    - The first setup event is the game's subclass of `events.base.GameStarted`: `players` (names in seat order;
      seat 0 moves first) and `seed` (the seed of chance that the log does not fix; None in a hand-written log,
      where import draws one).
    - States are frozen dataclasses whose fields are plain values, tuples and nested tuples (no sets or dicts), so
      a snapshot stores them as JSON and reads them back as equal states (`replay/snapshots.py`).
    - Actions are small frozen values; `parse_action`/`action_json` give their JSON form, `{"type": ..., ...}`.

    The functions are instance attributes, not methods: `game.apply(state, event)` costs what a call of the module
    function costs (replay calls `apply` once per event).
    """

    name: str
    """The game's name on the command line and in the store."""
    title: str
    min_players: int
    max_players: int
    state_type: type[S]
    """The state class; called with no arguments it is the state before the first event."""
    bots: Mapping[str, Callable[[], Bot]]
    """The game's own bots by name; each value makes a new bot."""

    setup: Callable[[Sequence[str], Random], list[Payload]]
    """The opening chance events of a new game with these players in turn order."""
    check: Callable[[S, Payload], None]
    """Raise `IllegalAction` with the reason if the event cannot happen next in the state."""
    apply: Callable[[S, Payload], S]
    """The state after a checked event; never mutates the state."""
    to_move: Callable[[S], int | None]
    """The seat to act, `CHANCE_TO_MOVE`, or None when the game is over."""
    next_turn: Callable[[S, bool], int]
    """The turn that the next event belongs to, by chance (True) or by the seat to move (0 is the setup)."""
    legal_actions: Callable[[S], list[A]]
    """The actions of the seat to move, in a deterministic order; works on a seat's view too."""
    resolve: Callable[[S, A, Random], list[Payload]]
    """The events that an action of the seat to move produces; the rng decides only what the log does not fix."""
    chance: Callable[[S, Random], Payload]
    """The next chance event, when `to_move` is `CHANCE_TO_MOVE`."""
    view: Callable[[S, int], S]
    """The state as a seat may know it: hidden cards are `HIDDEN`."""
    determinize: Callable[[S, int | None, Random], S]
    """A full state consistent with the state as the seat sees it (its view): each card hidden from the seat dealt
    at random from the cards it has not seen, the deck's order (when the game knows one) shuffled. With the seat
    None, the state is a full state and only what no seat has seen (the deck's order, ...) is drawn anew. Every
    seat's view of the result is that seat's view of the state."""
    scores: Callable[[S], list[int]]
    """Points per seat."""
    winners: Callable[[S], list[int]]
    """The winning seats of a finished game (several on a shared victory)."""
    breakdown: Callable[[S], list[dict[str, int]]]
    """Points per seat by source, for the results projection."""
    facts: Callable[[S, Payload, S], tuple[Fact, ...]]
    """The notable facts of one event (before, event, after) for the dashboards, often none."""
    describe: Callable[[S], dict[str, Any]]
    """The state as readable JSON (card names, hidden cards as null)."""
    parse_action: Callable[[Any], A]
    """An action from its JSON form; `IllegalAction` if it is not one of this game's."""
    action_json: Callable[[A], dict[str, Any]]
    """The JSON form of an action."""

    rules_version: int = 1
    search: Tuning = field(default_factory=Tuning)
    """How the search bot plays this game."""
    promise: Callable[[S], list[float]] | None = None
    """Points each seat's holdings promise beyond its score, read from a full state (the search's determinization,
    dealt from the searcher's view): added, weighted by `Tuning.promise`, to the scores of an unfinished playout's end.
    None: the game has no such evaluation, and a playout's end is scored by its points alone."""
    value: Callable[[S], list[float]] | None = None
    """Each seat's chance to win an unfinished game, read from a full state (the search's determinization, dealt
    from the searcher's view); they add up to 1. With `Tuning.value`, it scores an unfinished playout's end in place
    of the softmax of the points. None: the game has no such evaluation."""
    option: Callable[[A], Any] | None = None
    """What an action decides beyond how it is carried out (Moirai: draw, take pile 2, keep card 17, wherever the
    cards go): with `Tuning.options`, the search's root covers the distinct options before variants of one. None:
    every action is an option of its own."""
    report: tuple[str, ...] = ()
    """The figures of this game's report section beyond those every game has, in order (`REPORT_SECTIONS`)."""

    def __post_init__(self) -> None:
        unknown = set(self.report) - REPORT_SECTIONS
        if unknown:
            raise ValueError(f"{self.title}: no report section {sorted(unknown)}")

    def blank(self) -> S:
        """The state before the first event."""
        return self.state_type()


AnyGame = Game[Any, Any]
"""A game whose state and action types do not matter to the code that takes it."""
