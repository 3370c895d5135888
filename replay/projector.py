"""The projector: follows the event log from each game's stored position and keeps the facts projections.

Like KurrentDB's projections or the `eventsourcing` library's process applications, it is a reader of the log with
a position of its own: the table `projected` holds, per game, the last event whose facts (`turn_facts`,
`game_facts`) are stored. A pass finds the games whose events are ahead of their position, reads the new events of
a whole batch of games in one statement, folds each game on from its state at its position (the state the folder
kept in memory after its last pass, else from its newest snapshot), takes the facts of the new events (merged into a
turn already partly projected: one read and one delete for the batch), and writes the facts and the new positions of
the batch in one transaction: a handful of statements a batch, however many games it holds. A crash leaves every
game at its old position or at its new one, and the next pass goes on from there: nothing is projected twice or
skipped.

The server's projector (`Following`) folds in a worker process, off the interpreter's lock that its event loop
needs; `logs rebuild`, `logs dashboard` and a lake export fold in their own.

Readers that need facts read only the games whose position is their last event (replay/queries.py CHOOSE_GAMES).
`logs rebuild` is this projector from position 0, writing the results too (`rebuild`).
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import ExitStack
from dataclasses import dataclass
from typing import Any, NamedTuple

from loom.engine.play import Step
from loom.engine.registry import get_game
from loom.events.registry import load_events_of
from loom.replay import projection_tables, queries
from loom.replay.columns import names
from loom.replay.facts import Facts, facts_and_state
from loom.replay.projections import result_rows
from loom.replay.reading import decoded
from loom.replay.records import GameInfo, StoredResult
from loom.replay.replay import position
from loom.replay.store import Store
from loom.replay.workers import lifelined_pool, start_forkserver

BATCH = 200
"""Games per transaction: enough for the Arrow inserts and the one scan of events to pay off, few enough that a
batch's events (about 150 a game) sit in memory at ease and progress shows."""
KEPT = 512
"""Games whose state after their last projected event is kept in memory: the next pass over a game the service is
appending to starts from it, reading only the new events."""
RETRY = 1.0
"""Seconds before the service's projector tries again after a pass that failed (another writer, a full disk)."""
SETTLE = 1.0
"""Seconds the service's projector lets appends gather once woken, as KurrentDB's projections checkpoint now and then:
a pass per append is a second write transaction per append, competing with the writer for DuckDB's commits and the
cores (measured: 8 HTTP clients went from 354 to 702 appends/s with one sweep a second instead of one per append)."""

GAME_FIELDS = names("games")
log = logging.getLogger(__name__)


Kept = OrderedDict[int, tuple[int, Any]]
"""Game id -> (seq, the state after it), the games folded last, at most KEPT."""
Row = tuple[Any, ...]
"""An event as `queries.EVENTS_AFTER` reads it: game id, then `EVENT_COLUMNS` (seq, turn, actor, type, version,
payload)."""


class Work(NamedTuple):
    """One game of a pass: its row, its position, its events after it, read but not decoded (a folder in another
    process decodes them there), and its state at the position if the folder may not have it."""

    info: GameInfo
    at: int
    rows: list[Row]
    state: Any
    results: bool


Folded = tuple[Facts, list[StoredResult]]
Fold = Callable[[Sequence[Work]], list[Folded | None]]
"""Folds a pass's games: each game's facts and results, or None for a game whose state at its position the folder
neither was given nor kept."""


@dataclass(frozen=True, slots=True)
class Projected:
    """One game's pass: its new position, the facts of the events up to it, and its results."""

    info: GameInfo
    after: int
    facts: Facts
    results: list[StoredResult]


