"""Benchmark 1: simulate and record three-player Motto games (greedy, random, random), with and without storage.

The headline is the totals: the whole wall time of recording the games (a fresh store opened, `simulate` of every
game, the store closed) against playing the very same games alone, in one process warmed up on both paths; then the
same games through the command line (`logs simulate` in a fresh process: start-up, imports and schema included). Each
of `--rounds` rounds times both, in alternating order; the figure is the sum over the rounds.

The detail, in chunks: three pipelines play the very same games (same seeds), so their difference is the cost of
what they add:

  (a) play          the engine only: `replay.simulate.play_one` without taking snapshots or facts (the same games)
  (b) play + rows   `replay.simulate.simulated`: (a) plus the stored rows (event JSON, snapshots, results)
  (c) + DuckDB      `replay.simulate.simulate` into a fresh DuckDB file: (b) plus the writer thread's batches

The games are run in chunks of `replay.simulate.BATCH` games, each chunk through (a), (b) and (c) in rotating order,
so that drift in machine load spreads evenly over the three (a chunk is one transaction: the whole-run totals
commit every TRANSACTION games). Time the writer thread spends on a batch (rows to Arrow, the insert, the commit
with a transaction's last batch) is also measured directly (a wrapper around it), and the row building of (b) is
split into its parts on the games of (a).

    .venv/bin/python bench/simulate.py                # 10,000 games, a few minutes
    .venv/bin/python bench/simulate.py --quick        # 300 games
    .venv/bin/python bench/simulate.py --profile      # also cProfile `simulate` on --profile-games games
    .venv/bin/python bench/simulate.py --facts play   # (b) and (c) take the facts as they play, as (c) stores
    .venv/bin/python bench/simulate.py --games 2000 --rounds 3 --no-cli

Afterwards the projector runs on the recorded file: its catch-up (the facts (c) left to it, if any), then a
rebuild from position 0, whose rate is the projector's games/s.
"""

from __future__ import annotations

import sys
from pathlib import Path

_BENCH = Path(__file__).resolve().parent
if sys.path and Path(sys.path[0] or ".").resolve() == _BENCH:
    sys.path[0] = str(_BENCH.parent)  # the project root: bench/replay.py must not shadow the replay package

import resource  # noqa: E402
import subprocess  # noqa: E402
import time  # noqa: E402
from statistics import median  # noqa: E402
from typing import Any  # noqa: E402

from bench._common import BOTS, GAME, ROOT, Report, Timer, output_path, parser, profile, progress, temp_dir  # noqa: E402
from loom.engine.registry import get_game  # noqa: E402
from loom.replay import simulate as simulate_module  # noqa: E402
from loom.replay.projections import result_rows  # noqa: E402
from loom.replay.projector import project, rebuild  # noqa: E402
from loom.replay.recorder import event_rows, status_of  # noqa: E402
from loom.replay.simulate import BATCH, TRANSACTION, game_seed, lineup, play_one, simulate, simulated  # noqa: E402
from loom.replay.store import Store  # noqa: E402

NAME = "simulate"
TARGET_OVERHEAD = 25.0  # percent: storage should add under 25% to the simulation


