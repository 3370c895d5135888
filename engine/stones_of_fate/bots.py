"""Stones of Fate's greedy bot: remembers what its seat has seen (its view), places stones to win the valuable cards
it knows, keeps off their Forbidden zones, and flips the cards it would win."""

from __future__ import annotations

from collections.abc import Sequence
from random import Random

from loom.engine.stones_of_fate.actions import Choose, Flip, GiveDeath, Move, Peek, Recover, Stop, Swap, Take
from loom.engine.stones_of_fate.cards import COLOURS, POINTS
from loom.engine.stones_of_fate.rules import to_move
from loom.engine.stones_of_fate.score import card_points
from loom.engine.stones_of_fate.state import (
    DECK,
    SUPPLY,
    StonesState,
    grid_of,
    place,
    position,
    side_edges,
    winner,
    winner_at,
)

COLOUR_NUMBER = {name: number for number, name in enumerate(COLOURS)}

PROMISE = 0.8  # a card won by a placement is not yet collected: others may still move or flip first
RIVAL = 0.5  # a card a rival would win counts against us, less than our own
PEEK = 0.4
FLIP_BONUS = 0.1


def value(view: StonesState, seat: int, c: int) -> float:
    """What the card `c` would add to the seat's score, its scoring rule applied."""
    held = view.collections[seat]
    return card_points(c, (*held, c)) + 0.25


def promise(state: StonesState) -> list[float]:
    """What the cards of the spread promise each seat (a leaf evaluation for the search, `Game.promise`): for each
    card, `PROMISE` times what it would add to the score of the seat whose stones win it now (S8), its scoring rules
    applied. Read from a full state, a determinization: a card hidden there (HIDDEN) counts for nobody."""
    out = [0.0] * len(state.collections)
    for p, c in enumerate(state.spread):
        if c < 0:
            continue
        seat = winner_at(state, p)
        if seat is not None:
            out[seat] += PROMISE * gain(state.collections[seat], c)
    return out


def gain(held: tuple[int, ...], c: int) -> int:
    """What winning the card `c` adds to a collection's score, the rules of the cards already held included (S11)."""
    more = (*held, c)
    return sum(card_points(x, more) for x in more) - sum(card_points(x, held) for x in held)


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
        self.values: dict[tuple[int, int], float] = {}
        self.now = {p: self.standing(view.stones, [p]) for p in self.known}
        self.ends: dict[tuple[str | None, str, int], tuple[int, list[int], frozenset[int], float]] = {}

    def standing(self, stones: tuple[tuple[int, ...], ...], positions: Sequence[int]) -> float:
        """Our value minus part of the rivals' over these known cards, with these stones."""
        total = 0.0
        for p in positions:
            c = self.view.spread[p]
            w = winner(stones, self.edges[p], c)
            if w == self.seat:
                total += self.value(w, c)
            elif w is not None:
                total -= RIVAL * self.value(w, c)
        return total

    def value(self, seat: int, c: int) -> float:
        """`value(view, seat, c)`, remembered: the same few cards are weighed for every stone move."""
        found = self.values.get((seat, c))
        if found is None:
            found = self.values[seat, c] = value(self.view, seat, c)
        return found

    def end(self, colour: str | None, name: str, change: int) -> tuple[int, list[int], frozenset[int], float]:
        """A stone of `colour` (the seat's if None) leaving (-1) or reaching (+1) the edge called `name`: the edge (-1
        for the supply), the known cards beside it, the same as a set, and the gain of that change alone;
        remembered, as moves share their ends."""
        key = (colour, name, change)
        found = self.ends.get(key)
        if found is None:
            edge = place(self.view, name)
            touched = self.beside.get(edge, [])
            number = COLOUR_NUMBER[colour] if colour else self.seat
            gain = self._gain(number, ((edge, change),), touched) if touched else 0.0
            found = self.ends[key] = (edge, touched, frozenset(touched), gain)
        return found

    def move_gain(self, move: Move) -> float:
        """How much a stone move improves the standing of the cards beside its two edges."""
        colour = move.colour
        ends = self.ends
        source, _, around_source, lose = ends.get((colour, move.source, -1)) or self.end(colour, move.source, -1)
        target, _, around_target, gain = ends.get((colour, move.target, 1)) or self.end(colour, move.target, 1)
        if around_source and not around_source.isdisjoint(around_target):
            # both edges of one card: the two changes interact
            number = COLOUR_NUMBER[colour] if colour else self.seat
            return self._gain(number, ((source, -1), (target, 1)), sorted(around_source | around_target))
        return lose + gain

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
            if type(action) is Move:  # most of a turn's actions: valued here without the match below
                gain = board.move_gain(action)
                score = PROMISE * gain if gain > 0 else float("-inf") if gain < 0 else -1.0
            else:
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


__all__ = ["GreedyBot", "SUPPLY"]
