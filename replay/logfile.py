"""The Loom log format (docs/log-format.md): JSON Lines, a header line per game followed by its events.

Export writes every event of a game from seq 1, its parents' prefix included, so a file stands alone.
Import checks every event against the rules and stores a file's games all or nothing.
"""

from __future__ import annotations

import gc
import itertools
import json
import os
import stat
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from random import SystemRandom
from typing import IO, Any

import orjson

from loom.engine.play import Step, record
from loom.engine.protocol import Game
from loom.engine.registry import get_game
from loom.events.base import (
    HEADER_TAGS,
    MAX_DEPTH,
    MAX_LINE,
    MAX_TEXT,
    GameStarted,
    LoomError,
    checked_tags,
    started,
)
from loom.events.fields import shown
from loom.events.parsing import Envelope, Readers, parse_event
from loom.replay import writing
from loom.replay.columns import Batch, pyarrow_without_pandas
from loom.replay.fingerprint import Duplicates, Unchecked
from loom.replay.projections import result_rows
from loom.replay.recorder import event_rows, status_of
from loom.replay.snapshots import SNAPSHOT_EVERY, SnapshotTaker
from loom.replay.store import NewGame, Seat, Store
from loom.replay.workers import in_order, worker_pool

FORMAT = "loom-log"
VERSION = 1
CHUNK_LINES = 40_000
"""Lines per unit of parallel checking: big enough to pay for the hand-over between processes and for the writer's
statements and commit per chunk (about 10 ms however many rows), small enough to keep every worker busy."""
WINDOW = 2
"""Chunks per worker read from the file and not yet stored: enough to keep every worker busy, and no more."""
HEADER_KEYS = frozenset({"format", "version", "game", "id", "bots", "parent", "fork_seq", "source", *HEADER_TAGS})


class LogError(LoomError):
    """A line of a log file that cannot be read or is against the rules."""


def export_lines(store: Store, game_id: int) -> Iterator[str]:
    """The game as log lines: its header, then every event."""
    info = store.game(game_id)
    header: dict[str, Any] = {"format": FORMAT, "version": VERSION, "game": info.game, "id": info.id}
    if any(seat.bot for seat in info.seats):
        header["bots"] = [seat.bot for seat in info.seats]
    if info.parent_id is not None:
        header |= {"parent": info.parent_id, "fork_seq": info.fork_seq}
    header |= info.tags()
    yield json.dumps(header, ensure_ascii=False)
    for event in store.load(game_id):
        line = {
            "seq": event.seq,
            "turn": event.turn,
            "actor": event.actor,
            "type": event.type,
            "v": event.schema_version,
        }
        yield json.dumps(line | event.payload.to_json(), ensure_ascii=False)


@dataclass
class _Reading:
    game: Game
    line: int
    bots: list[str | None] | None
    state: Any = None
    steps: list[Step] = field(default_factory=list)
    snapshots: SnapshotTaker = field(default_factory=lambda: SnapshotTaker(0))
    tags: dict[str, str] = field(default_factory=dict)
    readers: Readers = field(init=False)

    def __post_init__(self) -> None:
        self.readers = _readers(self.game.name)


def _header(data: dict[str, Any], number: int) -> _Reading:
    if data["format"] != FORMAT:
        raise LogError(f'line {number}: a game starts with a header line {{"format": "{FORMAT}", ...}}')
    version = data.get("version")
    if version.__class__ is not int or version != VERSION:  # `true` is not 1
        raise LogError(f"line {number}: log format version {shown(version)}; this Loom reads {VERSION}")
    unknown = data.keys() - HEADER_KEYS
    if unknown:
        raise LogError(f"line {number}: unknown header field {shown(sorted(unknown)[0])}")
    try:
        _check_header_kinds(data)
        game = get_game(data["game"])  # a string: checked just above
        tags = checked_tags(data)
    except LoomError as error:
        raise LogError(f"line {number}: {error}") from None
    return _Reading(game, number, data.get("bots"), game.blank(), tags=tags)


_READERS: dict[str, Readers] = {}


def _readers(name: str) -> Readers:
    """The plain-line readers of the game called `name`'s events, kept for the process."""
    readers = _READERS.get(name)
    if readers is None:
        readers = _READERS[name] = Readers(name)
    return readers


