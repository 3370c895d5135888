"""Benchmark 2: replay a recorded Motto game at a random turn, in process and through `logs replay`.

A store of recorded three-player games (greedy, random, random) is built in a temporary directory, or reused with
`--db` (a missing file is built there and kept, so the next run can reuse it). Then:

  * in process: `replay.replay.position(store, game_id, turn=N)` for random (game, turn) pairs on a read-only store,
    each call timed alone: median, p90, p99 (target: median under 5 ms); plus the DuckDB queries each call makes;
  * whole games, side by side in one run, on the same `--replay-games` games (events per second, median of
    `--rounds` interleaved rounds): the state at the end read from the store one game at a time
    (`position(store, id)`, read-only and writable stores), many games at a time (`Store.load_many` + the fold), the
    peer `eventsourcing` (its `Application.repository.get` on SQLite, the same events saved one action per save,
    each applied by the same reducers), and the bare fold of the decoded events as the floor;
  * as a command: `logs replay ID --turn N --db FILE` run as a subprocess, default render and `--json`, median wall
    time of several runs, next to `logs --help` (interpreter start + imports, the floor of any command).

    .venv/bin/python bench/replay.py                          # 10,000 games (builds them: a few minutes)
    .venv/bin/python bench/replay.py --db bench/out/replay-10k.duckdb   # build once, reuse afterwards
    .venv/bin/python bench/replay.py --quick                  # 200 games, 200 pairs
"""

from __future__ import annotations

import sys
from pathlib import Path

_BENCH = Path(__file__).resolve().parent
if sys.path and Path(sys.path[0] or ".").resolve() == _BENCH:
    sys.path[0] = str(_BENCH.parent)  # the project root: this file must not shadow the replay package

import os  # noqa: E402
import shutil  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
import uuid  # noqa: E402
from random import Random  # noqa: E402
from typing import Any  # noqa: E402

from bench._common import (  # noqa: E402
    BOTS,
    GAME,
    Report,
    output_path,
    parser,
    percentiles,
    profile,
    progress,
    temp_dir,
)
from loom.engine.registry import get_game  # noqa: E402
from loom.events.registry import encode_payload  # noqa: E402
from loom.replay.reading import decoded  # noqa: E402
from loom.replay.replay import fold, position  # noqa: E402
from loom.replay.simulate import BATCH, lineup, simulate  # noqa: E402
from loom.replay.store import CHUNK, Store  # noqa: E402

NAME = "replay"
TARGET_MS = 5.0
LOGS = Path(sys.executable).with_name("logs")


class CountingConnection:
    """Wraps a store's DuckDB connection: counts and times `execute(...)` + `fetchall()`, as replay/connection.py
    reads."""

    def __init__(self, con: Any) -> None:
        self._con = con
        self.calls = 0
        self.seconds = 0.0

    def execute(self, *args: Any) -> Any:
        start = time.perf_counter()
        result = self._con.execute(*args)
        self.seconds += time.perf_counter() - start
        self.calls += 1
        return _TimedResult(self, result)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._con, name)


class _TimedResult:
    def __init__(self, owner: CountingConnection, result: Any) -> None:
        self._owner, self._result = owner, result

    def fetchall(self) -> Any:
        start = time.perf_counter()
        rows = self._result.fetchall()
        self._owner.seconds += time.perf_counter() - start
        return rows

    @property
    def description(self) -> Any:
        return self._result.description


def build(db: Path, games: int, seed: int) -> float:
    """Record `games` games into a new store at `db`; the seconds it took."""
    game = get_game(GAME)
    bots = lineup(game, len(BOTS), list(BOTS))
    started = time.perf_counter()
    with Store.open(db) as store:
        done = 0

        def step(n: int) -> None:
            nonlocal done
            done += n
            progress("building the store (games)", done, games, started)

        simulate(store, game, games, bots, seed, step)
    return time.perf_counter() - started


# --- The peer: the same games in `eventsourcing` (SQLite), one save per action ------------------------------------


