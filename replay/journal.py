"""The journal: a commit log in front of DuckDB, so that an append is acknowledged on one file write, not a commit.

Like KurrentDB's own log (a chunk file written ahead, then indexed) or SQLite's write-ahead log: the server's one
writer checks a group of appends against the live state, writes them to `<db>.journal` as ONE record with one
`os.write` (the OS has the bytes: an acknowledged append survives `kill -9`; with `fsync` it survives a power loss
too), and answers. A mover thread then drains the journal into DuckDB in large groups (`replay.writing.append_games`:
one statement per table for a whole move, every `SETTLE` seconds unless a read hurries it), recording in the same
DuckDB transaction how far it has moved (the meta key `journal_moved`: generation and offset), so a crash between the
two moves nothing twice. Once caught up (or once the file has grown past `LIMIT`, holding the writer back for one
move) it starts a fresh file of the next generation: the journal never grows without bound. While it lets appends
gather it flushes the file to the disk every `SYNC` seconds, so how much a power cut may lose does not grow with the
time between moves (as PostgreSQL's WAL writer flushes asynchronous commits, or Redis its append-only file).

The file: a header (magic, generation), then records, each its length, its CRC-32 and its body (JSON: per append
the game, the seq it expected, its events as stored), then zeros up to the space allocated so far. A torn last
record (a crash mid-write) fails its length or its check and is ignored, as is everything after it: it was never
acknowledged; a length of zero is the unwritten rest.

The records are copied into the file through a shared memory map, not written with `os.write`: the bytes are in the
page cache at once, as with a write (a `kill -9` loses nothing acknowledged), but no system call gives up the
interpreter's lock in the middle of the server's event loop, for a background thread to keep it a whole switch
interval. The space is allocated ahead (`posix_fallocate`, `GROW` at a time), so a full disk is an error of the
append that needed the space, never a fault of the process writing into the map.

Opening a store for writing moves a journal left behind in first (`recover`, called by `Store.open`), recomputing
what the events need (the state before them, their snapshots, the results) from the store itself.
"""

from __future__ import annotations

import logging
import mmap
import os
import struct
import threading
import time
import zlib
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import orjson

from loom.engine.play import Step
from loom.engine.registry import get_game
from loom.replay.connection import MEMORY, StoreError
from loom.replay.live import Append, Played
from loom.replay.projections import result_rows
from loom.replay.reading import decoded
from loom.replay.recorder import event_rows, snapshot_rows, status_of
from loom.replay.records import EventColumns, ResultInfo
from loom.replay.replay import position
from loom.replay.snapshots import SNAPSHOT_EVERY, Snapshot
from loom.replay.store import Store
from loom.replay.writing import EVENT_FIELDS, GameAppend, append_games

MAGIC = b"LOOMJNL1"
HEADER = struct.Struct("<8sQ")  # magic, generation
RECORD = struct.Struct("<II")  # body length, CRC-32 of the body
MARK = "journal_moved"
UPDATE_MARK = "UPDATE meta SET value = ? WHERE key = ?"
INSERT_MARK = "INSERT INTO meta VALUES (?, ?)"

MOVE_MAX = 4096
"""Appends moved in one DuckDB transaction at most (recovery and the mover alike)."""
SETTLE = 0.5
"""Seconds the mover lets appends gather once one is pending, unless a reader hurries it: fewer, larger moves. A move
has a fixed cost of a few DuckDB statements and a commit, and the projector and the readers' copy follow each one:
at 8 HTTP clients, 0.5 s instead of 0.05 s took about 8% off the server's CPU an append and added as much to its
rate, and 2 s only 2% more (bench/profiles/httpbehind.md)."""
SYNC = 0.05
"""Seconds between flushes of the journal to the disk while the mover waits (unless every record is flushed as it is
written): without `fsync`, a power cut loses at most about this much of the acknowledged appends."""
CUT_AT = 1 << 20
"""Bytes past which a caught-up mover starts a fresh file (a smaller one is reused: a cut costs a rename)."""
LIMIT = 64 << 20
"""Bytes past which the mover holds the writer back for one move, to catch up and start a fresh file."""
WAIT = 30.0
"""Seconds a read waits at most for the mover to pass what was acknowledged when it began."""
KEEP_GAMES = 4096
"""Games whose last journaled append the journal remembers before it forgets those moved (a read of one game waits
for that game's appends only)."""
RETRY = 0.5
"""Seconds before the mover tries again after a move that failed (a full disk)."""
GROW = 1 << 20
"""Bytes by which the journal's file and its memory map grow when a record does not fit in what is allocated."""

