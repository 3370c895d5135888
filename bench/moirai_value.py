"""A leaf value for Moirai fitted to games (issue 16): each seat's chance to win an unfinished game, from its position.

The search scores a playout cut at its horizon by a softmax of the scores (`Tuning.spread`). This fits a better one
to games and prints how much better it predicts the winner, next to that softmax, on games it was not fitted to.
1. Games: `--games` three-player games of greedy bots playing as the playouts do (a random legal action one time in
   ten, `Tuning.explore`); every position with a seat to move, labelled with each seat's share of the victory.
2. The model: a conditional logit. Each seat's chance is a softmax over the seats of a weighted sum of its features:
   each objective in play's points, face-up cards, lives and open lives, each also times the share of the deck
   drawn, and its place after the seat to move. Fitted by Newton's method (numpy) on all but the last `--holdout`
   games.
3. Figures: the log-loss of the winners on the held-out games, by the share of the deck drawn, for the fitted model
   and for the softmax of the scores at spreads 4 (Moirai's tuning) and 6; ln 3 knows nothing. The weights are
   written with the figures (`weights`, in the order of `features`).

bench/profiles/ismcts.md (its last section) scores the search's decisions with this value against an oracle.

    .venv/bin/python bench/moirai_value.py            # 3,000 games, 500 held out: about a minute
    .venv/bin/python bench/moirai_value.py --quick
"""

from __future__ import annotations

import sys
from pathlib import Path

_BENCH = Path(__file__).resolve().parent
if sys.path and Path(sys.path[0] or ".").resolve() == _BENCH:
    sys.path[0] = str(_BENCH.parent)  # the project root: bench/replay.py must not shadow the replay package

import math  # noqa: E402
import os  # noqa: E402
from concurrent.futures import ProcessPoolExecutor  # noqa: E402
from random import Random  # noqa: E402

import numpy as np  # noqa: E402

from bench._common import Report, output_path, parser  # noqa: E402
from loom.engine.moirai.cards import FULL_DECK  # noqa: E402
from loom.engine.moirai.score import SCORERS  # noqa: E402
from loom.engine.moirai.state import MoiraiState  # noqa: E402
from loom.engine.play import start  # noqa: E402
from loom.engine.registry import get_bot, get_game  # noqa: E402
from loom.engine.search import shares, step  # noqa: E402

NAME = "moirai_value"
SEATS = 3
OBJECTIVES = sorted(SCORERS)
FEATURES = [
    *(f"objective {k}{by}" for k in OBJECTIVES for by in ("", " x drawn")),
    *(f"{what}{by}" for what in ("face-up cards", "lives", "open lives") for by in ("", " x drawn")),
    *(f"{place} after the mover{by}" for place in ("first", "second") for by in ("", " x drawn")),
]
PHASES = ((0.0, 0.3), (0.3, 0.6), (0.6, 0.8), (0.8, 1.01))
"""Shares of the deck drawn over which the log-loss is also given."""


def features(state: MoiraiState) -> tuple[list[list[float]], list[int], float]:
    """Each seat's features, each seat's score, and the share of the deck drawn."""
    drawn = 1 - state.deck_left / len(FULL_DECK)
    rows = [[0.0] * len(FEATURES) for _ in state.looms]
    scores = [0] * len(state.looms)
    for k in state.objectives:
        at = 2 * OBJECTIVES.index(k)
        for seat, points in enumerate(SCORERS[k](state.looms)):
            rows[seat][at : at + 2] = [points, points * drawn]
            scores[seat] += points
    at = 2 * len(OBJECTIVES)
    for seat, loom in enumerate(state.looms):
        face_up = sum(len(cards) for _, cards, _ in loom)
        open_lives = sum(1 for _, _, close in loom if close is None)
        for n, value in enumerate((face_up, len(loom), open_lives)):
            rows[seat][at + 2 * n : at + 2 * n + 2] = [value, value * drawn]
        place = (seat - state.seat) % len(state.looms)
        if place:
            rows[seat][at + 6 + 2 * (place - 1) : at + 8 + 2 * (place - 1)] = [1, drawn]
    return rows, scores, drawn


