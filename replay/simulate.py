"""Simulating games with bots and recording them in batches."""

from __future__ import annotations

import gc
import secrets
import sys
from collections.abc import Callable, Generator, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, wait
from contextlib import ExitStack, closing, contextmanager
from dataclasses import dataclass
from random import Random
from typing import Any

from loom.engine.play import Step, chance_rng, first_player, play_out, seated, start
from loom.engine.protocol import Game
from loom.engine.registry import get_bot, get_game
from loom.events.base import LoomError, started
from loom.replay.columns import Batch
from loom.replay.facts import FactTaker
from loom.replay.projections import result_rows
from loom.replay.recorder import event_rows, status_of
from loom.replay.snapshots import SnapshotTaker
from loom.replay.store import NewGame, Seat, Store
from loom.replay.workers import in_order, result_of, worker_pool
from loom.replay.writing import adding, batch_of

BATCH = 250
"""Games per piece the writer thread stores (one statement per table), while the next piece is played."""

TRANSACTION = 16 * BATCH
"""Games per transaction, whole batches: enough that DuckDB writes a Motto simulation's events to the file as they
are, compressed, rather than copying them into its log at commit and again at the checkpoint (each transaction ends
in a part-filled row group, which the next one's first rows go through the log to fill: fewer transactions, fewer
such rows; bench/profiles/simulate.md); few enough to keep all but some seconds of play when a simulation is
stopped."""


def lineup(game: Game, players: int, bots: Sequence[str]) -> list[str]:
    """One bot name per player: a single name fills every seat; otherwise one name per player."""
    if not game.min_players <= players <= game.max_players:
        raise LoomError(f"{game.name} is for {game.min_players} to {game.max_players} players, not {players}")
    names = list(bots) or ["random"]
    if len(names) == 1:
        names *= players
    if len(names) != players:
        raise LoomError(f"give one --bot for every seat or one for all: {len(names)} bots for {players} players")
    for name in names:
        get_bot(game, name)  # refuse an unknown bot before anything is played
    return names


@dataclass(frozen=True, slots=True)
class Played:
    """One game as the simulator played it: its seats in turn order, the seed of chance it recorded, the final state
    and every step; with the snapshots and facts taken on the way (none if it was played for the engine alone)."""

    seats: list[Seat]
    seed: int
    state: Any
    steps: list[Step]
    snapshots: SnapshotTaker
    facts: FactTaker | None


def play_one(game: Game, bots: Sequence[str], seed: str, *, taking: bool = True, facts: bool = True) -> Played:
    """Play one game between these bots; the first player is drawn at random (seat 0 starts). With `taking`, the
    snapshots and (with `facts`) the facts are taken as it is played (the rng is used the same either way: the same
    game)."""
    rng = Random(seed)
    first = first_player(len(bots), rng)
    order = seated(list(enumerate(bots)), first)
    players = [f"{bot} {k + 1}" for k, bot in order]
    state, steps = start(game, players, rng)
    recorded_seed = started(steps[0].payload).seed or 0
    agents = {seat: get_bot(game, bot) for seat, (_, bot) in enumerate(order)}
    bot_rngs = {seat: Random(f"loom/bot/{recorded_seed}/{seat}") for seat in agents}
    setup = len(steps)
    snapshots, taker = SnapshotTaker(0), FactTaker(game, setup) if facts and taking else None
    state, more = play_out(
        game,
        state,
        agents,
        chance_rng(recorded_seed, setup),
        bot_rngs,
        observe=snapshots.observer(setup) if taking else None,
        watcher=taker,
    )
    seats = [Seat(name, bot) for name, (_, bot) in zip(players, order)]
    return Played(seats, recorded_seed, state, steps + more, snapshots, taker)


