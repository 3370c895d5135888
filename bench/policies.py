"""The greedy policies (each game's `greedy` bot, the search's playout policy) and the rules they lean on: time per
decision, beside a random decision in the same run, and the search's iterations per second beside bare random
playouts.

Decisions: every decision of `--games` seeded three-player games per game, each decision the greedy bot's (seven in
ten) or a random one's, so the positions are those a greedy playout meets. For each, in process time (best of
`--repeat`): the greedy bot's `choose` from the mover's view, `legal_actions` of that view, `view`, and `step` (the
action and the chance after it). A greedy decision is view + legal + choose + step; a random one is view + legal +
step, the floor. Then the search (`mcts`, the game's own tuning) from ten positions: its iterations per second, and the
engine's bare random playouts per second from the same positions (whole games, as bench/ismcts.py measures them).

Each game's line ends with a fingerprint of every legal list and every greedy choice: two trees whose policies and
rules agree print the same fingerprint. To compare a tree with the code before, run the script with each tree on the
path first (`PYTHONPATH=DIR-WITH-loom .venv/bin/python bench/policies.py`).

    .venv/bin/python bench/policies.py
    .venv/bin/python bench/policies.py --game moirai --profile     # and cProfile the search on that game
"""

from __future__ import annotations

import sys
from pathlib import Path

_BENCH = Path(__file__).resolve().parent
if sys.path and Path(sys.path[0] or ".").resolve() == _BENCH:
    sys.path[0] = str(_BENCH.parent)  # the project root: a bench script must not shadow a package

import cProfile  # noqa: E402
import hashlib  # noqa: E402
import pstats  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402
from functools import partial  # noqa: E402
from random import Random  # noqa: E402
from typing import Any  # noqa: E402

from bench._common import Report, output_path, parser  # noqa: E402
from bench.ismcts import positions, random_playouts  # noqa: E402
from loom.engine.play import start  # noqa: E402
from loom.engine.protocol import AnyGame  # noqa: E402
from loom.engine.registry import get_game  # noqa: E402
from loom.engine.search import IsmctsBot, step  # noqa: E402

NAME = "policies"
GAMES = ("moirai", "stones-of-fate", "moorea", "motto")
GREEDY_SHARE = 0.7


def decisions(game: AnyGame, games: int) -> list[tuple[Any, int, Any, list[Any]]]:
    """(state, mover, its view, its legal actions) of every decision of `games` seeded three-player games."""
    out = []
    for k in range(games):
        rng = Random(f"loom/bench/{NAME}/{game.name}/{k}")
        state, _ = start(game, ["a", "b", "c"], rng)
        greedy = game.bots["greedy"]()
        while (seat := game.to_move(state)) is not None:
            view = game.view(state, seat)
            legal = game.legal_actions(view)
            out.append((state, seat, view, legal))
            greedy_turn = rng.random() < GREEDY_SHARE
            action = greedy.choose(view, legal, rng) if greedy_turn else legal[rng.randrange(len(legal))]
            state = step(game, state, action, rng)
    return out


def best_time(run: Callable[[], None], repeat: int) -> float:
    """The least process time of `repeat` runs."""
    best = float("inf")
    for _ in range(repeat):
        began = time.process_time()
        run()
        best = min(best, time.process_time() - began)
    return best


def per_decision(game: AnyGame, samples: list[tuple[Any, int, Any, list[Any]]], repeat: int) -> dict[str, float]:
    """Microseconds per decision of each part, and a fingerprint of the legal lists and the greedy choices."""
    bot = game.bots["greedy"]()
    rng = Random(1)

    def choose() -> None:
        for _, _, view, legal in samples:
            bot.choose(view, legal, rng)

    def legal_actions() -> None:
        for _, _, view, _ in samples:
            game.legal_actions(view)

    def view() -> None:
        for state, seat, _, _ in samples:
            game.view(state, seat)

    def stepped() -> None:
        chance = Random(2)
        for state, _, _, legal in samples:
            step(game, state, legal[0], chance)

    parts = {"choose": choose, "legal": legal_actions, "view": view, "step": stepped}
    out = {name: 1e6 * best_time(run, repeat) / len(samples) for name, run in parts.items()}
    digest = hashlib.sha256()
    for k, (_, _, seen, legal) in enumerate(samples):
        digest.update(repr((legal, bot.choose(seen, legal, Random(k)))).encode())
    out["fingerprint"] = digest.hexdigest()[:16]  # type: ignore[assignment]
    return out


