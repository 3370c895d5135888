"""Benchmark 3: import a JSON Lines log of about 1,000,000 events into a fresh store (every event checked by the rules).

The log holds many three-player Motto games (greedy, random, random), one header line per game, as written by
`replay.logfile.export_lines`. It is generated once (simulate into a temporary store, export every game) and cached
under bench/out/cache/, or taken from `--log`, or exported from an existing store with `--from-db`. Then:

  * end to end: `replay.logfile.import_file(store, file)` into a fresh store, events per second (target 100,000/s),
    and the peak resident memory of this process during it (the import streams: it should not grow with --events);
  * the split, on another fresh store: `read_games(file)` (parse + rule validation + rows) vs `Store.add_games`;
  * for reference, JSON parsing alone (every line through the same JSON library the importer uses).

    .venv/bin/python bench/import_log.py                 # ~1,000,000 events (generating them takes minutes once)
    .venv/bin/python bench/import_log.py --quick         # ~20,000 events
    .venv/bin/python bench/import_log.py --profile       # also cProfile import_file on --profile-events events
"""

from __future__ import annotations

import sys
from pathlib import Path

_BENCH = Path(__file__).resolve().parent
if sys.path and Path(sys.path[0] or ".").resolve() == _BENCH:
    sys.path[0] = str(_BENCH.parent)  # the project root: bench/replay.py must not shadow the replay package

import inspect  # noqa: E402
import itertools  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import resource  # noqa: E402
import time  # noqa: E402
from collections.abc import Iterator  # noqa: E402
from typing import Any  # noqa: E402

from bench._common import (  # noqa: E402
    BOTS,
    GAME,
    OUT,
    Report,
    Timer,
    environment,
    output_path,
    parser,
    profile,
    progress,
    temp_dir,
)
from loom.engine.registry import get_game  # noqa: E402
from loom.replay import logfile  # noqa: E402
from loom.replay.logfile import export_lines, import_file, read_games  # noqa: E402
from loom.replay.simulate import lineup, simulate  # noqa: E402
from loom.replay.store import Store  # noqa: E402

NAME = "import_log"
TARGET = 100_000  # events per second
CHUNK = 250  # games simulated per step while generating
HEADER = '{"format"'

_json: Any = getattr(logfile, "orjson", json)  # the JSON library the importer itself uses


def export_store(store: Store, ids: list[int], path: Path, limit: int | None = None) -> tuple[int, int]:
    """Write games `ids` of `store` as one log file (stopping once `limit` events are written); (games, events)."""
    games = events = 0
    started = time.perf_counter()
    with path.open("w", encoding="utf-8") as out:
        for game_id in ids:
            lines = list(export_lines(store, game_id))
            out.write("\n".join(lines))
            out.write("\n")
            games += 1
            events += len(lines) - 1
            if games % 200 == 0:
                progress("exporting games", games, len(ids), started)
            if limit is not None and events >= limit:
                break
    progress("exporting games", len(ids), len(ids), started)
    return games, events


def generate(path: Path, events: int, seed: int) -> dict[str, Any]:
    """Simulate games until about `events` events are recorded, export them all to `path`; what was made."""
    game = get_game(GAME)
    bots = lineup(game, len(BOTS), list(BOTS))
    started = time.perf_counter()
    with temp_dir(f"{NAME}-gen") as tmp, Store.open(tmp / "gen.duckdb") as store:
        recorded = 0
        ids: list[int] = []
        for chunk in itertools.count():
            ids += simulate(store, game, CHUNK, bots, seed * 1_000_000 + chunk)
            recorded = store.count("events")
            progress("simulating events", min(recorded, events), events, started)
            if recorded >= events:
                break
        simulated_s = time.perf_counter() - started
        games, written = export_store(store, ids, path, limit=events)
    return {
        "games": games,
        "events": written,
        "simulate_s": simulated_s,
        "export_s": time.perf_counter() - started - simulated_s,
    }


def count(path: Path) -> tuple[int, int]:
    """(games, events) of a log file: header lines and the others."""
    games = lines = 0
    with path.open(encoding="utf-8") as file:
        for line in file:
            if line.strip():
                lines += 1
                games += line.startswith(HEADER)
    return games, lines - games


