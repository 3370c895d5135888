"""Stones of Fate: the greedy bot's win rate against random bots, over 300 games per player count (issue 5).

Each game is played exactly as `logs simulate stones-of-fate --bot greedy --bot random ...` plays it
(`replay.simulate.simulated`): the first player is drawn at random, so the greedy bot sits in every seat in turn.
A shared victory counts as a win for each winner. "Fair share" is what a bot no better than random would win.

    .venv/bin/python bench/stones_of_fate_bots.py              # 300 games each for 2, 3 and 4 players
    .venv/bin/python bench/stones_of_fate_bots.py --games 60   # fewer
    .venv/bin/python bench/stones_of_fate_bots.py --quick      # 30 games, 3 players
"""

from __future__ import annotations

import sys
from pathlib import Path

_BENCH = Path(__file__).resolve().parent
if sys.path and Path(sys.path[0] or ".").resolve() == _BENCH:
    sys.path[0] = str(_BENCH.parent)  # the project root: bench/replay.py must not shadow the replay package

import time  # noqa: E402

from bench._common import Report, output_path, parser  # noqa: E402
from loom.engine.registry import get_game  # noqa: E402
from loom.replay.simulate import simulated  # noqa: E402

NAME = "stones_of_fate_bots"


def win_rate(players: int, games: int, seed: int) -> dict[str, float]:
    """Greedy's wins, random's wins per random seat, and games per second, for one greedy seat among `players`."""
    game = get_game("stones-of-fate")
    bots = ["greedy"] + ["random"] * (players - 1)
    greedy = random = turns = 0
    began = time.perf_counter()
    for new in (new for batch in simulated(game, games, bots, seed) for new in batch):
        winners = {seat for seat, _, _, winner, _ in new.results if winner}
        greedy += any(new.seats[s].bot == "greedy" for s in winners)
        random += sum(new.seats[s].bot == "random" for s in winners)
        turns += new.turns
    elapsed = time.perf_counter() - began
    return {
        "greedy_wins": greedy,
        "greedy_rate": greedy / games,
        "random_rate_per_seat": random / games / (players - 1),
        "fair_share": 1 / players,
        "turns_per_game": turns / games,
        "games_per_s": games / elapsed,
    }


def main() -> None:
    """Measure and report."""
    p = parser(NAME, __doc__.splitlines()[0])
    p.add_argument("--games", type=int, default=300, help="games per player count (default 300)")
    p.add_argument("--players", type=int, nargs="*", default=[2, 3, 4], help="player counts (default 2 3 4)")
    args = p.parse_args()
    games, counts = (30, [3]) if args.quick else (args.games, args.players)
    report = Report(
        NAME,
        f"Stones of Fate: greedy against random, {games} games each",
        {"games": games, "players": counts, "seed": args.seed},
    )
    for players in counts:
        figures = win_rate(players, games, args.seed)
        report.section(f"{players} players: 1 greedy, {players - 1} random")
        report.add(
            "greedy win rate",
            round(100 * figures["greedy_rate"], 1),
            "%",
            f"{figures['greedy_wins']} of {games}; fair share {100 / players:.0f}%",
            key=f"greedy_rate_{players}p",
        )
        report.add(
            "random win rate (per seat)",
            round(100 * figures["random_rate_per_seat"], 1),
            "%",
            key=f"random_rate_{players}p",
        )
        report.add("turns per game", round(figures["turns_per_game"], 1), key=f"turns_{players}p")
        report.add(
            "simulated games",
            round(figures["games_per_s"], 1),
            "games/s",
            "play + stored rows, no database",
            key=f"games_per_s_{players}p",
        )
    report.emit(output_path(NAME, args))


if __name__ == "__main__":
    main()