def search(game: AnyGame, states: list[Any]) -> None:
    """One decision of the search bot, with the game's own budget, from each position's mover's view."""
    bot = IsmctsBot(game)
    for k, state in enumerate(states):
        seen = game.view(state, game.to_move(state))
        bot.choose(seen, game.legal_actions(seen), Random(k))


def main() -> None:
    """Measure and report."""
    p = parser(NAME, __doc__.splitlines()[0])
    p.add_argument("--games", type=int, default=6, help="seeded games whose decisions are timed (default 6)")
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--seconds", type=float, default=3.0, help="time of the bare random playouts per game")
    p.add_argument("--game", action="append", choices=GAMES, help="only this game (repeat for several)")
    p.add_argument("--profile", action="store_true", help="cProfile the search on each game (top 25 by own time)")
    args = p.parse_args()
    games, repeat = (1, 2) if args.quick else (args.games, args.repeat)
    report = Report(NAME, "The greedy policies: time per decision; the search's iterations beside random playouts",
                    {"games": games, "repeat": repeat, "seed": args.seed})  # fmt: skip
    for name in args.game or GAMES:
        game = get_game(name)
        key = name.replace("-", "_")
        samples = decisions(game, games)
        us = per_decision(game, samples, repeat)
        greedy = us["view"] + us["legal"] + us["choose"] + us["step"]
        floor = us["view"] + us["legal"] + us["step"]
        states = positions(name, 3 if args.quick else 10)
        random_rate, _ = random_playouts(name, states, 0.5 if args.quick else args.seconds, time.process_time)
        searched = best_time(partial(search, game, states), 1)
        iterations = game.search.budget * len(states) / searched
        report.section(f"{name}: {len(samples)} decisions of {games} games; the search from {len(states)} positions")
        report.add("greedy choose", round(us["choose"], 1), "us", f"fingerprint {us['fingerprint']}",
                   key=f"{key}_choose_us")  # fmt: skip
        report.add("legal_actions / view / step", f"{us['legal']:.1f} / {us['view']:.1f} / {us['step']:.1f}", "us",
                   key=f"{key}_rules_us")  # fmt: skip
        report.add("greedy decision (view + legal + choose + step)", round(greedy, 1), "us",
                   f"floor: a random decision {floor:.1f} us; greedy / random = {greedy / floor:.2f}",
                   key=f"{key}_greedy_us")  # fmt: skip
        report.add("search iterations", round(iterations, 1), "/s",
                   f"floor: bare random playouts {random_rate:.1f}/s; floor / this = {random_rate / iterations:.2f}",
                   key=f"{key}_iterations_per_s")  # fmt: skip
        print(f"{name:15} choose {us['choose']:7.1f} us  legal {us['legal']:5.1f}  view {us['view']:4.1f}  "
              f"step {us['step']:4.1f}  greedy/random {greedy / floor:5.2f}  search {iterations:6.1f} it/s  "
              f"random {random_rate:6.1f}/s  fingerprint {us['fingerprint']}", file=sys.stderr, flush=True)  # fmt: skip
        if args.profile:
            profiler = cProfile.Profile()
            profiler.runcall(search, game, states)
            pstats.Stats(profiler, stream=sys.stderr).sort_stats("tottime").print_stats(25)
    report.emit(output_path(NAME, args))


if __name__ == "__main__":
    main()
