"""The search bots' decisions scored by an oracle (issue 16): a finer yardstick than games for a search's tuning.

A head-to-head game is decided by a few of its twenty-odd decisions and by the deal, so a change worth a few points
takes a thousand games to show. Here each decision is scored on its own, on the same positions for every search.
1. Positions: every `--every`-th decision with a real choice in `--deals` three-player games of greedy bots.
2. The oracle: the greedy bot's best `candidates` actions (the only ones either search can play), each valued by
   `--worlds` whole games played out by the light policy (greedy, a random legal action now and then) in worlds
   dealt from the mover's view, the same world and the same random numbers for every candidate; a candidate's value
   `Q` is the mover's share of the victory. Built once per game and seed, kept in `bench/out/cache/`.
3. Each search decides every position `--repeats` times at `--ms` per move from the mover's view, and scores the
   oracle's `Q` of what it chose. The floor beside it: the greedy bot's own choice (what both searches must beat),
   and the old one-level search at `--ms` and at twice `--ms` (what twice the time is worth), in the same run.

The oracle's noise is the same for every search and does not depend on their choices, so the differences between
searches are unbiased; their standard errors are over the positions (paired: every search decides the same ones).

    .venv/bin/python bench/decisions.py                     # Moirai, about 350 positions (the oracle: ~25 min once)
    .venv/bin/python bench/decisions.py --set horizon=8     # a tuning of ISMCTS, against the same oracle
    .venv/bin/python bench/decisions.py --quick
"""

from __future__ import annotations

import sys
from pathlib import Path

_BENCH = Path(__file__).resolve().parent
if sys.path and Path(sys.path[0] or ".").resolve() == _BENCH:
    sys.path[0] = str(_BENCH.parent)  # the project root: bench/replay.py must not shadow the replay package

import dataclasses  # noqa: E402
import math  # noqa: E402
import os  # noqa: E402
import pickle  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402
from concurrent.futures import ProcessPoolExecutor  # noqa: E402
from random import Random  # noqa: E402
from typing import Any  # noqa: E402

from bench._common import OUT, Report, output_path, parser, progress  # noqa: E402
from bench.flat_search import OLD, HalvingSearchBot  # noqa: E402
from bench.ismcts import GAMES, change  # noqa: E402
from loom.engine.play import act, chance_rng, start  # noqa: E402
from loom.engine.registry import get_bot, get_game  # noqa: E402
from loom.engine.search import IsmctsBot, best_first, step  # noqa: E402

NAME = "decisions"
PLAYERS = ["a", "b", "c"]
WHOLE_GAME = 10**6
"""A playout horizon no game reaches: the oracle plays every game to its end."""


def positions(name: str, deals: int, every: int, seed: int) -> list[Any]:
    """Every `every`-th decision with a real choice of `deals` games of greedy bots, each deal's first at another
    offset."""
    game = get_game(name)
    greedy = get_bot(game, "greedy")
    out = []
    for k in range(deals):
        state, steps = start(game, PLAYERS, Random(f"loom/bench/{NAME}/{name}/{seed}/{k}"))
        rng = chance_rng(seed * 100_000 + k, len(steps))
        choices = 0
        while (seat := game.to_move(state)) is not None:
            view = game.view(state, seat)
            legal = game.legal_actions(view)
            if len(legal) > 1:
                choices += 1
                if choices % every == k % every:
                    out.append(state)
            state, _ = act(game, state, greedy.choose(view, legal, rng), rng)
    return out


def oracle(job: tuple[str, Any, int, int]) -> tuple[list[Any], list[float]]:
    """The greedy bot's best candidates at a position and each one's value: the mover's mean share of the victory
    over `worlds` whole games of the light policy, paired (the same world and random numbers for each)."""
    name, state, worlds, seed = job
    game = get_game(name)
    tuning = game.search
    seat = game.to_move(state)
    view = game.view(state, seat)
    candidates = best_first(get_bot(game, "greedy"), view, game.legal_actions(view), tuning.candidates, Random(0))
    light = IsmctsBot(game, tuning=dataclasses.replace(tuning, blend=0.0))  # a finished game scores its shares
    rng = Random(seed)
    totals = [0.0] * len(candidates)
    for _ in range(worlds):
        world_seed = rng.getrandbits(64)
        world = game.determinize(view, seat, Random(world_seed))
        for index, action in enumerate(candidates):
            play = Random(world_seed)
            totals[index] += light.playout(step(game, world, action, play), play, WHOLE_GAME)[seat]
    return candidates, [total / worlds for total in totals]


def decide(job: tuple[str, str, Any, float, tuple[tuple[str, Any], ...], list[int]]) -> tuple[list[Any], float]:
    """A search's choices at one position, one per seed, and their seconds."""
    name, kind, state, ms, changes, seeds = job
    game = get_game(name)
    if kind == "ismcts":
        bot: Any = IsmctsBot(game, None, dataclasses.replace(game.search, seconds=ms / 1000, **dict(changes)))
    else:
        bot = HalvingSearchBot(game, None, dataclasses.replace(OLD.get(name, game.search), seconds=ms / 1000))
    view = game.view(state, game.to_move(state))
    legal = game.legal_actions(view)
    began = time.perf_counter()
    chosen = [bot.choose(view, legal, Random(seed)) for seed in seeds]
    return chosen, time.perf_counter() - began


