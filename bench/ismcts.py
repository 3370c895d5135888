"""The ISMCTS search bot (issue 16): its playouts per second beside the engine's bare random playouts, and its games
against the one-level search it replaced at equal time per move.

1. Playouts per second. Positions: the first real choice after 6, 12, ..., 36 decisions of three-player games of
   random bots (`--positions` games per game). The floor is the engine's bare random playout, measured in the same
   run from the same positions: the position determinized from the mover's view, then `legal_actions` and a random
   legal action applied (`engine.search.step`) until the game ends. The search is `mcts` with the game's tuning,
   from the mover's view: one iteration is one determinization, the walk down the tree, an expansion and one
   playout (the game's light policy for at most `horizon` decisions).
2. Head to head at equal time. Three-player games seating ISMCTS, the old one-level search (`bench/flat_search.py`,
   with the tuning it had) and a greedy bot, in each of the six seat orders in turn. Both searches are given the
   same time budget per move (`Tuning.seconds`): by default the old search's time per move at its own budget,
   measured in this run on the positions of part 1, or `--ms`; both times per move in the games are printed.
   `--budget N` instead fixes ISMCTS's iterations (the old search keeps its own budget). Each deal is played in the
   six seat orders (games 0-5 share a deal, 6-11 the next, ...), so the luck of the cards is shared out evenly. A
   game counts for ISMCTS when it scores more than the old search (a tie counts half). Besides Wilson's interval over
   the games, the interval over the deals is printed: each deal's six games averaged, whose spread holds what the
   six orders of one deal have in common. `--pool` pools the runs' JSON files.

    .venv/bin/python bench/ismcts.py                         # 10 positions, 24 head-to-head games per game
    .venv/bin/python bench/ismcts.py --game moorea --games 48 --ms 300
    .venv/bin/python bench/ismcts.py --quick
    .venv/bin/python bench/ismcts.py --pool run-*.json      # runs of one game pooled: games and deals
"""

from __future__ import annotations

import sys
from pathlib import Path

_BENCH = Path(__file__).resolve().parent
if sys.path and Path(sys.path[0] or ".").resolve() == _BENCH:
    sys.path[0] = str(_BENCH.parent)  # the project root: bench/replay.py must not shadow the replay package

import dataclasses  # noqa: E402
import itertools  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable, Sequence  # noqa: E402
from concurrent.futures import ProcessPoolExecutor  # noqa: E402
from random import Random  # noqa: E402
from typing import Any  # noqa: E402

from bench._common import Report, output_path, parser, progress  # noqa: E402
from bench.flat_search import OLD, HalvingSearchBot  # noqa: E402
from bench.mcts_vs_greedy import Timed, wilson  # noqa: E402
from loom.engine.bots import RandomBot  # noqa: E402
from loom.engine.play import act, chance_rng, play_out, start  # noqa: E402
from loom.engine.protocol import Tuning  # noqa: E402
from loom.engine.registry import get_bot, get_game  # noqa: E402
from loom.engine.search import IsmctsBot, step  # noqa: E402

NAME = "ismcts"
GAMES = ("motto", "moirai", "moorea", "stones-of-fate")
ORDERS = tuple(itertools.permutations(("ismcts", "flat", "greedy")))
CHANGES: dict[str, Any] = {}
"""Fields of ISMCTS's tuning changed for a trial (`--set`); handed to the pool's processes with each job."""


def change(text: str) -> tuple[str, Any]:
    """A `--set` option's field and value: `confidence=0.5`, `horizon=40`, `blend=0.75`."""
    field, _, value = text.partition("=")
    kinds = {f.name: type(getattr(Tuning(), f.name)) for f in dataclasses.fields(Tuning)}
    if field not in kinds:
        raise SystemExit(f"--set: Tuning has no field {field!r}; its fields: {', '.join(kinds)}")
    kind = kinds[field]
    return field, value.lower() in ("1", "true", "yes") if kind is bool else kind(value)