def head(path: Path, events: int) -> Iterator[str]:
    """The first whole games of a log file holding at least `events` events."""
    seen = 0
    with path.open(encoding="utf-8") as file:
        for line in file:
            if line.startswith(HEADER) and seen >= events:
                return
            seen += not line.startswith(HEADER)
            yield line


def reset_peak() -> bool:
    """Start this process's peak resident memory afresh (Linux 4.0+: clear_refs 5); whether that was possible."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        return False
    return True


def peak_resident() -> int:
    """Bytes: the peak resident memory of this process since `reset_peak` (else since it started)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # KiB on Linux


def main() -> None:
    p = parser(NAME, __doc__.split("\n\n")[0])
    p.add_argument("--events", type=int, default=None, help="events in the log (default 1,000,000; --quick: 20,000)")
    p.add_argument("--log", type=Path, default=None, help="import this log file instead of generating one")
    p.add_argument(
        "--from-db",
        type=Path,
        default=None,
        help="make the log by exporting games of this existing store (read-only) instead of simulating",
    )
    p.add_argument("--no-cache", action="store_true", help="generate the log afresh (in a temporary directory)")
    p.add_argument("--no-split", action="store_true", help="skip the read_games / add_games split (one import only)")
    p.add_argument(
        "--workers",
        type=int,
        default=None,
        help="processes import_file checks with, if it takes `workers` (default: its own, one per CPU)",
    )
    p.add_argument(
        "--profile",
        action="store_true",
        help="also cProfile import_file (in one process) on the first --profile-events",
    )
    p.add_argument("--profile-events", type=int, default=None, help="events of the profiled import (default 100,000)")
    args = p.parse_args()
    args.events = args.events or (20_000 if args.quick else 1_000_000)
    args.profile_events = args.profile_events or min(args.events, 20_000 if args.quick else 100_000)

    with temp_dir(NAME) as tmp:
        generated: dict[str, Any] = {}
        if args.log is not None:
            log = args.log
        elif args.from_db is not None:
            log = tmp / "from-db.jsonl"
            with Store.open(args.from_db, read_only=True) as source:
                ids = [game.id for game in source.all_games()]
                started = time.perf_counter()
                games, written = export_store(source, ids, log, limit=args.events)
            generated = {
                "games": games,
                "events": written,
                "export_s": time.perf_counter() - started,
                "from_db": str(args.from_db),
            }
        else:
            cache = OUT / "cache"
            log = (tmp if args.no_cache else cache) / f"motto-{'-'.join(BOTS)}-{args.events}-seed{args.seed}.jsonl"
            meta = log.with_suffix(".meta.json")
            if log.exists() and meta.exists():
                generated = json.loads(meta.read_text()) | {"cached": True}
            else:
                log.parent.mkdir(parents=True, exist_ok=True)
                partial = log.with_suffix(".partial")
                generated = generate(partial, args.events, args.seed)
                os.replace(partial, log)
                generated["environment"] = environment()
                meta.write_text(json.dumps(generated, indent=2) + "\n")
                generated["cached"] = False
        games, events = count(log)
        size = log.stat().st_size
        run(args, tmp, log, games, events, size, generated)


def import_kwargs(workers: int | None) -> dict[str, Any]:
    """`workers=...` for import_file if it takes that argument and one was given."""
    takes = "workers" in inspect.signature(import_file).parameters
    return {"workers": workers} if takes and workers is not None else {}