log = logging.getLogger("loom.journal")


def journal_path(db_path: str | Path, shard: int = 0) -> Path:
    """Where the journal of the database at `db_path` lives: `loom.duckdb` -> `loom.duckdb.journal`; that of a
    server's shard (a process that answers appends beside the one that holds the file), `loom.duckdb.journal.1`."""
    return Path(f"{db_path}.journal" + (f".{shard}" if shard else ""))


def _mark_key(shard: int) -> str:
    return MARK + (f".{shard}" if shard else "")


def _shard_journals(db_path: str | Path) -> list[tuple[int, Path]]:
    """The shards' journals beside the database, by shard, each one's retired file (`retired_path`) before it."""
    main = journal_path(db_path)
    found = []
    for path in main.parent.glob(main.name + ".*"):
        suffix = path.name[len(main.name) + 1 :].removesuffix(RETIRED)
        if suffix.isdigit() and int(suffix) > 0:
            found.append((int(suffix), not path.name.endswith(RETIRED), path))
    return [(shard, path) for shard, _, path in sorted(found)]


RETIRED = ".old"


def retired_path(path: Path) -> Path:
    """Where a shard's journal goes when the shard starts a fresh one: kept until the primary has moved it whole."""
    return path.with_name(path.name + RETIRED)


def encode(appends: Sequence[Append]) -> bytes:
    """One record: the appends of a group, each its game, the seq it expected and its events as stored."""
    return encoded(appends)[0]


def encoded(appends: Sequence[Append]) -> tuple[bytes, list[EventColumns]]:
    """The record of a group's appends (`encode`) and each append's events as stored, which the mover writes."""
    body, rows_of = [], []
    for a in appends:
        rows = event_rows(a.played.steps, a.info.last_seq)
        body.append([a.info.id, a.info.last_seq, rows.turn, rows.actor, rows.type, rows.version, rows.payload])
        rows_of.append(rows)
    data = orjson.dumps(body)
    return RECORD.pack(len(data), zlib.crc32(data)) + data, rows_of


def encoded_whole(appends: Sequence[Append]) -> bytes:
    """A shard's record (`encode`), each append with what the store takes beside its events (its status and rules
    version, the snapshots due among its events, the results of a game it finishes), which the shard has the
    states for: the primary's mover then folds nothing (`_whole`). Recovery reads such a record as any other."""
    body = []
    for a in appends:
        rows = event_rows(a.played.steps, a.info.last_seq)
        whole = game_append(a, rows)
        snapshots = [list(snapshot) for snapshot in whole.snapshots]
        extra = [whole.status, whole.rules_version, snapshots, [list(result) for result in whole.results]]
        body.append([a.info.id, a.info.last_seq, rows.turn, rows.actor, rows.type, rows.version, rows.payload, extra])
    data = orjson.dumps(body)
    return RECORD.pack(len(data), zlib.crc32(data)) + data


def _whole(body: list[Any]) -> list[GameAppend]:
    """The appends of a record `encoded_whole` wrote, as the store takes them."""
    out = []
    for game_id, expected, turns, actors, kinds, versions, payloads, extra in body:
        status, rules_version, snapshots, results = extra
        events = EventColumns(
            list(range(expected + 1, expected + 1 + len(turns))), turns, actors, kinds, versions, payloads
        )
        out.append(
            GameAppend(
                game_id,
                expected,
                events,
                turns[-1],
                status,
                rules_version,
                [Snapshot(*snapshot) for snapshot in snapshots],
                [ResultInfo(*result) for result in results],
            )
        )
    return out


