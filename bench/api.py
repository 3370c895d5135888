"""Benchmark: the HTTP service. Appends per second through the API with 1, 8 and 64 clients at once (each on games of
its own), next to the FLOOR measured in the same run: a minimal FastAPI app served by the same uvicorn that inserts
one DuckDB row per request and commits it (bench/api_floor.py). Then the latency of a state read at a random turn.

The servers run in processes of their own (`logs serve --processes 2`: the primary and one shard, a process for
each core; the floor app), on free loopback ports, both throughout;
each of Loom's phases follows the floor's with as many clients. The load comes from one more process, cheap so that
it leaves the servers most of the two cores: asyncio on uvloop with raw HTTP/1.1 keep-alive connections (one per
client, hand-written requests, orjson), no HTTP library. Each client waits for the answer to its append before
sending the next (the answer lists the legal actions it picks the next one from), and takes another game when its
game ends. Each phase runs for a fixed time after a warm-up; appends/s is over that time, p50/p99 of every append in
it. Beside each rate, the server's CPU per request over the phase (read from /proc, over the server's processes
and those it started: its shard, its projector's worker): the machine's load moves it
much less than the rates, so it tells a change of the code from a change of the machine. The load's own CPU per
request is reported too: what of the two cores it leaves the servers.

The games are created before the timed window, as the floor's table exists before its: each of Loom's phases first
tops up a pool of open games (`POST /games`, then its first `GET /state`) with as many clients, and that creation is
reported as a figure of its own (ms per game, games/s). The games a phase leaves open go on in the next phase on the
same server. Should a phase use up its pool, its clients create games inside the window, as before, and the report
counts them. The floor and the load client are as they were.

With `--rate R` the clients do not send as soon as they are answered: together they offer R requests a second, each
on a pace of its own (one sends at once when it is behind). Two servers, or two versions of one, are then compared by
their CPU per append at the same rate, which the machine's load moves much less than it moves a closed loop's rate.

    .venv/bin/python bench/api.py            # 8 s per phase, 1,000 recorded games, 1,000 reads
    .venv/bin/python bench/api.py --clients 8 --rate 3000 --repeat 3   # CPU per append at 3,000 appends/s
    .venv/bin/python bench/api.py --quick    # 2 s per phase, 100 games, 200 reads
    .venv/bin/python bench/api.py --before /work/main/.venv/bin/python   # and main's Loom, served first
"""

from __future__ import annotations

import sys
from pathlib import Path

_BENCH = Path(__file__).resolve().parent
if sys.path and Path(sys.path[0] or ".").resolve() == _BENCH:
    sys.path[0] = str(_BENCH.parent)  # the project root: bench/ must not shadow the project's packages

import argparse  # noqa: E402
import asyncio  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import shutil  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from collections.abc import Iterator  # noqa: E402
from contextlib import ExitStack, contextmanager  # noqa: E402
from random import Random  # noqa: E402
from typing import Any  # noqa: E402

import httpx  # noqa: E402
import orjson  # noqa: E402

try:  # the load's event loop in C, as the servers': more of the two cores left to them
    import uvloop
except ImportError:  # pragma: no cover - uvicorn[standard] brings it
    uvloop = None  # type: ignore[assignment]

from bench._common import BOTS, GAME, Report, output_path, parser, percentiles, temp_dir  # noqa: E402
from loom.engine.registry import get_game  # noqa: E402
from loom.replay.projector import project  # noqa: E402
from loom.replay.simulate import simulate  # noqa: E402
from loom.replay.store import Store  # noqa: E402
from loom.service.server import free_port  # noqa: E402

NAME = "api"
ADMIN = "bench-admin-token-0123456789"
CLIENTS = (1, 8, 64)
PROCESSES = 2
"""`logs serve --processes`: the primary and one shard, a process for each of the two cores."""
# Open games made ready before each of Loom's phases: enough for this many appends/s over the warm-up and the timed
# window (a Motto game of three is ~116 appends), and at least two per client. A phase that uses them up creates
# more inside its window, counted in the report.
POOL_RATE = 6000
APPENDS_PER_GAME = 110


@contextmanager
def served(command: list[str], port: int, ready: str) -> Iterator[tuple[str, int]]:
    """A server process for the block (`ready` is a path it answers once started); its base URL and process id."""
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                httpx.get(f"{base}{ready}", timeout=1).raise_for_status()
                break
            except httpx.HTTPError:
                if server.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"the server did not start: {command}") from None
                time.sleep(0.1)
        yield base, server.pid
    finally:
        server.terminate()
        server.wait(30)


