"""Benchmark: simulation on a Dask cluster into a Parquet lake, its scaling, the lake's size, and report queries.

In one run, side by side (three-player Motto, greedy against random, chunks of --chunk games):

  * games/s playing alone in this process (simulate_one, nothing written: the floor of a core), into a lake in this
    process (replay/cluster.py without a cluster), and on a LocalCluster of 1 and of 2 worker processes (one thread
    each; the cluster's start timed apart). The speed-up of 2 workers over 1 and its efficiency, with the machine's
    load average before and after (the machine is shared: ratios hold, absolute times do not);
  * bytes per event of the lake (the events table, and every table) against the same games as JSON Lines (the lines
    `logs export` writes, read from the lake);
  * report-size queries (win rate by bot, scores by seat, game lengths, events by type) over the lake with DuckDB,
    against the same queries on a DuckDB store holding the same games, at two sizes made by copying the simulated
    lake under new ids (`--sizes`, default 10,000 and 100,000 games);
  * the whole dashboard (`logs dashboard --lake DIR` against `--db FILE`: dashboards.report.report_html, every query
    and figure, the HTML written to memory) at those sizes, each drawn in a fresh process (`--draw`), with its time
    and the process's peak memory (RSS), next to the same process's RSS once everything is imported (the floor).

    .venv/bin/python bench/scale.py            # 2,000 games simulated, queries at 10k and 100k
    .venv/bin/python bench/scale.py --quick    # 200 games, queries at 1k and 10k
    .venv/bin/python bench/scale.py --no-cluster --sizes 10000 100000 1000000   # the lake in process; up to 1M games
"""

from __future__ import annotations

import sys
from pathlib import Path

_BENCH = Path(__file__).resolve().parent
if sys.path and Path(sys.path[0] or ".").resolve() == _BENCH:
    sys.path[0] = str(_BENCH.parent)  # the project root: bench/replay.py must not shadow the replay package

import json  # noqa: E402
import logging  # noqa: E402
import os  # noqa: E402
import resource  # noqa: E402
import subprocess  # noqa: E402
import time  # noqa: E402
from typing import Any  # noqa: E402

import duckdb  # noqa: E402

from bench._common import BOTS, GAME, Report, output_path, parser, profile, temp_dir  # noqa: E402
from loom.engine.registry import get_game  # noqa: E402
from loom.replay.cluster import chunks_of, play_chunk, simulate_to_lake  # noqa: E402
from loom.replay.export import Selection, choose, pages  # noqa: E402
from loom.replay.lake import open_lake  # noqa: E402
from loom.replay.simulate import BATCH, game_seed, lineup, simulate_one  # noqa: E402
from loom.replay.store import Store  # noqa: E402

NAME = "scale"
TABLES = ("games", "seats", "events", "results", "turn_facts", "game_facts")
QUERIES = {
    "win rate by bot": """
        SELECT s.bot, count(*) AS seats, avg(r.winner::INT) AS win_rate
        FROM {results} r JOIN {seats} s USING (game_id, seat) GROUP BY s.bot""",
    "scores by seat": "SELECT seat, avg(score), min(score), max(score), stddev(score) FROM {results} GROUP BY seat",
    "game lengths": "SELECT turns, count(*) FROM {games} WHERE status = 'finished' GROUP BY turns",
    "events by type": "SELECT type, count(*) FROM {events} GROUP BY type",
}


def load() -> str:
    """The 1-minute load average, as text."""
    return f"{os.getloadavg()[0]:.1f}"


def timed(fn: Any) -> tuple[float, Any]:
    started = time.perf_counter()
    result = fn()
    return time.perf_counter() - started, result


def local_cluster(workers: int) -> Any:
    from distributed import LocalCluster

    return LocalCluster(
        n_workers=workers,
        threads_per_worker=1,
        processes=True,
        dashboard_address=None,
        scheduler_kwargs={"dashboard_address": ":0"},
        silence_logs=logging.ERROR,
    )


