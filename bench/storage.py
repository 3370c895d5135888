"""Benchmark 4: bytes per event in the DuckDB store, against the same events as JSON Lines and as Parquet (zstd).

A store of recorded three-player Motto games (greedy, random, random) is built in a temporary directory, or copied
from `--db` (a missing file is built there and kept). On the temporary copy, after CHECKPOINT:

  * the whole Loom database file (events, snapshots, results, games, seats, primary-key indexes);
  * each table copied alone into a fresh DuckDB file (no index), and the events table with its primary key,
    to show where the bytes go;
  * the events table as Parquet with zstd (`COPY ... TO 'x.parquet' (FORMAT parquet, COMPRESSION zstd)`), with the
    compressed size of each column;
  * every game exported as a JSON Lines log (`replay.logfile.export_lines`), raw and gzipped.

    .venv/bin/python bench/storage.py                    # 10,000 games (builds them: a few minutes)
    .venv/bin/python bench/storage.py --db bench/out/cache/motto-10k.duckdb
    .venv/bin/python bench/storage.py --quick            # 200 games
"""

from __future__ import annotations

import sys
from pathlib import Path

_BENCH = Path(__file__).resolve().parent
if sys.path and Path(sys.path[0] or ".").resolve() == _BENCH:
    sys.path[0] = str(_BENCH.parent)  # the project root: bench/replay.py must not shadow the replay package

import gzip  # noqa: E402
import shutil  # noqa: E402
import time  # noqa: E402
from typing import Any  # noqa: E402

import duckdb  # noqa: E402

from bench._common import BOTS, GAME, Report, output_path, parser, progress, temp_dir  # noqa: E402
from loom.engine.registry import get_game  # noqa: E402
from loom.replay.logfile import export_lines  # noqa: E402
from loom.replay.simulate import lineup, simulate  # noqa: E402
from loom.replay.store import Store  # noqa: E402

NAME = "storage"
TABLES = ("events", "snapshots", "results", "games", "seats", "meta")


def build(db: Path, games: int, seed: int) -> float:
    game = get_game(GAME)
    bots = lineup(game, len(BOTS), list(BOTS))
    started = time.perf_counter()
    done = 0

    def step(n: int) -> None:
        nonlocal done
        done += n
        progress("building the store (games)", done, games, started)

    with Store.open(db) as store:
        simulate(store, game, games, bots, seed, step)
    return time.perf_counter() - started


def scalar(con: duckdb.DuckDBPyConnection, sql: str) -> Any:
    return con.execute(sql).fetchall()[0][0]


def main() -> None:
    p = parser(NAME, __doc__.split("\n\n")[0])
    p.add_argument("--games", type=int, default=None, help="games in the store (default 10,000; --quick: 200)")
    p.add_argument(
        "--db",
        type=Path,
        default=None,
        help="measure a copy of this store (built and kept here if missing); default: a temporary one",
    )
    p.add_argument("--no-jsonl", action="store_true", help="skip the JSON Lines export (about 6 ms a game)")
    args = p.parse_args()
    args.games = args.games or (200 if args.quick else 10_000)

    with temp_dir(NAME) as tmp:
        build_s = None
        source = args.db or tmp / "built.duckdb"
        if not source.exists():
            source.parent.mkdir(parents=True, exist_ok=True)
            build_s = build(source, args.games, args.seed)
        db = tmp / "loom.duckdb"
        shutil.copyfile(source, db)
        wal = source.with_name(source.name + ".wal")
        if wal.exists():
            shutil.copyfile(wal, db.with_name(db.name + ".wal"))
        run(args, tmp, db, build_s)


