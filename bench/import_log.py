"""Benchmark 3: import a JSON Lines log of about 1,000,000 events into a fresh store (every event checked by the rules).

The log holds many three-player Motto games (greedy, random, random), one header line per game, as written by
`replay.logfile.export_lines`. It is generated once (simulate into a temporary store, export every game) and cached
under bench/out/cache/, or taken from `--log`, or exported from an existing store with `--from-db`. Then, in one run:

  * end to end: `replay.logfile.import_file(store, file)` into a fresh store, events per second (target 200,000/s on
    2 cores, goal 300,000/s), the CPU it took per event (this process and its workers), and the peak resident memory
    of this process and of every process of the import together;
  * the floor: DuckDB's own `read_json` of the same file into a table of a fresh database (no rules, no types);
  * the rules check alone: every event folded by the rules in one process, the lines parsed beforehand;
  * JSON parsing alone (every line through the same JSON library the importer uses);
  * with `--scale K`: the file repeated K times imported too, time and memory against K times the first import;
  * with `--split`: `read_games(file)` (parse + rule validation + rows) vs `Store.add_games` in one process.

    .venv/bin/python bench/import_log.py                 # ~1,000,000 events (generating them takes minutes once)
    .venv/bin/python bench/import_log.py --quick         # ~20,000 events
    .venv/bin/python bench/import_log.py --scale 10      # and the 10x file (1M vs 10M events): linear time, memory
    .venv/bin/python bench/import_log.py --profile       # also cProfile import_file on --profile-events events
"""

from __future__ import annotations

import sys
from pathlib import Path

_BENCH = Path(__file__).resolve().parent
if sys.path and Path(sys.path[0] or ".").resolve() == _BENCH:
    sys.path[0] = str(_BENCH.parent)  # the project root: bench/replay.py must not shadow the replay package

import argparse  # noqa: E402
import inspect  # noqa: E402
import itertools  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import resource  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
from collections.abc import Iterator  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402
from typing import Any  # noqa: E402

import duckdb  # noqa: E402
import orjson  # noqa: E402

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
from loom.engine.play import record  # noqa: E402
from loom.engine.registry import get_game  # noqa: E402
from loom.events.parsing import parse_event  # noqa: E402
from loom.replay import logfile  # noqa: E402
from loom.replay.logfile import export_lines, import_file, read_games  # noqa: E402
from loom.replay.simulate import lineup, simulate  # noqa: E402
from loom.replay.store import Store  # noqa: E402

NAME = "import_log"
TARGET = 200_000  # events per second on 2 cores, every event checked
GOAL = 300_000
MEMORY_BOUND = 2**30  # bytes: an import stays under 1 GiB whatever the size of its file
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
    p.add_argument("--split", action="store_true", help="also time read_games / add_games in one process")
    p.add_argument("--no-split", action="store_true", help=argparse.SUPPRESS)  # the default now; kept for old scripts
    p.add_argument(
        "--scale",
        type=int,
        default=0,
        help="also import the log repeated this many times (e.g. 10: 1M vs 10M events) for time and memory scaling",
    )
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


@dataclass
class Sampler:
    """Every `period` seconds, the resident memory of this process and of every process under it (the pool's
    forkserver and workers): the peak of their sum, and each one's CPU time (workers are not this process's children
    to wait for: their CPU is read while they live)."""

    period: float = 0.1
    peak: int = 0
    cpu: dict[int, float] = field(default_factory=dict)
    _base: dict[int, float] = field(default_factory=dict)
    _stop: threading.Event = field(default_factory=threading.Event)

    def __enter__(self) -> Sampler:
        self._base = {pid: cpu for pid, (_, cpu) in _tree().items() if pid != os.getpid()}
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        while not self._stop.wait(self.period):
            self._sample()

    def _sample(self) -> None:
        tree = _tree()
        self.peak = max(self.peak, sum(rss for rss, _ in tree.values()))
        for pid, (_, cpu) in tree.items():
            if pid != os.getpid():
                self.cpu[pid] = cpu - self._base.get(pid, 0.0)

    @property
    def others_cpu(self) -> float:
        """CPU seconds of the processes under this one since the sampling began (as last seen)."""
        return sum(self.cpu.values())


