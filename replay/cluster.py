"""Simulation on a Dask distributed cluster, each task writing its chunk of games straight into a Parquet lake.

A simulation of `games` games is cut into chunks of consecutive game indexes; each chunk is one task, which plays its
games (game `index` from `game_seed(name, seed, index)`, as `logs simulate` plays it into a store) and adds them to
the lake itself (replay/lake.py's `write_games`: staged, then moved into place, games last). Nothing but a chunk's
summary travels back to the command, so no single writer is the bottleneck, and the games are the same, event for
event, whatever the number of workers or the chunk size.

The ids are reserved in the lake before any game is played (a block of `games` ids, replay/lake.py's
`reserve_ids`): game `index` is game `first_id + index`, whichever worker plays it.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from loom.engine.protocol import Game
from loom.engine.registry import get_game
from loom.events.base import LoomError
from loom.replay.lake import cancelled_file, discard_run, reserve_ids, write_games
from loom.replay.workers import POLL, children_ignore_ctrl_c, held_signals

__all__ = [
    "LOCAL",
    "ClusterError",
    "LakeSimulation",
    "connect",
    "discard_run",
    "mapper_of",
    "new_run",
    "simulate_to_lake",
    "worker_count",
]
from loom.replay.simulate import BATCH, game_seed, simulate_one

if TYPE_CHECKING:
    from distributed import Client
    from distributed import Future as DaskFuture

LOCAL = "local"
"""The --cluster that starts a LocalCluster on this machine's cores instead of connecting to a scheduler."""
CONNECT_TIMEOUT = 5
"""Seconds to reach a scheduler before giving up with one line (Dask's own default waits 30)."""


class ClusterError(LoomError):
    """A Dask cluster that cannot be reached or started, or a task that failed on it."""


@dataclass(frozen=True, slots=True)
class Chunk:
    """One task's games: indexes `first` to `first + count - 1` of the simulation, ids from `first_id`."""

    lake: str
    run: str
    name: str
    seed: int
    bots: tuple[str, ...]
    first: int
    count: int
    first_id: int


@dataclass(frozen=True, slots=True)
class ChunkDone:
    """What a task added to the lake: its chunk's games and events, its files, and where it ran (a process id)."""

    first: int
    games: int
    events: int
    files: tuple[str, ...]
    worker: int


@dataclass(frozen=True, slots=True)
class LakeSimulation:
    """A simulation written into a lake: its run id, the ids of its games (consecutive), and the chunks' summaries."""

    run: str
    first_id: int
    games: int
    chunks: tuple[ChunkDone, ...]

    @property
    def ids(self) -> range:
        """The games' ids, game `index` first_id + index."""
        return range(self.first_id, self.first_id + self.games)


def play_chunk(chunk: Chunk) -> ChunkDone:
    """Play a chunk's games and add them to the lake (a task: runs on a worker)."""
    game = get_game(chunk.name)
    played = [
        # Snapshots are a cache of the store, not in a lake: not worth inserting only to be left out.
        dataclasses.replace(simulate_one(game, chunk.bots, game_seed(chunk.name, chunk.seed, index)), snapshots=[])
        for index in range(chunk.first, chunk.first + chunk.count)
    ]
    lake = Path(chunk.lake)
    first_id, name = chunk.first_id + chunk.first, f"{chunk.run}-{chunk.first:010d}"
    files = write_games(lake, played, first_id, name, cancelled_file(lake, chunk.run))
    return ChunkDone(chunk.first, len(played), sum(len(g.events) for g in played), files, os.getpid())


def new_run() -> str:
    """A simulation run's id: in its files' names, its staging folders' and its cancel file's."""
    return uuid.uuid4().hex


def chunks_of(
    lake: Path, game: Game, games: int, bots: Sequence[str], seed: int, size: int, run: str | None = None
) -> list[Chunk]:
    """The tasks of a simulation of `games` games into the lake, `size` games each, its ids reserved."""
    first_id = reserve_ids(lake, games)
    run = run or new_run()
    return [
        Chunk(str(lake.resolve()), run, game.name, seed, tuple(bots), first, min(size, games - first), first_id)
        for first in range(0, games, size)
    ]


def simulate_to_lake(
    lake: Path,
    game: Game,
    games: int,
    bots: Sequence[str],
    seed: int,
    client: Client | None = None,
    chunk: int = BATCH,
    progress: Callable[[int], None] = lambda done: None,
    run: str | None = None,
) -> LakeSimulation:
    """Play `games` games into the lake, on the cluster of `client` (or in this process); `progress(n)` as each
    chunk of n games is in the lake.

    Stopped (Ctrl-C, a failed task), it cancels the tasks not begun and tells those running to drop their files;
    the chunks already in stay (whole games). Once no task runs (a local cluster closed), `discard_run(lake, run)`
    removes what they left hidden."""
    work = chunks_of(lake, game, games, bots, seed, chunk, run)
    try:
        done = tuple(_on_cluster(client, work, progress) if client is not None else _here(work, progress))
    except BaseException:
        with suppress(OSError):  # a lake that cannot take the file cannot take their files either
            cancelled_file(lake, work[0].run).touch()
        if client is None:
            discard_run(lake, work[0].run)
        raise
    return LakeSimulation(work[0].run, work[0].first_id, games, tuple(sorted(done, key=lambda c: c.first)))