def run(args: Any, tmp: Path, db: Path, build_s: float | None) -> None:
    con = duckdb.connect(str(db))
    try:
        con.execute("CHECKPOINT")
        counts = {t: scalar(con, f"SELECT count(*) FROM {t}") for t in TABLES}
        events, games = counts["events"], counts["games"]
        size_row = con.execute("PRAGMA database_size").fetchall()[0]
        block_size, total_blocks, used_blocks, free_blocks = size_row[2], size_row[3], size_row[4], size_row[5]
        payload_chars = scalar(con, "SELECT sum(strlen(payload)) FROM events")
        compression = {
            column: sorted(kinds)
            for column, kinds in con.execute(
                "SELECT column_name, list(DISTINCT compression) FROM pragma_storage_info('events') "
                "WHERE segment_type <> 'VALIDITY' GROUP BY column_name"
            ).fetchall()
        }
        con.close()
        db_bytes = db.stat().st_size

        # Each table alone in a fresh file (no index), and the events table with its primary key.
        con = duckdb.connect(str(db))  # a temporary copy: attaching new files needs a writable connection
        home = scalar(con, "SELECT current_database()")
        path = tmp / "empty.duckdb"
        con.execute(f"ATTACH '{path}' AS solo")
        con.execute("CREATE TABLE solo.empty AS SELECT * FROM main.meta LIMIT 0")
        con.execute("DETACH solo")
        empty = path.stat().st_size  # a fresh file holding one empty table: the fixed cost of any file
        path.unlink()
        alone: dict[str, int] = {}
        for table in ("events", "snapshots", "results", "games", "seats"):
            path = tmp / f"only-{table}.duckdb"
            con.execute(f"ATTACH '{path}' AS solo")
            con.execute(f"CREATE TABLE solo.{table} AS SELECT * FROM main.{table}")
            con.execute("DETACH solo")
            alone[table] = path.stat().st_size - empty
            path.unlink()
        ddl = scalar(con, "SELECT sql FROM duckdb_tables() WHERE table_name = 'events'")
        path = tmp / "events-pk.duckdb"
        con.execute(f"ATTACH '{path}' AS pk")
        con.execute("USE pk")
        con.execute(ddl)
        con.execute(f"INSERT INTO pk.events SELECT * FROM {home}.main.events")
        con.execute(f"USE {home}")
        con.execute("DETACH pk")
        events_pk = path.stat().st_size - empty
        path.unlink()

        parquet = tmp / "events.parquet"
        con.execute(f"COPY (SELECT * FROM events) TO '{parquet}' (FORMAT parquet, COMPRESSION zstd)")
        parquet_bytes = parquet.stat().st_size
        con.close()
        parquet_columns = parquet_column_sizes(parquet)
    finally:
        con.close()

    jsonl_bytes = gzip_bytes = 0
    export_s = 0.0
    if not args.no_jsonl:
        jsonl = tmp / "all.jsonl"
        started = time.perf_counter()
        with Store.open(db, read_only=True) as store, jsonl.open("w", encoding="utf-8") as out:
            ids = [game.id for game in store.all_games()]
            for n, game_id in enumerate(ids, start=1):
                out.write("\n".join(export_lines(store, game_id)))
                out.write("\n")
                if n % 200 == 0 or n == len(ids):
                    progress("exporting games", n, len(ids), started)
        export_s = time.perf_counter() - started
        jsonl_bytes = jsonl.stat().st_size
        with jsonl.open("rb") as raw, gzip.open(tmp / "all.jsonl.gz", "wb", compresslevel=6) as packed:
            shutil.copyfileobj(raw, packed, 1 << 20)
        gzip_bytes = (tmp / "all.jsonl.gz").stat().st_size

    def per_event(n: int) -> float:
        return n / events if events else 0.0

    report = Report(
        NAME,
        f"Bytes per event: {games:,} three-player Motto games, {events:,} events",
        {
            "games": games,
            "events": events,
            "seed": args.seed,
            "quick": args.quick,
            "db": str(args.db) if args.db else "(temporary)",
        },
    )
    report.section("store")
    report.add("games", games, key="games")
    report.add("events", events, key="events")
    report.add(
        "snapshots / results / seats",
        f"{counts['snapshots']:,} / {counts['results']:,} / {counts['seats']:,}",
        key="other_rows",
    )
    report.add(
        "payload JSON (raw text)",
        payload_chars / events,
        "bytes/event",
        "mean payload length",
        key="payload_chars_per_event",
    )
    if build_s is not None:
        report.add("build (simulate + record)", build_s, "s", key="build_s")
    report.section("DuckDB")
    report.add(
        "Loom database file, after CHECKPOINT",
        per_event(db_bytes),
        "bytes/event",
        f"{db_bytes:,} bytes; blocks used {used_blocks:,}, free {free_blocks:,} of {total_blocks:,} "
        f"x {block_size // 1024} KiB",
        key="duckdb_bytes_per_event",
    )
    report.add(
        "  events table alone, no index",
        per_event(alone["events"]),
        "bytes/event",
        f"{alone['events']:,} bytes: a fresh file less the {empty:,} bytes of an empty one (256 KiB blocks)",
        key="duckdb_events_only_bytes_per_event",
    )
    report.add(
        "  events table with its primary key",
        per_event(events_pk),
        "bytes/event",
        f"{events_pk:,} bytes; the PK index costs {per_event(events_pk - alone['events']):.1f} bytes/event",
        key="duckdb_events_pk_bytes_per_event",
    )
    for table in ("snapshots", "results", "games", "seats"):
        report.add(
            f"  {table} table alone",
            per_event(alone[table]),
            "bytes/event",
            f"{alone[table]:,} bytes",
            key=f"duckdb_{table}_only_bytes_per_event",
        )
    report.add(
        "  events column compression",
        "; ".join(f"{c}: {'/'.join(k)}" for c, k in compression.items()),
        key="events_compression",
    )
    report.section("Parquet (zstd), events table")
    report.add(
        "file", per_event(parquet_bytes), "bytes/event", f"{parquet_bytes:,} bytes", key="parquet_bytes_per_event"
    )
    for column, size in parquet_columns.items():
        report.add(f"  column {column}", per_event(size), "bytes/event", key=f"parquet_{column}_bytes_per_event")
    if not args.no_jsonl:
        report.section("JSON Lines (logs export), every game")
        report.add(
            "file",
            per_event(jsonl_bytes),
            "bytes/event",
            f"{jsonl_bytes:,} bytes, header lines included; export took {export_s:.1f} s",
            key="jsonl_bytes_per_event",
        )
        report.add(
            "gzip -6", per_event(gzip_bytes), "bytes/event", f"{gzip_bytes:,} bytes", key="jsonl_gz_bytes_per_event"
        )
        report.section("ratios")
        report.add("DuckDB file / JSON Lines", db_bytes / jsonl_bytes, "x", key="duckdb_over_jsonl")
        report.add(
            "DuckDB events alone / JSON Lines", alone["events"] / jsonl_bytes, "x", key="duckdb_events_over_jsonl"
        )
        report.add("Parquet zstd / JSON Lines", parquet_bytes / jsonl_bytes, "x", key="parquet_over_jsonl")
        report.add("DuckDB file / Parquet zstd", db_bytes / parquet_bytes, "x", key="duckdb_over_parquet")
    report.extra["bytes"] = {
        "duckdb_file": db_bytes,
        "empty_file": empty,
        "tables_alone": alone,
        "events_with_pk": events_pk,
        "parquet_events": parquet_bytes,
        "parquet_columns": parquet_columns,
        "jsonl": jsonl_bytes,
        "jsonl_gz": gzip_bytes,
    }
    report.emit(output_path(NAME, args))


def parquet_column_sizes(path: Path) -> dict[str, int]:
    """Compressed bytes of each column over all row groups."""
    import pyarrow.parquet as pq

    meta = pq.ParquetFile(path).metadata
    sizes: dict[str, int] = {}
    for g in range(meta.num_row_groups):
        group = meta.row_group(g)
        for c in range(group.num_columns):
            column = group.column(c)
            sizes[column.path_in_schema] = sizes.get(column.path_in_schema, 0) + column.total_compressed_size
    return sizes


if __name__ == "__main__":
    main()