def built_oracle(name: str, args: Any) -> tuple[list[Any], list[tuple[list[Any], list[float]]]]:
    """The positions and their oracle, from the cache when this game, seed and size were built before."""
    cache = OUT / "cache" / f"{NAME}-{name}-{args.seed}-{args.deals}-{args.every}-{args.worlds}.pickle"
    if cache.exists():
        with cache.open("rb") as f:
            loaded: tuple[list[Any], list[tuple[list[Any], list[float]]]] = pickle.load(f)
            return loaded
    states = positions(name, args.deals, args.every, args.seed)
    jobs = [(name, state, args.worlds, index) for index, state in enumerate(states)]
    valued = []
    began = time.perf_counter()
    with ProcessPoolExecutor(args.workers) as pool:
        for result in pool.map(oracle, jobs, chunksize=1):
            valued.append(result)
            progress(f"{name} oracle", len(valued), len(jobs), began)
    cache.parent.mkdir(parents=True, exist_ok=True)
    with cache.open("wb") as f:
        pickle.dump((states, valued), f)
    return states, valued


def scored(
    name: str, kind: str, ms: float, states: list[Any], valued: list[tuple[list[Any], list[float]]], args: Any
) -> tuple[list[float], float]:
    """Per position, the oracle's mean value of a search's choices; and its seconds per decision."""
    changes = tuple(args.set) if kind == "ismcts" else ()
    jobs = [
        (name, kind, state, ms, changes, list(range(100 * index, 100 * index + args.repeats)))
        for index, state in enumerate(states)
    ]
    out, seconds = [], 0.0
    with ProcessPoolExecutor(args.workers) as pool:
        for (candidates, values), (chosen, spent) in zip(valued, pool.map(decide, jobs, chunksize=1)):
            out.append(statistics.fmean(values[candidates.index(action)] for action in chosen))
            seconds += spent
    return out, seconds / (len(states) * args.repeats)


def main() -> None:
    """Measure and report."""
    p = parser(NAME, __doc__.splitlines()[0])
    p.add_argument("--game", choices=GAMES, default="moirai", help="the game (default moirai)")
    p.add_argument("--deals", type=int, default=40, help="games whose positions are taken (default 40)")
    p.add_argument("--every", type=int, default=8, help="one decision with a choice in this many (default 8)")
    p.add_argument("--worlds", type=int, default=160, help="the oracle's paired whole games per position (default 160)")
    p.add_argument("--repeats", type=int, default=4, help="decisions per position and search (default 4)")
    p.add_argument("--ms", type=float, default=100.0, help="time per move of both searches (default 100)")
    p.add_argument("--set", action="append", type=change, default=[], help="ISMCTS's tuning: horizon=8")
    p.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="processes (default: every core)")
    args = p.parse_args()
    if args.quick:
        args.deals, args.every, args.worlds, args.repeats = 4, 16, 8, 1
    name = args.game
    tuning = dataclasses.replace(get_game(name).search, **dict(args.set))
    if tuning.candidates > get_game(name).search.candidates or tuning.options:
        raise SystemExit("--set: the oracle values only the greedy bot's best candidates; more, or `options`, would "
                         "play actions it has no value for")  # fmt: skip
    states, valued = built_oracle(name, args)
    greedy = [values[0] for _, values in valued]  # the greedy bot's choice is its best candidate, the first
    report = Report(
        NAME,
        "The searches' decisions scored by an oracle of whole greedy games: the mover's share of the victory",
        {k: getattr(args, k) for k in ("game", "deals", "every", "worlds", "repeats", "ms", "seed", "workers")},
        extra={"tuning": repr(tuning)},
    )
    report.section(f"{name}: {len(states)} positions, {args.repeats} decisions each per search")
    report.add("the greedy bot's choice (floor)", round(statistics.fmean(greedy), 4), "Q", key="greedy_q")
    rivals = [("old search", "flat", args.ms), ("old search, twice the time", "flat", 2 * args.ms)]
    base: list[float] | None = None
    for label, kind, ms in [*rivals, ("ISMCTS", "ismcts", args.ms)]:
        per, seconds = scored(name, kind, ms, states, valued, args)
        note = f"{1000 * seconds:.0f} ms a decision"
        if base is None:
            base = per
        else:
            gains = [mine - theirs for mine, theirs in zip(per, base)]
            spread = statistics.stdev(gains) / math.sqrt(len(gains)) if len(gains) > 1 else 0.0
            note += f"; against the old search at {args.ms:g} ms: {statistics.fmean(gains):+.4f} ± {spread:.4f}"
        key = f"{kind}_{ms:g}ms_q"
        report.add(f"{label} ({ms:g} ms)", round(statistics.fmean(per), 4), "Q", note, key=key)
        print(f"{name}: {label} ({ms:g} ms): Q {statistics.fmean(per):.4f} ({note})", file=sys.stderr)
    report.emit(output_path(NAME, args))


if __name__ == "__main__":
    main()
