"""A leaf value for Moirai fitted to games (issue 16): each seat's chance to win an unfinished game, from its position.

The search scores a playout cut at its horizon by a softmax of the scores (`Tuning.spread`). This fits a better one
to games and prints how much better it predicts the winner, next to that softmax, on games it was not fitted to.
1. Games: `--games` three-player games (`--players`) of greedy bots playing as the playouts do (a random legal
   action one time in ten, `Tuning.explore`); every position with a seat to move, labelled with each seat's share
   of the victory.
2. The model: the search's leaf value, `chances` in `engine/moirai/bots.py` (a conditional logit over its features).
   Fitted by Newton's method (numpy) on all but the last `--holdout` games.
3. Figures: the log-loss of the winners on the held-out games, by the share of the deck drawn, for the weights
   fitted now, for those in use (the `[value]` table of `engine/moirai/cards.toml`) and for the softmax of the
   scores at spreads 4 (the floor: what the search scores a cut playout by without its value) and 6; ln 3 knows
   nothing. The weights are written with the figures (`weights`, in the order of `features`), and with `--write`
   into that table.

bench/profiles/ismcts.md (its last sections) scores the search's decisions with this value against an oracle.

    .venv/bin/python bench/moirai_value.py            # 3,000 games, 500 held out: about a minute
    .venv/bin/python bench/moirai_value.py --quick
    .venv/bin/python bench/moirai_value.py --players 5    # the weights in use (fitted to three) on five players
    .venv/bin/python bench/moirai_value.py --write    # the search's weights refitted
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
from datetime import date  # noqa: E402
from random import Random  # noqa: E402

import numpy as np  # noqa: E402

from bench._common import Report, output_path, parser  # noqa: E402
from loom.engine.moirai import cards  # noqa: E402
from loom.engine.moirai.bots import VALUE_FEATURES, VALUE_WEIGHTS, drawn, value_features  # noqa: E402
from loom.engine.play import start  # noqa: E402
from loom.engine.registry import get_bot, get_game  # noqa: E402
from loom.engine.search import shares, step  # noqa: E402

NAME = "moirai_value"
SEATS = 3
"""Players in the games, unless `--players` says otherwise."""
PHASES = ((0.0, 0.3), (0.3, 0.6), (0.6, 0.8), (0.8, 1.01))
"""Shares of the deck drawn over which the log-loss is also given."""
CARDS_FILE = Path(cards.__file__).with_name("cards.toml")
VALUE_BLOCK = "# The search's leaf value"
"""The first line of the `[value]` table's comment in cards.toml: the file is rewritten from there (it is last)."""


def one_game(job: tuple[int, int]) -> tuple[list[tuple[list[list[float]], list[int], float]], list[float]]:
    """Every position of one game (its index, its players) played as the playouts play, and each seat's share of its
    victory."""
    index, seats = job
    game = get_game("moirai")
    rng = Random(f"loom/bench/{NAME}/{index}" + ("" if seats == SEATS else f"/{seats}"))
    state, _ = start(game, list("abcde")[:seats], rng)
    policy = get_bot(game, game.search.policy)
    rows = []
    while (mover := game.to_move(state)) is not None:
        rows.append((value_features(state), game.scores(state), drawn(state)))
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
    p.add_argument("--players", type=int, default=SEATS, choices=range(2, 6), help=f"players (default {SEATS})")
    p.add_argument("--write", action="store_true", help="write the fitted weights into Moirai's cards.toml")
    args = p.parse_args()
    if args.quick:
        args.games, args.holdout = 120, 40
    with ProcessPoolExecutor(args.workers) as pool:
        games = list(pool.map(one_game, [(k, args.players) for k in range(args.games)], chunksize=20))
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
        {
            "games": args.games,
            "players": args.players,
            "holdout": args.holdout,
            "positions": len(x),
            "workers": args.workers,
        },
        extra={"features": VALUE_FEATURES, "weights": [round(float(w), 5) for w in weights]},
    )
    for low, high in ((0.0, 1.01), *PHASES):
        part = test & (drawn_ >= low) & (drawn_ < high)
        whole = low == 0 and high > 1
        label = "every position" if whole else f"{low:.0%}-{min(high, 1):.0%} of the deck drawn"
        tag = "all" if whole else f"{low:g}-{min(high, 1):g}"
        report.section(f"{label}: {int(part.sum()):,} held-out positions")
        fitted = log_loss(chances(x_[part] @ weights), won_[part])
        report.add("the weights fitted now", round(fitted, 4), "log-loss", key=f"fitted_{tag}")
        in_use = log_loss(chances(x_[part] @ np.array(VALUE_WEIGHTS)), won_[part])
        report.add("the weights in use (cards.toml)", round(in_use, 4), "log-loss", key=f"in_use_{tag}")
        for spread in (4.0, 6.0):
            floor = log_loss(chances(scores_[part] / spread), won_[part])
            report.add(f"softmax of the scores, spread {spread:g}", round(floor, 4), "log-loss",
                       "floor: what the search scores a cut playout by" if spread == 4 else "",
                       key=f"softmax{spread:g}_{tag}")  # fmt: skip
        nothing = round(math.log(args.players), 4)
        report.add("knowing nothing", nothing, "log-loss", f"ln {args.players}", key=f"uniform_{tag}")
    report.emit(output_path(NAME, args))
    if args.write:
        games = f"{args.games - args.holdout:,} {args.players}-player games, {args.holdout:,} more held out"
        write_weights(weights, games)


def write_weights(weights: np.ndarray, fitted_to: str) -> None:
    """The weights into the `[value]` table of Moirai's cards.toml, where the search reads them."""
    text = CARDS_FILE.read_text()
    kept = text[: text.index(VALUE_BLOCK)]
    lines = [
        f"{VALUE_BLOCK} (bots.py's `chances`): the weight of each feature in a seat's utility. Written by",
        f"# bench/moirai_value.py --write on {date.today()}: fitted to {fitted_to}, games of the playouts' policy.",
        "# This table stays last: --write rewrites the file from the line above this comment's first.",
        "[value]",
        *(f'"{name}" = {round(float(w), 5)}' for name, w in zip(VALUE_FEATURES, weights)),
    ]
    CARDS_FILE.write_text(kept + "\n".join(lines) + "\n")
    print(f"wrote the [value] table of {CARDS_FILE}")


if __name__ == "__main__":
    main()