def on_cluster(workers: int, lake: Path, games: int, bots: list[str], seed: int, chunk: int) -> dict[str, Any]:
    """A simulation on a new LocalCluster of `workers` processes: start and run timed apart, load before and after."""
    from distributed import Client

    before = load()
    start_s, cluster = timed(lambda: local_cluster(workers))
    try:
        with Client(cluster) as client:
            client.wait_for_workers(workers)
            run_s, done = timed(lambda: simulate_to_lake(lake, get_game(GAME), games, bots, seed, client, chunk))
    finally:
        cluster.close()
    return {"start_s": start_s, "run_s": run_s, "done": done, "load": f"load {before} -> {load()}"}


def copy_lake(source: Path, target: Path, copies: int, games: int) -> None:
    """`copies` copies of a lake of ids 1..games, copy k under ids + k * games, written as one new lake."""
    target.mkdir(parents=True)
    con = duckdb.connect()
    for table in TABLES:
        shift = (
            "id + k * $n AS id, parent_id + k * $n AS parent_id" if table == "games" else "game_id + k * $n AS game_id"
        )
        con.execute(
            f"""COPY (
                SELECT * EXCLUDE (k) REPLACE ({shift})
                FROM read_parquet('{source}/{table}/**/*.parquet', hive_partitioning = true), range({copies}) r(k)
            ) TO '{target}/{table}' (FORMAT parquet, COMPRESSION zstd, PARTITION_BY (game, month))""",
            {"n": games},
        )
    con.close()


def store_of(lake: Path, path: Path) -> None:
    """A DuckDB store holding the lake's games (its rows inserted as they are: a copy, not an import), every game
    projected to its last event, as the lake's are."""
    with Store.open(path) as store:
        for table in TABLES:
            drop = "month" if table == "games" else "game, month"
            store.con.execute(
                f"INSERT INTO {table} BY NAME SELECT * EXCLUDE ({drop}) "
                f"FROM read_parquet('{lake}/{table}/**/*.parquet', hive_partitioning = true)"
            )
        store.con.execute("INSERT INTO projected SELECT id, last_seq FROM games")
        store.con.execute("CHECKPOINT")


def rss_mib() -> float:
    """This process's peak resident memory so far, in MiB: Linux's VmHWM (getrusage's ru_maxrss would carry the
    parent's peak over an exec)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def draw(source: str, path: Path) -> dict[str, float]:
    """The dashboard of every game, drawn here from a lake or a store as `logs dashboard` does: the first drawing's
    and the second's seconds, the peak RSS once imported (the floor) and after drawing, in MiB."""
    from loom.dashboards.report import report_html
    from loom.replay.lake import lake_store

    floor = rss_mib()
    times, size = [], 0
    for _ in range(2):
        started = time.perf_counter()
        opened = (
            lake_store(path, os.cpu_count())
            if source == "lake"
            else Store.open(path, read_only=True, threads=os.cpu_count())
        )
        with opened as store:
            size = len(report_html(store))
        times.append(time.perf_counter() - started)
    return {"first_s": times[0], "second_s": times[1], "floor_mib": floor, "peak_mib": rss_mib(), "html_mb": size / 1e6}


def drawn(source: str, path: Path) -> dict[str, float]:
    """`draw` in a fresh process (its peak memory its own), the figures read back from its output."""
    done = subprocess.run(
        [sys.executable, __file__, "--draw", source, str(path)], capture_output=True, text=True, check=True
    )
    return dict(json.loads(done.stdout.splitlines()[-1]))


def run_queries(con: duckdb.DuckDBPyConnection, names: dict[str, str], repeats: int = 3) -> dict[str, float]:
    """Each query's best time of `repeats`, and their sum."""
    times = {}
    for label, sql in QUERIES.items():
        best = min(timed(lambda sql=sql: con.execute(sql.format(**names)).fetchall())[0] for _ in range(repeats))
        times[label] = best
    times["all"] = sum(times.values())
    return times


def lake_names(lake: Path) -> dict[str, str]:
    return {t: f"read_parquet('{lake}/{t}/**/*.parquet', hive_partitioning = true)" for t in TABLES}