def positions(name: str, count: int) -> list[Any]:
    """Positions with a real choice: after 6, 12, ... random decisions of `count` three-player games."""
    game = get_game(name)
    out = []
    for k in range(count):
        state, steps = start(game, ["a", "b", "c"], Random(f"loom/bench/{NAME}/{name}/{k}"))
        rng = chance_rng(k, len(steps))
        decisions, wanted = 0, 6 * (1 + k % 6)
        while (seat := game.to_move(state)) is not None:
            legal = game.legal_actions(game.view(state, seat))
            if decisions >= wanted and len(legal) > 1:
                out.append(state)
                break
            state, _ = act(game, state, RandomBot().choose(None, legal, rng), rng)
            decisions += 1
    return out


def random_playouts(
    name: str, states: Sequence[Any], seconds: float, clock: Callable[[], float] = time.perf_counter
) -> tuple[float, float]:
    """Bare random playouts per second of `clock` from these positions (each dealt anew from its mover's view), and
    their decisions per playout."""
    game = get_game(name)
    rng = Random(1)
    to_move, legal_actions = game.to_move, game.legal_actions
    done = decisions = 0
    began = clock()
    while clock() - began < seconds:
        for state in states:
            mover = to_move(state)
            state = game.determinize(game.view(state, mover), mover, rng)
            while to_move(state) is not None:
                legal = legal_actions(state)
                state = step(game, state, legal[rng.randrange(len(legal))], rng)
                decisions += 1
            done += 1
    return done / (clock() - began), decisions / max(done, 1)


def search_rate(bot: Any, name: str, states: Sequence[Any], budget: int) -> float:
    """Seconds per decision of a search bot with `budget` over these positions, from the mover's view."""
    game = get_game(name)
    began = time.perf_counter()
    for k, state in enumerate(states):
        view = game.view(state, game.to_move(state))
        bot.choose(view, game.legal_actions(view), Random(k))
    return (time.perf_counter() - began) / len(states)


def play_one(
    name: str,
    order: tuple[str, ...],
    budgets: dict[str, int],
    seconds: float,
    index: int,
    seed: int,
    changes: tuple[tuple[str, Any], ...] = (),
) -> dict[str, Any]:
    """One game with the bots seated in `order`: each bot's score, and the search bots' times. With `seconds`
    above 0 both searches have that time per move; else `budgets` iterations."""
    game = get_game(name)
    rng = Random(f"loom/bench/{NAME}/{name}/{seed}/{index // len(ORDERS)}")  # one deal for six seat orders
    state, steps = start(game, list(order), rng)
    mine = dataclasses.replace(game.search, **({"seconds": seconds} | dict(changes)))  # `--set seconds=`: time odds
    old = dataclasses.replace(OLD.get(name, game.search), seconds=seconds)
    timed = seconds > 0
    made = {
        "ismcts": lambda: Timed(IsmctsBot(game, None if timed else budgets["ismcts"], mine)),
        "flat": lambda: Timed(HalvingSearchBot(game, None if timed else budgets["flat"], old)),
        "greedy": lambda: get_bot(game, "greedy"),
    }
    bots = {seat: made[kind]() for seat, kind in enumerate(order)}
    bot_rngs = {seat: Random(f"loom/bench/{NAME}/bot/{seed}/{index}/{seat}") for seat in bots}
    final, _ = play_out(game, state, bots, chance_rng(seed, len(steps)), bot_rngs)
    scores, winners = game.scores(final), game.winners(final)
    out: dict[str, Any] = {}
    for seat, kind in enumerate(order):
        out[kind] = {"score": scores[seat], "won": seat in winners}
        if isinstance(bots[seat], Timed):
            out[kind] |= {"decisions": bots[seat].decisions, "seconds": bots[seat].seconds}
    return out


def _play(
    job: tuple[str, tuple[str, ...], dict[str, int], float, int, int, tuple[tuple[str, Any], ...]],
) -> dict[str, Any]:
    return play_one(*job)


def _ahead(result: dict[str, Any]) -> float:
    """1 if ISMCTS scored more than the old search in this game, a half for a tie, else 0."""
    mine, theirs = result["ismcts"]["score"], result["flat"]["score"]
    return 1.0 if mine > theirs else 0.5 if mine == theirs else 0.0