def loom_server(db: Path, python: str = sys.executable, processes: int = 1) -> tuple[list[str], int]:
    port = free_port()
    command = [python, "-m", "loom.cli.main", "serve", "--port", str(port), "--db", str(db)]
    return [*command, "--admin-token", ADMIN, *(["--processes", str(processes)] if processes > 1 else [])], port


def floor_server(db: Path) -> tuple[list[str], int]:
    port = free_port()
    return [sys.executable, str(_BENCH / "api_floor.py"), str(db), str(port)], port


def cpu_seconds(pid: int) -> float:
    """The CPU time (user and system, every thread) that the process `pid` and the processes it started (its
    shards, its projector's worker, through its forkserver) have used so far."""
    stats = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:  # ended meanwhile
                continue
            stats[int(entry.name)] = (int(fields[1]), int(fields[11]) + int(fields[12]))
    ticks, family = 0, {pid}
    while True:
        more = {child for child, (parent, _) in stats.items() if parent in family} - family
        if not more:
            break
        family |= more
    ticks = sum(stats[member][1] for member in family if member in stats)
    return ticks / os.sysconf("SC_CLK_TCK")


# --- The load: one process, asyncio, a raw keep-alive HTTP/1.1 connection per client ------------------------------


class Connection:
    """One keep-alive HTTP/1.1 connection, one request at a time."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, host: str) -> None:
        self.reader, self.writer, self.host = reader, writer, host

    @classmethod
    async def open(cls, host: str, port: int) -> Connection:
        reader, writer = await asyncio.open_connection(host, port)
        return cls(reader, writer, f"{host}:{port}")

    async def request(self, method: str, path: str, body: Any = None, token: str | None = None) -> tuple[int, Any]:
        """Send a request and read its whole answer; (status, parsed JSON body)."""
        data = b"" if body is None else orjson.dumps(body)
        head = f"{method} {path} HTTP/1.1\r\nHost: {self.host}\r\nContent-Length: {len(data)}\r\n"
        if body is not None:
            head += "Content-Type: application/json\r\n"
        if token:
            head += f"Authorization: Bearer {token}\r\n"
        self.writer.write(head.encode() + b"\r\n" + data)
        lines = (await self.reader.readuntil(b"\r\n\r\n")).split(b"\r\n")
        status, length = int(lines[0].split()[1]), 0
        for line in lines[1:]:
            if line[:15].lower() == b"content-length:":
                length = int(line[15:])
        answer = await self.reader.readexactly(length)
        return status, orjson.loads(answer) if answer else None

    def close(self) -> None:
        self.writer.close()


async def new_game(connection: Connection, rng: Random) -> dict[str, Any]:
    """Create a game and read its first state: {"table": its table's token, "now": the state}."""
    status, created = await connection.request(
        "POST", "/games", {"game": GAME, "players": ["A", "B", "C"], "seed": rng.randrange(1 << 30)}, ADMIN
    )
    assert status == 201, created
    table = created["tokens"]["table"]
    status, now = await connection.request("GET", f"/games/{created['id']}/state", token=table)
    assert status == 200, now
    return {"table": table, "now": now}


async def top_up(pool: list[dict[str, Any]], target: int, host: str, port: int, clients: int, seed: int) -> list[float]:
    """Create games (with `clients` connections at once) until `pool` holds `target`; the time of each creation."""
    times: list[float] = []

    async def creator(rng: Random) -> None:
        connection = await Connection.open(host, port)
        while len(pool) + clients_busy[0] < target:
            clients_busy[0] += 1
            start = time.perf_counter()
            game = await new_game(connection, rng)
            times.append(time.perf_counter() - start)
            clients_busy[0] -= 1
            pool.append(game)
        connection.close()

    clients_busy = [0]
    await asyncio.gather(*(creator(Random(seed * 7919 + i)) for i in range(clients)))
    return times


class Phase:
    """Shared by a phase's clients: when timing starts and stops, every timed append, the games to play, and with a
    `rate` the time between two requests of one client."""

    def __init__(
        self,
        warmup: float,
        seconds: float,
        pool: list[dict[str, Any]] | None = None,
        rate: float = 0.0,
        clients: int = 1,
    ) -> None:
        now = time.perf_counter()
        self.start, self.stop = now + warmup, now + warmup + seconds
        self.interval = clients / rate if rate else 0.0
        self.times: list[float] = []
        self.answered = 0  # every request answered, warm-up included: the server's CPU is read over all of them
        self.pool = pool if pool is not None else []
        self.created_in_window = 0


class Pace:
    """When a client of a phase with a `rate` sends its next request: every `interval` seconds from a start of its
    own (the clients staggered over one interval), at once when it is behind. Without a rate, always at once."""

    def __init__(self, phase: Phase, seed: int) -> None:
        self.interval = phase.interval
        self.due = time.perf_counter() + self.interval * Random(seed).random()

    async def wait(self) -> None:
        if not self.interval:
            return
        now = time.perf_counter()
        if self.due > now:
            await asyncio.sleep(self.due - now)
        # behind by more than an interval (the server is saturated): the schedule starts again from now, so the
        # client does not send a burst to catch up
        self.due = max(self.due, now - self.interval) + self.interval


async def loom_client(phase: Phase, host: str, port: int, seed: int) -> None:
    """Append actions of the table to games of its own, the next game from the pool whenever one ends."""
    rng, connection, pace = Random(seed), await Connection.open(host, port), Pace(phase, seed)
    game: dict[str, Any] = {"now": {"status": "finished"}}
    while True:
        await pace.wait()
        if game["now"]["status"] == "finished":
            if phase.pool:
                game = phase.pool.pop()
            else:  # the pool is used up: a game created as before, counted
                game = await new_game(connection, rng)
                phase.created_in_window += 1
        now, table = game["now"], game["table"]
        body = {"expected_seq": now["seq"], "action": now["legal"][rng.randrange(len(now["legal"]))]}
        sent = time.perf_counter()
        if sent >= phase.stop:
            phase.pool.append(game)  # still open: the next phase goes on with it
            break
        status, game["now"] = await connection.request("POST", f"/games/{now['id']}/actions", body, table)
        assert status == 200, game["now"]
        phase.answered += 1
        if sent >= phase.start:
            phase.times.append(time.perf_counter() - sent)
    connection.close()


async def floor_client(phase: Phase, host: str, port: int, seed: int) -> None:
    """Insert rows of an event-sized payload, one per request."""
    connection, seq, pace = await Connection.open(host, port), 0, Pace(phase, seed)
    payload = {"type": "motto.play", "card": "mirror", "score": [1, 2, 3], "seat": seed % 3}
    while True:
        await pace.wait()
        sent = time.perf_counter()
        if sent >= phase.stop:
            break
        seq += 1
        status, _ = await connection.request("POST", "/rows", {"game": seed, "seq": seq, "payload": payload})
        assert status == 200
        phase.answered += 1
        if sent >= phase.start:
            phase.times.append(time.perf_counter() - sent)
    connection.close()


async def drive(
    kind: str,
    base: str,
    pid: int,
    clients: int,
    warmup: float,
    seconds: float,
    pool: list[dict[str, Any]],
    target: int,
    rate: float = 0.0,
) -> dict[str, Any]:
    """Run one phase (Loom's after topping up its pool of open games to `target`); appends/s over the timed seconds,
    each append's time, each game creation's time, the games left open, and the server's CPU per request from the
    end of the top-up to the end of the phase (warm-up included): a figure of the code that the machine's load
    moves less than a rate."""
    host, port = base.removeprefix("http://").split(":")
    creations: list[float] = []
    start = time.perf_counter()
    if kind == "loom":
        creations = await top_up(pool, target, host, int(port), clients, len(pool) + target)
    creating = time.perf_counter() - start
    client = loom_client if kind == "loom" else floor_client
    phase = Phase(warmup, seconds, pool, rate, clients)
    cpu, own = cpu_seconds(pid), cpu_seconds(os.getpid())
    await asyncio.gather(*(client(phase, host, int(port), 1000 + i) for i in range(clients)))
    cpu, own = cpu_seconds(pid) - cpu, cpu_seconds(os.getpid()) - own
    return {
        "cpu_us": 1e6 * cpu / max(1, phase.answered),
        "load_cpu_us": 1e6 * own / max(1, phase.answered),
        "rate": len(phase.times) / seconds,
        "times": phase.times,
        "creations": creations,
        "creating_s": creating,
        "created_in_window": phase.created_in_window,
        "pool": phase.pool,
    }


def load(
    kind: str,
    server: tuple[str, int],
    clients: int,
    warmup: float,
    seconds: float,
    pool: list[dict[str, Any]],
    target: int = 0,
    rate: float = 0.0,
) -> dict[str, Any]:
    """One phase, driven from a process of its own (so the load and the server are each one process)."""
    with tempfile.TemporaryDirectory(prefix="loom-api-load-") as tmp:
        out, given = Path(tmp) / "phase.json", Path(tmp) / "pool.json"
        given.write_bytes(orjson.dumps(pool))
        spec = json.dumps([kind, *server, clients, warmup, seconds, str(out), str(given), target, rate])
        subprocess.run([sys.executable, __file__, "--drive", spec], check=True, cwd=_BENCH.parent)
        return orjson.loads(out.read_bytes())  # type: ignore[no-any-return]


def read_latencies(base: str, games: list[tuple[int, int]], reads: int, seed: int, token: str | None) -> list[float]:
    """The time of each of `reads` state reads at a random turn of a random recorded game."""
    rng, times = Random(seed), list[float]()
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    with httpx.Client(base_url=base, headers=headers, timeout=60) as client:
        for _ in range(reads):
            game_id, turns = games[rng.randrange(len(games))]
            start = time.perf_counter()
            response = client.get(f"/games/{game_id}/state", params={"turn": rng.randint(1, turns)})
            times.append(time.perf_counter() - start)
            response.raise_for_status()
    return times


def main() -> None:
    p = parser(NAME, __doc__.splitlines()[0])
    p.add_argument("--drive", help=argparse.SUPPRESS)  # one phase's load, in the process `load` starts
    p.add_argument("--clients", type=int, nargs="*", default=list(CLIENTS), help="client counts (default 1 8 64)")
    p.add_argument("--repeat", type=int, default=1, help="run each phase this many times: the median rate (default 1)")
    p.add_argument(
        "--before",
        metavar="PYTHON",
        help="also serve with this interpreter's Loom (another checkout's venv: the figures before a change)",
    )
    p.add_argument(
        "--rate",
        type=float,
        default=0.0,
        help="requests/s offered in all, paced, instead of each client sending as soon as answered: the servers' CPU "
        "per request is then compared at equal rates (a closed loop's rate moves with the machine)",
    )
    p.add_argument("--processes", type=int, default=PROCESSES, help=f"Loom's serving processes (default {PROCESSES})")
    args = p.parse_args()
    if args.drive:
        kind, base, pid, clients, warmup, seconds, out, given, target, rate = json.loads(args.drive)
        pool = orjson.loads(Path(given).read_bytes())
        phase = drive(kind, base, pid, clients, warmup, seconds, pool, target, rate)
        # To a file, not stdout: a line of 64 KB and more printed to the pipe was cut, now and then.
        Path(out).write_bytes(orjson.dumps(uvloop.run(phase) if uvloop is not None else asyncio.run(phase)))
        return
    games, seconds, reads = (100, 2.0, 200) if args.quick else (1000, 8.0, 1000)
    warmup = 1.0
    params: dict[str, Any] = {"recorded_games": games, "seconds_per_phase": seconds, "warmup_s": warmup, "reads": reads}
    params["repeats"] = args.repeat
    params["processes"] = f"logs serve --processes {args.processes}"
    if args.rate:
        params["offered_rate"] = f"{args.rate:,.0f} requests/s in all, paced (a client behind its pace sends at once)"
    params["pool"] = f"games created before each phase: enough for {POOL_RATE:,} appends/s, at least 2 per client"
    report = Report(NAME, "The HTTP service: appends next to the one-row-per-request floor", params)
    with temp_dir(NAME) as tmp:
        db = tmp / "api.duckdb"
        with Store.open(db) as store:
            simulate(store, get_game(GAME), games, list(BOTS), args.seed)
            # Their facts projected before serving, as a running server's are: otherwise the server's projector
            # catches up on every recorded game during the first phases (seconds of CPU beside the appends).
            project(store)
            recorded = [(info.id, info.turns) for info in store.games(GAME, games)]
        floor_command, floor_port = floor_server(tmp / "floor.duckdb")
        command, port = loom_server(db, processes=args.processes)
        # Every server runs throughout, and the phases with as many clients follow each other (the floor's, main's,
        # Loom's), repeated: the machine is shared, and its load changes over a run.
        with ExitStack() as servers:
            bases = {
                "floor": servers.enter_context(served(floor_command, floor_port, "/rows")),
                "loom": servers.enter_context(served(command, port, "/openapi.json")),
            }
            if args.before:
                shutil.copy(db, tmp / "before.duckdb")
                before_command, before_port = loom_server(tmp / "before.duckdb", args.before)
                bases["before"] = servers.enter_context(served(before_command, before_port, "/openapi.json"))
            runs: dict[tuple[str, int], list[dict[str, Any]]] = {}
            pools: dict[str, list[dict[str, Any]]] = {kind: [] for kind in bases}  # each server's open games
            for _ in range(args.repeat):
                for clients in args.clients:
                    target = max(2 * clients, -(-POOL_RATE * int(warmup + seconds) // APPENDS_PER_GAME))
                    for kind, server in bases.items():
                        driver = "floor" if kind == "floor" else "loom"
                        done = load(driver, server, clients, warmup, seconds, pools[kind], target, args.rate)
                        pools[kind] = done.pop("pool")
                        runs.setdefault((kind, clients), []).append(done)
            merged = {key: _merged(done) for key, done in runs.items()}
            floor = {clients: merged["floor", clients] for clients in args.clients}
            loom = {clients: merged["loom", clients] for clients in args.clients}
            before = {clients: merged["before", clients] for clients in args.clients if ("before", clients) in merged}
            base = bases["loom"][0]
            report.section("appends through the API, one request each (floor: one DuckDB row + commit per request)")
            for clients in args.clients:
                ours, theirs = loom[clients], floor[clients]
                spread = percentiles([t * 1000 for t in ours["times"]])
                floor_spread = percentiles([t * 1000 for t in theirs["times"]])
                label = f"{clients} client{'s' if clients > 1 else ''}"
                note = f"p50 {spread['p50']:.1f} ms, p99 {spread['p99']:.1f} ms"
                report.add(f"Loom, {label}", ours["rate"], "appends/s", note, f"appends_{clients}")
                note = f"p50 {floor_spread['p50']:.1f} ms, p99 {floor_spread['p99']:.1f} ms"
                report.add(f"floor, {label}", theirs["rate"], "rows/s", note, f"floor_{clients}")
                note = "both paced (--rate): not the ratio of what each can serve" if args.rate else ""
                report.add(f"Loom / floor, {label}", ours["rate"] / theirs["rate"], "x", note, f"ratio_{clients}")
                report.add(f"Loom p99, {label}", spread["p99"], "ms", key=f"appends_{clients}_p99")
                note = f"the floor's server: {theirs['cpu_us']:,.0f} us a row"
                report.add(f"Loom server CPU per append, {label}", ours["cpu_us"], "us", note, f"cpu_{clients}")
                note = f"for the floor: {theirs['load_cpu_us']:,.0f} us a row"
                report.add(f"the load's CPU per append, {label}", ours["load_cpu_us"], "us", note, f"load_{clients}")
                if clients in before:
                    old = percentiles([t * 1000 for t in before[clients]["times"]])
                    note = f"p50 {old['p50']:.1f} ms, p99 {old['p99']:.1f} ms ({args.before})"
                    report.add(f"Loom before, {label}", before[clients]["rate"], "appends/s", note, f"before_{clients}")
                    cpu = before[clients]["cpu_us"]
                    report.add(f"Loom before, server CPU per append, {label}", cpu, "us", key=f"before_cpu_{clients}")
                if ours["created_in_window"]:
                    note = "the pool ran out: created inside the timed window, as before"
                    report.add(f"Loom games created while timed, {label}", ours["created_in_window"], "games", note)
            report.section("game creation before each phase (POST /games + its first GET /state), not in the above")
            for clients in args.clients:
                for kind, title in (("loom", "Loom"), ("before", "Loom before")):
                    if (kind, clients) not in merged or not merged[kind, clients]["creations"]:
                        continue
                    created = merged[kind, clients]
                    spread = percentiles([t * 1000 for t in created["creations"]])
                    label = f"{clients} client{'s' if clients > 1 else ''}"
                    rate = len(created["creations"]) / created["creating_s"]
                    note = f"{len(created['creations']):,} games, p99 {spread['p99']:.1f} ms, {rate:,.0f} games/s"
                    key = f"{kind}_create_{clients}"
                    report.add(f"{title} new game, {label}: median", spread["p50"], "ms", note, key)
            report.section(f"state at a random turn of {games:,} recorded games")
            for label, token in (("whole state (admin token)", ADMIN), ("public view (no token)", None)):
                spread = percentiles([t * 1000 for t in read_latencies(base, recorded, reads, args.seed, token)])
                key = "read_whole" if token else "read_public"
                report.add(f"{label}: median", spread["p50"], "ms", key=f"{key}_p50")
                report.add(f"{label}: p99", spread["p99"], "ms", key=f"{key}_p99")
    report.emit(output_path(NAME, args))


def _merged(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Repeated phases as one: the median rate, server CPU and load CPU per request, and every append's time."""
    return {
        "rate": statistics.median(run["rate"] for run in runs),
        "cpu_us": statistics.median(run["cpu_us"] for run in runs),
        "load_cpu_us": statistics.median(run["load_cpu_us"] for run in runs),
        "times": [t for run in runs for t in run["times"]],
        "creations": [t for run in runs for t in run["creations"]],
        "creating_s": sum(run["creating_s"] for run in runs),
        "created_in_window": sum(run["created_in_window"] for run in runs),
    }


if __name__ == "__main__":
    main()