def main() -> None:
    if len(sys.argv) == 4 and sys.argv[1] == "--draw":  # a fresh process drawing one dashboard (see `drawn`)
        import loom.dashboards.report  # noqa: F401  (imported before the floor: plotly and pandas count in it)

        print(json.dumps(draw(sys.argv[2], Path(sys.argv[3]))))
        return
    p = parser(NAME, __doc__.split("\n\n")[0])
    p.add_argument("--games", type=int, default=None, help="games simulated (default 2,000; --quick: 200)")
    p.add_argument("--chunk", type=int, default=BATCH, help=f"games per task (default {BATCH})")
    p.add_argument("--sizes", type=int, nargs="*", default=None, help="games of the query lakes (default 10k 100k)")
    p.add_argument("--profile", action="store_true", help="also cProfile one chunk played and written in process")
    p.add_argument("--no-cluster", action="store_true", help="simulate in process only (no cluster timings)")
    args = p.parse_args()
    games = args.games or (200 if args.quick else 2_000)
    sizes = args.sizes or ([1_000, 10_000] if args.quick else [10_000, 100_000])
    game = get_game(GAME)
    bots = lineup(game, len(BOTS), list(BOTS))
    report = Report(
        NAME,
        f"logs simulate --cluster --lake: {games:,} Motto games, chunks of {args.chunk}",
        {"games": games, "chunk": args.chunk, "sizes": sizes, "cpus": os.cpu_count()},
    )
    profiles: dict[str, Any] = {}
    with temp_dir(NAME) as tmp:
        sample = min(games, 100)
        play_s, played = timed(lambda: [simulate_one(game, bots, game_seed(GAME, args.seed, i)) for i in range(sample)])
        events_per_game = sum(len(g.events) for g in played) / sample
        here_load = load()
        here_s, _ = timed(lambda: simulate_to_lake(tmp / "here", game, games, bots, args.seed, None, args.chunk))
        here_load += f" -> {load()}"
        one = two = None
        if not args.no_cluster:
            one = on_cluster(1, tmp / "one", games, bots, args.seed, args.chunk)
            two = on_cluster(2, tmp / "two", games, bots, args.seed, args.chunk)
        if args.profile:
            chunk = chunks_of(tmp / "profiled", game, args.chunk, bots, args.seed, args.chunk)
            profiles["one chunk, played and written"] = profile(lambda: play_chunk(chunk[0]))

        lake = tmp / "here" if two is None else tmp / "two"
        events = sum(f.num_rows for f in _parquet_metadata(lake / "events"))
        lake_event_bytes = sum(f.stat().st_size for f in (lake / "events").rglob("*.parquet"))
        lake_bytes = sum(f.stat().st_size for t in TABLES for f in (lake / t).rglob("*.parquet"))
        jsonl = tmp / "all.jsonl"
        db = open_lake(lake)
        try:
            choose(db, Selection())
            with jsonl.open("w", encoding="utf-8") as out:
                for page in pages(db):
                    out.write("".join(line + "\n" for _, lines in page for line in lines))
        finally:
            db.close()
        jsonl_bytes = jsonl.stat().st_size

        scaled, dashboards = [], []
        for size in sizes:
            copies = max(1, size // games)
            big = tmp / f"lake-{size}"
            copy_s, _ = timed(lambda big=big, copies=copies: copy_lake(lake, big, copies, games))
            path = tmp / f"store-{size}.duckdb"
            store_s, _ = timed(lambda big=big, path=path: store_of(big, path))
            con = duckdb.connect()
            on_lake = run_queries(con, lake_names(big))
            con.close()
            con = duckdb.connect(str(path), read_only=True)
            on_store = run_queries(con, {t: t for t in TABLES})
            con.close()
            dashboard = {"lake": drawn("lake", big), "store": drawn("store", path)}
            lake_size = sum(f.stat().st_size for f in big.rglob("*.parquet"))
            scaled.append((copies * games, on_lake, on_store, lake_size, path.stat().st_size, copy_s, store_s))
            dashboards.append((copies * games, dashboard, load()))
            for f in big.rglob("*.parquet"):
                f.unlink()
            path.unlink()

    report.section(f"simulation of {games:,} games ({events_per_game:.0f} events a game), {os.cpu_count()} cores")
    report.add("floor: playing alone, 1 core", sample / play_s, "games/s", f"{sample} games, nothing written")
    report.add("into the lake in this process", games / here_s, "games/s", f"no cluster; {here_load}")
    if one is not None and two is not None:
        for label, run in (("LocalCluster, 1 worker", one), ("LocalCluster, 2 workers", two)):
            report.add(
                label,
                games / run["run_s"],
                "games/s",
                f"{run['run_s']:.1f} s, cluster start {run['start_s']:.1f} s apart; {run['load']}",
            )
        speedup = one["run_s"] / two["run_s"]
        report.add("speed-up, 2 workers over 1", speedup, "x", f"efficiency {speedup / 2:.0%} (target: 1.7x)")
        report.add(
            "1 worker against playing alone", games / one["run_s"] / (sample / play_s), "x", "the cost of writing"
        )
    report.section("the lake's size")
    report.add("lake bytes per event (events table)", lake_event_bytes / events, "B")
    report.add("lake bytes per event (every table)", lake_bytes / events, "B")
    report.add(
        "JSON Lines bytes per event", jsonl_bytes / events, "B", f"JSON Lines / lake = {jsonl_bytes / lake_bytes:.1f}x"
    )
    for size, on_lake, on_store, lake_size, store_size, copy_s, store_s in scaled:
        report.section(
            f"report queries at {size:,} games (lake {lake_size / 2**20:,.0f} MiB, store {store_size / 2**20:,.0f} MiB)"
        )
        for label in (*QUERIES, "all"):
            report.add(
                f"{label}: lake / store",
                on_lake[label],
                "s",
                f"store {on_store[label]:.3f} s; lake / store = {on_lake[label] / on_store[label]:.1f}x",
                key=f"{label} at {size}",
            )
        report.add(
            "made by copying (lake, store)",
            copy_s + store_s,
            "s",
            f"lake {copy_s:.1f} s, store {store_s:.1f} s",
            key=f"made by copying at {size}",
        )
    if len(scaled) > 1:
        (small, small_lake, small_store, *_), (large, large_lake, large_store, *_) = scaled[0], scaled[-1]
        report.section("growth")
        report.add(
            f"lake queries, {large:,} / {small:,} games",
            large_lake["all"] / small_lake["all"],
            "x",
            f"games x{large / small:.0f}; store x{large_store['all'] / small_store['all']:.1f}",
        )
    report_dashboards(report, dashboards)
    report.emit(output_path(NAME, args), profiles or None)


def report_dashboards(report: Report, dashboards: list[tuple[int, dict[str, dict[str, float]], str]]) -> None:
    """The dashboard's time and peak memory from the lake and from the store at each size, and how they grow."""
    for size, drawn_at, load_after in dashboards:
        lake, store = drawn_at["lake"], drawn_at["store"]
        report.section(f"the whole dashboard at {size:,} games ({lake['html_mb']:.1f} MB of HTML; {load_after})")
        for label, run in (("from the lake (--lake)", lake), ("from the DuckDB file (--db)", store)):
            report.add(
                f"{label}: first drawing",
                run["first_s"],
                "s",
                f"second {run['second_s']:.2f} s",
                key=f"dashboard {label} at {size}",
            )
            report.add(
                f"{label}: peak RSS",
                run["peak_mib"],
                "MiB",
                f"floor (imported, nothing read) {run['floor_mib']:.0f} MiB",
                key=f"dashboard RSS {label} at {size}",
            )
        report.add("lake / store, first drawing", lake["first_s"] / store["first_s"], "x", key=f"lake/store at {size}")
    if len(dashboards) > 1:
        report.section("growth of the dashboard")
        for (small, at_small, _), (large, at_large, _) in zip(dashboards, dashboards[1:], strict=False):
            for source in ("lake", "store"):
                grew = at_large[source]["first_s"] / at_small[source]["first_s"]
                memory = (at_large[source]["peak_mib"] - at_large[source]["floor_mib"]) / max(
                    1.0, at_small[source]["peak_mib"] - at_small[source]["floor_mib"]
                )
                report.add(
                    f"{source}, {large:,} / {small:,} games",
                    grew,
                    "x",
                    f"games x{large / small:.0f}; memory over the floor x{memory:.1f}",
                    key=f"growth {source} {small}-{large}",
                )


def _parquet_metadata(folder: Path) -> list[Any]:
    """The Parquet metadata of every file under a lake table's folder."""
    import pyarrow.parquet as pq

    return [pq.ParquetFile(f).metadata for f in folder.rglob("*.parquet")]


if __name__ == "__main__":
    main()