def peer_application(path: Path) -> Any:
    """An `eventsourcing` Application on SQLite at `path`, whose aggregate is a game table: started with the game's
    kind, then one event per recorded Loom event carrying the same fields and payload JSON, applied by the same
    reducers through the same decoder as Loom's replay (`reading.decoded`, which decodes a short payload once). Its
    events are explicit classes with an `apply` method, the faster of the library's two styles here (its `@event`
    decorator measured 10% slower). None if `eventsourcing` is not installed (the bench extra)."""
    try:
        from eventsourcing.application import Application
        from eventsourcing.domain import Aggregate
    except ImportError:
        return None
    rules: dict[str, Any] = {}

    class Table(Aggregate):  # type: ignore[misc]
        class Started(Aggregate.Created):  # type: ignore[misc]
            game: str

        class Recorded(Aggregate.Event):  # type: ignore[misc]
            seq: int
            turn: int
            actor: int | None
            type: str
            version: int
            payload: str

            def apply(self, aggregate: Any) -> None:
                aggregate.seq = self.seq
                payload = decoded(self.type, self.payload, self.version)
                aggregate.state = rules[aggregate.game].apply(aggregate.state, payload)

        def __init__(self, game: str) -> None:
            self.game = game
            self.seq = 0
            self.state = rules.setdefault(game, get_game(game)).blank()

        @classmethod
        def start(cls, game: str) -> Any:
            return cls._create(cls.Started, id=uuid.uuid4(), game=game)

        def record(self, **fields: Any) -> None:
            self.trigger_event(self.Recorded, **fields)

    class Tables(Application):  # type: ignore[misc]
        table = Table

    return Tables(env={"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(path)})


def peer_fill(app: Any, store: Store, ids: list[int]) -> tuple[dict[int, Any], float]:
    """Save the games' events in the peer, one save per action; the peer's id of each game, and saves per second."""
    peer_ids, saves = {}, 0
    started = time.perf_counter()
    for game_id in ids:
        table = app.table.start(store.kept_row(game_id).game)
        app.save(table)
        for event in store.load(game_id):
            payload = encode_payload(event.payload)
            table.record(
                seq=event.seq,
                turn=event.turn,
                actor=event.actor,
                type=event.type,
                version=event.schema_version,
                payload=payload,
            )
            app.save(table)
            saves += 1
        peer_ids[game_id] = table.id
    return peer_ids, saves / (time.perf_counter() - started)


def peer_dir(tmp: Path) -> Path:
    """Where the peer's SQLite file goes: tmpfs if the machine has one. Saving 40,000 actions one commit each would
    take minutes on a disk whose fsync is slow, and this benchmark measures reads, which come from memory either
    way (Loom's file from the page cache)."""
    shm = Path("/dev/shm")
    if shm.is_dir() and os.access(shm, os.W_OK):
        return Path(tempfile.mkdtemp(prefix="loom-bench-peer-", dir=shm))
    return tmp


def last(initial: Any, events: Any) -> Any:
    """A projector for the peer's `repository.get` that only reads the events (its floor: no reducer runs)."""
    found = initial
    for found in events:  # noqa: B007 (the events are read, one by one, and the last kept)
        pass
    return found


# --- Whole games, side by side ----------------------------------------------------------------------------------


BLOCK = 20
"""Games timed together in the paired comparison: each block is replayed by Loom and by the peer back to back, in
alternating order, so both meet the same load on a shared machine; the ratio is the median of the blocks' ratios."""


def seconds(work: Any, *args: Any) -> float:
    """The wall time of `work(*args)`."""
    start = time.perf_counter()
    work(*args)
    return time.perf_counter() - start


def replay_each(store: Store, game_ids: list[int]) -> None:
    """The state at the end of each game, one game at a time."""
    for game_id in game_ids:
        position(store, game_id)


def whole_games(db: Path, ids: list[int], rounds: int, tmp: Path) -> dict[str, Any]:
    """Events per second of each way to the state at the end of the same games (median of `rounds` rounds), and
    Loom's per-game replay against the peer's, block by block."""
    with Store.open(db, read_only=True) as store:
        loaded = [(info, events) for info, events in store.load_many(ids)]
        events = sum(len(e) for _, e in loaded)
        where = peer_dir(tmp)
        app = peer_application(where / "peer.sqlite")
        peer_ids, peer_saves = peer_fill(app, store, ids) if app is not None else ({}, 0.0)
    rules = {info.game: get_game(info.game) for info, _ in loaded}
    blocks = [ids[k : k + BLOCK] for k in range(0, len(ids), BLOCK)]
    figures: dict[str, list[float]] = {name: [] for name in ("fold", "read_only", "writable", "bulk", "peer")}
    figures["peer_events_only"] = []
    paired: dict[str, list[float]] = {"read_only": [], "writable": []}
    queries: dict[str, float] = {}

    def peer(block: list[int]) -> None:
        for game_id in block:
            app.repository.get(peer_ids[game_id])

    try:
        for number in range(rounds):
            figures["fold"].append(events / seconds(lambda: [fold(rules[i.game], e) for i, e in loaded]))
            for kind in ("read_only", "writable"):
                with Store.open(db, read_only=kind == "read_only") as store:  # no game row kept yet
                    counting = CountingConnection(store.db.con)
                    if number == 0:  # the first round counts the queries (the counting costs a little time)
                        store.db.con = counting  # type: ignore[assignment]
                    loom_s = peer_s = 0.0
                    for k, block in enumerate(blocks):
                        if k % 2:  # Loom first in odd blocks, the peer first in even ones
                            ours = seconds(replay_each, store, block)
                        theirs = seconds(peer, block) if app is not None else 0.0
                        if not k % 2:
                            ours = seconds(replay_each, store, block)
                        loom_s, peer_s = loom_s + ours, peer_s + theirs
                        if app is not None:
                            paired[kind].append(theirs / ours)
                    figures[kind].append(events / loom_s)
                    if app is not None:
                        figures["peer"].append(events / peer_s)
                    if number == 0:
                        queries[kind] = counting.calls / len(ids)
                    if kind == "read_only":
                        before = counting.calls
                        figures["bulk"].append(
                            events / seconds(lambda: [fold(rules[i.game], e) for i, e in store.load_many(ids)])
                        )
                        if number == 0:
                            queries["bulk"] = (counting.calls - before) / len(ids)
            if app is not None:
                figures["peer_events_only"].append(
                    events / seconds(lambda: [app.repository.get(peer_ids[g], projector_func=last) for g in ids])
                )
        if app is not None:  # the peer's state is Loom's
            with Store.open(db, read_only=True) as store:
                for game_id in ids[:5]:
                    if app.repository.get(peer_ids[game_id]).state != position(store, game_id).state:
                        raise SystemExit(f"the peer's state of game {game_id} differs from Loom's")
    finally:
        if app is not None:
            app.close()
            if where != tmp:
                shutil.rmtree(where, ignore_errors=True)
    return {
        "games": len(ids),
        "events": events,
        "rounds": rounds,
        "block": BLOCK,
        "events_per_s": {name: values for name, values in figures.items() if values},
        "median": {name: statistics.median(values) for name, values in figures.items() if values},
        "paired_ratio": {name: statistics.median(values) for name, values in paired.items() if values},
        "paired_ratios": paired,
        "queries_per_game": queries,
        "peer_saves_per_s": peer_saves,
        "peer": app is not None,
    }


def run_cli(args: list[str], runs: int) -> dict[str, Any]:
    """Wall times (ms) of `runs` runs of a command after one untimed warm-up run; fails loudly on a non-zero exit."""
    env = dict(os.environ)
    env.pop("LOGS_DB", None)
    env["COLUMNS"] = "120"
    times = []
    size = 0
    for i in range(runs + 1):
        start = time.perf_counter()
        done = subprocess.run(args, capture_output=True, text=True, env=env, check=False)
        elapsed = 1000 * (time.perf_counter() - start)
        if done.returncode != 0:
            raise SystemExit(f"{' '.join(args)} failed ({done.returncode}): {done.stderr.strip()}")
        size = len(done.stdout)
        if i:  # the first run warms the page cache and the .pyc files
            times.append(elapsed)
    return {
        "median_ms": statistics.median(times),
        "min_ms": min(times),
        "max_ms": max(times),
        "runs": times,
        "stdout_chars": size,
    }


def main() -> None:
    p = parser(NAME, __doc__.split("\n\n")[0])
    p.add_argument("--games", type=int, default=None, help="games in the store (default 10,000; --quick: 200)")
    p.add_argument(
        "--db",
        type=Path,
        default=None,
        help="reuse this store (built and kept here if missing); default: a temporary one",
    )
    p.add_argument("--pairs", type=int, default=None, help="random (game, turn) pairs timed (default 1,000)")
    p.add_argument("--cli-runs", type=int, default=None, help="runs of each command (default 5; --quick: 3)")
    p.add_argument(
        "--replay-games",
        type=int,
        default=None,
        help="consecutive games replayed whole, by every way and the peer (default 300; --quick: 50)",
    )
    p.add_argument("--rounds", type=int, default=None, help="rounds of the whole-game figures (default 3)")
    p.add_argument("--profile", action="store_true", help="also cProfile the in-process positions and replays")
    args = p.parse_args()
    args.games = args.games or (200 if args.quick else 10_000)
    args.replay_games = args.replay_games or (50 if args.quick else 300)
    args.rounds = args.rounds or 3
    args.pairs = args.pairs or (200 if args.quick else 1_000)
    args.cli_runs = args.cli_runs or (3 if args.quick else 5)

    with temp_dir(NAME) as tmp:
        db = args.db or tmp / "replay.duckdb"
        build_s = None
        if not db.exists():
            db.parent.mkdir(parents=True, exist_ok=True)
            build_s = build(db, args.games, args.seed)
        run(args, db, build_s, tmp)


def run(args: Any, db: Path, build_s: float | None, tmp: Path) -> None:
    store = Store.open(db, read_only=True)
    try:
        games = sorted(store.games(limit=store.count("games")), key=lambda info: info.id)
        catalogue = [(info.id, info.turns, info.last_seq) for info in games]
        events = store.count("events")
        snapshots = store.count("snapshots")
    except BaseException:
        store.close()
        raise
    rng = Random(args.seed)
    pairs = []
    for _ in range(args.pairs):
        game_id, turns, _ = catalogue[rng.randrange(len(catalogue))]
        pairs.append((game_id, rng.randint(1, turns)))
    warm = [(catalogue[rng.randrange(len(catalogue))][0], 1) for _ in range(20)]

    try:
        for game_id, turn in warm:
            position(store, game_id, turn=turn)
        times = []
        started = time.perf_counter()
        for game_id, turn in pairs:
            start = time.perf_counter()
            position(store, game_id, turn=turn)
            times.append(1000 * (time.perf_counter() - start))
        loop_s = time.perf_counter() - started

        # A second pass over (some of) the same pairs, counting and timing the DuckDB calls: first with the store's
        # game rows forgotten (as a command reading one game sees it), then again (a reader of the same games).
        counted = pairs[: min(len(pairs), 200)]
        counts = []
        for forget in (True, False):
            if forget:
                store.rows.forget()
            counting = CountingConnection(store.db.con)
            real, store.db.con = store.db.con, counting  # type: ignore[assignment]
            start = time.perf_counter()
            for game_id, turn in counted:
                position(store, game_id, turn=turn)
            counts.append((counting, time.perf_counter() - start))
            store.db.con = real
        (counting, counted_s), (again, again_s) = counts

        profiles = None
        if args.profile:

            def positions() -> None:
                for game_id, turn in pairs:
                    position(store, game_id, turn=turn)

            replayed = [game_id for game_id, _, _ in catalogue[: args.replay_games]]

            def whole() -> None:
                store.rows.forget()
                for game_id in replayed:
                    position(store, game_id)

            def bulk() -> None:
                for info, events in store.load_many(replayed):
                    fold(get_game(info.game), events)

            profiles = {
                f"position(), {len(pairs)} calls": profile(positions),
                f"position(store, id) at the end, {len(replayed)} games": profile(whole),
                f"load_many + fold, {len(replayed)} games": profile(bulk),
            }
    finally:
        store.close()

    # Whole games: consecutive ids from a random start, the same games for every way and the peer.
    start = rng.randrange(max(1, len(catalogue) - args.replay_games + 1))
    whole_ids = [game_id for game_id, _, _ in catalogue[start : start + args.replay_games]]
    replays = whole_games(db, whole_ids, args.rounds, tmp)

    # The command, at a median-length game and a turn in its middle.
    mid_id, mid_turns, _ = sorted(catalogue, key=lambda row: row[1])[len(catalogue) // 2]
    mid_turn = max(1, mid_turns // 2)
    base = [str(LOGS), "replay", str(mid_id), "--turn", str(mid_turn), "--db", str(db)]
    cli_render = run_cli(base, args.cli_runs)
    cli_json = run_cli([*base, "--json"], args.cli_runs)
    cli_help = run_cli([str(LOGS), "--help"], args.cli_runs)
    cli_python = run_cli([sys.executable, "-c", "pass"], args.cli_runs)

    stats = percentiles(times)
    report = Report(
        NAME,
        f"Replay a position: {len(catalogue):,} recorded three-player Motto games",
        {
            "games": len(catalogue),
            "pairs": args.pairs,
            "cli_runs": args.cli_runs,
            "seed": args.seed,
            "db": str(args.db) if args.db else "(temporary)",
            "store_batch": BATCH,
            "replay_games": args.replay_games,
            "rounds": args.rounds,
            "quick": args.quick,
        },
    )
    report.section("store")
    report.add("games", len(catalogue), key="games")
    report.add("events", events, key="events")
    report.add("snapshots", snapshots, key="snapshots")
    report.add("database file", db.stat().st_size, "bytes", key="db_bytes")
    if build_s is not None:
        report.add("build (simulate + record)", build_s, "s", f"{len(catalogue) / build_s:.1f} games/s", key="build_s")
    report.section(f"position(store, id, turn=N), {len(times):,} random pairs, in process")
    met = "met" if stats["p50"] < TARGET_MS else "MISSED"
    report.add("median", stats["p50"], "ms", f"target < {TARGET_MS:g} ms: {met}", key="position_p50_ms")
    report.add("p90", stats["p90"], "ms", key="position_p90_ms")
    report.add("p99", stats["p99"], "ms", key="position_p99_ms")
    report.add("mean", stats["mean"], "ms", key="position_mean_ms")
    report.add("min / max", f"{stats['min']:.2f} / {stats['max']:.2f}", "ms", key="position_min_max_ms")
    report.add("throughput", len(times) / loop_s, "positions/s", key="positions_per_s")
    report.add(
        "DuckDB queries per call",
        counting.calls / len(counted),
        "",
        f"over {len(counted)} calls",
        key="queries_per_position",
    )
    report.add(
        "  reading the same games again",
        again.calls / len(counted),
        "",
        f"{1000 * again_s / len(counted):.2f} ms per call: a read-only store keeps the game rows it read",
        key="queries_per_position_again",
    )
    report.add(
        "time in DuckDB (execute + fetchall)",
        100 * counting.seconds / counted_s,
        "%",
        f"{1000 * counting.seconds / counting.calls:.3f} ms per query",
        key="duckdb_time_pct",
    )
    median = replays["median"]
    report.section(
        f"whole games: the state at the end, {replays['games']} games ({replays['events']:,} events), "
        f"median of {replays['rounds']} rounds"
    )
    report.add("bare fold of decoded events (floor)", median["fold"], "events/s", key="fold_events_per_s")
    peer = median.get("peer")

    def against(value: float, kind: str | None = None) -> str:
        of_fold = f"{100 * value / median['fold']:.0f}% of the fold"
        if peer is None:
            return of_fold
        if kind is None:
            return f"{value / peer:.2f}x eventsourcing, {of_fold}"
        ratio = replays["paired_ratio"][kind]
        return f"{ratio:.2f}x eventsourcing (median of {len(replays['paired_ratios'][kind])} paired blocks), {of_fold}"

    report.add(
        "position(store, id), read-only store",
        median["read_only"],
        "events/s",
        f"{against(median['read_only'], 'read_only')}; {replays['queries_per_game']['read_only']:.2f} queries per game",
        key="replay_read_only_events_per_s",
    )
    report.add(
        "position(store, id), writable store",
        median["writable"],
        "events/s",
        f"{against(median['writable'], 'writable')}; {replays['queries_per_game']['writable']:.2f} queries per game",
        key="replay_writable_events_per_s",
    )
    report.add(
        f"Store.load_many + fold ({CHUNK} games a chunk)",
        median["bulk"],
        "events/s",
        f"{against(median['bulk'])}; {replays['queries_per_game']['bulk']:.3f} queries per game",
        key="replay_bulk_events_per_s",
    )
    if peer is not None:
        report.add(
            "eventsourcing repository.get (SQLite), same reducers",
            peer,
            "events/s",
            f"peer; saved one action per save at {replays['peer_saves_per_s']:,.0f} saves/s (tmpfs)",
            key="peer_events_per_s",
        )
        report.add(
            "  its events only (no reducer runs)",
            median["peer_events_only"],
            "events/s",
            f"the peer's floor; Loom per game: {median['read_only'] / median['peer_events_only']:.2f}x it",
            key="peer_events_only_per_s",
        )
    else:
        report.add("eventsourcing", "not installed", "", "pip install -e '.[bench]'", key="peer_events_per_s")
    report.section(f"logs replay {mid_id} --turn {mid_turn} (subprocess, median of {args.cli_runs})")
    report.add(
        "default render",
        cli_render["median_ms"],
        "ms",
        f"min {cli_render['min_ms']:.0f}, max {cli_render['max_ms']:.0f}",
        key="cli_render_ms",
    )
    report.add(
        "--json",
        cli_json["median_ms"],
        "ms",
        f"min {cli_json['min_ms']:.0f}, max {cli_json['max_ms']:.0f}",
        key="cli_json_ms",
    )
    report.add(
        "logs --help (start-up floor)", cli_help["median_ms"], "ms", "imports every command module", key="cli_help_ms"
    )
    report.add("python -c pass", cli_python["median_ms"], "ms", "bare interpreter", key="python_ms")
    report.extra["position_ms"] = {"percentiles": stats, "samples": times}
    report.extra["whole_games"] = replays | {"ids": [whole_ids[0], whole_ids[-1]]}
    report.extra["cli"] = {
        "render": cli_render,
        "json": cli_json,
        "help": cli_help,
        "python": cli_python,
        "command": base,
        "logs": shutil.which("logs") or str(LOGS),
    }
    report.emit(output_path(NAME, args), profiles)


if __name__ == "__main__":
    main()
