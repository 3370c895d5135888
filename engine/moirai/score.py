"""Moirai's score (M12-M17): the twelve objectives, each a function of every seat's loom, keyed by objective id.

A life is `(start, cards, close)`: its face-down starting card, its face-up cards in order, and its face-down closing
card (None while it is open). A starting card not known yet (HIDDEN) counts for nothing, so a position before the
final reveal scores what is known of it.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Any

from loom.engine.moirai.cards import CLOSE, COLOUR_OF, COLOURS, DECADE_OF, OBJECTIVES, OPEN, UP
from loom.engine.moirai.state import Life, Loom, MoiraiState
from loom.engine.protocol import HIDDEN

# An objective counts something in each seat's loom (its tally) and turns the table's tallies into points. Most score
# a seat from its own loom alone: their tally is already the seat's points. Clotho 1, the two majorities (Clotho 3,
# Lachesis 6) and Atropos 12 compare the seats: a rule makes their points from every seat's tally. The greedy bot,
# which tries many looms for one seat against the same others, tallies the table once per decision, then a tried loom
# only for the objectives its placements can change (`PARTS`, bots.py's `Standing`).

Tally = Callable[[Loom], Any]
Rule = Callable[[list[Any]], list[int]]
_LIVES, _FACE_UP, _CUTS = frozenset({OPEN}), frozenset({UP}), frozenset({CLOSE})


def firsts(loom: Loom) -> list[int]:
    """M12: the first card of each life is its starting card (those known)."""
    return [start for start, _, _ in loom if start != HIDDEN]


def cut_short(loom: Loom) -> list[Life]:
    """The lives with a closing card (M6 guarantees each holds a face-up card)."""
    return [life for life in loom if life[2] is not None and life[1]]


def colour_counts(cards: list[int] | tuple[int, ...]) -> list[int]:
    """How many of `cards` are green, blue, purple, red."""
    counts = [0] * len(COLOURS)
    for c in cards:
        counts[COLOUR_OF[c]] += 1
    return counts


def majorities(counts: list[list[int]], points: int) -> list[int]:
    """M14: per colour, every seat with the highest count (at least one) takes `points`."""
    out = [0] * len(counts)
    for column in zip(*counts):  # one colour's count for each seat
        best = max(column)
        if best:
            for seat, n in enumerate(column):
                if n == best:
                    out[seat] += points
    return out


# --- Clotho: how lives begin -------------------------------------------------------------------------------------


def short_of_most(lives: list[int]) -> list[int]:
    """M13: 4 points per life fewer than the seat that created the most (the tally is `len`: the lives created)."""
    most = max(lives)
    return [OBJECTIVES[1].points[0] * (most - n) for n in lives]


def clotho_1(looms: tuple[Loom, ...]) -> list[int]:
    """M13: 4 points per life fewer than the seat that created the most, the setup life included."""
    return short_of_most([len(loom) for loom in looms])


def decades_begun(loom: Loom) -> int:
    """Clotho 2's points: 1 per decade among the first cards of the lives."""
    return OBJECTIVES[2].points[0] * len({DECADE_OF[c] for c in firsts(loom)})


def clotho_2(looms: tuple[Loom, ...]) -> list[int]:
    """1 point per decade among the first cards of a seat's lives (at most 8)."""
    return [decades_begun(loom) for loom in looms]


def first_colours(loom: Loom) -> list[int]:
    """How many first cards of each colour a loom has."""
    return colour_counts(firsts(loom))


def first_majorities(counts: list[list[int]]) -> list[int]:
    """Clotho 3's points from every seat's `first_colours`."""
    return majorities(counts, OBJECTIVES[3].points[0])


def clotho_3(looms: tuple[Loom, ...]) -> list[int]:
    """M14: 4 points per colour in which a seat has the most first cards; tied seats all score."""
    return first_majorities([first_colours(loom) for loom in looms])


def most_by_least(loom: Loom) -> int:
    """Clotho 4's points: most frequent first-card colour x least frequent present, 0 with fewer than two colours."""
    present = [n for n in first_colours(loom) if n]
    return max(present) * min(present) if len(present) >= 2 else 0


def clotho_4(looms: tuple[Loom, ...]) -> list[int]:
    """M15: most frequent first-card colour x least frequent colour present; 0 with fewer than two colours."""
    return [most_by_least(loom) for loom in looms]


