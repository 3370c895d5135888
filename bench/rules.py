"""The rules alone: `engine.play.record` (check an event, apply it, work out its turn) over simulated games, per game.

Each game's events are simulated first (three seats: one greedy bot and random ones, as in bench/import_log.py;
seeds fixed, so every tree plays the same games), then folded again from the blank state by `record` alone, timed
in process time (best of `--repeat`). Each line ends with a fingerprint of every step and final state: two trees
whose rules behave the same print the same fingerprint. To compare two trees in one run, run the script once with
each tree's interpreter:

    /work/main/.venv/bin/python bench/rules.py && .venv/bin/python bench/rules.py
    .venv/bin/python bench/rules.py --profile motto     # and cProfile the fold of that game
"""

from __future__ import annotations

import argparse
import cProfile
import hashlib
import pstats
import time
from typing import Any

from loom.engine.play import record
from loom.engine.registry import get_game
from loom.replay.simulate import play_one

GAMES = ("motto", "moirai", "moorea", "stones-of-fate")


def played(name: str, games: int, seats: int) -> list[list[Any]]:
    """The payloads of `games` games of one greedy bot against random ones, seeds `rules/0`, `rules/1`, ..."""
    game = get_game(name)
    seats = max(game.min_players, min(seats, game.max_players))
    return [
        [
            step.payload
            for step in play_one(game, ["greedy"] + ["random"] * (seats - 1), f"rules/{k}", taking=False).steps
        ]
        for k in range(games)
    ]


def fold(game: Any, games: list[list[Any]]) -> list[Any]:
    """Every game folded by `record`; the final states."""
    finals = []
    for payloads in games:
        state = game.blank()
        for payload in payloads:
            state, _ = record(game, state, payload)
        finals.append(state)
    return finals


def fingerprint(game: Any, games: list[list[Any]]) -> str:
    """A digest of every step (turn, actor) and every final state: equal across trees whose rules agree."""
    digest = hashlib.sha256()
    for payloads in games:
        state = game.blank()
        for payload in payloads:
            state, step = record(game, state, payload)
            digest.update(f"{step.turn},{step.actor};".encode())
        digest.update(repr(state).encode())
    return digest.hexdigest()[:16]


def main() -> None:
    p = argparse.ArgumentParser(prog="bench/rules.py", description=__doc__.splitlines()[0])
    p.add_argument("--games", type=int, default=200, help="games simulated per game (default 200)")
    p.add_argument("--seats", type=int, default=3)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--only", choices=GAMES, action="append", help="time only these games")
    p.add_argument("--profile", choices=GAMES, help="cProfile the fold of this game")
    args = p.parse_args()
    for name in args.only or GAMES:
        game = get_game(name)
        games = played(name, args.games, args.seats)
        events = sum(map(len, games))
        best = float("inf")
        for _ in range(args.repeat):
            started = time.process_time()
            fold(game, games)
            best = min(best, time.process_time() - started)
        print(
            f"{name:15} {events:8,} events  {events / best:10,.0f} events/s  "
            f"{1e6 * best / events:5.2f} us/event  fingerprint {fingerprint(game, games)}",
            flush=True,
        )
        if args.profile == name:
            profiler = cProfile.Profile()
            profiler.runcall(fold, game, games)
            pstats.Stats(profiler).sort_stats("tottime").print_stats(25)


if __name__ == "__main__":
    main()