class Projector:
    """Brings the facts of a store's games up to their last event, a batch of games per transaction.

    With `results`, it writes the results of every finished game it projects as well (a rebuild's job: the
    appends write them as games finish)."""

    def __init__(self, store: Store, *, results: bool = False, batch: int = BATCH, fold: Fold | None = None) -> None:
        self.store = store
        self.results = results
        self.batch = batch
        self.kept: Kept = OrderedDict()
        self.folded: Callable[[int], None] = lambda games: None  # told of each game folded (catch_up's per_game)
        self.fold: Fold = fold or (lambda work: fold_games(work, self.kept, self.folded))

    def catch_up(self, progress: Callable[[int], None] = lambda done: None, *, per_game: bool = False) -> int:
        """Project every game behind, in batches; the number of games projected. `progress` is told the games of
        each batch once it is committed (an error it raises stops the pass, the batches before it kept), or with
        `per_game` of each game as it is folded (a bar that moves game by game; a batch commits later)."""
        if per_game:
            self.folded, progress = progress, self.folded
        done, after_id = 0, 0
        while True:
            projected = self.step(after_id)
            if not projected:
                return done
            done += len(projected)
            after_id = projected[-1].info.id
            progress(len(projected))

    def step(self, after_id: int = 0) -> list[Projected]:
        """Project the next batch of games behind (ids above `after_id`) in one transaction; what was projected."""
        db = self.store.db
        with db.written(conflict="the projections were changed by another projector; nothing was written"):
            rows = db.run(queries.BEHIND, [after_id, self.batch])
            behind = [(GameInfo(**dict(zip(GAME_FIELDS, row[:-1]))), int(row[-1])) for row in rows]
            projected = self._project(behind)
            self._write(projected, behind)
        return projected

    def _project(self, behind: list[tuple[GameInfo, int]]) -> list[Projected]:
        # Every game's events after its position are its own (a branch's position is at least its fork): one read.
        events = _events_after(self.store, behind)
        work = [Work(info, at, events.get(info.id, []), None, self.results) for info, at in behind]
        folded = self.fold(work)
        # A game the folder kept no state for, at its position: its state read here (from its newest snapshot)
        missing = [n for n, done in enumerate(folded) if done is None]
        if missing:
            again = [
                work[n]._replace(state=position(self.store, work[n].info.id, seq=work[n].at).state) for n in missing
            ]
            for n, done in zip(missing, self.fold(again)):
                folded[n] = done
        out = []
        for (info, at), done in zip(behind, folded):
            assert done is not None  # given its state, a game is always folded
            out.append(Projected(info, at, *done))
        return out

    def _write(self, projected: Sequence[Projected], behind: Sequence[tuple[GameInfo, int]]) -> None:
        db = self.store.db
        start = {info.id: info.fork_seq or 0 for info, _ in behind}
        # A game projected before (its position past its start) may have the rows of a turn under way: merged.
        going = [p for p in projected if p.after > start[p.info.id]]
        continued = dict(
            zip(
                (p.info.id for p in going),
                projection_tables.merged(db, [p.info.id for p in going], [p.facts for p in going]),
            )
        )
        facts = [continued.get(p.info.id, p.facts) for p in projected]
        ids = [p.info.id for p in projected]
        projection_tables.insert_facts(db, ids, facts)
        projection_tables.move_positions(db, ids, [p.info.last_seq for p in projected])
        if self.results:
            projection_tables.replace_results_of(db, ids, [row for p in projected for row in p.results])


def fold_games(
    work: Sequence[Work], kept: Kept, folded: Callable[[int], None] = lambda games: None
) -> list[Folded | None]:
    """Fold each game of `work` on from its state at its position (given, else kept, else the blank game at 0),
    keeping the state after its last event; None for a game whose state is none of these.

    A state is kept as soon as it is folded, before its pass commits: a pass rolled back leaves its games at their
    old positions, which the states kept at the new ones do not match, so they are never used from there."""
    for kind in {item.info.game for item in work}:
        load_events_of(kind)  # decoding the events needs their classes
    out: list[Folded | None] = []
    for info, at, rows, state, results in work:
        game = get_game(info.game)
        if state is None and at == 0:
            state = game.blank()
        elif state is None:
            known = kept.get(info.id)
            if known is None or known[0] != at:
                out.append(None)
                continue
            state = known[1]
        steps = [Step(turn, actor, decoded(kind, text, version)) for _, _, turn, actor, kind, version, text in rows]
        facts, state = facts_and_state(game, state, steps, at, count_choices=True)
        stored: list[StoredResult] = []
        if results and game.to_move(state) is None:
            stored = [StoredResult(info.id, *row) for row in result_rows(game, state)]
        kept[info.id] = (info.last_seq, state)
        kept.move_to_end(info.id)
        while len(kept) > KEPT:
            kept.popitem(last=False)
        out.append((facts, stored))
        folded(1)
    return out


_KEPT_HERE: Kept = OrderedDict()
"""The states a folding worker process keeps between passes."""


def fold_in_worker(work: Sequence[Work]) -> list[Folded | None]:
    """`fold_games` in a worker process, with the states it kept from its earlier passes."""
    return fold_games(work, _KEPT_HERE)


def _events_after(store: Store, behind: Sequence[tuple[GameInfo, int]]) -> dict[int, list[Row]]:
    """The events of each game after its position up to its row's last event, in order, read in one statement (in
    the batch's own transaction, so an append committed since the batch began is the next pass's)."""
    if not behind:
        return {}
    ids = [info.id for info, _ in behind]
    params = [ids, [at for _, at in behind], [info.last_seq for info, _ in behind], min(ids), max(ids)]
    rows: dict[int, list[Row]] = {}
    for row in store.db.all(queries.EVENTS_AFTER, params):
        rows.setdefault(row[0], []).append(row)
    for own in rows.values():
        own.sort()  # by seq: the file keeps them nearly so
    return rows