def head_to_head(
    name: str, games: int, budgets: dict[str, int], seconds: float, seed: int, workers: int
) -> dict[str, Any]:
    """ISMCTS against the old search (and a greedy bot) over `games` games, the seat orders in turn."""
    changes = tuple(CHANGES.items())
    jobs = [(name, ORDERS[index % len(ORDERS)], budgets, seconds, index, seed, changes) for index in range(games)]
    began = time.perf_counter()
    results: list[dict[str, Any]] = []
    with ProcessPoolExecutor(workers) as pool:
        for result in pool.map(_play, jobs, chunksize=1):
            results.append(result)  # the running tally is shown, so a run cut short still tells what it found
            ahead = sum(_ahead(r) for r in results)
            progress(f"{name} head to head ({ahead:g} ahead)", len(results), games, began)
    ahead = sum(_ahead(r) for r in results)
    whole = len(results) - len(results) % len(ORDERS)  # the deals played in all six orders

    def ms(kind: str) -> float:
        return 1000 * sum(r[kind]["seconds"] for r in results) / max(1, sum(r[kind]["decisions"] for r in results))

    return {
        "ahead": ahead,
        "deals": [sum(_ahead(r) for r in results[i : i + len(ORDERS)]) for i in range(0, whole, len(ORDERS))],
        "ismcts_wins": sum(r["ismcts"]["won"] for r in results),
        "flat_wins": sum(r["flat"]["won"] for r in results),
        "greedy_wins": sum(r["greedy"]["won"] for r in results),
        "ismcts_ms": ms("ismcts"),
        "flat_ms": ms("flat"),
        "wall_s": time.perf_counter() - began,
    }


def by_deal(deals: Sequence[float]) -> tuple[float, float]:
    """The 95% interval of ISMCTS's share of the games over whole deals (each of six games, ISMCTS's count of them),
    by the normal approximation: the deals, not the games, are independent."""
    if len(deals) < 2:
        return 0.0, 1.0
    shares = [ahead / len(ORDERS) for ahead in deals]
    mean, half = statistics.fmean(shares), 1.96 * statistics.stdev(shares) / len(shares) ** 0.5
    return mean - half, mean + half


def pool(paths: Sequence[Path]) -> None:
    """The head-to-head figures of several runs' JSON files, pooled per game."""
    deals: dict[str, list[float]] = {}
    for path in paths:
        try:
            run = json.loads(path.read_text())
            for name, tally in run["deals"].items():
                deals.setdefault(name, []).extend(tally)
        except (OSError, ValueError, KeyError, AttributeError, TypeError) as error:
            raise SystemExit(f"--pool: {path} is not a run of bench/ismcts.py with its deals ({error})") from None
    for name, tally in deals.items():
        games, ahead = len(ORDERS) * len(tally), sum(tally)
        low, high = wilson(round(ahead), games)
        deal_low, deal_high = by_deal(tally)
        print(f"{name}: ISMCTS ahead in {ahead:g} of {games} games ({100 * ahead / games:.2f}%); Wilson "
              f"{100 * low:.2f}-{100 * high:.2f}%; over {len(tally)} deals "
              f"{100 * deal_low:.2f}-{100 * deal_high:.2f}%")  # fmt: skip