def _check_header_kinds(data: dict[str, Any]) -> None:
    """The header's fields are of the kinds docs/log-format.md gives (`bots` is matched to the seats at the end)."""
    if data.get("game").__class__ is not str:
        raise LoomError(f"game must be a game's name, not {shown(data.get('game'))}")
    for key in ("id", "parent", "fork_seq"):
        value = data.get(key)
        if value is not None and value.__class__ is not int:
            raise LoomError(f"{key} must be a whole number or null, not {shown(value)}")
    if data.get("source") is not None and data["source"].__class__ is not str:
        raise LoomError(f"source must be a string or null, not {shown(data['source'])}")
    bots = data.get("bots")
    if bots is None:
        return
    if bots.__class__ is not list:
        raise LoomError(f"bots must be a list of a bot's name or null per seat, not {shown(bots)}")
    for seat, bot in enumerate(bots):
        if bot is not None and bot.__class__ is not str:
            raise LoomError(f"bots[{seat}] must be a bot's name or null, not {shown(bot)}")
        if bot is not None and not 0 < len(bot) <= MAX_TEXT:
            raise LoomError(f"bots[{seat}] must be a name of 1 to {MAX_TEXT} characters")


def _event(reading: _Reading, data: dict[str, Any], number: int) -> None:
    """Check the event line `data` (line `number`) against the rules and add it to the game being read: the full
    way (`_games` takes plain lines its own shorter way, to the same end)."""
    game, steps = reading.game, reading.steps
    try:
        envelope, payload = parse_event(data, game.name)
        if not steps and isinstance(payload, GameStarted) and payload.seed is None:
            payload = replace(payload, seed=SystemRandom().getrandbits(48))
        reading.state, step = state, step = record(game, reading.state, payload)
    except LoomError as error:
        raise LogError(f"line {number}: {error}") from None
    seq = len(steps) + 1
    _agree(envelope.seq, envelope.turn, envelope.actor, seq, step, number)
    steps.append(step)
    if seq % SNAPSHOT_EVERY == 0:
        reading.snapshots.offer(state, seq, step.turn)


def _finish(reading: _Reading) -> NewGame:
    game, steps, state = reading.game, reading.steps, reading.state
    if not steps:
        raise LogError(f"line {reading.line}: the game has no events")
    opening = started(steps[0].payload)
    seats = opening.players
    bots = reading.bots if reading.bots is not None else [None] * len(seats)
    if len(bots) != len(seats):
        raise LogError(f"line {reading.line}: bots names {len(bots)} seats, but the game has {len(seats)} players")
    status = status_of(game, state)
    return NewGame(
        game=game.name,
        seats=[Seat(name, bot) for name, bot in zip(seats, bots)],
        source="imported",
        seed=opening.seed or 0,
        rules_version=game.rules_version,
        events=event_rows(steps, 0),
        status=status,
        turns=steps[-1].turn,
        snapshots=reading.snapshots.rows,
        results=result_rows(game, state) if status == "finished" else [],
        facts=None,  # facts (which list the legal actions before every decision) are the projector's, off this path
        tags=reading.tags,
    )


def _bounded(lines: Iterable[str], first: int = 1) -> Iterator[str]:
    """The lines of a file (or of a list), refusing one longer than MAX_LINE after reading at most that much of it."""
    readline = getattr(lines, "readline", None)
    if readline is None:
        source: Iterable[str] = lines
    else:
        source = iter(lambda: readline(MAX_LINE + 1), "")
    for number, text in enumerate(source, start=first):
        if len(text) > MAX_LINE and not (len(text) == MAX_LINE + 1 and text[-1] == "\n"):
            raise _too_long(number)
        yield text


def _too_long(number: int) -> LogError:
    return LogError(f"line {number}: longer than {MAX_LINE:,} characters (1 MiB), the most a line may hold")


def _json(text: str, number: int) -> Any:
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError as error:
        if "depth limit" in error.msg:  # orjson's own bound, 1,024 levels: the same refusal as past MAX_DEPTH
            raise LogError(
                f"line {number}: nested too deep (a line may nest {MAX_DEPTH} levels of arrays and objects)"
            ) from None
        raise LogError(f"line {number}: not JSON ({error.msg} at column {error.colno})") from None


def read_games(lines: Iterable[str], first_line: int = 1) -> list[NewGame]:
    """Every game of a log file, checked against the rules; LogError names the first bad line and why."""
    return _games(_bounded(lines, first_line), first_line)


