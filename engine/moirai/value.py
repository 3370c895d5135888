"""Each seat's chance to win an unfinished game of Moirai, read from its position: the search's leaf value
(`Game.value`), which scores a playout cut at its horizon.

A conditional logit: each seat's chance is a softmax over the seats of a weighted sum of its features. They are what
each objective in play scores it now, its face-up cards, lives and open lives, each also times the share of the deck
drawn (the same lead counts for more near the end), and its place after the seat to move. The weights are data,
`value.toml` beside this, fitted to games of the search's own playouts by `bench/moirai_value.py --write`; they were
fitted to three-player games, and a seat three or more places after the mover has no place feature.
"""

from __future__ import annotations

import math
import tomllib
from pathlib import Path

from loom.engine.moirai.cards import FULL_DECK
from loom.engine.moirai.score import SCORERS
from loom.engine.moirai.state import MoiraiState

OBJECTIVES = sorted(SCORERS)
PLACES = ("first", "second")
"""The places after the seat to move that have a feature of their own."""
FEATURES = (
    *(f"objective {k}{by}" for k in OBJECTIVES for by in ("", " x drawn")),
    *(f"{what}{by}" for what in ("face-up cards", "lives", "open lives") for by in ("", " x drawn")),
    *(f"{place} after the mover{by}" for place in PLACES for by in ("", " x drawn")),
)
WEIGHTS_FILE = Path(__file__).with_name("value.toml")


def _weights() -> tuple[float, ...]:
    with WEIGHTS_FILE.open("rb") as file:
        weights: dict[str, float] = tomllib.load(file)["weights"]
    if set(weights) != set(FEATURES):
        raise ValueError(f"{WEIGHTS_FILE} weighs {sorted(weights)}, not the features {list(FEATURES)}")
    return tuple(weights[name] for name in FEATURES)


WEIGHTS = _weights()


def features(state: MoiraiState) -> list[list[float]]:
    """Each seat's features, in the order of FEATURES, read from a full state or a seat's view (its hidden cards
    count as cards, whatever they are)."""
    drawn = 1 - state.deck_left / len(FULL_DECK)
    seats = len(state.looms)
    rows = [[0.0] * len(FEATURES) for _ in range(seats)]
    for k in state.objectives:
        at = 2 * OBJECTIVES.index(k)
        for seat, points in enumerate(SCORERS[k](state.looms)):
            rows[seat][at : at + 2] = [points, points * drawn]
    at = 2 * len(OBJECTIVES)
    for seat, loom in enumerate(state.looms):
        face_up = sum(len(cards) for _, cards, _ in loom)
        open_lives = sum(1 for _, _, close in loom if close is None)
        for n, count in enumerate((face_up, len(loom), open_lives)):
            rows[seat][at + 2 * n : at + 2 * n + 2] = [count, count * drawn]
        place = (seat - state.seat) % seats
        if 0 < place <= len(PLACES):
            rows[seat][at + 4 + 2 * place : at + 6 + 2 * place] = [1.0, drawn]
    return rows


def chances(state: MoiraiState) -> list[float]:
    """Each seat's chance to win, from its position (they add up to 1)."""
    utilities = [math.fsum(w * x for w, x in zip(WEIGHTS, row)) for row in features(state)]
    top = max(utilities)
    weights = [math.exp(u - top) for u in utilities]
    total = sum(weights)
    return [weight / total for weight in weights]
