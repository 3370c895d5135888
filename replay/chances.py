"""Win chances: each seat's chance to win from a position, estimated by playing the rest out many times with a bot.

Every rollout first draws anew what nobody has seen (`determinize` with no seat: a simulated game's recorded deck
order; a table game's unseen cards are drawn at random as play goes on anyway), then every seat plays on with the
bot, each from its own view. A shared victory counts as a share. Rollout i of a position is seeded by (seed, the
position's key, i) alone, and rollouts run in a process pool (or on a Dask cluster), so the estimate is the same
whatever the number of workers.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from random import Random
from typing import Any

from loom.engine.play import MAX_TURNS
from loom.engine.protocol import CHANCE_TO_MOVE, Game
from loom.engine.registry import get_bot, get_game
from loom.engine.search import shares, step
from loom.events.base import LoomError
from loom.replay.workers import in_order, worker_pool

Z95 = 1.96
"""The normal quantile of a two-sided 95% interval."""
Mapper = Callable[[Callable[[Any], Any], list[Any]], list[Any]]
"""Runs a function on every item of a list, somewhere (a Dask cluster: replay/cluster.py), its results in order."""


@dataclass(frozen=True, slots=True)
class Chances:
    """Each seat's estimated chance to win, the half-width of its 95% interval, and how it was estimated."""

    chance: tuple[float, ...]
    margin: tuple[float, ...]
    rollouts: int
    bot: str


def rollout(game: Game, state: Any, bot: str, seed: str) -> list[float]:
    """One game played out from `state` with `bot` in every seat: each seat's share of the victory."""
    rng = Random(seed)
    state = game.determinize(state, None, rng)
    while game.to_move(state) == CHANCE_TO_MOVE:
        state = game.apply(state, game.chance(state, rng))
    seats = range(len(game.scores(state)))
    bots = {seat: get_bot(game, bot) for seat in seats}
    bot_rngs = {seat: Random(f"{seed}/bot/{seat}") for seat in seats}
    for _ in range(MAX_TURNS * 50):
        mover = game.to_move(state)
        if mover is None:
            return shares(game, state)
        view = game.view(state, mover)
        state = step(game, state, bots[mover].choose(view, game.legal_actions(view), bot_rngs[mover]), rng)
    raise RuntimeError(f"{game.name}: a rollout did not end")


def estimate(game: Game, state: Any, outcomes: Sequence[Sequence[float]], bot: str) -> Chances:
    """The mean share of each seat over the outcomes, with a 95% normal interval from their spread. A finished
    position needs no rollout: its winners have chance 1 (or their share), exactly."""
    if game.to_move(state) is None:
        won = shares(game, state)
        return Chances(tuple(won), (0.0,) * len(won), 0, bot)
    count = len(outcomes)
    chance, margin = [], []
    for seat_outcomes in zip(*outcomes):
        mean = sum(seat_outcomes) / count
        spread = math.sqrt(sum((x - mean) ** 2 for x in seat_outcomes) / (count - 1)) if count > 1 else 1.0
        chance.append(mean)
        margin.append(Z95 * spread / math.sqrt(count))
    return Chances(tuple(chance), tuple(margin), count, bot)


def _seed(seed: int, key: int, index: int) -> str:
    return f"loom/chances/{seed}/{key}/{index}"


def _rollouts(job: tuple[str, Any, str, int, int, int, int]) -> list[list[float]]:
    """Rollouts lo..hi-1 of one position (run in a worker process)."""
    name, state, bot, seed, key, lo, hi = job
    game = get_game(name)
    return [rollout(game, state, bot, _seed(seed, key, index)) for index in range(lo, hi)]


def win_chances_of(
    game: Game,
    positions: Sequence[tuple[int, Any]],
    *,
    rollouts: int,
    bot: str,
    seed: int = 0,
    workers: int = 1,
    mapper: Mapper | None = None,
) -> list[Chances]:
    """The win chances of each (key, state) position: `rollouts` rollouts each, split over `workers` processes (or
    run by `mapper` on a cluster of `workers` workers). The key seeds a position's rollouts: positions given the same
    key are compared on the same random numbers."""
    get_bot(game, bot)  # an unknown bot is refused before anything runs
    if rollouts < 1:
        raise LoomError(f"--rollouts is the number of games played out per position, at least 1; not {rollouts}")
    live = [number for number, (_, state) in enumerate(positions) if game.to_move(state) is not None]
    parts = max(1, min(rollouts, math.ceil(4 * workers / max(len(live), 1))))
    size = math.ceil(rollouts / parts)
    jobs = [(number, lo, min(lo + size, rollouts)) for number in live for lo in range(0, rollouts, size)]
    work = [(game.name, positions[number][1], bot, seed, positions[number][0], lo, hi) for number, lo, hi in jobs]
    if mapper is not None:
        results = mapper(_rollouts, work)
    elif workers > 1 and len(work) > 1:
        with worker_pool(min(workers, len(work))) as pool:
            results = list(in_order(pool, _rollouts, work, len(work)))
    else:
        results = [_rollouts(job) for job in work]
    outcomes: dict[int, list[list[float]]] = {}
    for (number, _, _), result in zip(jobs, results):
        outcomes.setdefault(number, []).extend(result)
    return [estimate(game, state, outcomes.get(number, []), bot) for number, (_, state) in enumerate(positions)]


def win_chances(
    game: Game, state: Any, *, rollouts: int, bot: str, seed: int = 0, workers: int = 1, mapper: Mapper | None = None
) -> Chances:
    """Each seat's chance to win from `state`, by `rollouts` games played out with `bot`."""
    return win_chances_of(game, [(0, state)], rollouts=rollouts, bot=bot, seed=seed, workers=workers, mapper=mapper)[0]