def _games(lines: Iterable[str], first_line: int) -> list[NewGame]:
    """The games of lines already known to be no longer than MAX_LINE, the first of them numbered `first_line`."""
    games: list[NewGame] = []
    reading: _Reading | None = None
    loads, malformed = orjson.loads, orjson.JSONDecodeError
    # The game being read, in local names (the loop's every line reads them); `reading.state` is behind `state`
    # except where `_event` or `_finish` is asked.
    game: Any = None
    state: Any = None
    steps: list[Step] = []
    readers: Readers = Readers("")
    for number, text in enumerate(lines, start=first_line):
        try:
            data = loads(text)
        except malformed:
            if not text or text.isspace():  # a blank line (what strip() would empty, without copying every line)
                continue
            _json(text, number)  # raises, saying why
        if data.__class__ is not dict:
            raise LogError(f"line {number}: expected a JSON object, not {shown(data)}")
        if "format" in data:
            if reading is not None:
                reading.state = state
                games.append(_finish(reading))
            reading = _header(data, number)
            game, state, steps, readers = reading.game, reading.state, reading.steps, reading.readers
            continue
        if reading is None:
            raise LogError(f'line {number}: the file must begin with a header line {{"format": "{FORMAT}", ...}}')
        # The way of nearly every line: a plain line (events/parsing.py `reader`) of a known type after the first
        # (which may need a seed drawn). `_event` takes any other line, and says what is wrong with it.
        type_name = data.get("type")
        read = readers[type_name] if type_name.__class__ is str else None
        plain = read(data) if read is not None and steps else None
        if plain is None:
            reading.state = state
            _event(reading, data, number)
            state = reading.state
            continue
        seq_given, turn_given, actor_given, _, payload = plain
        try:
            state, step = record(game, state, payload)
        except LoomError as error:
            raise LogError(f"line {number}: {error}") from None
        seq = len(steps) + 1
        if seq_given != seq or turn_given != step.turn or actor_given != step.actor:  # or left out: ABSENT
            _agree(seq_given, turn_given, actor_given, seq, step, number)
        steps.append(step)
        if seq % SNAPSHOT_EVERY == 0:  # what SnapshotTaker(0).offer keeps, seq counting up by one: asked only then
            reading.snapshots.offer(state, seq, step.turn)
    if reading is None:
        raise LogError("the file holds no game")
    reading.state = state
    games.append(_finish(reading))
    return games


def _agree(seq_given: Any, turn_given: Any, actor_given: Any, seq: int, step: Step, number: int) -> None:
    """Refuse line `number` if the `seq`, `turn` or `actor` it gives (each may be ABSENT) are not the rules'."""
    envelope = Envelope(seq_given, turn_given, actor_given, step.payload.TYPE, None)
    disagreement = envelope.disagreement(seq, step.turn, step.actor)
    if disagreement is not None:
        raise LogError(f"line {number}: {disagreement}")


HEADER_START = '\n{"format"'
"""Where a chunk may end: before a line that starts as a header does (a header written any other way still reads)."""
BLOCK = 1 << 20
"""Characters read from the file at a time."""


def game_chunks(file: IO[str] | Iterable[str], size: int) -> Iterator[tuple[int, str]]:
    """Runs of whole games of at least `size` lines, each as one text of its lines, with the number of its first.

    The file is read a block at a time and cut where a header line begins, not line by line: the lines are split
    where they are checked. A line longer than MAX_LINE is refused as soon as that much of it is read."""
    read = getattr(file, "read", None)
    if read is None:  # a list of lines
        yield from _joined_chunks(file, size)
        return
    pending, first = "", 1  # the text read and not yet handed on, and the number of its first line
    counted, lines = 0, 0  # how much of `pending` is counted, and the newlines in that part
    while True:
        block = read(BLOCK)
        pending += block
        lines += pending.count("\n", counted)
        counted = len(pending)
        while lines >= size:  # enough lines for a chunk: it ends where the next game begins
            end = _nth_newline(pending, size)
            cut = pending.find(HEADER_START, end)
            if cut < 0:
                break
            chunk, pending = pending[: cut + 1], pending[cut + 1 :]
            done = chunk.count("\n")
            yield first, chunk
            first, lines, counted = first + done, lines - done, len(pending)
        tail = len(pending) - pending.rfind("\n") - 1
        if tail > MAX_LINE:
            raise _too_long(first + lines)
        if not block:
            break
    if pending:
        yield first, pending


@dataclass(frozen=True, slots=True)
class Span:
    """A run of whole games of a log file on disk, by where its bytes lie: a worker reads and decodes it itself, so
    the text never crosses between processes."""

    path: str
    first: int  # the number of its first line
    start: int  # where its bytes begin in the file
    size: int  # how many bytes it holds
    lines: int  # how many lines it holds (its newlines)

    def text(self) -> str:
        """Its lines, read from the file and decoded as the text file `import_file` was given would read them."""
        with open(self.path, "rb") as raw:
            data = os.pread(raw.fileno(), self.size, self.start)
        text = data.decode("utf-8")
        if "\r" in text:  # what a text file reads of `\r\n` and of a lone `\r` (universal newlines)
            text = text.replace("\r\n", "\n").replace("\r", "\n")
        return text


