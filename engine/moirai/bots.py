"""Moirai's greedy bot, a one-ply look at the three objectives in play from its own view only; and the search's leaf
value, each seat's chance to win an unfinished game (`chances`)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from random import Random
from typing import Any

from loom.engine.moirai.actions import Draw, Keep, Take
from loom.engine.moirai.cards import COMPONENTS, FULL_DECK, HOWS, UP
from loom.engine.moirai.rules import place
from loom.engine.moirai.score import PARTS, SCORERS
from loom.engine.moirai.state import Loom, MoiraiState

CARD_WORTH = 0.4
"""A face-up card is worth a little on its own: it lengthens lives and keeps options for later objectives."""
DRAW_HOPE = 1.0
"""What a draw is expected to add over the present position: one card, chosen from three."""


class Standing:
    """The objectives in play as seen from `seat`, every seat's loom tallied once (score.py's PARTS): a loom for
    `seat` made by a few placements is then valued by tallying again only the objectives those placements can
    change, and by the rules that compare seats."""

    def __init__(self, view: MoiraiState, seat: int) -> None:
        self.seat = seat
        self.totals = [0] * len(view.looms)  # each seat's points now
        self.parts: list[tuple[Any, Any, frozenset[str], list[Any], list[int]]] = []
        for objective in view.objectives:
            tally, rule, changed_by = PARTS[objective]
            tallies = [tally(loom) for loom in view.looms]
            points = tallies if rule is None else rule(tallies)
            self.parts.append((tally, rule, changed_by, tallies, points))
            self.totals = [total + p for total, p in zip(self.totals, points)]

    def value(self, loom: Loom, face_up: int, hows: Iterable[str] = HOWS) -> float:
        """The seat's lead over the best other seat with `loom` as its loom, made from its present loom by
        placements of these `hows` (hidden starting cards count for nothing), plus a small worth per face-up card
        (the loom holds `face_up`)."""
        seat = self.seat
        totals = self.totals.copy()
        for tally, rule, changed_by, tallies, now in self.parts:
            if changed_by.isdisjoint(hows):
                continue
            if rule is None:
                totals[seat] += tally(loom) - now[seat]
            else:
                mine = tallies[seat]
                tallies[seat] = tally(loom)
                for s, points in enumerate(rule(tallies)):
                    totals[s] += points - now[s]
                tallies[seat] = mine
        lead = totals[seat] - max(totals[:seat] + totals[seat + 1 :], default=0)
        return lead + CARD_WORTH * face_up


def face_up(loom: Loom) -> int:
    """The face-up cards of a loom."""
    return sum(len(cards) for _, cards, _ in loom)


def evaluate(view: MoiraiState, seat: int, loom: Loom) -> float:
    """The seat's lead over the best other seat in the objectives in play with `loom` as its loom (hidden starting
    cards count for nothing), plus a small worth per face-up card."""
    return Standing(view, seat).value(loom, face_up(loom))


class GreedyBot:
    """Takes the draw or placement that most improves its standing in the three objectives in play."""

    def choose(self, view: MoiraiState, legal: Sequence[object], rng: Random) -> object:
        """The legal action with the highest one-ply value; ties go to the first in legal order."""
        seat = view.seat
        loom = view.looms[seat]
        standing = Standing(view, seat)
        up = face_up(loom)  # a placement adds its face-up cards to these
        now = standing.value(loom, up, ())
        best, best_value = legal[0], float("-inf")
        for action in legal:
            match action:
                case Draw():
                    value = now + DRAW_HOPE
                case Keep(placement=placed):
                    value = standing.value(place(loom, [placed]), up + (placed[1] == UP), (placed[1],))
                case Take(placed=placed):
                    hows = [how for _, how, _ in placed]
                    value = standing.value(place(loom, placed), up + hows.count(UP), hows)
                case _:
                    continue
            if value > best_value:
                best, best_value = action, value
        return best


# The search's leaf value (`Game.value`): it scores a playout cut at its horizon. A conditional logit: each seat's
# chance is a softmax over the seats of a weighted sum of its features. They are what each objective in play scores
# it now, its face-up cards, lives and open lives, each also times the share of the deck drawn (the same lead counts
# for more near the end), and its place after the seat to move. The weights are data, the `[value]` table of
# cards.toml, fitted to games of the search's own playouts by `bench/moirai_value.py --write`. They were fitted to
# three-player games; a seat three or more places after the mover has no place feature.

OBJECTIVES = sorted(SCORERS)
PLACES = ("first", "second")
"""The places after the seat to move that have a feature of their own."""
VALUE_FEATURES = (
    *(f"objective {k}{by}" for k in OBJECTIVES for by in ("", " x drawn")),
    *(f"{what}{by}" for what in ("face-up cards", "lives", "open lives") for by in ("", " x drawn")),
    *(f"{place} after the mover{by}" for place in PLACES for by in ("", " x drawn")),
)


def value_weights(table: Mapping[str, float]) -> tuple[float, ...]:
    """The weights of the features, in their order, from a table naming exactly the features."""
    if set(table) != set(VALUE_FEATURES):
        raise ValueError(f"the value's weights name {sorted(table)}, not the features {list(VALUE_FEATURES)}")
    return tuple(table[name] for name in VALUE_FEATURES)


VALUE_WEIGHTS = value_weights(COMPONENTS["value"])


def drawn(state: MoiraiState) -> float:
    """The share of the deck drawn: 0 at the start, 1 at the end."""
    return 1 - state.deck_left / len(FULL_DECK)


def value_features(state: MoiraiState) -> list[list[float]]:
    """Each seat's features, in the order of VALUE_FEATURES, read from a full state (the search's determinization)."""
    share = drawn(state)
    seats = len(state.looms)
    rows = [[0.0] * len(VALUE_FEATURES) for _ in range(seats)]
    for k in state.objectives:
        at = 2 * OBJECTIVES.index(k)
        for seat, points in enumerate(SCORERS[k](state.looms)):
            rows[seat][at : at + 2] = [points, points * share]
    at = 2 * len(OBJECTIVES)
    for seat, loom in enumerate(state.looms):
        open_lives = sum(1 for _, _, close in loom if close is None)
        for n, count in enumerate((face_up(loom), len(loom), open_lives)):
            rows[seat][at + 2 * n : at + 2 * n + 2] = [count, count * share]
        place = (seat - state.seat) % seats
        if 0 < place <= len(PLACES):
            rows[seat][at + 4 + 2 * place : at + 6 + 2 * place] = [1.0, share]
    return rows


def chances(state: MoiraiState) -> list[float]:
    """Each seat's chance to win an unfinished game, from its position (they add up to 1)."""
    utilities = [math.fsum(w * x for w, x in zip(VALUE_WEIGHTS, row)) for row in value_features(state)]
    top = max(utilities)
    weights = [math.exp(u - top) for u in utilities]
    total = sum(weights)
    return [weight / total for weight in weights]