def records(data: bytes | mmap.mmap, start: int) -> Iterator[tuple[int, list[Any]]]:
    """The whole records of a journal's bytes from offset `start`, each with the offset just past it; the first torn
    or damaged one ends them (it was never acknowledged)."""
    at = start
    while at + RECORD.size <= len(data):
        length, crc = RECORD.unpack_from(data, at)
        if length == 0:  # the allocated space not yet written
            return
        body = data[at + RECORD.size : at + RECORD.size + length]
        if len(body) != length or zlib.crc32(body) != crc:
            return
        at += RECORD.size + length
        yield at, orjson.loads(body)


def _mark(store: Store, shard: int = 0) -> tuple[int, int]:
    """(generation, offset) the store has moved its journal (or a shard's) to; (0, 0) if it never did."""
    kept = store.meta(_mark_key(shard))
    if kept is None:
        return 0, 0
    generation, offset = kept.split(":")
    return int(generation), int(offset)


def _generation(path: Path) -> int | None:
    """The generation in the header of the journal at `path`; None if it has no whole header."""
    try:
        with open(path, "rb") as file:
            head = file.read(HEADER.size)
    except FileNotFoundError:
        return None
    if len(head) < HEADER.size:
        return None
    magic, generation = HEADER.unpack(head)
    return int(generation) if magic == MAGIC else None


def pending(db_path: str | Path) -> bool:
    """Whether the database at `db_path` has a journal (its own or a shard's) with records in it (maybe moved
    already: the length of its first record read)."""
    for path in [journal_path(db_path), *(path for _, path in _shard_journals(db_path))]:
        try:
            with open(path, "rb") as file:
                head = file.read(HEADER.size + RECORD.size)
        except OSError:
            continue
        if len(head) == HEADER.size + RECORD.size and RECORD.unpack_from(head, HEADER.size)[0] > 0:
            return True
    return False


