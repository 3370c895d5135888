"""Benchmark: Moirai's greedy bot against two random bots in three-player games, and the speed of simulation.

Each game seats one greedy and two random bots (the greedy bot's place in the line-up rotates; the first player is
drawn at random, as `logs simulate` does). A game counts as a win for greedy when greedy is among the winners (M17).

    .venv/bin/python bench/moirai_bots.py               # 300 games
    .venv/bin/python bench/moirai_bots.py --games 1000
    .venv/bin/python bench/moirai_bots.py --quick       # 30 games
"""

from __future__ import annotations

import sys
from pathlib import Path

_BENCH = Path(__file__).resolve().parent
if sys.path and Path(sys.path[0] or ".").resolve() == _BENCH:
    sys.path[0] = str(_BENCH.parent)  # the project root: a bench script must not shadow a package

import time  # noqa: E402
from collections import defaultdict  # noqa: E402
from random import Random  # noqa: E402
from typing import Any  # noqa: E402

from bench._common import Report, output_path, parser  # noqa: E402
from loom.engine.moirai.cards import OBJECTIVES  # noqa: E402
from loom.engine.play import chance_rng, first_player, play_out, seated, start  # noqa: E402
from loom.engine.registry import get_bot, get_game  # noqa: E402

NAME = "moirai_bots"
GAME = get_game("moirai")


def play(bots: list[str], seed: str) -> tuple[Any, list[str], int]:
    """One game, as `replay.simulate.simulate_one` plays it: the final state, the bot of each seat, the events."""
    rng = Random(seed)
    order = seated(list(enumerate(bots)), first_player(len(bots), rng))
    state, steps = start(GAME, [f"{bot} {k + 1}" for k, bot in order], rng)
    recorded_seed = steps[0].payload.seed  # type: ignore[attr-defined]
    agents = {seat: get_bot(GAME, bot) for seat, (_, bot) in enumerate(order)}
    bot_rngs = {seat: Random(f"loom/bot/{recorded_seed}/{seat}") for seat in agents}
    state, more = play_out(GAME, state, agents, chance_rng(recorded_seed, len(steps)), bot_rngs)
    return state, [bot for _, bot in order], len(steps) + len(more)


def main() -> None:
    """Play the games and print the report."""
    p = parser(NAME, __doc__ or "")
    p.add_argument("--games", type=int, default=300, help="three-player games of greedy against random (default 300)")
    args = p.parse_args()
    games = 30 if args.quick else args.games
    report = Report(NAME, f"Moirai: greedy against two random bots, {games} three-player games", {"games": games})

    wins = shared = 0
    points: dict[str, list[int]] = defaultdict(list)
    by_objective: dict[int, list[int]] = defaultdict(lambda: [0, 0])
    started = time.perf_counter()
    for n in range(games):
        bots = ["random", "random", "random"]
        bots[n % 3] = "greedy"
        state, seats, _ = play(bots, f"loom/bench/moirai/{args.seed}/{n}")
        winners = GAME.winners(state)
        won = any(seats[s] == "greedy" for s in winners)
        wins += won
        shared += won and len(winners) > 1
        for seat, score in enumerate(GAME.scores(state)):
            points[seats[seat]].append(score)
        for objective in state.objectives:
            by_objective[objective][0] += won
            by_objective[objective][1] += 1
    mixed_s = time.perf_counter() - started

    started, events = time.perf_counter(), 0
    speed_games = max(10, games // 3)
    for n in range(speed_games):
        events += play(["random"] * 3, f"loom/bench/moirai/speed/{args.seed}/{n}")[2]
    random_s = time.perf_counter() - started

    report.section("greedy against random")
    report.add("greedy win rate", round(wins / games, 3), "", f"{wins} of {games} (a random seat: 0.333)", "win_rate")
    report.add("shared victories among them", shared, "games", "M17 tie after the cut-short tie-break")
    for bot in ("greedy", "random"):
        mean = sum(points[bot]) / len(points[bot])
        report.add(f"mean score, {bot}", round(mean, 2), "points", key=f"mean_score_{bot}")
    report.section("greedy win rate by objective in play")
    for objective, (won_with, played) in sorted(by_objective.items()):
        key = OBJECTIVES[objective].key
        report.add(key, round(won_with / played, 3), "", f"{won_with} of {played}", f"win_rate {key}")
    report.section("speed")
    report.add("greedy-random-random games", round(games / mixed_s, 1), "games/s", key="games_per_s_mixed")
    report.add("random-only games", round(speed_games / random_s, 1), "games/s", key="games_per_s_random")
    report.add("random-only events", round(events / random_s), "events/s", "play + checks + apply", "events_per_s")
    report.emit(output_path(NAME, args))


if __name__ == "__main__":
    main()