def simulate_one(game: Game, bots: Sequence[str], seed: str, *, facts: bool = True) -> NewGame:
    """Play one game between these bots (see `play_one`), as the rows to store: with its facts, taken as it is
    played (the bots list the legal actions anyway, so the choices are counted for free), or, without `facts`, left
    to the projector."""
    played = play_one(game, bots, seed, facts=facts)
    return NewGame(
        game=game.name,
        seats=played.seats,
        source="simulated",
        seed=played.seed,
        rules_version=game.rules_version,
        events=event_rows(played.steps, 0),
        status=status_of(game, played.state),
        turns=played.steps[-1].turn,
        snapshots=played.snapshots.rows,
        results=result_rows(game, played.state),
        facts=played.facts.done() if played.facts is not None else None,
    )


def fresh_seed() -> int:
    """A seed no earlier run is likely to have used: two runs of one command add two samples, not one twice."""
    return secrets.randbelow(2**32)


def game_seed(name: str, seed: int, index: int) -> str:
    """The seed of game `index` of a simulation of `name` with `seed`: each game reproducible on its own."""
    return f"loom/simulate/{name}/{seed}/{index}"


def _play_chunk(work: tuple[str, int, int, Sequence[str], int, bool]) -> list[NewGame]:
    name, seed, first, bots, count, facts = work
    game = get_game(name)
    return [
        simulate_one(game, bots, game_seed(name, seed, index), facts=facts) for index in range(first, first + count)
    ]


PIECE = 8
"""Games per task of a pool's worker: small, so progress moves game by game and stops promptly, yet a task's
hand-over costs little next to its games."""


def simulated(
    game: Game, games: int, bots: Sequence[str], seed: int, workers: int = 1, *, facts: bool = False, piece: int = 0
) -> Generator[list[NewGame], None, None]:
    """`games` games in pieces of `piece` games (default: BATCH), each game reproducible from (seed, its index)
    whatever the number of workers or the size of the pieces."""
    size = piece or BATCH
    work = [(game.name, seed, first, bots, min(size, games - first), facts) for first in range(0, games, size)]
    if workers <= 1 or len(work) == 1:
        yield from map(_play_chunk, work)
        return
    with worker_pool(workers) as pool:
        yield from in_order(pool, _play_chunk, work, 4 * workers)


def simulate(
    store: Store,
    game: Game,
    games: int,
    bots: Sequence[str],
    seed: int,
    progress: Callable[[int], None] = lambda done: None,
    workers: int = 1,
    *,
    facts: bool = False,
) -> list[int]:
    """Play and record `games` games in batches, on `workers` processes; the new ids. `progress` is told of every
    game played (of every few, by a pool), stored with its batch of BATCH games and committed with its transaction
    of TRANSACTION games (whole transactions only, if the simulation is stopped).

    Each batch is turned into Arrow columns here (`batch_of`) and stored by a thread of its own while the next one
    is played (`_Writer`): the thread only runs DuckDB's inserts and commits, which release the GIL, so on a second
    core they cost the recording little time. Had the thread built the columns too, it would take the GIL back from
    the play hundreds of times a batch, each a forced switch that costs the play more than the work itself
    (bench/profiles/simulate.md).

    The facts are left to the projector (the next `logs dashboard` catches up), off the recording's hot path: taken
    as the games are played they cost a fifth of the play itself (a score per seat every turn), which alone would
    put recording over its budget of +25% over play (bench/simulate.py, bench/profiles/projector.md). With `facts`,
    the workers take them as they play and they are stored with their games, projected to their last event: less
    work in all (the projector lists every position's legal actions again), but on the hot path."""
    waiting: list[NewGame] = []  # played, not yet handed to the writer
    in_transaction = 0  # games of the open transaction handed to the writer
    piece = 1 if workers <= 1 else min(PIECE, BATCH)
    # closing: an interrupt while a batch is stored ends the workers now, not whenever the generator is collected
    with (
        _frozen_heap(),
        store.db.threads(1),  # the writer's DuckDB on one core, leaving the other to the play
        _Writer(store) as writer,
        closing(simulated(game, games, bots, seed, workers, facts=facts, piece=piece)) as pieces,
    ):
        for played in pieces:
            waiting += played
            progress(len(played))
            while len(waiting) >= min(BATCH, TRANSACTION - in_transaction):
                size = min(BATCH, TRANSACTION - in_transaction)
                in_transaction = (in_transaction + size) % TRANSACTION
                writer.store(batch_of(waiting[:size]), commit=in_transaction == 0)
                waiting = waiting[size:]
        writer.store(batch_of(waiting), commit=True)
    return writer.ids