# --- Lachesis: the shape of lives (face-up cards only, M12) --------------------------------------------------------


def longest(loom: Loom) -> int:
    """Lachesis 5's points: 1 per face-up card of the longest life."""
    return OBJECTIVES[5].points[0] * max((len(cards) for _, cards, _ in loom), default=0)


def lachesis_5(looms: tuple[Loom, ...]) -> list[int]:
    """1 point per face-up card of a seat's longest life."""
    return [longest(loom) for loom in looms]


NO_CARDS = (0,) * len(COLOURS)


@lru_cache(maxsize=4096)
def life_colours(cards: tuple[int, ...]) -> tuple[int, ...]:
    """How many face-up cards of each colour a life holds (remembered: a loom's lives are scored again and again as
    the greedy bot tries each placement)."""
    return tuple(colour_counts(cards))


def single_life_colours(loom: Loom) -> list[int]:
    """Per colour, the most cards of it in a single life of the loom."""
    columns = zip(NO_CARDS, *[life_colours(cards) for _, cards, _ in loom])  # a colour's count: none, each life's
    return list(map(max, columns))


def single_life_majorities(counts: list[list[int]]) -> list[int]:
    """Lachesis 6's points from every seat's `single_life_colours`."""
    return majorities(counts, OBJECTIVES[6].points[0])


def lachesis_6(looms: tuple[Loom, ...]) -> list[int]:
    """M14: 4 points per colour in which a seat has the most cards in a single life; tied seats all score."""
    return single_life_majorities([single_life_colours(loom) for loom in looms])


def four_colour_lives(loom: Loom) -> int:
    """Lachesis 7's points: 3 per life holding face-up cards of all four colours."""
    return OBJECTIVES[7].points[0] * sum(0 not in life_colours(cards) for _, cards, _ in loom)


def lachesis_7(looms: tuple[Loom, ...]) -> list[int]:
    """3 points per life holding face-up cards of all four colours."""
    return [four_colour_lives(loom) for loom in looms]


@lru_cache(maxsize=4096)
def neighbours_in_decade(cards: tuple[int, ...]) -> int:
    """The face-up cards of a life that sit next to a card of the same decade."""
    tens = [DECADE_OF[c] for c in cards]
    last = len(tens) - 1
    return sum(1 for i, t in enumerate(tens) if (i > 0 and tens[i - 1] == t) or (i < last and tens[i + 1] == t))


def decade_neighbours(loom: Loom) -> int:
    """Lachesis 8's points: 1 per face-up card next to another of the same decade."""
    return OBJECTIVES[8].points[0] * sum(neighbours_in_decade(cards) for _, cards, _ in loom if len(cards) > 1)


def lachesis_8(looms: tuple[Loom, ...]) -> list[int]:
    """1 point per face-up card next to another of the same decade."""
    return [decade_neighbours(loom) for loom in looms]


# --- Atropos: how lives are cut short ----------------------------------------------------------------------------


def uncut(loom: Loom) -> int:
    """Atropos 9's points: -3 per life without a closing card."""
    return OBJECTIVES[9].points[0] * sum(close is None for _, _, close in loom)


def atropos_9(looms: tuple[Loom, ...]) -> list[int]:
    """-3 points per life without a closing card."""
    return [uncut(loom) for loom in looms]


def cut_low(loom: Loom) -> int:
    """Atropos 10's points: 2 per cut-short life whose last face-up card is below 40."""
    return OBJECTIVES[10].points[0] * sum(cards[-1] < 40 for _, cards, _ in cut_short(loom))


def atropos_10(looms: tuple[Loom, ...]) -> list[int]:
    """M12: 2 points per cut-short life whose last face-up card is below 40."""
    return [cut_low(loom) for loom in looms]


def cut_high(loom: Loom) -> int:
    """Atropos 11's points: 2 per cut-short life whose last face-up card is 40 or higher."""
    return OBJECTIVES[11].points[0] * sum(cards[-1] >= 40 for _, cards, _ in cut_short(loom))


def atropos_11(looms: tuple[Loom, ...]) -> list[int]:
    """M12: 2 points per cut-short life whose last face-up card is 40 or higher."""
    return [cut_high(loom) for loom in looms]