def main() -> None:
    p = parser(NAME, __doc__.split("\n\n")[0])
    p.add_argument("--games", type=int, default=None, help="games to simulate (default 10,000; --quick: 300)")
    p.add_argument("--chunk", type=int, default=BATCH, help=f"games per interleaved chunk (default BATCH={BATCH})")
    p.add_argument("--profile", action="store_true", help="also cProfile `simulate` (play + rows + DuckDB)")
    p.add_argument(
        "--profile-games", type=int, default=None, help="games of the profiled run (default 500; --quick: 50)"
    )
    p.add_argument(
        "--facts",
        choices=("play", "projector"),
        default="projector",
        help="who takes the facts: the projector after the run (default, as `logs simulate`), or (b) and (c) as "
        "they play",
    )
    p.add_argument("--rounds", type=int, default=2, help="rounds of the totals: play all, record all (default 2)")
    p.add_argument("--no-cli", action="store_true", help="leave out `logs simulate` in a fresh process")
    args = p.parse_args()
    if args.games is None:
        args.games = 300 if args.quick else 10_000
    if args.profile_games is None:
        args.profile_games = 50 if args.quick else 500

    game = get_game(GAME)
    bots = lineup(game, len(BOTS), list(BOTS))
    report = Report(
        NAME,
        f"Simulate + record {args.games:,} three-player Motto games ({', '.join(bots)})",
        {
            "games": args.games,
            "players": len(bots),
            "bots": bots,
            "chunk": args.chunk,
            "store_batch": BATCH,
            "transaction": TRANSACTION,
            "seed": args.seed,
            "quick": args.quick,
            "facts": args.facts,
        },
    )

    # Warm up each path (imports, caches) on games that are not measured.
    for i in range(3):
        play_one(game, bots, f"warm-up/{i}", taking=False)
    for _ in simulated(game, 3, bots, seed=-1):
        pass
    with temp_dir(f"{NAME}-warm-up") as warm, Store.open(warm / "warm.duckdb") as scratch:
        simulate(scratch, game, 3, bots, seed=-1)  # the writer's imports (Arrow, the schema's classes) paid here

    headline = totals(game, bots, args.games, args.seed + 1, args.rounds, not args.no_cli)

    t_play, t_rows, t_store = Timer(), Timer(), Timer()
    t_event_rows, t_result_rows = Timer(), Timer()
    t_insert, t_close, t_open = Timer(), Timer(), Timer()
    events = {"play": 0, "rows": 0, "store": 0}
    stored_rows = {"events": 0, "snapshots": 0, "results": 0}
    games_done = 0
    chunks: list[tuple[int, float, float, float]] = []  # (games, a, b, c seconds) of each chunk

    with temp_dir(NAME) as tmp:
        db = tmp / "simulate.duckdb"
        with t_open:
            store = Store.open(db)
        store_batch = simulate_module._Writer._store_batch  # what the writer thread does with a batch

        def timed_store_batch(writer: Any, batch: Any, commit: bool) -> list[int]:
            for table in stored_rows:
                stored_rows[table] += batch.tables[table].num_rows
            with t_insert:
                return store_batch(writer, batch, commit)

        simulate_module._Writer._store_batch = timed_store_batch  # type: ignore[method-assign]

        started = time.perf_counter()
        modes = ["play", "rows", "store"]
        for chunk, first in enumerate(range(0, args.games, args.chunk)):
            n = min(args.chunk, args.games - first)
            chunk_seed = args.seed * 1_000_000 + chunk
            k = chunk % len(modes)
            before = (t_play.seconds, t_rows.seconds, t_store.seconds)
            for mode in modes[k:] + modes[:k]:
                if mode == "play":
                    for i in range(n):
                        with t_play:
                            played = play_one(game, bots, game_seed(game.name, chunk_seed, i), taking=False)
                        state, steps = played.state, played.steps
                        events["play"] += len(steps)
                        # The parts of row building, on the same game, outside the timed play.
                        with t_event_rows:
                            event_rows(steps, 0)
                        with t_result_rows:
                            result_rows(game, state)
                            status_of(game, state)
                        del played, state, steps  # keep nothing alive, as `simulated` keeps nothing
                elif mode == "rows":
                    count = 0
                    with t_rows:
                        for batch in simulated(game, n, bots, chunk_seed, facts=args.facts == "play"):
                            count += sum(len(new.events) for new in batch)
                    events["rows"] += count
                else:
                    with t_store:
                        simulate(store, game, n, bots, chunk_seed, facts=args.facts == "play")
            games_done += n
            chunks.append(
                (
                    n,
                    *(
                        after - was
                        for after, was in zip((t_play.seconds, t_rows.seconds, t_store.seconds), before, strict=True)
                    ),
                )
            )
            progress("games (each through a, b, c)", games_done, args.games, started)

        simulate_module._Writer._store_batch = store_batch  # type: ignore[method-assign]
        with t_close:
            store.close()  # checkpoints the WAL into the file
        db_bytes = db.stat().st_size
        wal = db.with_name(db.name + ".wal")
        wal_bytes = wal.stat().st_size if wal.exists() else 0
        check = Store.open(db, read_only=True)
        try:
            events["store"] = check.count("events")
            stored_games = check.count("games")
        finally:
            check.close()
        t_project, t_rebuild = Timer(), Timer()
        with Store.open(db) as again:
            with t_project:
                projected = project(again)
            with t_rebuild:
                rebuild(again)

    if not events["play"] == events["rows"] == events["store"] or stored_games != args.games:
        raise SystemExit(f"the three pipelines did not play the same games: {events}, {stored_games} stored")
    ev = events["play"]
    g = args.games
    a, b, c_ = t_play.seconds, t_rows.seconds, t_store.seconds
    c = c_ + t_close.seconds  # the final checkpoint is part of recording

    report.section("games")
    report.add("games", g, key="games")
    report.add("events", ev, key="events")
    report.add("events per game", ev / g, key="events_per_game")

    play_s, record_s = sum(headline["play_s"]), sum(headline["record_s"])
    total_pct = 100 * (record_s / play_s - 1)
    report.section(f"totals: recording vs play alone, the same {g:,} games, {args.rounds} rounds")
    report.add(
        "recording over play: totals",
        total_pct,
        "%",
        f"target < {TARGET_OVERHEAD:g}%: {'met' if total_pct < TARGET_OVERHEAD else 'MISSED'}",
        key="overhead_pct",
    )
    report.add("play alone", play_s, "s", " + ".join(f"{x:.2f}" for x in headline["play_s"]), key="totals_play_s")
    report.add(
        "recording (open, simulate, close)",
        record_s,
        "s",
        " + ".join(f"{x:.2f}" for x in headline["record_s"]),
        key="totals_record_s",
    )
    report.add("  of it: open a fresh store", sum(headline["open_s"]), "s", key="totals_open_s")
    report.add("  of it: close (checkpoint)", sum(headline["close_s"]), "s", key="totals_close_s")
    report.add(
        "  per round, median",
        100 * (median(r / a for r, a in zip(headline["record_s"], headline["play_s"], strict=True)) - 1),
        "%",
        "record / play - 1 of each round",
        key="overhead_pct_median_round",
    )
    report.add(
        "  CPU time, totals",
        100 * (sum(headline["record_cpu_s"]) / sum(headline["play_cpu_s"]) - 1),
        "%",
        "this process's threads, all of them: work, not wall",
        key="overhead_cpu_pct",
    )
    if "cli_s" in headline:
        cli_pct = 100 * (headline["cli_s"] / median(headline["play_s"]) - 1)
        report.add(
            "`logs simulate` over play alone",
            cli_pct,
            "%",
            f"{headline['cli_s']:.2f} s in a fresh process vs the median round of play",
            key="cli_overhead_pct",
        )
        report.add(
            "  CPU time",
            100 * (headline["cli_cpu_s"] / median(headline["play_cpu_s"]) - 1),
            "%",
            f"{headline['cli_cpu_s']:.2f} s of the command's process vs the median round of play",
            key="cli_overhead_cpu_pct",
        )
        report.add(
            "  of it: `logs simulate -n 1`",
            headline["cli_one_s"],
            "s",
            f"start-up, imports, a fresh store's schema: paid once per command ({headline['cli_one_cpu_s']:.2f} s CPU)",
            key="cli_one_game_s",
        )

    report.section("(a) play only (engine)")
    report.add("time", a, "s", key="play_s")
    report.add("rate", g / a, "games/s", key="play_games_per_s")
    report.add("rate", ev / a, "events/s", key="play_events_per_s")

    report.section("(b) play + rows (simulated)")
    report.add("time", b, "s", key="rows_s")
    report.add("rate", g / b, "games/s", key="rows_games_per_s")
    report.add("rate", ev / b, "events/s", key="rows_events_per_s")
    report.add("row building, (b) - (a)", 1000 * (b - a) / g, "ms/game", key="rows_ms_per_game")
    report.add(
        "  event_rows (payload JSON)",
        1000 * t_event_rows.seconds / g,
        "ms/game",
        "measured alone on the games of (a)",
        key="event_rows_ms_per_game",
    )
    report.add(
        "  result_rows + status_of",
        1000 * t_result_rows.seconds / g,
        "ms/game",
        "measured alone",
        key="result_rows_ms_per_game",
    )

    report.section("(c) play + rows + DuckDB (simulate)")
    report.add("time", c, "s", "incl. the final close/checkpoint", key="store_s")
    report.add("rate", g / c, "games/s", key="store_games_per_s")
    report.add("rate", ev / c, "events/s", key="store_events_per_s")
    report.add(
        "writer: store a batch",
        t_insert.seconds,
        "s",
        f"{t_insert.count} batches of up to {BATCH} games (writer thread, wall)",
        key="add_games_s",
    )
    report.add("  per batch", 1000 * t_insert.seconds / max(t_insert.count, 1), "ms", key="add_games_ms_per_batch")
    report.add(
        "  insert throughput",
        ev / t_insert.seconds if t_insert.seconds else 0.0,
        "events/s",
        "the writer's batches alone",
        key="add_games_events_per_s",
    )
    report.add("close (checkpoint)", t_close.seconds, "s", key="close_s")
    report.add("open (create schema)", t_open.seconds, "s", "not counted in (c)", key="open_s")
    report.add(
        "database file", db_bytes, "bytes", f"{db_bytes / ev:.1f} bytes/event; WAL left: {wal_bytes}", key="db_bytes"
    )

    report.section("projector (after the run, on the recorded file)")
    report.add("catch-up", t_project.seconds, "s", f"{projected:,} games left to it by (c)", key="project_s")
    report.add("rebuild from position 0", t_rebuild.seconds, "s", "facts and results of every game", key="rebuild_s")
    report.add("  rate", g / t_rebuild.seconds, "games/s", key="projector_games_per_s")
    report.add("  rate", ev / t_rebuild.seconds, "events/s", key="projector_events_per_s")

    report.section("overheads, interleaved chunks (detail)")
    rows_pct = 100 * (b - a) / a
    duck_pct = 100 * (c - b) / b
    duck_measured_pct = 100 * (t_insert.seconds + t_close.seconds) / b
    total_pct = 100 * (c - a) / a
    report.add("rows over play: (b)/(a) - 1", rows_pct, "%", key="rows_overhead_pct")
    report.add(
        "DuckDB over play+rows: (c)/(b) - 1",
        duck_pct,
        "%",
        f"target < {TARGET_OVERHEAD:g}%: {'met' if duck_pct < TARGET_OVERHEAD else 'MISSED'}",
        key="duckdb_overhead_pct",
    )
    report.add(
        "  same, from measured batches + close",
        duck_measured_pct,
        "%",
        "less noisy than the difference",
        key="duckdb_overhead_measured_pct",
    )
    report.add(
        "storage over play only: (c)/(a) - 1",
        total_pct,
        "%",
        f"target < {TARGET_OVERHEAD:g}%: {'met' if total_pct < TARGET_OVERHEAD else 'MISSED'}",
        key="storage_overhead_pct",
    )
    report.add(
        "storage + projector catch-up over play only",
        100 * (c + t_project.seconds - a) / a,
        "%",
        "what recording costs when facts are left to the projector",
        key="storage_and_projector_overhead_pct",
    )
    parts = t_event_rows.seconds + t_result_rows.seconds + t_insert.seconds + t_close.seconds
    report.add(
        "  same, from measured parts",
        100 * parts / a,
        "%",
        "(row parts + batches + close) / (a)",
        key="storage_overhead_measured_pct",
    )

    # Paired per-chunk ratios: the same games, seconds apart, so a burst of load elsewhere moves few of them.
    full = [(a_, b_, c__) for n, a_, b_, c__ in chunks if n == args.chunk] or [x[1:] for x in chunks]
    report.add(
        "median per-chunk (b)/(a) - 1",
        100 * (median(b_ / a_ for a_, b_, _ in full) - 1),
        "%",
        f"{len(full)} chunks of {args.chunk} games",
        key="rows_overhead_pct_median_chunk",
    )
    report.add(
        "median per-chunk (c)/(b) - 1",
        100 * (median(c__ / b_ for _, b_, c__ in full) - 1),
        "%",
        "excl. the final close",
        key="duckdb_overhead_pct_median_chunk",
    )
    report.add(
        "median per-chunk (c)/(a) - 1",
        100 * (median(c__ / a_ for a_, _, c__ in full) - 1),
        "%",
        "excl. the final close",
        key="storage_overhead_pct_median_chunk",
    )
    report.extra["chunks"] = [{"games": n, "play_s": a_, "rows_s": b_, "store_s": c__} for n, a_, b_, c__ in chunks]

    profiles = None
    if args.profile:

        def run() -> None:
            with temp_dir(f"{NAME}-profile") as ptmp, Store.open(ptmp / "profile.duckdb") as pstore:
                simulate(pstore, game, args.profile_games, bots, seed=args.seed + 7)

        print(f"profiling simulate() on {args.profile_games} games ...", file=sys.stderr)
        profiles = {f"simulate, {args.profile_games} games": profile(run)}

    report.emit(output_path(NAME, args), profiles)