HEADER_BYTES = HEADER_START.encode()
LONGEST = 4 * MAX_LINE
"""Bytes that hold more than MAX_LINE characters whatever they encode (UTF-8 takes at most 4 bytes a character):
the longest run without a newline that `file_spans` leaves to a worker to measure in characters."""


def spanned(file: IO[str] | Iterable[str]) -> str | None:
    """The path of the file on disk that `file` reads from its start as UTF-8 text, if it is one (not a pipe, nor a
    list, nor a file part read); else None."""
    try:
        path = file.name  # type: ignore[union-attr]
        if path.__class__ is not str or file.encoding.replace("-", "").lower() != "utf8":  # type: ignore[union-attr]
            return None
        if getattr(file, "errors", "strict") != "strict" or file.tell() != 0:  # type: ignore[union-attr]
            return None
        opened, named = os.fstat(file.fileno()), os.stat(path)  # type: ignore[union-attr]
    except (AttributeError, OSError, ValueError):
        return None
    same = (opened.st_dev, opened.st_ino) == (named.st_dev, named.st_ino)
    return os.path.abspath(path) if same and stat.S_ISREG(opened.st_mode) else None  # workers may not share a cwd


def file_spans(path: str, size: int) -> Iterator[Span]:
    """game_chunks of the file at `path`, as Spans: runs of whole games of at least `size` lines each (counting
    newlines), cut before a line that starts as a header does. Only bytes are looked at here (no decoding): a run of
    more than LONGEST bytes without a newline is refused as soon as it is read, a shorter one that is still too long
    by its characters by the worker that decodes its span."""
    with open(path, "rb") as raw:
        read = raw.read
        pending = bytearray()  # the bytes read and not yet handed on (a bytearray: appended and cut in place)
        start, first, lines = 0, 1, 0  # where `pending` begins in the file, its first line's number, its newlines
        while True:
            block = read(BLOCK)
            lines += block.count(b"\n")
            pending += block
            while lines >= size:
                end = _nth_newline(pending, size, lines)
                cut = pending.find(HEADER_BYTES, end)
                if cut < 0:
                    break
                done = size + pending.count(b"\n", end + 1, cut + 1)
                span = Span(path, first, start, cut + 1, _lines_in(pending, cut + 1, done))
                yield span
                del pending[: cut + 1]
                start, first, lines = start + cut + 1, first + span.lines, lines - done
            if len(pending) - pending.rfind(b"\n") - 1 > LONGEST:
                raise _too_long(first + _lines_in(pending, len(pending), lines))
            if not block:
                break
        if pending:
            yield Span(path, first, start, len(pending), _lines_in(pending, len(pending), lines))


def _lines_in(data: bytearray, end: int, newlines: int) -> int:
    """The lines a text file reads in data[:end] holding `newlines` newlines (a lone `\r` ends a line too)."""
    if data.find(b"\r", 0, end) < 0:
        return newlines
    return newlines + data.count(b"\r", 0, end) - data.count(b"\r\n", 0, end)


def _nth_newline(text: str | bytearray, n: int, total: int | None = None) -> int:
    """The index of the `n`th newline of `text` (there are at least `n`, of `total` if known): counted in C from a
    guess, not found one by one, so a chunk of many lines costs a few passes over its text."""
    newline: Any = "\n" if text.__class__ is str else b"\n"  # a text, or the bytes of one (file_spans)
    at = len(text) * n // (total or text.count(newline)) - 1  # a guess: lines of about the same length
    seen = text.count(newline, 0, at + 1)  # the newlines up to `at`, itself included
    if seen < n:
        while seen < n:
            at = text.find(newline, at + 1)
            seen += 1
        return at
    at = text.rfind(newline, 0, at + 1)  # the `seen`th
    while seen > n:
        at = text.rfind(newline, 0, at)
        seen -= 1
    return at


def _joined_chunks(lines: Iterable[str], size: int) -> Iterator[tuple[int, str]]:
    """game_chunks of a list of lines (each with its newline or not)."""
    chunk: list[str] = []
    first = 1
    for number, text in enumerate(_bounded(lines), start=1):
        if len(chunk) >= size and text.startswith('{"format"'):
            yield first, "".join(chunk)
            chunk, first = [], number
        chunk.append(text if text.endswith("\n") else text + "\n")
    if chunk:
        yield first, "".join(chunk)


