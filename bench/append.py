"""Benchmark: appends in process, with 1 and 8 threads, next to the peer and the floor measured in the same run.

- Loom: `service.writing.act` (what an HTTP append runs, without the HTTP), each thread on games of its own; the
  database's one writer checks each action against the live state and commits the actions that arrive together in
  one transaction. Each call returns once its action is committed.
- the peer: the `eventsourcing` library (pip install -e '.[bench]') on SQLite, one aggregate per game and one
  `save` (one transaction) per action, the action's events as the event's payload: the same games, the same events.
- the floor: one DuckDB row inserted and committed per call (each thread on its own cursor of one connection).
- Loom with the journal fsynced after each group (power-loss durable), and Loom without the journal (each group
  committed to DuckDB before its answer: the write path before the journal), in the same run.

The games are dealt and played in memory first (three-player Motto, random legal actions), so every path writes
the same actions; the time of each is the wall time of all its threads.

    .venv/bin/python bench/append.py            # 2,400 actions per phase
    .venv/bin/python bench/append.py --quick    # 400 actions per phase
"""

from __future__ import annotations

import sys
from pathlib import Path

_BENCH = Path(__file__).resolve().parent
if sys.path and Path(sys.path[0] or ".").resolve() == _BENCH:
    sys.path[0] = str(_BENCH.parent)  # the project root: bench/ must not shadow the project's packages

import threading  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402
from dataclasses import dataclass  # noqa: E402
from random import Random  # noqa: E402
from typing import Any  # noqa: E402

import duckdb  # noqa: E402
import orjson  # noqa: E402

from bench._common import GAME, Report, output_path, parser, percentiles, temp_dir  # noqa: E402
from loom.engine.play import act, chance_rng, start  # noqa: E402
from loom.engine.registry import get_game  # noqa: E402
from loom.replay.live import service_secret  # noqa: E402
from loom.replay.recorder import event_rows  # noqa: E402
from loom.service import writing  # noqa: E402
from loom.service.access import Keys  # noqa: E402
from loom.service.context import Caller, Service  # noqa: E402
from loom.service.database import Database  # noqa: E402
from loom.service.hub import Hub  # noqa: E402
from loom.service.models import ActionBody, NewGameBody  # noqa: E402
from loom.service.settings import Settings  # noqa: E402

NAME = "append"
ADMIN = "bench-admin-token-0123456789"
THREADS = (1, 8)


@dataclass
class Played:
    """A game dealt from `seed` and played at random: each action (JSON) and the events it wrote (log rows)."""

    seed: int
    actions: list[Any]
    events: list[list[dict[str, Any]]]


def played_games(count: int, seed: int) -> list[Played]:
    """`count` three-player games played in memory, as the service would play them (the same chance)."""
    game, rng, games = get_game(GAME), Random(seed), []
    for _ in range(count):
        deal = rng.randrange(1 << 30)
        state, steps = start(game, ["A", "B", "C"], Random(deal))
        played, seq = Played(deal, [], []), len(steps)
        while game.to_move(state) is not None:
            legal = game.legal_actions(state)
            action = legal[rng.randrange(len(legal))]
            state, more = act(game, state, action, chance_rng(_started_seed(steps), seq))
            rows = event_rows(more, seq)
            played.actions.append(game.action_json(action))
            played.events.append(
                [{"seq": s, "type": t, "payload": p} for s, t, p in zip(rows.seq, rows.type, rows.payload)]
            )
            seq += len(more)
        games.append(played)
    return games


def _started_seed(steps: list[Any]) -> int:
    return steps[0].payload.seed or 0  # type: ignore[no-any-return]


def split(games: list[Played], threads: int, actions: int) -> list[list[Played]]:
    """Games for each thread, `actions // threads` actions each: whole games in turn, the last one cut short."""
    shares: list[list[Played]] = []
    each, pool = actions // threads, iter(games)
    for _ in range(threads):
        share, left = [], each
        while left > 0:
            game = next(pool)
            share.append(Played(game.seed, game.actions[:left], game.events[:left]))
            left -= len(share[-1].actions)
        shares.append(share)
    return shares


def timed(threads: int, work: Callable[[int], list[float]]) -> tuple[float, list[float]]:
    """Run `work(i)` on `threads` threads at once; the wall time and every call's time."""
    results: list[list[float]] = [[] for _ in range(threads)]

    def run(index: int) -> None:
        results[index] = work(index)

    workers = [threading.Thread(target=run, args=(i,)) for i in range(threads)]
    began = time.perf_counter()
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    return time.perf_counter() - began, [t for r in results for t in r]


DRAINED: dict[str, tuple[float, float]] = {}
"""Seconds the journal's mover took, after the last acknowledgement, to have every append in DuckDB; and how many
appends it moved per DuckDB transaction on average."""