def cut_lives(loom: Loom) -> list[tuple[int, int]]:
    """(last - first, last) of each cut-short life whose starting card is known, in loom order."""
    return [(cards[-1] - start, cards[-1]) for start, cards, _ in cut_short(loom) if start != HIDDEN]


def ranking(lives: list[list[tuple[int, int]]]) -> list[tuple[int, int, int]]:
    """M16: every seat's `cut_lives` as (last - first, last, seat), best first; ties to the higher last, then to the
    earlier seat and life."""
    table = [(difference, last, seat) for seat, own in enumerate(lives) for difference, last in own]
    return sorted(table, key=lambda life: (-life[0], -life[1]))


def atropos_ranking(looms: tuple[Loom, ...]) -> list[tuple[int, int, int]]:
    """M16: every cut-short life of the table as (last - first, last, seat), best first; ties to the higher last."""
    return ranking([cut_lives(loom) for loom in looms])


def top_three(lives: list[list[tuple[int, int]]]) -> list[int]:
    """Atropos 12's points from every seat's `cut_lives`: the top three of the table score 7, 5 and 3."""
    out = [0] * len(lives)
    for (_, _, seat), points in zip(ranking(lives), OBJECTIVES[12].points):
        out[seat] += points
    return out


def atropos_12(looms: tuple[Loom, ...]) -> list[int]:
    """M16: the top three cut-short lives of the table score 7, 5 and 3; one seat may take several."""
    return top_three([cut_lives(loom) for loom in looms])


PARTS: dict[int, tuple[Tally, Rule | None, frozenset[str]]] = {
    1: (len, short_of_most, _LIVES),
    2: (decades_begun, None, _LIVES),
    3: (first_colours, first_majorities, _LIVES),
    4: (most_by_least, None, _LIVES),
    5: (longest, None, _FACE_UP),
    6: (single_life_colours, single_life_majorities, _FACE_UP),
    7: (four_colour_lives, None, _FACE_UP),
    8: (decade_neighbours, None, _FACE_UP),
    9: (uncut, None, _LIVES | _CUTS),
    10: (cut_low, None, _CUTS),
    11: (cut_high, None, _CUTS),
    12: (cut_lives, top_three, _CUTS),
}
"""Per objective, its tally of one loom, the rule that makes the table's tallies points (None: the tally is the
seat's points), and the placements that can change its tally (M5, M6): Clotho reads the lives and their starting
cards, which only a new life (open) adds; Lachesis the face-up cards (up); Atropos the closed lives (close; a closed
life takes no more cards), Atropos 9 the open ones too."""

SCORERS: dict[int, Callable[[tuple[Loom, ...]], list[int]]] = {
    1: clotho_1,
    2: clotho_2,
    3: clotho_3,
    4: clotho_4,
    5: lachesis_5,
    6: lachesis_6,
    7: lachesis_7,
    8: lachesis_8,
    9: atropos_9,
    10: atropos_10,
    11: atropos_11,
    12: atropos_12,
}
KEYS: dict[int, str] = {objective: OBJECTIVES[objective].key for objective in OBJECTIVES}
"""Each objective's name in a breakdown."""


def score_table(objectives: tuple[int, ...], looms: tuple[Loom, ...]) -> list[dict[str, int]]:
    """Per seat, the points of each objective in play, keyed `clotho 2`, `lachesis 6`, `atropos 12`."""
    rows: list[dict[str, int]] = [{} for _ in looms]
    for objective in objectives:
        key = KEYS[objective]
        for row, points in zip(rows, SCORERS[objective](looms)):
            row[key] = points
    return rows


# --- Score (M12-M17) ------------------------------------------------------------------------------------------------


def breakdown(state: MoiraiState) -> list[dict[str, int]]:
    """Per seat, the points of each objective in play: {"clotho 2": 4, "lachesis 6": 8, "atropos 12": 7}."""
    return score_table(state.objectives, state.looms)


def scores(state: MoiraiState) -> list[int]:
    """M12-M16: the sum of the three objectives in play."""
    return [sum(row.values()) for row in breakdown(state)]


def winners(state: MoiraiState) -> list[int]:
    """M17: the highest total; a tie goes to the most cut-short lives; still tied, a shared victory."""
    ranks = [(points, len(cut_short(loom))) for points, loom in zip(scores(state), state.looms)]
    best = max(ranks, default=(0, 0))
    return [seat for seat, rank in enumerate(ranks) if rank == best]