def project(store: Store, progress: Callable[[int], None] = lambda done: None) -> int:
    """Bring every game's facts up to its last event; the number of games projected."""
    return Projector(store).catch_up(progress)


def rebuild(store: Store, progress: Callable[[int], None] = lambda done: None) -> int:
    """The projector from position 0: every game's facts and results recomputed from its events, a batch of games
    per transaction; the number of games in the store.

    The facts and positions are emptied first (one transaction), so a rebuild cut short leaves the games it had not
    reached unprojected (readers leave them out) and the next pass of the projector completes them. The results are
    replaced game by game, each batch with its facts: a finished game never lacks its winners."""
    projection_tables.forget_facts(store.db)
    Projector(store, results=True).catch_up(progress, per_game=True)
    return len(store.all_games())


class Following:
    """The service's projector: a thread that catches up whenever it is woken (after appends commit), on a cursor
    of its own of the server's one connection, until it is stopped.

    The thread reads the events and writes the facts; the games are folded in a worker process of their own,
    started at the first pass, and again after one that died (that pass folds on this thread). Folding is pure
    Python: on this process's threads it held the interpreter's lock about a tenth of the time under load, and each
    time the event loop woke to a request while the projector held it, the loop waited up to the switch interval
    for it (8 HTTP clients: 9-24% more appends a second with no projector at all, in the same minutes)."""

    def __init__(
        self, store: Store, projected: Callable[[], None] = lambda: None, swept: Callable[[], None] = lambda: None
    ) -> None:
        self.projector = Projector(store.cursor(), fold=self._fold)
        self._projected = projected  # told after a batch is committed
        self._swept: Callable[[], None] | None = swept  # told once, after the first pass
        self._pools = ExitStack()
        self._pool: ProcessPoolExecutor | None = None
        self._woken = threading.Event()
        self._hurried = threading.Event()
        self._stopping = False
        self._thread = threading.Thread(target=self._run, name="loom-projector", daemon=True)

    @classmethod
    def start(
        cls, store: Store, projected: Callable[[], None] = lambda: None, swept: Callable[[], None] = lambda: None
    ) -> Following:
        """Start following the store's log, from where its projections are (a first pass at once); `projected` is
        told after each batch of facts is committed, `swept` once the first pass has projected every game."""
        start_forkserver([__name__])  # from the server's main thread: its fold worker will ignore Ctrl-C from birth
        following = cls(store, projected, swept)
        following._woken.set()
        following._thread.start()
        return following

    def wake(self) -> None:
        """New events were committed: project them soon. Never waits."""
        self._woken.set()

    def hurry(self) -> None:
        """A reader waits for the facts: project now, without letting more appends gather. Never waits."""
        self._hurried.set()
        self._woken.set()

    def stop(self) -> None:
        """Finish the batch under way (committed or not at all), end the thread, close its cursor."""
        self._stopping = True
        self._hurried.set()
        self._woken.set()
        self._thread.join()
        self._pools.close()
        self.projector.store.close()

    def _fold(self, work: Sequence[Work]) -> list[Folded | None]:
        try:
            if self._pool is None:
                self._pool = self._pools.enter_context(lifelined_pool(1, preload=[__name__]))
            return self._pool.submit(fold_in_worker, work).result()
        except (BrokenProcessPool, OSError):  # the worker died (killed, out of memory) or could not start
            log.warning("the projector's worker failed; this pass folds in the server's process", exc_info=True)
            self._pools.close()
            self._pool = None  # the next pass starts another
            return fold_games(work, self.projector.kept)

    def _run(self) -> None:
        failed = False
        while True:
            self._woken.wait(RETRY if failed else None)
            self._hurried.wait(SETTLE)  # set by hurry(), and by stop()
            self._hurried.clear()
            self._woken.clear()
            if self._stopping:
                return
            try:
                self._pass()
                failed = False
                if self._swept is not None:
                    self._swept()
                    self._swept = None
            except Exception:  # a conflict, a full disk: the positions are as they were; try again shortly
                log.exception("the projector's pass failed; it will try again")
                failed = True

    def _pass(self) -> None:
        """One sweep over the ids, batch by batch, projecting each game behind once: a game appended to all the time
        waits for the next sweep (appends meanwhile wake the thread again), and never starves the others."""
        after_id = 0
        while not self._stopping:
            done = self.projector.step(after_id)
            if done:
                self._projected()
            if len(done) < self.projector.batch:  # fewer than asked for: none was left behind past them
                return
            after_id = done[-1].info.id
