"""Benchmark: build the dashboard of 100,000 recorded three-player Motto games (target: under 10 s).

The store is simulated once with every core (`logs simulate motto -n 100000 -w 2`, a quarter of an hour here) into
bench/out/cache/motto-100k.duckdb and reused afterwards. Then, on a read-only store as `logs dashboard` opens it:

  * the whole report, `report_html(store, "motto")` with DuckDB on every core, timed end to end, three runs;
  * its parts in one run: choosing the games, each SQL query, drawing the figures, writing the page;
  * `logs dashboard --game motto` as a command (interpreter start and imports included).

    .venv/bin/python bench/dashboard.py            # 100,000 games (builds them the first time)
    .venv/bin/python bench/dashboard.py --quick    # 2,000 games in a temporary store
"""

from __future__ import annotations

import sys
from pathlib import Path

_BENCH = Path(__file__).resolve().parent
if sys.path and Path(sys.path[0] or ".").resolve() == _BENCH:
    sys.path[0] = str(_BENCH.parent)  # the project root: bench/replay.py must not shadow the replay package

import os  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import time  # noqa: E402

from bench._common import BOTS, GAME, OUT, ROOT, Report, output_path, parser, temp_dir  # noqa: E402

NAME = "dashboard"
TARGET_S = 10.0
LOGS = Path(sys.executable).with_name("logs")


def build(db: Path, games: int, seed: int) -> float:
    began = time.perf_counter()
    bots = [arg for bot in BOTS for arg in ("--bot", bot)]
    command = [str(LOGS), "simulate", GAME, "-n", str(games), "-w", "2", *bots, "--seed", str(seed), "--db", str(db)]
    subprocess.run(command, check=True)
    return time.perf_counter() - began


def parts(db: Path) -> dict[str, float]:
    """Seconds spent in each query of the report and in drawing, in one run."""
    import loom.dashboards.report as report
    from loom.replay import queries
    from loom.replay.queries import ReportQuery
    from loom.replay.store import Store

    spent: dict[str, float] = {}
    names = {id(getattr(queries, n)): n for n in dir(queries) if isinstance(getattr(queries, n), ReportQuery)}
    original = report.Reader.frame

    def timed(self: report.Reader, query: ReportQuery, **params: object) -> object:
        began = time.perf_counter()
        try:
            return original(self, query, **params)
        finally:
            key = names.get(id(query), "sql")
            spent[key] = spent.get(key, 0.0) + time.perf_counter() - began

    report.Reader.frame = timed  # type: ignore[method-assign]
    try:
        with Store.open(db, read_only=True, threads=os.cpu_count()) as store:
            began = time.perf_counter()
            report.report_html(store, GAME)
            spent["total"] = time.perf_counter() - began
    finally:
        report.Reader.frame = original  # type: ignore[method-assign]
    spent["drawing and page"] = spent["total"] - sum(v for k, v in spent.items() if k != "total")
    return spent


def main() -> None:
    args = parser(NAME, "Build the dashboard of 100,000 recorded games.").parse_args()
    games = 2_000 if args.quick else 100_000
    with temp_dir("loom-dashboard-") as tmp:
        db = tmp / "loom.duckdb" if args.quick else OUT / "cache" / "motto-100k.duckdb"
        build_s = None if db.exists() else build(db, games, args.seed)
        from loom.dashboards.report import report_html
        from loom.replay.queries import SUMMARY
        from loom.replay.store import Store

        runs = []
        for _ in range(1 if args.quick else 3):
            with Store.open(db, read_only=True, threads=os.cpu_count()) as store:
                began = time.perf_counter()
                html = report_html(store, GAME)
                runs.append(time.perf_counter() - began)
            with Store.open(db, read_only=True) as store:
                counted = int(store.choose_games(GAME).frame(SUMMARY)["games"].iloc[0])
                facts = store.count("turn_facts")
        split = parts(db)
        began = time.perf_counter()
        page = tmp / "dashboard.html"
        subprocess.run([str(LOGS), "dashboard", "-g", GAME, "-o", str(page), "--db", str(db)], check=True)
        command_s = time.perf_counter() - began

        median = statistics.median(runs)
        report = Report(
            NAME,
            f"Dashboard of {counted:,} recorded three-player Motto games",
            {"games": counted, "runs": len(runs), "db": str(db.relative_to(ROOT)) if not args.quick else "(temp)"},
        )
        report.section("store")
        report.add("games", counted, key="games")
        report.add("turn facts rows", facts, key="turn_facts")
        report.add("database file", db.stat().st_size, "bytes", key="db_bytes")
        if build_s is not None:
            report.add("build (simulate + record, 2 workers)", build_s, "s", key="build_s")
        report.section("report_html(store, 'motto')")
        met = "met" if median < TARGET_S else "MISSED"
        report.add("median", median, "s", f"target < {TARGET_S:g} s: {met}", key="report_s")
        report.add("best", min(runs), "s", key="report_best_s")
        report.add("page size", len(html), "bytes", key="page_bytes")
        report.section("where the time goes (one run)")
        for key, seconds in sorted(split.items(), key=lambda kv: -kv[1]):
            if key != "total":
                report.add(key, seconds, "s", key=f"part_{key}")
        report.section("logs dashboard --game motto (subprocess)")
        report.add("wall time", command_s, "s", "start-up, imports, report, write", key="command_s")
        report.emit(output_path(NAME, args))


if __name__ == "__main__":
    main()
