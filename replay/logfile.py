"""The Loom log format (docs/log-format.md): JSON Lines, a header line per game followed by its events.

Export writes every event of a game from seq 1, its parents' prefix included, so a file stands alone.
Import checks every event against the rules and stores a file's games all or nothing.
"""

from __future__ import annotations

import itertools
import json
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from random import SystemRandom
from typing import IO, Any

import orjson

from engine.play import Step, record
from engine.protocol import Game
from engine.registry import get_game
from events.base import ENVELOPE_ORDER, LoomError
from events.registry import decode_payload
from replay.facts import FactTaker
from replay.projections import result_rows
from replay.recorder import event_rows, status_of
from replay.snapshots import SnapshotTaker
from replay.store import NewGame, Seat, Store
from replay.workers import worker_pool

FORMAT = "loom-log"
VERSION = 1
_ABSENT = object()
CHUNK_LINES = 20_000
"""Lines per unit of parallel checking: big enough to pay for the hand-over between processes."""
HEADER_KEYS = frozenset({"format", "version", "game", "id", "bots", "parent", "fork_seq", "source"})


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
    yield json.dumps(header)
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
    prefix: str = field(init=False)  # what the type names of this game's events begin with
    facts: FactTaker = field(init=False)

    def __post_init__(self) -> None:
        self.prefix = self.game.name + "."
        self.facts = FactTaker(self.game, 0)


def _header(data: dict[str, Any], number: int) -> _Reading:
    if data.get("format") != FORMAT:
        raise LogError(f'line {number}: a game starts with a header line {{"format": "{FORMAT}", ...}}')
    if data.get("version") != VERSION:
        raise LogError(f"line {number}: log format version {data.get('version')!r}; this Loom reads {VERSION}")
    unknown = data.keys() - HEADER_KEYS
    if unknown:
        raise LogError(f"line {number}: unknown header field {sorted(unknown)[0]!r}")
    try:
        game = get_game(str(data.get("game")))
    except LoomError as error:
        raise LogError(f"line {number}: {error}") from None
    return _Reading(game, number, data.get("bots"), game.blank())


def _event(reading: _Reading, data: dict[str, Any], number: int) -> None:
    game = reading.game
    # Popped one by one (a set comprehension costs more than the rest of the line's parsing); what is left are the
    # event's own fields.
    envelope = [data.pop(key, _ABSENT) for key in ENVELOPE_ORDER]
    type_name, version = envelope[3], envelope[4]
    try:
        payload = decode_payload(str(type_name), data, None if version is _ABSENT else version)
        if not payload.TYPE.startswith(reading.prefix):
            raise LogError(f"{payload.TYPE} is not an event of {game.name}")
        if not reading.steps and getattr(payload, "seed", 0) is None:
            payload = replace(payload, seed=SystemRandom().getrandbits(48))  # type: ignore[call-arg]
        before = reading.state
        reading.state, step = record(game, before, payload)
        if step.actor is not None:  # in a log, each seat event is one decision
            reading.facts.decided(step.turn, step.actor, len(game.legal_actions(before)))
        reading.facts.recorded(before, step, reading.state)
    except LoomError as error:
        raise LogError(f"line {number}: {error}") from None
    seq = len(reading.steps) + 1
    for key, given, want in zip(ENVELOPE_ORDER, envelope, (seq, step.turn, step.actor)):
        if given is not _ABSENT and given != want:
            raise LogError(f"line {number}: {key} is {given!r}, but the rules make it {want!r}")
    reading.steps.append(step)
    reading.snapshots.offer(reading.state, seq, step.turn)


def _finish(reading: _Reading) -> NewGame:
    game, steps, state = reading.game, reading.steps, reading.state
    if not steps:
        raise LogError(f"line {reading.line}: the game has no events")
    seats = steps[0].payload.players  # type: ignore[attr-defined]  # every game's first event seats the players
    bots = reading.bots if reading.bots and len(reading.bots) == len(seats) else [None] * len(seats)
    status = status_of(game, state)
    return NewGame(
        game=game.name,
        seats=[Seat(name, bot) for name, bot in zip(seats, bots)],
        source="imported",
        seed=getattr(steps[0].payload, "seed", 0) or 0,
        rules_version=game.rules_version,
        events=event_rows(steps, 0),
        status=status,
        turns=steps[-1].turn,
        snapshots=reading.snapshots.rows,
        results=result_rows(game, state) if status == "finished" else [],
        facts=reading.facts.done(),
    )


def read_games(lines: Iterable[str], first_line: int = 1) -> list[NewGame]:
    """Every game of a log file, checked against the rules; LogError names the first bad line and why."""
    games: list[NewGame] = []
    reading: _Reading | None = None
    for number, text in enumerate(lines, start=first_line):
        if not text.strip():
            continue
        try:
            data = orjson.loads(text)
        except orjson.JSONDecodeError as error:
            raise LogError(f"line {number}: not JSON ({error.msg} at column {error.colno})") from None
        if not isinstance(data, dict):
            raise LogError(f"line {number}: expected a JSON object")
        if "format" in data:
            if reading is not None:
                games.append(_finish(reading))
            reading = _header(data, number)
        elif reading is None:
            raise LogError(f'line {number}: the file must begin with a header line {{"format": "{FORMAT}", ...}}')
        else:
            _event(reading, data, number)
    if reading is None:
        raise LogError("the file holds no game")
    games.append(_finish(reading))
    return games


def game_chunks(lines: Iterable[str], size: int) -> Iterator[tuple[int, list[str]]]:
    """Runs of whole games of at least `size` lines, each with the number of its first line."""
    chunk: list[str] = []
    first = 1
    for number, text in enumerate(lines, start=1):
        if len(chunk) >= size and text.startswith('{"format"'):
            yield first, chunk
            chunk, first = [], number
        chunk.append(text)
    if chunk:
        yield first, chunk


def _read_chunk(chunk: tuple[int, list[str]]) -> list[NewGame]:
    first, lines = chunk
    return read_games(lines, first)


def import_file(store: Store, file: IO[str], workers: int | None = None) -> list[int]:
    """Read, check and store every game of a log file in one transaction; the new ids.

    Large files are checked by several processes at once (one per core unless `workers` says otherwise) while
    this one stores what they have checked; a bad line anywhere still leaves the database untouched.
    """
    workers = workers or os.cpu_count() or 1
    chunks = game_chunks(file, CHUNK_LINES)
    first = next(chunks, None)
    if first is None:
        raise LogError("the file holds no game")
    second = next(chunks, None)
    if second is None or workers == 1:
        games = [game for chunk in filter(None, (first, second, *chunks)) for game in _read_chunk(chunk)]
        return store.add_games(games)
    ids: list[int] = []
    with store.transaction(), worker_pool(workers) as pool:
        for games in pool.map(_read_chunk, itertools.chain([first, second], chunks)):
            ids += store.add_games(games)
    return ids
