"""The search bot against greedy: mcts in one seat, greedy in the other two, 300 three-player games per game (issue 16).

The search bot is ISMCTS (engine/search.py), its budget a number of iterations (one determinization and one playout
each); the target is a win rate of at least 60% in every game, against a fair share of 33%.

Game k seats mcts at seat k mod 3 (seat 0 moves first), so it plays every position in the turn order equally often;
games are seeded by their index and played in a process pool, so the figures do not depend on the number of workers.
A shared victory counts as a win. The 95% interval is Wilson's. Time per move is the search bot's own time, over its
decisions with more than one legal action (a forced move costs nothing).

    /work/venv/bin/python bench/mcts_vs_greedy.py                       # 300 games per game, each game's budget
    /work/venv/bin/python bench/mcts_vs_greedy.py --games 60 --game motto --budget 100
    /work/venv/bin/python bench/mcts_vs_greedy.py --quick               # 6 games per game, budget 10
"""

from __future__ import annotations

import sys
from pathlib import Path

_BENCH = Path(__file__).resolve().parent
if sys.path and Path(sys.path[0] or ".").resolve() == _BENCH:
    sys.path[0] = str(_BENCH.parent)  # the project root: bench/replay.py must not shadow the replay package

import math  # noqa: E402
import os  # noqa: E402
import time  # noqa: E402
from collections.abc import Sequence  # noqa: E402
from concurrent.futures import ProcessPoolExecutor  # noqa: E402
from random import Random  # noqa: E402
from typing import Any  # noqa: E402

from bench._common import Report, output_path, parser, progress  # noqa: E402
from loom.engine.play import chance_rng, play_out, start  # noqa: E402
from loom.engine.registry import get_bot, get_game  # noqa: E402

NAME = "mcts_vs_greedy"
GAMES = ("motto", "moirai", "moorea", "stones-of-fate")
PLAYERS = 3


class Timed:
    """A bot whose decisions with a real choice are counted and timed."""

    def __init__(self, bot: Any) -> None:
        self.bot, self.decisions, self.seconds = bot, 0, 0.0

    def choose(self, view: Any, legal: Sequence[Any], rng: Random) -> Any:
        """The wrapped bot's choice."""
        began = time.perf_counter()
        action = self.bot.choose(view, legal, rng)
        if len(legal) > 1:
            self.decisions += 1
            self.seconds += time.perf_counter() - began
        return action


def play_one(name: str, budget: int, index: int, seed: int) -> dict[str, Any]:
    """Game `index`: mcts at seat index mod 3 against two greedy bots; whether it won, and its time."""
    game = get_game(name)
    seat = index % PLAYERS
    rng = Random(f"loom/bench/{NAME}/{name}/{seed}/{index}")
    players = ["mcts" if s == seat else "greedy" for s in range(PLAYERS)]
    state, steps = start(game, players, rng)
    searcher = Timed(get_bot(game, f"mcts:{budget}"))
    bots = {s: searcher if s == seat else get_bot(game, "greedy") for s in range(PLAYERS)}
    bot_rngs = {s: Random(f"loom/bench/{NAME}/bot/{seed}/{index}/{s}") for s in range(PLAYERS)}
    final, _ = play_out(game, state, bots, chance_rng(seed, len(steps)), bot_rngs)
    winners = game.winners(final)
    return {"won": seat in winners, "decisions": searcher.decisions, "seconds": searcher.seconds}


def _play(job: tuple[str, int, int, int]) -> dict[str, Any]:
    return play_one(*job)


def wilson(wins: int, games: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson's 95% interval of a win rate."""
    if not games:
        return 0.0, 1.0
    p = wins / games
    centre = (p + z * z / (2 * games)) / (1 + z * z / games)
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / (1 + z * z / games)
    return centre - half, centre + half


def measure(name: str, games: int, budget: int, seed: int, workers: int) -> dict[str, Any]:
    """Win rate and time per move of mcts against greedy over `games` games of `name`."""
    jobs = [(name, budget, index, seed) for index in range(games)]
    began = time.perf_counter()
    results: list[dict[str, Any]] = []
    with ProcessPoolExecutor(workers) as pool:
        for result in pool.map(_play, jobs, chunksize=1):
            results.append(result)  # the running tally is shown, so a run cut short still tells what it found
            progress(f"{name} ({sum(r['won'] for r in results)} won)", len(results), games, began)
    wins = sum(r["won"] for r in results)
    decisions = sum(r["decisions"] for r in results)
    seconds = sum(r["seconds"] for r in results)
    low, high = wilson(wins, games)
    return {
        "wins": wins,
        "rate": wins / games,
        "low": low,
        "high": high,
        "ms_per_move": 1000 * seconds / max(decisions, 1),
        "moves_per_game": decisions / games,
        "wall_s": time.perf_counter() - began,
    }


def main() -> None:
    """Measure and report."""
    p = parser(NAME, __doc__.splitlines()[0])
    p.add_argument("--games", type=int, default=300, help="games per game (default 300)")
    p.add_argument("--game", action="append", choices=GAMES, help="only this game (repeat for several)")
    p.add_argument("--budget", type=int, default=None, help="iterations per decision (default: each game's own)")
    p.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="processes (default: every core)")
    args = p.parse_args()
    games = 6 if args.quick else args.games
    names = args.game or list(GAMES)
    budgets = {name: 10 if args.quick else args.budget or get_game(name).search.budget for name in names}
    report = Report(
        NAME,
        f"mcts against two greedy bots, {games} three-player games per game",
        {"games": games, "budgets": budgets, "seed": args.seed, "workers": args.workers},
        extra={"tuning": {name: repr(get_game(name).search) for name in names}},
    )
    for name in names:
        figures = measure(name, games, budgets[name], args.seed, args.workers)
        key = name.replace("-", "_")
        report.section(f"{name}: mcts (ISMCTS) with {budgets[name]} iterations per move")
        report.add(
            "mcts win rate",
            round(100 * figures["rate"], 1),
            "%",
            f"{figures['wins']} of {games}; 95% interval {100 * figures['low']:.1f}-{100 * figures['high']:.1f}%; "
            f"fair share {100 / PLAYERS:.0f}%, target 60%",
            key=f"{key}_win_rate",
        )
        report.add("95% interval, low", round(100 * figures["low"], 1), "%", key=f"{key}_low")
        report.add("95% interval, high", round(100 * figures["high"], 1), "%", key=f"{key}_high")
        report.add("time per move", round(figures["ms_per_move"], 1), "ms", "search bot, real choices only",
                   key=f"{key}_ms_per_move")  # fmt: skip
        report.add("searched moves per game", round(figures["moves_per_game"], 1), key=f"{key}_moves")
        report.add("wall time", round(figures["wall_s"], 1), "s", f"{args.workers} workers", key=f"{key}_wall_s")
    report.emit(output_path(NAME, args))


if __name__ == "__main__":
    main()
