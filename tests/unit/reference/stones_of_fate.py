"""Stones of Fate's greedy bot and the winner of a card (S8) as they were before issue 16's piece `policies` made
them cheaper: the reference that tests/unit/test_policies_same.py checks the engine's against."""

from __future__ import annotations

from collections.abc import Sequence
from random import Random

from loom.engine.stones_of_fate.actions import Choose, Flip, GiveDeath, Move, Peek, Recover, Stop, Swap, Take
from loom.engine.stones_of_fate.cards import COLOURS, FORBIDDEN_SIDES, KEYSTONE_SIDES, POINTS, POWER_SIDES
from loom.engine.stones_of_fate.rules import to_move
from loom.engine.stones_of_fate.score import card_points
from loom.engine.stones_of_fate.state import DECK, StonesState, grid_of, place, position, side_edges


def winner(
    stones: tuple[tuple[int, ...], ...],
    edges: Sequence[int],
    flipped: int,
    *,
    forbidden: tuple[int, ...] | None = None,
    keystones: tuple[tuple[int, int], ...] | None = None,
) -> int | None:
    """S8: who wins the card `flipped` whose sides are `edges`: Forbidden excludes, Keystones must match exactly,
    then strictly the most Power stones (at least one); only Keystones: the single qualifying seat; else nobody.
    `forbidden` and `keystones` replace the card's own zones, to ask what a zone changed.

    Plain loops: bots ask this thousands of times a game."""
    forbidden = FORBIDDEN_SIDES[flipped] if forbidden is None else forbidden
    keystones = KEYSTONE_SIDES[flipped] if keystones is None else keystones
    power = POWER_SIDES[flipped]
    found, best, tied, qualified = None, 0, False, 0
    for seat, mine in enumerate(stones):
        if any(mine[edges[side]] for side in forbidden) if forbidden else False:
            continue
        if keystones and any(mine[edges[side]] != count for side, count in keystones):
            continue
        if not power:
            found, qualified = seat, qualified + 1
            continue
        total = 0
        for side in power:
            total += mine[edges[side]]
        if total > best:
            found, best, tied = seat, total, False
        elif total == best:
            tied = True
    if power:
        return None if tied or best == 0 else found
    return found if qualified == 1 else None


PROMISE = 0.8  # a card won by a placement is not yet collected: others may still move or flip first
RIVAL = 0.5  # a card a rival would win counts against us, less than our own
PEEK = 0.4
FLIP_BONUS = 0.1


def value(view: StonesState, seat: int, c: int) -> float:
    """What the card `c` would add to the seat's score, its scoring rule applied."""
    held = view.collections[seat]
    return card_points(c, (*held, c)) + 0.25


class _Board:
    """The known face-down cards of a view, who wins each now, and the positions beside each edge."""

    def __init__(self, view: StonesState, seat: int) -> None:
        self.view, self.seat = view, seat
        self.edges = {p: side_edges(view, p) for p in range(len(view.spread))}
        self.known = [p for p, c in enumerate(view.spread) if c >= 0 and p not in view.face_up]
        grid = grid_of(view)
        self.beside: dict[int, list[int]] = {}
        for p in self.known:
            for e in self.edges[p]:
                self.beside.setdefault(e, []).append(p)
        self.grid = grid
        self.now = {p: self.standing(view.stones, [p]) for p in self.known}
        self.memo: dict[tuple[int, int, int], float] = {}

    def standing(self, stones: tuple[tuple[int, ...], ...], positions: Sequence[int]) -> float:
        """Our value minus part of the rivals' over these known cards, with these stones."""
        total = 0.0
        for p in positions:
            c = self.view.spread[p]
            w = winner(stones, self.edges[p], c)
            if w == self.seat:
                total += value(self.view, self.seat, c)
            elif w is not None:
                total -= RIVAL * value(self.view, w, c)
        return total

    def move_gain(self, move: Move) -> float:
        """How much a stone move improves the standing of the cards beside its two edges."""
        source, target = place(self.view, move.source), place(self.view, move.target)
        beside_source, beside_target = self.beside.get(source, []), self.beside.get(target, [])
        colour = COLOURS.index(move.colour) if move.colour else self.seat
        if set(beside_source) & set(beside_target):  # both edges of one card: the two changes interact
            return self._gain(colour, ((source, -1), (target, 1)), sorted({*beside_source, *beside_target}))
        return self._one(colour, source, -1, beside_source) + self._one(colour, target, 1, beside_target)

    def _one(self, colour: int, edge: int, change: int, touched: list[int]) -> float:
        """The gain of one stone more or less on `edge`, remembered: many moves share a source or a target."""
        if not touched:
            return 0.0
        key = (colour, edge, change)
        if key not in self.memo:
            self.memo[key] = self._gain(colour, ((edge, change),), touched)
        return self.memo[key]

    def _gain(self, colour: int, changes: tuple[tuple[int, int], ...], touched: list[int]) -> float:
        mine = list(self.view.stones[colour])
        for edge, change in changes:
            if edge >= 0:
                mine[edge] += change
        after = (*self.view.stones[:colour], tuple(mine), *self.view.stones[colour + 1 :])
        return self.standing(after, touched) - sum(self.now[p] for p in touched)

    def flip_gain(self, at: int) -> float:
        """A known card: its value if we win it now, minus a rival's; an unknown card: a small loss."""
        if at not in self.known:
            return -0.3
        return self.now[at] + FLIP_BONUS


class GreedyBot:
    """One ply: the action whose immediate gain is largest; flips when nothing else gains."""

    def choose(self, view: StonesState, legal: Sequence[object], rng: Random) -> object:
        """The best legal action by the gains above; ties go to the first in legal order."""
        seat = to_move(view)
        assert seat is not None and seat >= 0
        board = _Board(view, seat)
        best, best_value = legal[0], float("-inf")
        for action in legal:
            score = self._value(board, action)
            if score > best_value:
                best, best_value = action, score
        return best

    @staticmethod
    def _value(board: _Board, action: object) -> float:
        view, seat = board.view, board.seat
        match action:
            case Flip(at=at):
                return board.flip_gain(position(view, at))
            case Move():
                gain = board.move_gain(action)
                return PROMISE * gain if gain > 0 else float("-inf") if gain < 0 else -1.0
            case Peek(at=at):
                if at == DECK:
                    return 0.05 if view.known_top[seat] < 0 else -2.0
                return PEEK if view.spread[position(view, at)] < 0 else -2.0
            case Take(card=c) | Recover(card=c):
                return float(POINTS[c])
            case GiveDeath(to=to):
                return 1.0 if to == seat else 0.0
            case Stop():
                return -0.5
            case Swap() | Choose():
                return -1.0
        return -5.0