def check_chunk(chunk: tuple[int, str] | Span) -> Batch:
    """The games of a chunk of a log file (game_chunks), checked against the rules, as ready columns for the writer.

    A line longer than MAX_LINE is named first, before any other line of its chunk is checked: as when the file is
    read line by line, where that line stops the reading of its chunk."""
    first, text = (chunk.first, chunk.text()) if isinstance(chunk, Span) else chunk
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()  # the newline ending the last line
    if max(map(len, lines), default=0) > MAX_LINE:
        number = first + next(i for i, line in enumerate(lines) if len(line) > MAX_LINE)
        raise _too_long(number)
    # The collector is left out while a chunk is checked: its games pile up (states, steps, payloads: no cycles among
    # them) and each pass would walk them all again, about a twentieth of the check; they are freed as a whole after.
    collecting = gc.isenabled()
    gc.disable()
    try:
        return writing.batch_of(_games(lines, first))
    finally:
        if collecting:
            gc.enable()


def _arrow_without_pandas() -> None:
    """In a worker checking chunks, first: load pyarrow without pandas; then freeze what is loaded."""
    pyarrow_without_pandas()
    # What the worker has loaded stays for its life: the collector's full passes need not walk it again and again
    # while the chunks' games pile up (they are freed with each chunk).
    gc.freeze()


def import_file(
    store: Store,
    file: IO[str] | Iterable[str],
    workers: int | None = None,
    duplicates: Duplicates | None = None,
    progress: Callable[[int], None] = lambda lines: None,
) -> list[int]:
    """Read, check and store every game of a log file, all or nothing; the new ids.

    With `duplicates` (replay/fingerprint.py: what `logs import` does), a game stored already, or twice in the file,
    is refused or skipped; `progress` is told how many lines each chunk held once its games are stored.

    Large files are checked by several processes at once (one per core unless `workers` says otherwise) while
    this one stores what they have checked; a bad line anywhere still leaves the database untouched.
    The file streams: it is cut a chunk at a time (a file on disk by its bytes, each worker reading its own span of
    it), at most WINDOW chunks per worker ahead of what is stored. Every chunk's games go into the real tables in one
    transaction for the whole file, which DuckDB writes to the file as it grows (whole row groups), so neither this
    process nor DuckDB holds the whole file, and each event is written once.
    The workers hand over each chunk's games as Arrow columns, which this process inserts as they are.
    """
    workers = workers or os.cpu_count() or 1
    pyarrow_without_pandas()
    guard = duplicates or Unchecked()
    path = spanned(file)
    chunks = guard.watch(game_chunks(file, CHUNK_LINES) if path is None else file_spans(path, CHUNK_LINES))
    first = next(chunks, None)
    if first is None:
        raise LogError("the file holds no game")
    second = next(chunks, None)
    # One transaction for the whole file: a refusal, Ctrl-C or a crash leaves nothing. DuckDB writes a large
    # transaction's rows into the file as they come (whole row groups, before the commit), so its memory stays
    # bounded however long the file, and each event is written once.
    # The collector is left out meanwhile (as in check_chunk): this process makes few objects per chunk, and each of
    # its passes would walk every object of the modules loaded (DuckDB, pyarrow), about a tenth of its CPU.
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _import(store.db, workers, guard, first, second, chunks, progress)
    finally:
        if collecting:
            gc.enable()


def _import(
    db: Any,
    workers: int,
    guard: Duplicates | Unchecked,
    first: Any,
    second: Any,
    chunks: Iterator[Any],
    progress: Callable[[int], None],
) -> list[int]:
    every = itertools.chain(filter(None, (first, second)), chunks)
    with writing.importing(db) as first_id:
        next_id = first_id
        if second is None or workers == 1:
            for batch in map(check_chunk, every):
                next_id += len(writing.insert_batch(db, guard.admit(batch), next_id))
                progress(guard.lines)
        else:
            # The forkserver loads the rules, not pyarrow (it starts threads); each worker then loads pyarrow.
            threads = db.run("SELECT current_setting('threads')")[0][0]
            # While the workers check, DuckDB's inserts get one thread: the cores are the workers', and more threads
            # for an insert of a chunk only add their hand-overs (about a tenth of the insert's CPU).
            db.set_threads(1)
            try:
                with worker_pool(workers, preload=[__name__], setup=_arrow_without_pandas) as pool:
                    for batch in in_order(pool, check_chunk, every, WINDOW * workers):
                        next_id += len(writing.insert_batch(db, guard.admit(batch), next_id))
                        progress(guard.lines)
            finally:
                db.set_threads(threads)
    return list(range(first_id, next_id))