def _tree() -> dict[int, tuple[int, float]]:
    """This process and every process under it: pid -> (resident bytes, CPU seconds so far).

    Found through each thread's list of children (/proc/PID/task/TID/children), not by reading every process of the
    machine: on a shared machine that walk took a fifth of this process's CPU, counted as the import's."""
    page, tick = os.sysconf("SC_PAGE_SIZE"), os.sysconf("SC_CLK_TCK")
    found: dict[int, tuple[int, float]] = {}
    todo = [os.getpid()]
    while todo:
        pid = todo.pop()
        try:
            text = Path(f"/proc/{pid}/stat").read_text()
            children = [
                int(child)
                for task in os.listdir(f"/proc/{pid}/task")
                for child in Path(f"/proc/{pid}/task/{task}/children").read_text().split()
            ]
        except OSError:
            continue  # it has just ended
        fields = text[text.rindex(")") + 2 :].split()
        found[pid] = (int(fields[21]) * page, (int(fields[11]) + int(fields[12])) / tick)
        todo += children
    return found


@dataclass
class Imported:
    """What one timed import_file of a log measured."""

    seconds: float
    main_cpu: float
    workers_cpu: float
    peak_self: int
    peak_all: int
    before: int
    games: int


def timed_import(log: Path, db: Path, workers: int | None) -> Imported:
    """import_file of `log` into a fresh store at `db` (removed afterwards), timed and sampled."""
    with log.open(encoding="utf-8") as file:
        store = Store.open(db)
        before = peak_resident() if reset_peak() else 0
        cpu = time.process_time()
        with Sampler() as sampler, Timer() as timer:
            ids = import_file(store, file, **import_kwargs(workers))
        main_cpu = time.process_time() - cpu
        peak = peak_resident()
        store.close()
    db.unlink()
    return Imported(timer.seconds, main_cpu, sampler.others_cpu, peak, sampler.peak, before, len(ids))


def read_json_floor(log: Path, db: Path) -> float:
    """Seconds for DuckDB to read the log into a table of a fresh database file (and close it): the floor."""
    con = duckdb.connect(str(db))
    con.execute("SET enable_progress_bar = false")
    with Timer() as timer:
        con.execute("CREATE TABLE lines AS SELECT * FROM read_json(?, format = 'newline_delimited')", [str(log)])
        con.close()
    db.unlink()
    return timer.seconds


def rules_alone(log: Path, events: int) -> tuple[int, float]:
    """(events, CPU seconds) of the rules folding the first whole games of about `events` events, parsed beforehand.

    CPU time, not wall time: on a shared machine, wall time counts the other processes' turns too, while the import
    is compared by the CPU it takes (`import_cpu_us_per_event`)."""
    games: list[tuple[Any, list[Any]]] = []
    for line in head(log, events):
        data = orjson.loads(line)
        if "format" in data:
            games.append((get_game(data["game"]), []))
        else:
            games[-1][1].append(parse_event(data, games[-1][0].name)[1])
    started = time.process_time()
    for game, payloads in games:
        state = game.blank()
        for payload in payloads:
            state, _ = record(game, state, payload)
    return sum(len(payloads) for _, payloads in games), time.process_time() - started


def repeated(log: Path, times: int, path: Path) -> Path:
    """The log written `times` times over into `path` (the games are imported as new ones each time)."""
    with path.open("wb") as out:
        for _ in range(times):
            with log.open("rb") as part:
                while block := part.read(1 << 24):
                    out.write(block)
    return path


