"""Moorea: is the invented card list balanced? (issue 4, ruling R2)

Over many games between greedy bots per player count, the share of games in which each product design, each tool
and each store was bought at least once. No product, tool or store may go unbought in more than 95% of games (that
is, each must be bought in at least 5% of them); the script exits with status 1 if one does.

    .venv/bin/python bench/moorea_balance.py            # 500 games per player count, 2 to 5 players
    .venv/bin/python bench/moorea_balance.py --quick    # 40 per player count
"""

from __future__ import annotations

import sys
from pathlib import Path

_BENCH = Path(__file__).resolve().parent
if sys.path and Path(sys.path[0] or ".").resolve() == _BENCH:
    sys.path[0] = str(_BENCH.parent)  # the project root: bench/replay.py must not shadow the replay package

import time  # noqa: E402
from collections import Counter  # noqa: E402
from random import Random  # noqa: E402

from bench._common import OUT, environment  # noqa: E402
from loom.engine.moorea.cards import PRODUCTS, TOOL_KINDS, product, tool  # noqa: E402
from loom.engine.play import chance_rng, play_out, start  # noqa: E402
from loom.engine.registry import get_bot, get_game  # noqa: E402
from loom.events.moorea import ProductBought, ToolBought  # noqa: E402

GAME = get_game("moorea")
FLOOR = 0.05
DESIGNS = sorted({p.name for p in PRODUCTS}, key=lambda name: [p.name for p in PRODUCTS].index(name))


def bought_in_one_game(players: int, seed: str) -> tuple[set[str], int, bool]:
    """What was bought in one all-greedy game (product designs and tools), its turns, and whether it stalled."""
    rng = Random(seed)
    state, steps = start(GAME, [f"greedy {k}" for k in range(players)], rng)
    recorded = steps[0].payload.seed  # type: ignore[attr-defined]
    agents = {seat: get_bot(GAME, "greedy") for seat in range(players)}
    bot_rngs = {seat: Random(f"loom/bot/{recorded}/{seat}") for seat in agents}
    final, more = play_out(GAME, state, agents, chance_rng(recorded, len(steps)), bot_rngs)
    seen: set[str] = set()
    for step in more:
        if isinstance(step.payload, ProductBought):
            seen.add(PRODUCTS[product(step.payload.product)].name)
        elif isinstance(step.payload, ToolBought):
            seen.add(TOOL_KINDS[tool(step.payload.tool)])
    return seen, final.turn, bool(final.pile)


def main() -> None:
    """Play the games, print the shares as a table, write them as JSON, and fail if one is under the floor."""
    import argparse
    import json

    from rich.console import Console
    from rich.table import Table

    p = argparse.ArgumentParser(prog="bench/moorea_balance.py", description=__doc__.splitlines()[0])
    p.add_argument("--games", type=int, default=500, help="greedy games per player count (default 500)")
    p.add_argument("--quick", action="store_true", help="40 games per player count")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()
    games = 40 if args.quick else args.games
    shares: dict[int, dict[str, float]] = {}
    facts: dict[int, dict[str, float]] = {}
    started = time.perf_counter()
    for players in range(2, 6):
        counts: Counter[str] = Counter()
        turns = stalls = 0
        for index in range(games):
            seen, played, stalled = bought_in_one_game(
                players, f"loom/bench/moorea-balance/{args.seed}/{players}/{index}"
            )
            counts.update(seen)
            turns += played
            stalls += stalled
        shares[players] = {name: counts[name] / games for name in [*DESIGNS, *TOOL_KINDS]}
        facts[players] = {"mean turns": turns / games, "ended by a stall": stalls / games}
    seconds = time.perf_counter() - started
    kinds = {p.name: p.kind for p in PRODUCTS} | {name: "tool" for name in TOOL_KINDS}
    table = Table(title=f"Moorea: share of {games} greedy games per player count in which each was bought")
    table.add_column("card")
    table.add_column("kind")
    for players in shares:
        table.add_column(f"{players}p", justify="right")
    low = []
    for name in [*DESIGNS, *TOOL_KINDS]:
        row = [shares[players][name] for players in shares]
        low += [(name, players) for players, share in zip(shares, row, strict=True) if share < FLOOR]
        table.add_row(
            name, kinds[name], *(f"{share:.0%}" if share >= FLOOR else f"[red]{share:.0%}[/]" for share in row)
        )
    table.add_section()
    for fact in ("mean turns", "ended by a stall"):
        table.add_row(
            fact,
            "",
            *(f"{facts[p][fact]:.2f}" if fact == "ended by a stall" else f"{facts[p][fact]:.0f}" for p in facts),
        )
    console = Console()
    console.print(table)
    verdict = (
        "balanced: every product, tool and store bought in at least 5% of games" if not low else f"UNBALANCED: {low}"
    )
    console.print(f"{verdict} ({4 * games / seconds:.1f} games/s)")
    path = OUT / ("moorea_balance.quick.json" if args.quick else "moorea_balance.json")
    path.parent.mkdir(parents=True, exist_ok=True)
    data = {
        "benchmark": "moorea_balance",
        "params": {"games_per_player_count": games, "seed": args.seed, "floor": FLOOR},
        "environment": environment(),
        "shares": {str(p): s for p, s in shares.items()},
        "facts": {str(p): f for p, f in facts.items()},
        "below_floor": low,
        "seconds": seconds,
    }
    path.write_text(json.dumps(data, indent=2) + "\n")
    console.print(f"wrote {path}")
    sys.exit(1 if low else 0)


if __name__ == "__main__":
    main()
