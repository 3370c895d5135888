"""The search bot before issue 16, kept for the benchmarks only (bench/ismcts.py plays it against the new one): a
one-level search by determinization whose candidates compete by successive halving. It is not Monte Carlo tree
search: there is no tree below the root's candidates, and no selection rule (UCT) spends the playouts.
`engine/search.py`'s information-set tree search replaced it as `mcts`.

A decision is searched in three steps.
1. Candidates: the game's greedy bot ranks the legal actions (asked again and again with its previous picks taken
   away); its best few are searched. Stones of Fate offers a hundred stone moves a turn: most are pointless.
2. Worlds: `determinize` deals what the seat cannot see, consistently with its view. In each sampled world every
   candidate still in the running is played out the same way (same world, same random numbers), so the comparison
   of two candidates is paired and a few worlds tell them apart. A playout plays the candidate, then lets the light
   policy (greedy, now and then random) play every seat from its own view for a bounded number of decisions, and
   scores the end: a finished game gives each winner its share, blended with a chance to win made from the scores
   (a softmax), which also scores an unfinished one.
3. Vote: the worlds vote with their rewards, by successive halving (the root strategy of SHOT and Gumbel MuZero):
   the budget is split over rounds, and after each the worse half of the candidates is dropped, the greedy bot's
   choice always kept. The best of the last round is played if its paired gain over the greedy bot's choice is
   more than `confidence` standard errors; otherwise the greedy bot's choice is. A small budget then plays no
   worse than greedy, and a larger one finds the better moves.

The bot sees only its view: every world is dealt from it, and the playouts' bots see only their own views.
It plays with the tuning each game had when it was replaced (`OLD`), so retuning the new search does not move the
yardstick; a tuning with `seconds` gives it a time budget, spent as the new search spends one (`engine.search.Clock`).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from random import Random
from typing import Any

from loom.engine.protocol import CHANCE_TO_MOVE, AnyGame, Bot, Tuning
from loom.engine.search import Clock, best_first, running, score_chances, shares, step
from loom.events.base import IllegalAction

FEWEST_WORLDS = 4
"""Worlds below which a paired comparison says nothing: the greedy bot's choice is played."""
OLD = {
    "motto": Tuning(budget=50, horizon=60, spread=3.0),
    "moirai": Tuning(budget=40, horizon=16, spread=4.0, confidence=0.5),
    "moorea": Tuning(budget=30, explore=0.0, horizon=40, spread=8.0),
    "stones-of-fate": Tuning(budget=40, horizon=16, spread=3.0),
}
"""Each game's tuning when this search was replaced (issue 16, the games' `search=` then)."""


class HalvingSearchBot:
    """The old `mcts` bot: searches each decision with `budget` playouts, by successive halving over the greedy bot's
    best actions (one level, no tree); decides from its seat's view only."""

    def __init__(
        self,
        game: AnyGame,
        budget: int | None = None,
        tuning: Tuning | None = None,
        now: Callable[[], float] = time.perf_counter,
    ) -> None:
        self.game = game
        self.tuning = tuning or OLD.get(game.name, game.search)
        self.budget = budget or self.tuning.budget
        self.seconds = 0.0 if budget else self.tuning.seconds
        self.now = now
        self.ranker: Bot = game.bots["greedy"]()
        self.policy: Bot = game.bots[self.tuning.policy]()

    def choose(self, view: Any, legal: Sequence[Any], rng: Random) -> Any:
        """The greedy bot's choice, unless successive halving finds a candidate that the paired playouts show to be
        better by more than `confidence` standard errors."""
        if len(legal) == 1:
            return legal[0]
        seat = self.game.to_move(view)
        if seat is None or seat == CHANCE_TO_MOVE:
            raise IllegalAction("the search bot decides for the seat to move, and no seat is to move here")
        alive = self.candidates(view, legal, Random(rng.getrandbits(64)))
        rewards: list[list[float]] = [[] for _ in alive]  # per candidate, one reward per world; worlds are shared
        rounds = max(1, math.ceil(math.log2(len(alive))))
        clock = Clock(self.seconds, len(running(len(alive))), self.now) if self.seconds > 0 else None
        left = self.budget
        for done in range(rounds):
            if len(alive) == 1:
                break
            worlds = clock.worlds(done) if clock else range(max(1, left // ((rounds - done) * len(alive))))
            for _ in worlds:
                seed = rng.getrandbits(64)
                world = self.game.determinize(view, seat, Random(seed))
                for index, action in enumerate(alive):
                    rewards[index].append(self.playout(world, action, Random(seed))[seat])
                    left -= 1
            if done < rounds - 1:
                alive, rewards = _halve(alive, rewards)
        return alive[_verdict(rewards, self.tuning.confidence)]

    def candidates(self, view: Any, legal: Sequence[Any], rng: Random) -> list[Any]:
        """The greedy bot's best few legal actions, best first."""
        return best_first(self.ranker, view, legal, self.tuning.candidates, rng)

    def playout(self, state: Any, action: Any, rng: Random) -> list[float]:
        """Play `action`, then the light policy for at most `horizon` decisions; each seat's reward."""
        game, tuning, policy = self.game, self.tuning, self.policy
        state = step(game, state, action, rng)
        for _ in range(tuning.horizon):
            mover = game.to_move(state)
            if mover is None:
                break
            seen = game.view(state, mover)
            legal = game.legal_actions(seen)
            if len(legal) > 1 and rng.random() >= tuning.explore:
                chosen = policy.choose(seen, legal, rng)
            else:
                chosen = legal[rng.randrange(len(legal))]
            state = step(game, state, chosen, rng)
        chances = score_chances(game.scores(state), tuning.spread)
        if game.to_move(state) is not None:
            return chances
        won = shares(game, state)
        return [(1 - tuning.blend) * w + tuning.blend * c for w, c in zip(won, chances)]


def _halve(alive: list[Any], rewards: list[list[float]]) -> tuple[list[Any], list[list[float]]]:
    """The better half of the candidates by their total reward, always with the greedy bot's choice (the first):
    it is what the search must beat."""
    best = sorted(range(1, len(alive)), key=lambda i: -sum(rewards[i]))[: math.ceil(len(alive) / 2) - 1]
    kept = [0, *sorted(best)]
    return [alive[i] for i in kept], [rewards[i] for i in kept]


def _verdict(rewards: list[list[float]], confidence: float) -> int:
    """The candidate to play: the one with the best total reward if it beats the first (the greedy bot's choice)
    by more than `confidence` standard errors of their paired differences, else the first."""
    best = max(range(len(rewards)), key=lambda i: (sum(rewards[i]), -i))
    if best == 0:
        return 0
    gains = [mine - first for mine, first in zip(rewards[best], rewards[0])]
    if len(gains) < FEWEST_WORLDS:
        return 0
    mean = sum(gains) / len(gains)
    spread = math.sqrt(sum((g - mean) ** 2 for g in gains) / (len(gains) - 1))
    return best if mean > confidence * spread / math.sqrt(len(gains)) else 0
