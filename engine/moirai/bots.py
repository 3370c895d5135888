"""Moirai's greedy bot: a one-ply look at the three objectives in play, from its own view only."""

from __future__ import annotations

from collections.abc import Sequence
from random import Random

from loom.engine.moirai.actions import Draw, Keep, Take
from loom.engine.moirai.rules import place
from loom.engine.moirai.score import score_table
from loom.engine.moirai.state import Loom, MoiraiState

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
