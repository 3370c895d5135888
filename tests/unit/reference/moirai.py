"""Moirai's greedy bot and its scoring as they were before issue 16's piece `policies` made them incremental: the
reference that tests/unit/test_policies_same.py checks the engine's against (same choices, same scores)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from random import Random

from loom.engine.moirai.actions import Draw, Keep, Take
from loom.engine.moirai.cards import COLOURS, OBJECTIVES, colour, decade
from loom.engine.moirai.rules import place
from loom.engine.moirai.state import Life, Loom, MoiraiState
from loom.engine.protocol import HIDDEN

Scorer = Callable[[tuple[Loom, ...]], list[int]]


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
        counts[colour(c)] += 1
    return counts


def majorities(counts: list[list[int]], points: int) -> list[int]:
    """M14: per colour, every seat with the highest count (at least one) takes `points`."""
    out = [0] * len(counts)
    for c in range(len(COLOURS)):
        best = max(row[c] for row in counts)
        if best:
            for seat, row in enumerate(counts):
                out[seat] += points if row[c] == best else 0
    return out


# --- Clotho: how lives begin -------------------------------------------------------------------------------------


def clotho_1(looms: tuple[Loom, ...]) -> list[int]:
    """M13: 4 points per life fewer than the seat that created the most, the setup life included."""
    most = max(len(loom) for loom in looms)
    return [OBJECTIVES[1].points[0] * (most - len(loom)) for loom in looms]


def clotho_2(looms: tuple[Loom, ...]) -> list[int]:
    """1 point per decade among the first cards of a seat's lives (at most 8)."""
    return [OBJECTIVES[2].points[0] * len({decade(c) for c in firsts(loom)}) for loom in looms]


def clotho_3(looms: tuple[Loom, ...]) -> list[int]:
    """M14: 4 points per colour in which a seat has the most first cards; tied seats all score."""
    return majorities([colour_counts(firsts(loom)) for loom in looms], OBJECTIVES[3].points[0])


def clotho_4(looms: tuple[Loom, ...]) -> list[int]:
    """M15: most frequent first-card colour x least frequent colour present; 0 with fewer than two colours."""
    out = []
    for loom in looms:
        present = [n for n in colour_counts(firsts(loom)) if n]
        out.append(max(present) * min(present) if len(present) >= 2 else 0)
    return out


# --- Lachesis: the shape of lives (face-up cards only, M12) --------------------------------------------------------


def lachesis_5(looms: tuple[Loom, ...]) -> list[int]:
    """1 point per face-up card of a seat's longest life."""
    return [OBJECTIVES[5].points[0] * max((len(cards) for _, cards, _ in loom), default=0) for loom in looms]


def lachesis_6(looms: tuple[Loom, ...]) -> list[int]:
    """M14: 4 points per colour in which a seat has the most cards in a single life; tied seats all score."""
    best = []
    for loom in looms:
        counts = [colour_counts(cards) for _, cards, _ in loom]
        best.append([max((row[c] for row in counts), default=0) for c in range(len(COLOURS))])
    return majorities(best, OBJECTIVES[6].points[0])


def lachesis_7(looms: tuple[Loom, ...]) -> list[int]:
    """3 points per life holding face-up cards of all four colours."""
    full = len(COLOURS)
    return [
        OBJECTIVES[7].points[0] * sum(len({colour(c) for c in cards}) == full for _, cards, _ in loom) for loom in looms
    ]


def neighbours_in_decade(cards: tuple[int, ...]) -> int:
    """The face-up cards of a life that sit next to a card of the same decade."""
    tens = [decade(c) for c in cards]
    last = len(tens) - 1
    return sum(1 for i, t in enumerate(tens) if (i > 0 and tens[i - 1] == t) or (i < last and tens[i + 1] == t))


def lachesis_8(looms: tuple[Loom, ...]) -> list[int]:
    """1 point per face-up card next to another of the same decade."""
    return [OBJECTIVES[8].points[0] * sum(neighbours_in_decade(cards) for _, cards, _ in loom) for loom in looms]