def loom(
    path: Path, shares: list[list[Played]], *, journal: bool = True, fsync: bool = False
) -> tuple[float, list[float]]:
    """`service.writing.act` for every action, each thread on its games; the games are created first (not timed).
    With the journal (the default) an action returns once in the journal; without, once committed to DuckDB."""
    db = Database(str(path), journal=journal, fsync=fsync)
    service = Service(Settings(db.path, admin_token=ADMIN), db, Keys(db.write(service_secret), ADMIN), Hub())
    caller = Caller(ADMIN)
    try:
        created = [
            [
                writing.create(service, caller, NewGameBody(game=GAME, players=["A", "B", "C"], seed=g.seed)).result()
                for g in share
            ]
            for share in shares
        ]

        def work(index: int) -> list[float]:
            times = []
            for game, new in zip(shares[index], created[index]):
                seq = new["seq"]
                for action in game.actions:
                    began = time.perf_counter()
                    seq = writing.act(service, caller, new["id"], ActionBody(expected_seq=seq, action=action)).result()[
                        "seq"
                    ]
                    times.append(time.perf_counter() - began)
            return times

        result = timed(len(shares), work)
        began = time.perf_counter()
        if db.journal is not None:
            db.journal.caught_up()
            DRAINED[path.name] = (time.perf_counter() - began, db.journal.appends_moved / max(1, db.journal.moves))
        return result
    finally:
        service.close()


def loom_fsync(path: Path, shares: list[list[Played]]) -> tuple[float, list[float]]:
    """Loom with the journal fsynced after each group (power-loss durable)."""
    return loom(path, shares, fsync=True)


def loom_before(path: Path, shares: list[list[Played]]) -> tuple[float, list[float]]:
    """Loom without the journal: each group committed to DuckDB before it is answered (before issue 14's journal)."""
    return loom(path, shares, journal=False)


def peer(path: Path, shares: list[list[Played]]) -> tuple[float, list[float]]:
    """eventsourcing on SQLite: an aggregate per game, one save per action with that action's events."""
    from eventsourcing.application import Application

    app = Application(env={"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(path)})
    tables = [[Table(seed=g.seed) for g in share] for share in shares]
    for share in tables:
        app.save(*share)

    def work(index: int) -> list[float]:
        times = []
        for game, table in zip(shares[index], tables[index]):
            for events in game.events:
                began = time.perf_counter()
                table.played(events=events)
                app.save(table)
                times.append(time.perf_counter() - began)
        return times

    try:
        return timed(len(shares), work)
    finally:
        app.close()


try:
    from eventsourcing.domain import Aggregate, event

    class Table(Aggregate):  # type: ignore[misc]
        """A game for the peer: the events of each action, saved as one of its events."""

        def __init__(self, seed: int) -> None:
            self.seed, self.seq = seed, 0

        @event("Played")  # type: ignore[misc]
        def played(self, events: list[dict[str, Any]]) -> None:
            self.seq = events[-1]["seq"]

except ImportError:  # the bench extra is not installed: the peer is skipped
    Table = None


def floor(path: Path, shares: list[list[Played]]) -> tuple[float, list[float]]:
    """One DuckDB row inserted and committed per action."""
    con = duckdb.connect(str(path))
    con.execute("CREATE TABLE rows (game BIGINT, seq INTEGER, payload JSON)")

    def work(index: int) -> list[float]:
        cursor, times = con.cursor(), []
        for number, game in enumerate(shares[index]):
            for events in game.events:
                began = time.perf_counter()
                cursor.execute("INSERT INTO rows VALUES (?, ?, ?)", [number, events[-1]["seq"], orjson.dumps(events)])
                times.append(time.perf_counter() - began)
        cursor.close()
        return times

    try:
        return timed(len(shares), work)
    finally:
        con.close()


def main() -> None:
    args = parser(NAME, __doc__.splitlines()[0]).parse_args()
    actions = 400 if args.quick else 2400
    report = Report(NAME, "Appends in process: Loom next to eventsourcing (SQLite) and the floor", {"actions": actions})
    games = played_games(max(64, actions // 10), args.seed)
    if Table is None:
        raise SystemExit("the peer is missing: pip install -e '.[bench]' (eventsourcing)")
    paths: dict[str, Callable[[Path, list[list[Played]]], tuple[float, list[float]]]] = {
        "Loom (service.writing.act, journal)": loom,
        "eventsourcing on SQLite (the peer)": peer,
        "one DuckDB row + commit (the floor)": floor,
        "Loom, journal fsynced per group": loom_fsync,
        "Loom without the journal (before)": loom_before,
    }
    with temp_dir(NAME) as tmp:
        for threads in THREADS:
            shares = split(games, threads, actions)
            count = sum(len(g.actions) for share in shares for g in share)
            report.section(f"{threads} thread{'s' if threads > 1 else ''}, {count:,} actions")
            rates = {}
            for number, (label, run) in enumerate(paths.items()):
                wall, times = run(tmp / f"{threads}-{number}.db", shares)
                rates[label] = len(times) / wall
                spread = percentiles([t * 1000 for t in times])
                note = f"p50 {spread['p50']:.2f} ms, p99 {spread['p99']:.2f} ms"
                drained = DRAINED.pop(f"{threads}-{number}.db", None)
                if drained is not None:
                    note += f", all in DuckDB {drained[0] * 1000:.0f} ms after the last answer, {drained[1]:.0f} a move"
                report.add(label, rates[label], "actions/s", note, f"{run.__name__}_{threads}")
            ours, theirs, bottom, synced, before = rates.values()
            report.add("Loom / eventsourcing", ours / theirs, "x", key=f"vs_peer_{threads}")
            report.add("Loom / floor", ours / bottom, "x", key=f"vs_floor_{threads}")
            report.add("Loom fsynced / eventsourcing", synced / theirs, "x", key=f"fsync_vs_peer_{threads}")
            report.add("Loom / Loom without the journal", ours / before, "x", key=f"vs_before_{threads}")
    report.emit(output_path(NAME, args))


if __name__ == "__main__":
    main()