def _here(work: list[Chunk], progress: Callable[[int], None]) -> Iterator[ChunkDone]:
    for item in work:
        result = play_chunk(item)
        progress(result.games)
        yield result


def _on_cluster(client: Client, work: list[Chunk], progress: Callable[[int], None]) -> Iterator[ChunkDone]:
    """Each chunk a task of its own; their summaries as they finish. Leaving early (Ctrl-C, a failed task) cancels
    every task not yet done: a chunk is in the lake whole or not at all (one already running ends and adds it)."""
    futures = [
        client.submit(play_chunk, item, key=f"loom-simulate-{item.run}-{item.first}", pure=False) for item in work
    ]
    try:
        for future in finished(futures):
            result: ChunkDone = outcome(future, "a simulation task")
            progress(result.games)
            yield result
    finally:
        cancel(client, futures)


def finished(futures: Sequence[DaskFuture]) -> Iterator[DaskFuture]:
    """Each future once it is done, in the order they finish, looked for every POLL seconds.

    Dask's own waits (`as_completed`, `gather`) take locks in this thread that the client's event loop needs: a
    Ctrl-C raised between taking one and the `with` that gives it back would hang the command (as it did a pool's
    wait, replay/workers.py's `held_signals`). A future's `done` reads its state without a lock, and the wait
    between looks is a sleep, where Ctrl-C stops it at once."""
    pending = dict.fromkeys(futures)  # in order, each removed at once: a simulation may have thousands
    while pending:
        done = [future for future in pending if future.done()]
        if not done:
            time.sleep(POLL)
        for future in done:
            del pending[future]
            yield future


def outcome(future: DaskFuture, what: str) -> Any:
    """A done future's result (taken with Ctrl-C held back: it asks the client's event loop), a failure one line."""
    try:
        with held_signals():
            return future.result()
    except LoomError:
        raise
    except Exception as error:  # a worker lost, or a bug in the task: one line, as every error of Loom
        raise ClusterError(f"{what} failed on the cluster: {type(error).__name__}: {error}") from None


def cancel(client: Client, futures: Sequence[DaskFuture]) -> None:
    """Cancel the futures not done (with Ctrl-C held back, as `outcome`); the tasks running end and drop theirs."""
    with held_signals():
        client.cancel([future for future in futures if not future.done()], force=True)


@contextmanager
def connect(address: str, workers: int | None = None) -> Iterator[Client]:
    """A client of the scheduler at `address` (tcp://host:8786), or of a LocalCluster of `workers` processes (default:
    this machine's cores, one thread each) started for the block when `address` is "local"."""
    from distributed import Client, LocalCluster

    if address == LOCAL:
        try:
            with children_ignore_ctrl_c():
                cluster = LocalCluster(
                    n_workers=workers or os.cpu_count() or 1,
                    threads_per_worker=1,  # a game is pure Python: threads of one process would share its GIL
                    processes=True,
                    dashboard_address=None,  # no dashboard; its HTTP server (health, metrics) on a free port
                    scheduler_kwargs={"dashboard_address": ":0"},
                    silence_logs=logging.ERROR,
                )
        except Exception as error:  # noqa: BLE001  # ports, spawning: whatever stops it, one line
            raise ClusterError(f"cannot start a local Dask cluster: {error}") from None
        try:
            with Client(cluster) as client:
                yield client
        finally:
            cluster.close()
        return
    if workers is not None:
        raise ClusterError("--workers sets the size of --cluster local; a running cluster has the workers it has")
    try:
        client = Client(address, timeout=CONNECT_TIMEOUT)
    except (OSError, TimeoutError, ValueError, TypeError) as error:
        raise ClusterError(
            f"cannot reach a Dask scheduler at {address} within {CONNECT_TIMEOUT} s ({type(error).__name__}): "
            "start one with `dask scheduler`, or use --cluster local"
        ) from None
    with client:
        yield client


def mapper_of(client: Client) -> Callable[[Callable[[Any], Any], list[Any]], list[Any]]:
    """Runs a function on every item on the client's cluster, a task each, the results in order (replay/chances.py's
    rollouts); leaving early (Ctrl-C, a failed task) cancels the tasks."""

    def run(fn: Callable[[Any], Any], items: list[Any]) -> list[Any]:
        futures = client.map(fn, items, pure=False)
        try:
            results = {future: outcome(future, "a task") for future in finished(futures)}
            return [results[future] for future in futures]
        finally:
            cancel(client, futures)

    return run


def worker_count(client: Client) -> int:
    """How many workers the client's cluster has now."""
    info: dict[str, Any] = client.scheduler_info()
    return len(info.get("workers", {}))
