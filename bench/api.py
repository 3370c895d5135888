"""Benchmark: the HTTP service. Appends per second through the API (one client, then eight at once, each on its own
games), and the latency of a state read at a random turn of a recorded game (median and 99th percentile).

The server runs as `logs serve` in a process of its own, on a free loopback port, on a database of recorded
three-player Motto games (greedy, random, random) built first; the clients are threads of this process, each with
its own HTTP connection. An append is one request: the client plays one of the legal actions that the answer to
its previous append listed (the table token sees them), so nothing else is timed with it.

    .venv/bin/python bench/api.py            # 1,000 recorded games, 600 appends per phase, 1,000 reads
    .venv/bin/python bench/api.py --quick    # 100 games, 120 appends, 200 reads
"""

from __future__ import annotations

import sys
from pathlib import Path

_BENCH = Path(__file__).resolve().parent
if sys.path and Path(sys.path[0] or ".").resolve() == _BENCH:
    sys.path[0] = str(_BENCH.parent)  # the project root: bench/ must not shadow the project's packages

import subprocess  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
from collections.abc import Iterator  # noqa: E402
from contextlib import contextmanager  # noqa: E402
from random import Random  # noqa: E402
from typing import Any  # noqa: E402

import httpx  # noqa: E402

from bench._common import BOTS, GAME, Report, output_path, parser, percentiles, temp_dir  # noqa: E402
from loom.engine.registry import get_game  # noqa: E402
from loom.replay.simulate import simulate  # noqa: E402
from loom.replay.store import Store  # noqa: E402
from loom.service.server import free_port  # noqa: E402

NAME = "api"
ADMIN = "bench-admin-token-0123456789"


@contextmanager
def served(db: Path) -> Iterator[str]:
    """`logs serve` on `db` in its own process for the block; its base URL."""
    port = free_port()
    command = [sys.executable, "-m", "loom.cli.main", "serve", "--port", str(port), "--db", str(db)]
    server = subprocess.Popen([*command, "--admin-token", ADMIN], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                httpx.get(f"{base}/openapi.json", timeout=1).raise_for_status()
                break
            except httpx.HTTPError:
                if server.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("the server did not start") from None
                time.sleep(0.1)
        yield base
    finally:
        server.terminate()
        server.wait(30)


def new_game(client: httpx.Client, seed: int) -> dict[str, Any]:
    """A new three-player Motto game; the answer with its table token."""
    response = client.post("/games", json={"game": GAME, "players": ["A", "B", "C"], "seed": seed})
    response.raise_for_status()
    created = response.json()
    table = created["tokens"]["table"]
    state = client.get(f"/games/{created['id']}/state", headers={"Authorization": f"Bearer {table}"}).json()
    return state | {"table": table}


def append_loop(base: str, appends: int, seed: int) -> list[float]:
    """One client appending `appends` actions to games of its own, a new game whenever one ends; each append's time."""
    rng, times = Random(seed), list[float]()
    with httpx.Client(base_url=base, headers={"Authorization": f"Bearer {ADMIN}"}, timeout=60) as client:
        now = new_game(client, seed)
        while len(times) < appends:
            if now["status"] == "finished":
                now = new_game(client, rng.randrange(1 << 30))
            body = {"expected_seq": now["seq"], "action": now["legal"][rng.randrange(len(now["legal"]))]}
            headers = {"Authorization": f"Bearer {now['table']}"}
            start = time.perf_counter()
            response = client.post(f"/games/{now['id']}/actions", json=body, headers=headers)
            times.append(time.perf_counter() - start)
            response.raise_for_status()
            now = response.json() | {"table": now["table"]}
    return times


def appends_per_second(base: str, clients: int, appends: int) -> tuple[float, list[float]]:
    """`clients` clients at once, `appends` in all; appends per second over the wall time, and every append's time."""
    each, results = appends // clients, [list[float]() for _ in range(clients)]

    def run(index: int) -> None:
        results[index] = append_loop(base, each, 1000 + index)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(clients)]
    start = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    wall = time.perf_counter() - start
    times = [t for result in results for t in result]
    return len(times) / wall, times


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
    args = parser(NAME, __doc__.splitlines()[0]).parse_args()
    games, appends, reads = (100, 120, 200) if args.quick else (1000, 600, 1000)
    report = Report(NAME, "The HTTP service", {"recorded_games": games, "appends": appends, "reads": reads})
    with temp_dir(NAME) as tmp:
        db = tmp / "api.duckdb"
        with Store.open(db) as store:
            simulate(store, get_game(GAME), games, list(BOTS), args.seed)
            recorded = [(info.id, info.turns) for info in store.games(GAME, games)]
        with served(db) as base:
            report.section("appends through the API (one request each)")
            for clients in (1, 8):
                rate, times = appends_per_second(base, clients, appends)
                spread = percentiles([t * 1000 for t in times])
                note = f"median {spread['p50']:.1f} ms, p99 {spread['p99']:.1f} ms per append"
                report.add(
                    f"{clients} client{'s' if clients > 1 else ''}", rate, "appends/s", note, f"appends_{clients}"
                )
            report.section(f"state at a random turn of {games:,} recorded games")
            for label, token in (("whole state (admin token)", ADMIN), ("public view (no token)", None)):
                spread = percentiles([t * 1000 for t in read_latencies(base, recorded, reads, args.seed, token)])
                key = "read_whole" if token else "read_public"
                report.add(f"{label}: median", spread["p50"], "ms", key=f"{key}_p50")
                report.add(f"{label}: p99", spread["p99"], "ms", key=f"{key}_p99")
    report.emit(output_path(NAME, args))


if __name__ == "__main__":
    main()
