"""Driving a game: record checked events with their actor and turn, let chance act, play out with bots.

Everything here is pure: the caller passes the random generator, and gets the new state and the events.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from random import Random
from typing import Any, Protocol

from loom.engine.protocol import CHANCE_TO_MOVE, AnyGame, Bot
from loom.engine.state import maker
from loom.events.base import IllegalAction, Payload

MAX_TURNS = 10_000
"""A game that has not ended after this many turns is a rules bug, not a long game."""


@dataclass(frozen=True, slots=True)
class Step:
    """An event before the store numbers it."""

    turn: int
    actor: int | None
    payload: Payload


_step = maker(Step)
"""`Step(turn, actor, payload)` at half the cost: `record` makes one per event."""


class Watcher(Protocol):
    """Told of every decision and event as a game is played, to keep projections without folding it again."""

    def decided(self, turn: int, seat: int, choices: int) -> None:
        """`seat` chose one of `choices` legal actions in `turn`."""
        ...

    def recorded(self, before: Any, step: Step, after: Any) -> None:
        """The event `step` took the game from `before` to `after`."""
        ...


def chance_rng(seed: int, seq: int) -> Random:
    """The generator for chance from event `seq` on, fixed by the game's recorded seed."""
    return Random(f"loom/{seed}/{seq}")


def record(game: AnyGame, state: Any, payload: Payload) -> tuple[Any, Step]:
    """Check that `payload` may come next, and give the state after it with the event's turn and actor."""
    mover = game.to_move(state)
    if mover is None:
        raise IllegalAction("the game is over")
    by_chance = payload.BY_CHANCE
    if by_chance:
        if mover != CHANCE_TO_MOVE:
            raise IllegalAction(f"{payload.TYPE} is chance's, but seat {mover} is to act")
    elif mover == CHANCE_TO_MOVE:
        raise IllegalAction(f"{payload.TYPE} is a player's, but chance must act first")
    game.check(state, payload)
    step = _step(game.next_turn(state, by_chance), None if by_chance else mover, payload)
    return game.apply(state, payload), step


def settle(game: AnyGame, state: Any, rng: Random, steps: list[Step], watcher: Watcher | None = None) -> Any:
    """Let chance act until a seat is to move or the game is over; append its events to `steps`."""
    while game.to_move(state) == CHANCE_TO_MOVE:
        before = state
        state, step = record(game, state, game.chance(state, rng))
        steps.append(step)
        if watcher is not None:
            watcher.recorded(before, step, state)
    return state


def first_player(players: int, rng: Random) -> int:
    """The index in the line-up of the player who starts, chosen at random (T3); seat 0 is theirs."""
    return rng.randrange(players)


def seated(lineup: Sequence[Any], first: int) -> list[Any]:
    """The line-up in turn order from its player `first`: seats are numbered from 0 in turn order."""
    return [*lineup[first:], *lineup[:first]]


def start(game: AnyGame, players: Sequence[str], rng: Random) -> tuple[Any, list[Step]]:
    """A new game with `players` in seat order: the setup events and the first chance, ready for seat 0."""
    state, steps = game.blank(), []
    for payload in game.setup(players, rng):
        state, step = record(game, state, payload)
        steps.append(step)
    return settle(game, state, rng, steps), steps


def act(game: AnyGame, state: Any, action: Any, rng: Random, watcher: Watcher | None = None) -> tuple[Any, list[Step]]:
    """The seat to move takes `action`; then chance acts. Refused with the reason if illegal."""
    mover = game.to_move(state)
    if mover is None:
        raise IllegalAction("the game is over")
    if mover == CHANCE_TO_MOVE:
        raise IllegalAction("chance must act before any seat")
    steps: list[Step] = []
    for payload in game.resolve(state, action, rng):
        before = state
        state, step = record(game, state, payload)
        steps.append(step)
        if watcher is not None:
            watcher.recorded(before, step, state)
    return settle(game, state, rng, steps, watcher), steps


def play_out(
    game: AnyGame,
    state: Any,
    bots: Mapping[int, Bot],
    rng: Random,
    bot_rngs: Mapping[int, Random],
    observe: Callable[[Any, list[Step]], None] | None = None,
    watcher: Watcher | None = None,
) -> tuple[Any, list[Step]]:
    """Play until the end, each seat's bot deciding from that seat's view only.

    `observe(state, steps)` is told the state after each action, with the steps so far (to keep snapshots
    without folding the game again); `watcher` is told of every decision and event.
    """
    steps: list[Step] = []
    state = settle(game, state, rng, steps, watcher)
    while (seat := game.to_move(state)) is not None:
        turn = game.next_turn(state, False)
        if turn > MAX_TURNS:
            raise RuntimeError(f"{game.name} did not end within {MAX_TURNS} turns")
        view = game.view(state, seat)
        legal = game.legal_actions(view)
        action = bots[seat].choose(view, legal, bot_rngs[seat])
        if watcher is not None:
            watcher.decided(turn, seat, len(legal))
        state, more = act(game, state, action, rng, watcher)
        steps.extend(more)
        if observe is not None:
            observe(state, steps)
    return state, steps