def one_game(index: int) -> tuple[list[tuple[list[list[float]], list[int], float]], list[float]]:
    """Every position of one game played as the playouts play, and each seat's share of its victory."""
    game = get_game("moirai")
    rng = Random(f"loom/bench/{NAME}/{index}")
    state, _ = start(game, ["a", "b", "c"][:SEATS], rng)
    policy = get_bot(game, game.search.policy)
    rows = []
    while (mover := game.to_move(state)) is not None:
        rows.append(features(state))
        seen = game.view(state, mover)
        legal = game.legal_actions(seen)
        if len(legal) > 1 and rng.random() >= game.search.explore:
            chosen = policy.choose(seen, legal, rng)
        else:
            chosen = legal[rng.randrange(len(legal))]
        state = step(game, state, chosen, rng)
    return rows, shares(game, state)


def chances(utilities: np.ndarray) -> np.ndarray:
    """A softmax over the seats (the last axis)."""
    shifted = np.exp(utilities - utilities.max(axis=-1, keepdims=True))
    return shifted / shifted.sum(axis=-1, keepdims=True)


def log_loss(predicted: np.ndarray, won: np.ndarray) -> float:
    """The mean of minus the log of the chance given to the winners (shared victories weighted by their share)."""
    return float(-(won * np.log(predicted + 1e-12)).sum(axis=-1).mean())


def fit(x: np.ndarray, won: np.ndarray, steps: int = 25) -> np.ndarray:
    """The conditional logit's weights by Newton's method, a little ridge for the features that never vary."""
    weights = np.zeros(x.shape[2])
    for _ in range(steps):
        p = chances(x @ weights)
        gradient = np.einsum("nsf,ns->f", x, p - won) / len(x)
        mean = np.einsum("nsf,ns->nf", x, p)
        hessian = (np.einsum("nsf,nsg,ns->fg", x, x, p) - np.einsum("nf,ng->fg", mean, mean)) / len(x)
        weights -= np.linalg.solve(hessian + 1e-4 * np.eye(len(weights)), gradient)
    return weights


def main() -> None:
    """Play, fit and report."""
    p = parser(NAME, __doc__.splitlines()[0])
    p.add_argument("--games", type=int, default=3000, help="games played (default 3000)")
    p.add_argument("--holdout", type=int, default=500, help="of them, the last ones kept out of the fit (default 500)")
    p.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="processes (default: every core)")
    args = p.parse_args()
    if args.quick:
        args.games, args.holdout = 120, 40
    with ProcessPoolExecutor(args.workers) as pool:
        games = list(pool.map(one_game, range(args.games), chunksize=20))
    x, scores, drawn, won, held = [], [], [], [], []
    for index, (rows, shared) in enumerate(games):
        for seats, points, share in rows:
            x.append(seats)
            scores.append(points)
            drawn.append(share)
            won.append(shared)
            held.append(index >= args.games - args.holdout)
    x_, scores_, drawn_, won_, held_ = (np.array(a, dtype=float) for a in (x, scores, drawn, won, held))
    test = held_.astype(bool)
    weights = fit(x_[~test], won_[~test])
    report = Report(
        NAME,
        "A leaf value for Moirai fitted to games: the winners' log-loss on held-out games",
        {"games": args.games, "holdout": args.holdout, "positions": len(x), "workers": args.workers},
        extra={"features": FEATURES, "weights": [round(float(w), 5) for w in weights]},
    )
    for low, high in ((0.0, 1.01), *PHASES):
        part = test & (drawn_ >= low) & (drawn_ < high)
        whole = low == 0 and high > 1
        label = "every position" if whole else f"{low:.0%}-{min(high, 1):.0%} of the deck drawn"
        tag = "all" if whole else f"{low:g}-{min(high, 1):g}"
        report.section(f"{label}: {int(part.sum()):,} held-out positions")
        fitted = log_loss(chances(x_[part] @ weights), won_[part])
        report.add("the fitted value", round(fitted, 4), "log-loss", key=f"fitted_{tag}")
        for spread in (4.0, 6.0):
            floor = log_loss(chances(scores_[part] / spread), won_[part])
            report.add(f"softmax of the scores, spread {spread:g}", round(floor, 4), "log-loss",
                       "floor: what the search scores a cut playout by" if spread == 4 else "",
                       key=f"softmax{spread:g}_{tag}")  # fmt: skip
        report.add("knowing nothing", round(math.log(SEATS), 4), "log-loss", "ln 3", key=f"uniform_{tag}")
    report.emit(output_path(NAME, args))


if __name__ == "__main__":
    main()