def totals(game: Any, bots: list[str], games: int, seed: int, rounds: int, cli: bool) -> dict[str, Any]:
    """Wall (and CPU) seconds of playing `games` games alone and of recording the same games whole (a fresh store
    opened, `simulate`, closed), `rounds` times in alternating order; then `logs simulate` of them, a fresh process."""
    out: dict[str, Any] = {k: [] for k in ("play_s", "play_cpu_s", "record_s", "record_cpu_s", "open_s", "close_s")}
    events = {"play": 0, "record": 0}

    def play() -> None:
        wall, cpu = time.perf_counter(), time.process_time()
        for index in range(games):
            played = play_one(game, bots, game_seed(game.name, seed, index), taking=False)
            events["play"] += len(played.steps)
            del played
        out["play_s"].append(time.perf_counter() - wall)
        out["play_cpu_s"].append(time.process_time() - cpu)

    def record() -> None:
        with temp_dir(f"{NAME}-totals") as tmp:
            wall, cpu = time.perf_counter(), time.process_time()
            store = Store.open(tmp / "totals.duckdb")
            opened = time.perf_counter()
            simulate(store, game, games, bots, seed)
            closing = time.perf_counter()
            store.close()
            out["record_s"].append(time.perf_counter() - wall)
            out["record_cpu_s"].append(time.process_time() - cpu)
            out["open_s"].append(opened - wall)
            out["close_s"].append(time.perf_counter() - closing)
            with Store.open(tmp / "totals.duckdb", read_only=True) as check:
                events["record"] += check.count("events")

    started = time.perf_counter()
    for round_ in range(rounds):
        for step in (play, record) if round_ % 2 == 0 else (record, play):
            step()
            done = len(out["record_s"]) + len(out["play_s"])
            progress("totals: play alone, recording (runs)", done, 2 * rounds, started)
    if events["play"] != events["record"]:
        raise SystemExit(f"recording and play alone did not play the same games: {events}")
    if cli:
        out["cli_s"], out["cli_cpu_s"] = _cli(game.name, bots, games, seed)
        out["cli_one_s"], out["cli_one_cpu_s"] = _cli(game.name, bots, 1, seed)
    return out


def _cli(name: str, bots: list[str], games: int, seed: int) -> tuple[float, float]:
    """Wall and CPU seconds of `logs simulate` of these games into a fresh file, in a process of its own."""
    with temp_dir(f"{NAME}-cli") as tmp:
        command = [sys.executable, "-m", "loom.cli.main", "simulate", name, "-n", str(games), "--seed", str(seed)]
        command += [arg for bot in bots for arg in ("--bot", bot)] + ["--players", str(len(bots))]
        command += ["--db", str(tmp / "cli.duckdb"), "--json"]
        wall, before = time.perf_counter(), resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run(command, check=True, capture_output=True, cwd=ROOT)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
        return time.perf_counter() - wall, cpu


if __name__ == "__main__":
    main()