def run(args: Any, tmp: Path, log: Path, games: int, events: int, size: int, generated: dict[str, Any]) -> None:
    parallel = "workers" in inspect.signature(import_file).parameters
    workers = (args.workers or os.cpu_count() or 1) if parallel else 1
    # JSON parsing alone, the floor of any import.
    with Timer() as t_parse, log.open(encoding="utf-8") as file:
        for line in file:
            _json.loads(line)

    # End to end: import_file, as `logs import` calls it.
    t_import, t_close = Timer(), Timer()
    with log.open(encoding="utf-8") as file:
        store = Store.open(tmp / "import.duckdb")
        resident = peak_resident() if reset_peak() else 0
        with t_import:
            ids = import_file(store, file, **import_kwargs(args.workers))
        peak = peak_resident()
        with t_close:
            store.close()
    if len(ids) != games:
        raise SystemExit(f"imported {len(ids)} games, the file has {games}")
    (tmp / "import.duckdb").unlink()

    # The split: read_games (parse + check + rows) vs add_games (Arrow + DuckDB), on another fresh store.
    t_read, t_add, t_close2 = Timer(), Timer(), Timer()
    if not args.no_split:
        with log.open(encoding="utf-8") as file, t_read:
            new = read_games(file)
        store = Store.open(tmp / "split.duckdb")
        with t_add:
            store.add_games(new)
        with t_close2:
            store.close()
        del new
        db_bytes = (tmp / "split.duckdb").stat().st_size
    else:
        db_bytes = 0

    profiles = None
    if args.profile:
        part = tmp / "profile.jsonl"
        with part.open("w", encoding="utf-8") as out:
            out.writelines(head(log, args.profile_events))

        def profiled() -> None:
            # In one process: worker processes are invisible to cProfile.
            with (
                temp_dir(f"{NAME}-profile") as ptmp,
                Store.open(ptmp / "profile.duckdb") as pstore,
                part.open(encoding="utf-8") as file,
            ):
                import_file(pstore, file, **import_kwargs(1))

        print(f"profiling import_file on ~{args.profile_events:,} events ...", file=sys.stderr)
        profiles = {f"import_file, ~{args.profile_events:,} events": profile(profiled)}

    rate = events / t_import.seconds
    report = Report(
        NAME,
        f"Import a JSON Lines log: {events:,} events in {games:,} Motto games",
        {
            "events": events,
            "games": games,
            "log": str(log),
            "log_bytes": size,
            "seed": args.seed,
            "workers": workers,
            "quick": args.quick,
        },
    )
    report.section("the log")
    report.add("games", games, key="games")
    report.add("events", events, key="events")
    report.add("file size", size, "bytes", f"{size / events:.1f} bytes/event (header lines included)", key="log_bytes")
    if generated.get("simulate_s"):
        report.add(
            "generation (simulate + export)",
            generated["simulate_s"] + generated["export_s"],
            "s",
            "cached" if generated.get("cached") else "this run",
            key="generate_s",
        )
    report.section(f"import_file (end to end, {workers} process{'es' if workers > 1 else ''} checking)")
    met = "met" if rate >= TARGET else "MISSED"
    report.add("time", t_import.seconds, "s", key="import_s")
    report.add("rate", rate, "events/s", f"target {TARGET:,}/s: {met}", key="import_events_per_s")
    report.add("rate", games / t_import.seconds, "games/s", key="import_games_per_s")
    report.add(
        "peak resident memory",
        peak / 2**20,
        "MiB",
        f"this process, {resident / 2**20:,.0f} MiB before the import" if resident else "this process since it started",
        key="import_peak_rss_mib",
    )
    report.add(
        "close (checkpoint)",
        t_close.seconds,
        "s",
        f"{events / (t_import.seconds + t_close.seconds):,.0f} events/s including it",
        key="import_close_s",
    )
    if not args.no_split:
        total = t_read.seconds + t_add.seconds
        report.section("split: the same work in one process, on another fresh store")
        report.add(
            "read_games: parse + validate + rows",
            t_read.seconds,
            "s",
            f"{100 * t_read.seconds / total:.0f}% of the two",
            key="read_games_s",
        )
        report.add("  rate", events / t_read.seconds, "events/s", key="read_games_events_per_s")
        report.add(
            "add_games: Arrow + DuckDB insert",
            t_add.seconds,
            "s",
            f"{100 * t_add.seconds / total:.0f}% of the two",
            key="add_games_s",
        )
        report.add("  rate", events / t_add.seconds, "events/s", key="add_games_events_per_s")
        report.add(
            "read_games + add_games",
            total,
            "s",
            f"{events / total:,.0f} events/s in one process; import_file took {t_import.seconds / total:.2f}x as long",
            key="serial_s",
        )
        report.add("close (checkpoint)", t_close2.seconds, "s", key="split_close_s")
        report.add("database file", db_bytes, "bytes", f"{db_bytes / events:.1f} bytes/event", key="db_bytes")
    report.section("reference")
    report.add(
        f"JSON parse alone ({_json.__name__}.loads per line)",
        t_parse.seconds,
        "s",
        f"{(events + games) / t_parse.seconds:,.0f} lines/s; {100 * t_parse.seconds / t_import.seconds:.0f}% of import",
        key="json_parse_s",
    )
    report.extra["generated"] = generated
    report.emit(output_path(NAME, args), profiles)


if __name__ == "__main__":
    main()