def run(args: Any, tmp: Path, log: Path, games: int, events: int, size: int, generated: dict[str, Any]) -> None:
    parallel = "workers" in inspect.signature(import_file).parameters
    workers = (args.workers or os.cpu_count() or 1) if parallel else 1
    # JSON parsing alone.
    with Timer() as t_parse, log.open(encoding="utf-8") as file:
        for line in file:
            _json.loads(line)
    # The floor, then the import, then the floor again: the machine is shared, so the floor is taken on both sides.
    floor_s = [read_json_floor(log, tmp / "floor.duckdb")]
    done = timed_import(log, tmp / "import.duckdb", args.workers)
    floor_s.append(read_json_floor(log, tmp / "floor.duckdb"))
    if done.games != games:
        raise SystemExit(f"imported {done.games} games, the file has {games}")
    floor = min(floor_s)
    rules_events, rules_s = rules_alone(log, min(events, args.profile_events * 2))

    scaled = None
    if args.scale > 1:
        big = repeated(log, args.scale, tmp / "scaled.jsonl")
        print(f"importing the log {args.scale} times over ({args.scale * events:,} events) ...", file=sys.stderr)
        scaled = timed_import(big, tmp / "scaled.duckdb", args.workers)
        big.unlink()

    # The split: read_games (parse + check + rows) vs add_games (Arrow + DuckDB), on another fresh store.
    t_read, t_add, t_close2 = Timer(), Timer(), Timer()
    db_bytes = 0
    if args.split:
        with log.open(encoding="utf-8") as file, t_read:
            new = read_games(file)
        store = Store.open(tmp / "split.duckdb")
        with t_add:
            store.add_games(new)
        with t_close2:
            store.close()
        del new
        db_bytes = (tmp / "split.duckdb").stat().st_size

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

    rate = events / done.seconds
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
            "cpus": os.cpu_count(),
            "scale": args.scale,
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
    report.add("time", done.seconds, "s", key="import_s")
    report.add("rate", rate, "events/s", f"target {TARGET:,}/s: {met}; goal {GOAL:,}/s", key="import_events_per_s")
    report.add("rate", games / done.seconds, "games/s", key="import_games_per_s")
    report.add(
        "against the floor",
        floor / done.seconds,
        "x read_json",
        f"read_json takes {floor:.2f} s ({events / floor:,.0f} events/s)",
        key="import_vs_read_json",
    )
    cpu = done.main_cpu + done.workers_cpu
    report.add(
        "CPU per event",
        1e6 * cpu / events,
        "us",
        f"this process {1e6 * done.main_cpu / events:.2f} us, workers {1e6 * done.workers_cpu / events:.2f} us; "
        f"{cpu / done.seconds:.2f} cores busy of {os.cpu_count()}",
        key="import_cpu_us_per_event",
    )
    report.add(
        f"rate if {workers} cores were its own",
        workers * events / cpu,
        "events/s",
        "events / CPU seconds x cores: what the machine's other load took away",
        key="import_events_per_s_per_cpu",
    )
    report.add(
        "peak resident memory, this process",
        done.peak_self / 2**20,
        "MiB",
        f"{done.before / 2**20:,.0f} MiB before the import" if done.before else "since it started",
        key="import_peak_rss_mib",
    )
    report.add(
        "peak resident memory, every process",
        done.peak_all / 2**20,
        "MiB",
        f"this one, its forkserver and workers, sampled every 0.1 s; bound {MEMORY_BOUND / 2**20:,.0f} MiB: "
        + ("met" if done.peak_all < MEMORY_BOUND else "MISSED"),
        key="import_peak_rss_all_mib",
    )
    report.section("the floor and the parts, same run")
    report.add(
        "DuckDB read_json of the file",
        floor,
        "s",
        f"{events / floor:,.0f} events/s into a table (no types, no rules); the faster of before and after the import",
        key="read_json_s",
    )
    report.add(
        "rules check alone, one process",
        rules_events / rules_s,
        "events/s",
        f"{rules_events:,} events folded by the rules, parsed beforehand, per CPU second; x{workers} cores: "
        f"{workers * rules_events / rules_s:,.0f}/s, the ceiling of an import checking every event",
        key="rules_events_per_s",
    )
    report.add(
        f"JSON parse alone ({_json.__name__}.loads per line)",
        t_parse.seconds,
        "s",
        f"{(events + games) / t_parse.seconds:,.0f} lines/s; {100 * t_parse.seconds / done.seconds:.0f}% of import",
        key="json_parse_s",
    )
    if scaled is not None:
        report.section(f"scaling: the log {args.scale} times over ({args.scale * events:,} events)")
        ratio = scaled.seconds / done.seconds
        report.add(
            "time",
            scaled.seconds,
            "s",
            f"{ratio:.1f}x the first import for {args.scale}x the events ({ratio / args.scale:.2f} of linear)",
            key="scaled_import_s",
        )
        report.add("rate", args.scale * events / scaled.seconds, "events/s", key="scaled_events_per_s")
        report.add(
            "peak resident memory, every process",
            scaled.peak_all / 2**20,
            "MiB",
            f"{scaled.peak_all / max(done.peak_all, 1):.2f}x the first import's; bound {MEMORY_BOUND / 2**20:,.0f} "
            "MiB: " + ("met" if scaled.peak_all < MEMORY_BOUND else "MISSED"),
            key="scaled_peak_rss_all_mib",
        )
        report.add("peak resident memory, this process", scaled.peak_self / 2**20, "MiB", key="scaled_peak_rss_mib")
    if args.split:
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
        report.add("close (checkpoint)", t_close2.seconds, "s", key="split_close_s")
        report.add("database file", db_bytes, "bytes", f"{db_bytes / events:.1f} bytes/event", key="db_bytes")
    report.extra["generated"] = generated
    report.emit(output_path(NAME, args), profiles)


if __name__ == "__main__":
    main()
