"""Motto's greedy bot: a one-ply look at the tokens each action wins now or makes reachable."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations
from random import Random

from loom.engine.motto.actions import Draw, Pass, Play, Take
from loom.engine.motto.cards import TOKEN_POINTS, shared_values
from loom.engine.motto.state import MottoState
from loom.engine.protocol import HIDDEN

# A card in hand is worth less than a token in hand: it may never be played, and others may take the tokens first.
PROMISE = 0.6
DRAW_HOPE = 0.5


def top_points(stacks: tuple[int, ...]) -> list[int]:
    """T5: the points of the token on top of each value's stack, 0 for an empty stack (what `tokens_won` gives)."""
    return [TOKEN_POINTS[len(TOKEN_POINTS) - n] if n else 0 for n in stacks]


def best_trio(top: list[int], hand: Sequence[int]) -> int:
    """The most points any three cards of `hand` would win, given the stacks' `top_points`."""
    return max(
        (sum([top[v] for v in shared]) for a, b, c in combinations(hand, 3) if (shared := shared_values(a, b, c))),
        default=0,
    )


def best_trio_with(top: list[int], hand: Sequence[int], card: int, now: int) -> int:
    """`best_trio(top, hand + [card])`, given `now` for the hand alone: only trios using `card` are new."""
    return max(
        (sum([top[v] for v in shared]) for a, b in combinations(hand, 2) if (shared := shared_values(a, b, card))),
        default=now,
    )


def best_play_points(stacks: tuple[int, ...], hand: Sequence[int]) -> int:
    """The most points any three cards of `hand` would win against these stacks."""
    return best_trio(top_points(stacks), hand)


def best_play_points_with(stacks: tuple[int, ...], hand: Sequence[int], card: int, now: int) -> int:
    """`best_play_points(stacks, hand + [card])`, given `now` for the hand alone: only trios using `card` are new."""
    return best_trio_with(top_points(stacks), hand, card, now)


class GreedyBot:
    """Plays the richest set now unless one card more promises clearly more; otherwise takes or draws."""

    def choose(self, view: MottoState, legal: Sequence[object], rng: Random) -> object:
        """The legal action with the highest one-ply value; ties go to the first in legal order."""
        hand = [c for c in view.hands[view.seat] if c != HIDDEN]
        top = top_points(view.stacks)
        now = best_trio(top, hand)
        best, best_value = legal[0], float("-inf")
        for action in legal:
            value = self._value(top, hand, now, action)
            if value > best_value:
                best, best_value = action, value
        return best

    @staticmethod
    def _value(top: list[int], hand: list[int], now: int, action: object) -> float:
        match action:
            case Play(cards=trio):
                points = sum([top[v] for v in shared_values(*trio)])
                return points + 0.01 if points else -1.0  # a play that wins nothing only throws cards away
            case Take(card=taken):
                return PROMISE * max(now, best_trio_with(top, hand, taken, now))
            case Draw():
                return PROMISE * now + DRAW_HOPE
            case Pass():
                return 0.0
        return float("-inf")