# --- Atropos: how lives are cut short ----------------------------------------------------------------------------


def atropos_9(looms: tuple[Loom, ...]) -> list[int]:
    """-3 points per life without a closing card."""
    return [OBJECTIVES[9].points[0] * sum(close is None for _, _, close in loom) for loom in looms]


def atropos_10(looms: tuple[Loom, ...]) -> list[int]:
    """M12: 2 points per cut-short life whose last face-up card is below 40."""
    return [OBJECTIVES[10].points[0] * sum(cards[-1] < 40 for _, cards, _ in cut_short(loom)) for loom in looms]


def atropos_11(looms: tuple[Loom, ...]) -> list[int]:
    """M12: 2 points per cut-short life whose last face-up card is 40 or higher."""
    return [OBJECTIVES[11].points[0] * sum(cards[-1] >= 40 for _, cards, _ in cut_short(loom)) for loom in looms]


def atropos_ranking(looms: tuple[Loom, ...]) -> list[tuple[int, int, int]]:
    """M16: every cut-short life of the table as (last - first, last, seat), best first; ties to the higher last."""
    lives = [
        (cards[-1] - start, cards[-1], seat)
        for seat, loom in enumerate(looms)
        for start, cards, _ in cut_short(loom)
        if start != HIDDEN
    ]
    return sorted(lives, key=lambda life: (-life[0], -life[1]))


def atropos_12(looms: tuple[Loom, ...]) -> list[int]:
    """M16: the top three cut-short lives of the table score 7, 5 and 3; one seat may take several."""
    out = [0] * len(looms)
    for (_, _, seat), points in zip(atropos_ranking(looms), OBJECTIVES[12].points):
        out[seat] += points
    return out


SCORERS: dict[int, Scorer] = {
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


def score_table(objectives: tuple[int, ...], looms: tuple[Loom, ...]) -> list[dict[str, int]]:
    """Per seat, the points of each objective in play, keyed `clotho 2`, `lachesis 6`, `atropos 12`."""
    rows: list[dict[str, int]] = [{} for _ in looms]
    for objective in objectives:
        for row, points in zip(rows, SCORERS[objective](looms)):
            row[OBJECTIVES[objective].key] = points
    return rows


CARD_WORTH = 0.4
"""A face-up card is worth a little on its own: it lengthens lives and keeps options for later objectives."""
DRAW_HOPE = 1.0
"""What a draw is expected to add over the present position: one card, chosen from three."""


def evaluate(view: MoiraiState, seat: int, loom: Loom) -> float:
    """The seat's lead over the best other seat in the objectives in play with `loom` as its loom (hidden starting
    cards count for nothing), plus a small worth per face-up card."""
    looms = view.looms[:seat] + (loom,) + view.looms[seat + 1 :]
    totals = [sum(row.values()) for row in score_table(view.objectives, looms)]
    lead = totals[seat] - max((t for s, t in enumerate(totals) if s != seat), default=0)
    return lead + CARD_WORTH * sum(len(cards) for _, cards, _ in loom)


class GreedyBot:
    """Takes the draw or placement that most improves its standing in the three objectives in play."""

    def choose(self, view: MoiraiState, legal: Sequence[object], rng: Random) -> object:
        """The legal action with the highest one-ply value; ties go to the first in legal order."""
        seat = view.seat
        loom = view.looms[seat]
        now = evaluate(view, seat, loom)
        best, best_value = legal[0], float("-inf")
        for action in legal:
            match action:
                case Draw():
                    value = now + DRAW_HOPE
                case Keep(placement=placed):
                    value = evaluate(view, seat, place(loom, [placed]))
                case Take(placed=placed):
                    value = evaluate(view, seat, place(loom, placed))
                case _:
                    continue
            if value > best_value:
                best, best_value = action, value
        return best