def game_append(a: Append, rows: EventColumns) -> GameAppend:
    """What the store writes for one append: its events, the game's progress, the snapshots due among its events
    (folded from the state before them only when one is due, a few events at most) and the results of a game it
    finishes."""
    after, steps, game = a.info.last_seq, a.played.steps, a.game
    status = status_of(game, a.played.state)
    due = after + len(steps) >= (after // SNAPSHOT_EVERY + 1) * SNAPSHOT_EVERY
    return GameAppend(
        a.info.id,
        after,
        rows,
        steps[-1].turn,
        status,
        a.info.rules_version,
        snapshot_rows(game, a.before, steps, after) if due else (),
        result_rows(game, a.played.state) if status == "finished" else (),
    )


def merged(appends: Sequence[GameAppend]) -> list[GameAppend]:
    """Successive appends to one game as one (the events and snapshots of all, the progress of the last): a move then
    writes each game once, however many times it was appended to meanwhile."""
    runs: list[list[GameAppend]] = []
    at: dict[int, int] = {}
    for a in appends:
        index = at.get(a.game_id)
        if index is not None:
            last = runs[index][-1]
            if last.expected_seq + len(last.events) == a.expected_seq:
                runs[index].append(a)
                continue
        at[a.game_id] = len(runs)  # a game's appends that do not follow each other stay apart (see _rounds)
        runs.append([a])
    return [run[0] if len(run) == 1 else _joined(run) for run in runs]


def _joined(run: list[GameAppend]) -> GameAppend:
    """A game's successive appends as one (a game's finishing append is its last)."""
    first, last = run[0], run[-1]
    events = EventColumns(*([value for a in run for value in getattr(a.events, name)] for name in EVENT_FIELDS))
    snapshots = [snapshot for a in run for snapshot in a.snapshots]
    return replace(last, expected_seq=first.expected_seq, events=events, snapshots=snapshots)


def move(store: Store, appends: Sequence[GameAppend], marks: dict[int, tuple[int, int]]) -> None:
    """Write the appends into the store and mark each journal moved to its (generation, offset) (by shard: 0 for
    the store's own journal), in one transaction."""
    db = store.db
    with db.written(conflict="the journal does not fit the store: a game is not where its journaled append expects"):
        try:
            for round_ in _rounds(merged(appends)):
                append_games(db, round_)
        finally:
            for a in appends:  # as Store.append does: a kept row would still be right, only older
                store.rows.forget(a.game_id)
        for shard, (generation, offset) in marks.items():
            mark, key = f"{generation}:{offset}", _mark_key(shard)
            if db.run(UPDATE_MARK, [mark, key])[0][0] == 0:  # an update is a third of an upsert's cost
                db.run(INSERT_MARK, [key, mark])


def _rounds(appends: list[GameAppend]) -> list[list[GameAppend]]:
    """Appends split so that each round writes a game once (appends to one game that do not follow each other,
    which the store then refuses, go in successive rounds)."""
    rounds: list[list[GameAppend]] = []
    seen: dict[int, int] = {}
    for a in appends:
        depth = seen[a.game_id] = seen.get(a.game_id, -1) + 1
        if depth == len(rounds):
            rounds.append([])
        rounds[depth].append(a)
    return rounds


def _write_fresh(path: Path, generation: int, sync: bool) -> None:
    """Replace the journal at `path` with an empty one of `generation` (written aside, then renamed: whole or not)."""
    aside = path.with_name(path.name + ".new")
    fd = os.open(aside, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.write(fd, HEADER.pack(MAGIC, generation))
        if sync:
            os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(aside, path)
    if sync:
        _sync_folder(path)


def _sync_folder(path: Path) -> None:
    fd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def recover(store: Store) -> int:
    """Move into the store (opened for writing) whatever its journals (its own, and its server's shards') hold
    beyond their marks, then remove them; the number of appends moved. A torn last record is ignored. A game's
    appends not yet moved are all in one journal (a game passes between a server's processes only once moved), so
    the journals are moved one after the other."""
    if store.path == MEMORY or store.read_only:
        return 0
    moved = _recover(store, 0, journal_path(store.path))
    for shard, path in _shard_journals(store.path):
        moved += _recover(store, shard, path)
    return moved


def _recover(store: Store, shard: int, path: Path) -> int:
    generation = _generation(path)
    if generation is None:
        if path.exists():  # a header torn by a crash as the file was made: it holds no record
            path.unlink()
        return 0
    data = path.read_bytes()
    marked, offset = _mark(store, shard)
    start = HEADER.size if generation > marked else offset if generation == marked else len(data)
    moved, batch, end = 0, list[GameAppend](), start
    states: dict[int, tuple[Any, Any]] = {}
    for end, body in records(data, start):
        batch.extend(_recomputed(store, body, states))
        if len(batch) >= MOVE_MAX:
            move(store, batch, {shard: (generation, end)})
            moved, batch, states = moved + len(batch), [], {}
    if batch or end > start:
        move(store, batch, {shard: (generation, end)})
        moved += len(batch)
    if moved:
        log.warning("moved %d journaled appends of %s into the store", moved, path)
    # Nothing is left to move (the mark says so, should this unlink not happen): a writer makes a file of its own,
    # of a generation past the mark.
    path.unlink()
    return moved


def _recomputed(store: Store, body: list[Any], states: dict[int, tuple[Any, Any]]) -> list[GameAppend]:
    """The appends of one record as the mover takes them: the state before each read from the store (or from the
    appends before it in the batch), its events decoded and folded, its rows as the record holds them."""
    out = []
    for game_id, expected, turns, actors, kinds, versions, payloads, *_ in body:  # a shard's: more after them
        kept = states.get(game_id)
        if kept is None or kept[0].last_seq != expected:
            at = position(store, game_id, seq=expected)
            kept = (replace(at.info, last_seq=expected), at.state)
        info, before = kept
        game = get_game(info.game)
        steps = [Step(t, a, decoded(k, p, v)) for t, a, k, v, p in zip(turns, actors, kinds, versions, payloads)]
        state = before
        for step in steps:
            state = game.apply(state, step.payload)
        rows = EventColumns(
            list(range(expected + 1, expected + 1 + len(steps))), turns, actors, kinds, versions, payloads
        )
        out.append(game_append(Append(info, game, before, Played(steps, state)), rows))
        last = expected + len(steps)
        states[game_id] = (replace(info, last_seq=last, turns=steps[-1].turn, status=status_of(game, state)), state)
    return out


def move_in(path: str | Path) -> None:
    """Move a journal left beside the database at `path` into it (a store opened for writing, then closed)."""
    Store.open(path).close()  # Store.open recovers


class _Mapped:
    """The journal's file open for appending records through a shared memory map (see the module's notes)."""

    def __init__(self, path: Path) -> None:
        self.fd = os.open(path, os.O_RDWR)
        try:
            self.map = mmap.mmap(self.fd, os.fstat(self.fd).st_size)  # never empty: the file has its header
        except BaseException:
            os.close(self.fd)
            raise
        # Just past the last record: a file left by `recover` is empty, just its header.
        self.end = max((end for end, _ in records(self.map, HEADER.size)), default=HEADER.size)

    def write(self, data: bytes, sync: bool) -> None:
        """Copy a record in after the last (and flush it to the disk, if `sync`); OSError, with nothing of it kept,
        if the file cannot take it."""
        start, end = self.end, self.end + len(data)
        if end > len(self.map):
            os.posix_fallocate(self.fd, 0, end + GROW)
            self.map.resize(end + GROW)
        self.map[start:end] = data
        if sync:
            try:
                self.flush()
            except OSError:
                self.map[start:end] = bytes(len(data))  # no torn record before the next one
                raise
        self.end = end

    def flush(self) -> None:
        """Flush what was written to the disk; OSError if it cannot."""
        os.fdatasync(self.fd)  # the mapped pages are the file's pages: this flushes them as it would a write

    def close(self) -> None:
        self.map.close()
        os.close(self.fd)


@dataclass
class _Pending:
    total: int  # bytes acknowledged up to and including this record (since this process opened the journal)
    offset: int  # the file's offset just past the record
    appends: Sequence[Append]
    rows: Sequence[EventColumns]  # each append's events as stored: made once, for the record
    shard: int = 0  # the journal: this process's (0), or a shard's, whose record is read from its file:
    body: list[Any] | None = None  # the record as written there,
    generation: int = 0  # in the file of this generation

    def __len__(self) -> int:
        return len(self.appends) if self.body is None else len(self.body)

    def game_ids(self) -> Iterator[int]:
        if self.body is None:
            return (a.info.id for a in self.appends)
        return (append[0] for append in self.body)


class _Follower:
    """A shard's journal, as the primary's mover reads it: its whole records from where it last read (through a
    read-only map of the file, remapped as it grows). When the shard starts a fresh file (asked by the mover), the
    old one is renamed aside (`retired_path`), whole: it is read to its end, then the new one from its start, and the
    old one is removed once moved."""

    def __init__(self, shard: int, path: Path) -> None:
        self.shard, self.path = shard, path
        self._guard = threading.Lock()  # the mover flushes the file as a replaced shard's follower is closed
        self._open()
        self.moved = HEADER.size  # offset just past the last record moved, in the file of generation `moved_in`
        self.moved_in = self.generation
        self.synced = 0  # records read when last flushed
        self.records = 0
        self.cut_asked = 0  # the generation a fresh file was last asked after (once each)
        self.retired: tuple[int, int] | None = None  # (generation, end) of the file set aside, until moved

    def _open(self) -> None:
        self.fd = os.open(self.path, os.O_RDONLY)
        self.inode = os.fstat(self.fd).st_ino
        self.generation = _generation(self.path) or 0
        self.map: mmap.mmap | None = None
        self.read = HEADER.size  # offset just past the last record read

    def new_records(self) -> Iterator[tuple[int, int, list[Any]]]:
        """The records written since the last call: (generation, offset just past it, body)."""
        try:  # looked at first: a file is whole once it is aside
            rotated = os.stat(self.path).st_ino != self.inode
        except FileNotFoundError:  # between the shard's two renames: the next look finds the fresh file
            rotated = False
        yield from self._rest()
        if rotated:
            self.retired = (self.generation, self.read)
            self.close()
            self._open()
            yield from self._rest()

    def _rest(self) -> Iterator[tuple[int, int, list[Any]]]:
        size = os.fstat(self.fd).st_size
        if self.map is None or size > len(self.map):
            if self.map is not None:
                self.map.close()
            self.map = mmap.mmap(self.fd, size, prot=mmap.PROT_READ)
        for end, body in records(self.map, self.read):
            self.read = end
            self.records += 1
            yield self.generation, end, body

    def moved_to(self, generation: int, offset: int) -> None:
        """Records are moved up to (generation, offset): a file set aside and moved whole is removed."""
        self.moved_in, self.moved = generation, offset
        if self.retired is not None and generation > self.retired[0]:
            retired_path(self.path).unlink(missing_ok=True)
            self.retired = None

    def flush(self) -> None:
        with self._guard:
            if self.fd >= 0 and self.records > self.synced:
                os.fdatasync(self.fd)  # the shard's pages are this file's pages: flushed as the shard's own would be
                self.synced = self.records

    def close(self) -> None:
        with self._guard:
            if self.map is not None:
                self.map.close()
                self.map = None
            if self.fd >= 0:
                os.close(self.fd)
                self.fd = -1


class ShardJournal:
    """A shard's own journal: the records of the appends it answers, written as the primary's journal writes its
    own (the primary's mover moves them in); a fresh file when the primary, having moved all of it, asks."""

    def __init__(self, path: Path, fsync: bool) -> None:
        self.path, self.fsync = path, fsync
        self._file = _Mapped(path)

    def append(self, appends: Sequence[Append]) -> None:
        """As `Journal.append`: acknowledged once this returns; StoreError, with nothing kept, if it cannot be."""
        data = encoded_whole(appends)
        try:
            self._file.write(data, self.fsync)
        except OSError as error:
            raise StoreError(f"cannot write the journal {self.path}: {error.strerror}") from None

    def cut(self, generation: int) -> None:
        """Set this file (of `generation`) aside whole and start a fresh one of the next generation, the primary's
        mover having moved the one set aside before (it removes each once moved; recovery moves both in order)."""
        if _generation(self.path) != generation or retired_path(self.path).exists():
            return
        os.replace(self.path, retired_path(self.path))
        _write_fresh(self.path, generation + 1, self.fsync)
        self._file.close()
        self._file = _Mapped(self.path)

    def close(self) -> None:
        self._file.close()


class Journal:
    """The journal of a store being served: the writer appends records, a mover thread drains them into DuckDB.

    `moved` is told the games of each move once committed (on the mover's thread)."""

    def __init__(
        self,
        store: Store,
        *,
        fsync: bool = False,
        settle: float = SETTLE,
        moved: Callable[[list[int]], None] = lambda game_ids: None,
    ) -> None:
        self.store = store  # a cursor of the mover's own
        self.path = journal_path(store.path)
        self.fsync, self.settle, self._moved = fsync, settle, moved
        marked, _ = _mark(store)
        generation = _generation(self.path)
        if generation is None or generation < marked:
            generation = marked + 1
            _write_fresh(self.path, generation, fsync)
        self.generation = generation
        self._file = _Mapped(self.path)
        self.acked = 0  # bytes acknowledged, and moved, since opened: a read waits until moved >= acked
        self.moved = 0
        self.moves = 0  # DuckDB transactions of the mover, and appends in them: how large the moves are
        self.appends_moved = 0
        self._pending: deque[_Pending] = deque()
        self._acked_of: dict[int, int] = {}  # game id -> `acked` after its last journaled append, until moved
        self._followers: list[_Follower] = []  # the journals of the server's shards
        self.shard_appended: Callable[[int], None] = lambda game_id: None
        """Told of each game a shard's record appends to, as the record is read (a live stream of it wakes)."""
        self.ask_cut: Callable[[int, int], None] = lambda shard, generation: None
        """Told (on the mover's thread) that a shard's journal of `generation` is moved past CUT_AT: the shard is to
        set it aside and start a fresh file (`ShardJournal.cut`)."""
        self._lock = threading.Condition()
        self._hurried = threading.Event()
        self._stopping = False
        self._thread = threading.Thread(target=self._run, name="loom-mover", daemon=True)
        self._thread.start()

    @property
    def offset(self) -> int:
        """The file's offset just past its last record."""
        return self._file.end

    def append(self, appends: Sequence[Append]) -> None:
        """Write the group's appends as one record (and fsync it, if set): once this returns they are acknowledged.
        StoreError, with nothing of the record kept, if the file cannot take it (a full disk)."""
        data, rows = encoded(appends)
        with self._lock:
            try:
                self._file.write(data, self.fsync)
            except OSError as error:
                raise StoreError(f"cannot write the journal {self.path}: {error.strerror}") from None
            self.acked += len(data)
            for a in appends:
                self._acked_of[a.info.id] = self.acked
            self._pending.append(_Pending(self.acked, self.offset, appends, rows))
            self._lock.notify_all()

    def follow(self, shard: int, after: int | None = None) -> Path:
        """Start the journal of a server's shard (a fresh file, of the generation after `after`, by default after its
        mark: read from the store, so before the mover runs), which the mover reads and moves in beside this one;
        its path, for the shard to write."""
        path = journal_path(self.store.path, shard)
        _write_fresh(path, (_mark(self.store, shard)[0] if after is None else after) + 1, self.fsync)
        with self._lock:
            self._followers.append(_Follower(shard, path))
            self._lock.notify_all()  # the mover now looks at the shards' files every SYNC seconds
        return path

    def refollow(self, shard: int) -> Path:
        """The journal of a shard that stopped, moved in to its last whole record (one it was writing as it died
        was never acknowledged) and removed; then a fresh one, as `follow` starts, for the shard that replaces it."""
        while True:
            self.caught_up()  # every whole record of its files read, and moved
            with self._lock:
                self._scan()
                if any(p.shard == shard for p in self._pending):  # read by the last look: moved by the next
                    continue
                gone = next(f for f in self._followers if f.shard == shard)
                self._followers.remove(gone)
                break
        gone.close()
        retired_path(gone.path).unlink(missing_ok=True)
        gone.path.unlink(missing_ok=True)
        return self.follow(shard, after=gone.generation)  # its mark is of that generation, or of one before

    def _scan(self) -> bool:
        """Take the records the shards wrote since the last look as pending (under the lock); whether any were."""
        found = False
        for follower in self._followers:
            for generation, end, body in follower.new_records():
                self.acked += 1
                self._pending.append(_Pending(self.acked, end, (), (), follower.shard, body, generation))
                for append in body:
                    self._acked_of[append[0]] = self.acked
                    self.shard_appended(append[0])
                found = True
        if found:
            self._lock.notify_all()
        return found

    def caught_up(self, game_id: int | None = None, timeout: float = WAIT) -> None:
        """Return once every append acknowledged before the call (to game `game_id`, if given) is in DuckDB: at once
        when none is pending."""
        if self._followers:  # what the shards acknowledged so far counts too
            with self._lock:
                self._scan()
        target = self.acked if game_id is None else self._acked_of.get(game_id, 0)
        if self.moved >= target:
            return
        self._hurried.set()
        with self._lock:
            if not self._lock.wait_for(lambda: self.moved >= target, timeout):
                raise StoreError(f"the store is more than {timeout:.0f} s behind its journal; try again shortly")

    def close(self) -> None:
        """Move everything acknowledged into DuckDB, stop the mover, remove the (empty) journal."""
        with self._lock:
            self._stopping = True
            self._lock.notify_all()
        self._hurried.set()
        self._thread.join()
        self._file.close()
        if not self._pending:
            self.path.unlink(missing_ok=True)
        for follower in self._followers:  # their shards stopped first
            follower.close()
            if not self._pending:
                follower.path.unlink(missing_ok=True)
                retired_path(follower.path).unlink(missing_ok=True)
        self.store.close()

    def _run(self) -> None:
        while True:
            with self._lock:
                # A shard's appends are read from its file: looked for every SYNC seconds while there are shards.
                while not (self._scan() or self._pending or self._stopping):
                    self._lock.wait(SYNC if self._followers else None)
                if not self._pending:
                    if self._stopping:
                        return
                    continue
            if self.settle and not self._stopping:
                self._settle()
            self._hurried.clear()
            try:
                self._move()
            except Exception:  # a full disk, say: the appends stay pending, in memory and in the file
                log.exception("the journal's mover failed; it will try again")
                if self._stopping:
                    return
                time.sleep(RETRY)

    def _settle(self) -> None:
        """Let appends gather for `settle` seconds, unless a read hurries the move, flushing what was acknowledged to
        the disk every `SYNC` seconds meanwhile."""
        if self.fsync:  # every record was flushed as it was written
            self._hurried.wait(self.settle)
            return
        deadline = time.monotonic() + self.settle
        synced = 0
        while (left := deadline - time.monotonic()) > 0:
            if self._hurried.wait(min(left, SYNC)):
                return
            with self._lock:
                self._scan()
            acked = self.acked
            if acked > synced:
                try:
                    self._file.flush()  # the mover alone replaces the file (`_cut`): it is this one
                    for follower in self._followers:
                        follower.flush()
                except OSError as error:  # the move's DuckDB commit makes them durable in its turn
                    log.warning("cannot flush the journal %s to the disk: %s", self.path, error.strerror)
                synced = acked

    def _move(self) -> None:
        """Move what is pending in one transaction; then, if caught up (or the file too large), start a new file."""
        with self._lock:
            taken = list(self._pending)[: _upto(self._pending)]
        self._commit(taken)
        with self._lock:
            for _ in taken:
                self._pending.popleft()
            self.moved = taken[-1].total
            if not self._pending:
                self._acked_of.clear()
            elif len(self._acked_of) > KEEP_GAMES:
                self._acked_of = {k: v for k, v in self._acked_of.items() if v > self.moved}
            self._lock.notify_all()
            if self.offset > LIMIT and self._pending:  # the writer waits for this lock: it cannot outrun a cut
                rest = list(self._pending)
                self._commit(rest)
                self._pending.clear()
                self.moved = rest[-1].total
                self._lock.notify_all()
                taken += rest
            if not self._pending and self.offset > CUT_AT:
                self._cut()
            for follower in self._followers:  # a file past CUT_AT set aside by its shard, once the last one is gone
                past = follower.moved_in == follower.generation and follower.moved > CUT_AT
                if past and follower.retired is None and follower.cut_asked != follower.generation:
                    follower.cut_asked = follower.generation
                    self.ask_cut(follower.shard, follower.generation)
        self._moved(sorted({game_id for p in taken for game_id in p.game_ids()}))

    def _commit(self, taken: list[_Pending]) -> None:
        appends: list[GameAppend] = []
        marks: dict[int, tuple[int, int]] = {}
        followers = {follower.shard: follower for follower in self._followers}
        for p in taken:
            if p.body is None:
                appends.extend(game_append(a, rows) for a, rows in zip(p.appends, p.rows))
                marks[0] = (self.generation, p.offset)
            else:  # a shard's
                appends.extend(_whole(p.body))
                marks[p.shard] = (p.generation, p.offset)
        move(self.store, appends, marks)
        for shard, (generation, offset) in marks.items():
            if shard:
                followers[shard].moved_to(generation, offset)
        self.moves += 1
        self.appends_moved += len(appends)

    def _cut(self) -> None:
        """A fresh, empty file of the next generation (under the lock, caught up)."""
        _write_fresh(self.path, self.generation + 1, self.fsync)
        self._file.close()
        self.generation += 1
        self._file = _Mapped(self.path)


def _upto(pending: deque[_Pending]) -> int:
    """How many pending records one move takes: all, up to MOVE_MAX appends (at least one record)."""
    count = taken = 0
    for p in pending:
        size = len(p)
        if count and taken + size > MOVE_MAX:
            break
        count, taken = count + 1, taken + size
    return count