@contextmanager
def _frozen_heap() -> Iterator[None]:
    """The objects alive now (modules, the caller's) left out of the collector's passes until the block ends.

    The batches waiting to be stored outlive a few passes and so reach the oldest generation, where every thousand
    games or so they set off a full pass over everything the process holds (a twentieth of a second for the modules
    alone): the overhead of recording is then partly the collector's. Frozen objects are only not walked; unfrozen
    at the end, garbage among them is collected as before. Left as it is if something froze objects already."""
    if gc.get_freeze_count():
        yield
        return
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


class _Writer:
    """Stores batches of new games on a thread of its own, one at a time and in order, while the caller plays on;
    a transaction of several batches is committed with its last.

    At most one batch is in flight: the next waits for it, so memory stays at two batches and a failed store stops
    the simulation at its next batch with the store's own error. Leaving the block waits for the batch in flight
    and, unless the block ended well, rolls back the transaction it belongs to (after Ctrl-C or SIGTERM: the
    statement in flight interrupted first), so no transaction is left half-written and nothing else touches the
    store meanwhile."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self._pool = ThreadPoolExecutor(1, thread_name_prefix="loom-simulate-writer")
        self._pending: Future[list[int]] | None = None
        self._open: ExitStack | None = None  # the open transaction (the writer thread's alone)
        self._add: Callable[[Batch], list[int]] = lambda batch: []
        self.ids: list[int] = []

    def store(self, batch: Batch, *, commit: bool) -> None:
        """Store this batch once the one before it is stored (its error, if it failed); then commit, if told."""
        self._wait()
        if batch.games or commit:
            self._pending = self._pool.submit(self._store_batch, batch, commit)

    def _store_batch(self, batch: Batch, commit: bool) -> list[int]:
        try:
            if self._open is None and batch.games:
                with ExitStack() as transaction:
                    self._add = transaction.enter_context(adding(self._store.db))
                    self._open = transaction.pop_all()
            ids = self._add(batch) if batch.games else []
        except BaseException:
            self._end(*sys.exc_info())
            raise
        if commit:
            self._end(None, None, None)
        return ids

    def _end(self, *exc: Any) -> None:
        """Commit the open transaction or, given an error, roll it back (the error it raises, if another)."""
        transaction, self._open = self._open, None
        if transaction is not None:
            transaction.__exit__(*exc)

    def _wait(self) -> None:
        if self._pending is not None:
            stored: list[int] = result_of(self._pending)  # kept pending until done: an interrupt meanwhile finds it
            self.ids += stored
            self._pending = None

    def __enter__(self) -> _Writer:
        return self

    def __exit__(self, kind: type[BaseException] | None, *exc: object) -> None:
        try:
            if kind is None:
                self._wait()
            elif self._pending is not None:
                # Ctrl-C (or SIGTERM) stops the batch in flight as it stops a statement of this thread: its
                # transaction rolled back whole, at once. Any other error lets it end; that error is the news.
                while kind is not None and issubclass(kind, KeyboardInterrupt) and not self._pending.done():
                    self._store.db.con.interrupt()  # between two statements it is lost: asked again
                    wait([self._pending], timeout=0.05)
                wait([self._pending])
            if self._open is not None:  # a transaction left open by the caller's error: rolled back whole
                rollback = RuntimeError("the simulation stopped")
                self._pool.submit(self._end, RuntimeError, rollback, None).exception()
        finally:
            self._pool.shutdown(wait=True)