def main() -> None:
    """Measure and report."""
    p = parser(NAME, __doc__.splitlines()[0])
    p.add_argument("--games", type=int, default=24, help="head-to-head games per game (default 24)")
    p.add_argument("--positions", type=int, default=10, help="positions per game for the rates (default 10)")
    p.add_argument("--seconds", type=float, default=3.0, help="time of the bare random playouts per game")
    p.add_argument("--game", action="append", choices=GAMES, help="only this game (repeat for several)")
    p.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="processes (default: every core)")
    p.add_argument("--budget", type=int, default=None, help="ISMCTS's iterations in the games (no time budget)")
    odds = "seconds=0.2: its own time a move, as odds"
    p.add_argument("--set", action="append", type=change, default=[], help=f"ISMCTS's tuning: blend=0.75 ({odds})")
    p.add_argument("--ms", type=float, default=None, help="time per move of both searches (default: the old one's)")
    p.add_argument("--pool", nargs="+", type=Path, help="only pool these runs' JSON files (their head to head)")
    args = p.parse_args()
    if args.pool:
        return pool(args.pool)
    CHANGES.update(args.set)
    games = 6 if args.quick else args.games
    count = 3 if args.quick else args.positions
    names = args.game or list(GAMES)
    report = Report(
        NAME,
        "ISMCTS: playouts per second against bare random playouts; head to head with the old one-level search",
        {
            "games": games,
            "positions": count,
            "seed": args.seed,
            "workers": args.workers,
            "ms": args.ms,
            "budget": args.budget,
        },  # fmt: skip
        extra={
            "tuning": {name: repr(dataclasses.replace(get_game(name).search, **CHANGES)) for name in names},
            "deals": {},  # each game's deals in order, ISMCTS's count of their six games: `--pool` reads them
        },
    )
    for name in names:
        game = get_game(name)
        key = name.replace("-", "_")
        states = positions(name, count)
        budget = game.search.budget
        floor, length = random_playouts(name, states, 1.0 if args.quick else args.seconds)
        tuning = dataclasses.replace(game.search, **CHANGES)  # what the games below use, `--set` included
        ismcts_s = search_rate(IsmctsBot(game, budget, tuning), name, states, budget)
        flat_budget = OLD.get(name, game.search).budget
        flat_s = search_rate(HalvingSearchBot(game, flat_budget), name, states, flat_budget)
        rate = budget / ismcts_s
        equal = args.budget or budget
        seconds = 0.0 if args.budget else (args.ms / 1000 if args.ms else flat_s)
        given = f"{1000 * seconds:.0f} ms per move" if seconds else f"{equal} iterations"
        if "seconds" in CHANGES:  # `--set seconds=`: ISMCTS has its own time, the old search `--ms`
            given += f", ISMCTS {1000 * CHANGES['seconds']:.0f} ms: time odds"
        report.section(f"{name}: mcts (ISMCTS) with {budget} iterations per move, {len(states)} positions")
        report.add("bare random playouts", round(floor, 1), "/s", f"floor: whole games, {length:.0f} decisions each",
                   key=f"{key}_random_per_s")  # fmt: skip
        report.add("ISMCTS playouts (iterations)", round(rate, 1), "/s",
                   f"floor / this = {floor / rate:.2f} (target at most 3); {tuning.horizon} decisions "
                   f"of the {tuning.policy} policy at most", key=f"{key}_ismcts_per_s")  # fmt: skip
        report.add("ISMCTS time per move", round(1000 * ismcts_s, 1), "ms", f"{budget} iterations",
                   key=f"{key}_ismcts_ms")  # fmt: skip
        report.add("old search time per move", round(1000 * flat_s, 1), "ms", f"{flat_budget} playouts",
                   key=f"{key}_flat_ms")  # fmt: skip
        budgets = {"ismcts": equal, "flat": flat_budget}
        print(f"{name}: ISMCTS {1000 * ismcts_s:.0f} ms per move at {budget}, old {1000 * flat_s:.0f} ms at "
              f"{flat_budget}; in the games: {given}", file=sys.stderr)  # fmt: skip
        h2h = head_to_head(name, games, budgets, seconds, args.seed, args.workers)
        low, high = wilson(round(h2h["ahead"]), games)
        deal_low, deal_high = by_deal(h2h["deals"])
        report.extra["deals"][name] = h2h["deals"]
        report.add(f"ISMCTS ({given}) ahead of the old search", round(100 * h2h["ahead"] / games, 1), "%",
                   f"{h2h['ahead']:g} of {games} games (ties half); 95% interval {100 * low:.0f}-{100 * high:.0f}%, "
                   f"over {len(h2h['deals'])} deals {100 * deal_low:.0f}-{100 * deal_high:.0f}%; target above 50%",
                   key=f"{key}_ahead")  # fmt: skip
        report.add("wins: ISMCTS / old search / greedy", f"{h2h['ismcts_wins']} / {h2h['flat_wins']} / "
                   f"{h2h['greedy_wins']}", "games", key=f"{key}_wins")  # fmt: skip
        report.add("time per move in these games: ISMCTS / old", f"{h2h['ismcts_ms']:.0f} / {h2h['flat_ms']:.0f}",
                   "ms", "equal time is the point", key=f"{key}_h2h_ms")  # fmt: skip
        report.add("wall time", round(h2h["wall_s"], 1), "s", f"{args.workers} workers", key=f"{key}_wall_s")
        for row in report.rows[-8:]:  # each game's figures as soon as they are known: a run cut short keeps them
            print(f"{name}: {row['metric']}: {row['value']} {row['unit']} ({row['note']})", file=sys.stderr)
    report.emit(output_path(NAME, args))


if __name__ == "__main__":
    main()
