"""Moorea: the greedy bot's win rate against random bots (issue 4: greedy must beat random clearly).

Each game seats one greedy bot and random bots (three players by default); the first player is drawn at random, as
the simulator does. A shared victory counts as a win for every winner.

    .venv/bin/python bench/moorea_bots.py               # 300 three-player games
    .venv/bin/python bench/moorea_bots.py --games 60 --players 2
"""

from __future__ import annotations

import sys
from pathlib import Path

_BENCH = Path(__file__).resolve().parent
if sys.path and Path(sys.path[0] or ".").resolve() == _BENCH:
    sys.path[0] = str(_BENCH.parent)  # the project root: bench/replay.py must not shadow the replay package

import time  # noqa: E402
from random import Random  # noqa: E402

from bench._common import Report, output_path, parser  # noqa: E402
from loom.engine.play import chance_rng, first_player, play_out, seated, start  # noqa: E402
from loom.engine.registry import get_bot, get_game  # noqa: E402

GAME = get_game("moorea")


def play(bots: list[str], seed: str) -> tuple[list[str], list[int], list[int], int]:
    """One game: the bot of each seat, the scores, the winners and the number of turns."""
    rng = Random(seed)
    order = seated(bots, first_player(len(bots), rng))
    state, steps = start(GAME, [f"{bot} {k}" for k, bot in enumerate(order)], rng)
    recorded = steps[0].payload.seed  # type: ignore[attr-defined]
    agents = {seat: get_bot(GAME, bot) for seat, bot in enumerate(order)}
    bot_rngs = {seat: Random(f"loom/bot/{recorded}/{seat}") for seat in agents}
    final, _ = play_out(GAME, state, agents, chance_rng(recorded, len(steps)), bot_rngs)
    return order, GAME.scores(final), GAME.winners(final), final.turn


def main() -> None:
    """Play the games and report greedy's win rate, its mean score and random's."""
    p = parser("moorea_bots", "Moorea: greedy against random bots")
    p.add_argument("--games", type=int, default=300, help="games to play (default 300)")
    p.add_argument("--players", type=int, default=3, help="players per game: one greedy, the rest random (default 3)")
    args = p.parse_args()
    games = 30 if args.quick else args.games
    bots = ["greedy"] + ["random"] * (args.players - 1)
    wins = turns = 0
    greedy_points: list[int] = []
    random_points: list[int] = []
    started = time.perf_counter()
    for index in range(games):
        order, scores, winners, played = play(bots, f"loom/bench/moorea-bots/{args.seed}/{index}")
        wins += any(order[seat] == "greedy" for seat in winners)
        turns += played
        greedy_points += [s for seat, s in enumerate(scores) if order[seat] == "greedy"]
        random_points += [s for seat, s in enumerate(scores) if order[seat] == "random"]
    seconds = time.perf_counter() - started
    report = Report(
        "moorea_bots",
        f"Moorea: greedy against {args.players - 1} random bot(s), {games} games",
        {"games": games, "players": args.players, "seed": args.seed},
    )
    report.add("greedy win rate", wins / games, "", f"{wins} of {games}; a fair share would be {1 / args.players:.2f}")
    report.add("greedy mean score", sum(greedy_points) / len(greedy_points), "points")
    report.add("random mean score", sum(random_points) / len(random_points), "points")
    report.add("mean turns per game", turns / games, "turns")
    report.add("games per second", games / seconds, "games/s", "play only (engine, bots), no storage")
    report.emit(output_path("moorea_bots", args))


if __name__ == "__main__":
    main()
