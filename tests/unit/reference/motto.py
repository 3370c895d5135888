"""Motto's greedy bot as it was before issue 16's piece `policies` made it cheaper: the reference that
tests/unit/test_policies_same.py checks the engine's against."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations
from random import Random

from loom.engine.motto.actions import Draw, Pass, Play, Take
from loom.engine.motto.cards import shared_values
from loom.engine.motto.rules import tokens_won
from loom.engine.motto.state import MottoState
from loom.engine.protocol import HIDDEN

# A card in hand is worth less than a token in hand: it may never be played, and others may take the tokens first.
PROMISE = 0.6
DRAW_HOPE = 0.5


def best_play_points(stacks: tuple[int, ...], hand: Sequence[int]) -> int:
    """The most points any three cards of `hand` would win against these stacks."""
    return max(
        (sum(p for _, p in tokens_won(stacks, trio)) for trio in combinations(hand, 3) if shared_values(*trio)),
        default=0,
    )


def best_play_points_with(stacks: tuple[int, ...], hand: Sequence[int], card: int, now: int) -> int:
    """`best_play_points(stacks, hand + [card])`, given `now` for the hand alone: only trios using `card` are new."""
    return max(
        (
            sum(p for _, p in tokens_won(stacks, (a, b, card)))
            for a, b in combinations(hand, 2)
            if shared_values(a, b, card)
        ),
        default=now,
    )


class GreedyBot:
    """Plays the richest set now unless one card more promises clearly more; otherwise takes or draws."""

    def choose(self, view: MottoState, legal: Sequence[object], rng: Random) -> object:
        """The legal action with the highest one-ply value; ties go to the first in legal order."""
        hand = [c for c in view.hands[view.seat] if c != HIDDEN]
        now = best_play_points(view.stacks, hand)
        best, best_value = legal[0], float("-inf")
        for action in legal:
            value = self._value(view, hand, now, action)
            if value > best_value:
                best, best_value = action, value
        return best

    @staticmethod
    def _value(view: MottoState, hand: list[int], now: int, action: object) -> float:
        match action:
            case Play(cards=trio):
                points = sum(p for _, p in tokens_won(view.stacks, trio))
                return points + 0.01 if points else -1.0  # a play that wins nothing only throws cards away
            case Take(card=taken):
                return PROMISE * max(now, best_play_points_with(view.stacks, hand, taken, now))
            case Draw():
                return PROMISE * now + DRAW_HOPE
            case Pass():
                return 0.0
        return float("-inf")
