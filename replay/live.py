"""Games recorded as they are played, one request at a time (the HTTP service): new games, checked client events,
appends at an expected sequence number, and the secret the service derives its access tokens from.

Rows are built with `replay.recorder` and written only through `Store.add_games` and `Store.append`, like the
command line's writes; the facts projections follow from the projector (replay/projector.py), off the hot path.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from random import Random, SystemRandom
from typing import Any, cast

from loom.engine.play import Step, act, chance_rng, record, start
from loom.engine.protocol import Game
from loom.engine.state import evolver, maker
from loom.events.base import GameStarted, IllegalAction, LoomError, MalformedEvent, started
from loom.events.parsing import parse_event
from loom.events.registry import payload_class
from loom.replay.connection import Connection
from loom.replay.projections import result_rows
from loom.replay.recorder import event_rows, snapshot_rows, status_of
from loom.replay.store import GameInfo, NewGame, Seat, Store
from loom.replay.writing import GameAppend, append_games

SOURCE = "live"
MALFORMED = (TypeError, ValueError, KeyError, IndexError, AttributeError)
"""What parsing an action may raise on fields of the wrong kind (a number for a card name, say): bad input."""
SECRET_KEY = "service_secret"


@dataclass(frozen=True, slots=True)
class Played:
    """What an append produced: the events (not yet numbered) and the state after them."""

    steps: list[Step]
    state: Any


_played = maker(Played)
"""`Played(steps, state)` at half the cost (one an append)."""


def dealt_game(game: Game, seats: Sequence[Seat], seed: int | None) -> NewGame:
    """A new game dealt by the server from `seed` (drawn at random if None), ready for seat 0."""
    if not game.min_players <= len(seats) <= game.max_players:
        raise IllegalAction(f"{game.title} is for {game.min_players} to {game.max_players} players, not {len(seats)}")
    rng = Random(SystemRandom().getrandbits(48) if seed is None else seed)
    state, steps = start(game, [seat.name for seat in seats], rng)
    return _new_game(game, seats, steps, state)


def table_game(game: Game, events: Sequence[Any], bots: Sequence[str | None] | None) -> NewGame:
    """A new game whose opening events a real table supplies (its chance included), each checked by the rules."""
    if not events:
        raise MalformedEvent(f"a game from a table begins with its {game.name}.started event")
    played = checked_events(game, game.blank(), events, 0)
    players = started(played.steps[0].payload).players
    labels = list(bots) if bots is not None else [None] * len(players)
    if len(labels) != len(players):
        raise IllegalAction(f"{len(labels)} bot labels for {len(players)} players")
    return _new_game(game, [Seat(name, bot) for name, bot in zip(players, labels)], played.steps, played.state)


def _new_game(game: Game, seats: Sequence[Seat], steps: list[Step], state: Any) -> NewGame:
    status = status_of(game, state)
    return NewGame(
        game=game.name,
        seats=list(seats),
        source=SOURCE,
        seed=started(steps[0].payload).seed or 0,
        rules_version=game.rules_version,
        events=event_rows(steps, 0),
        status=status,
        turns=steps[-1].turn,
        snapshots=snapshot_rows(game, game.blank(), steps, 0),
        results=result_rows(game, state) if status == "finished" else [],
    )


def dealt_by_loom(store: Store, game_id: int) -> bool:
    """Whether Loom recorded the game's hidden orders (its first event has the deck, and Moorea's the pile too):
    a game the server dealt, not one whose cards a real table reports as they turn up."""
    first = store.load(game_id, after=0, upto=1)[0].payload
    return any(getattr(first, name, None) is not None for name in ("deck", "pile"))


def played_action(game: Game, state: Any, seed: int, after_seq: int, data: Any) -> Played:
    """The seat to move plays the action `data` (JSON), then chance acts from the game's recorded seed.

    The generator is the one `logs play` uses at this point, so the same action gives the same events either way.
    """
    try:
        action = game.parse_action(data)
    except MALFORMED as error:
        raise IllegalAction(f"{data!r} is not an action of {game.title} ({type(error).__name__}: {error})") from None
    state, steps = act(game, state, action, cast(Random, _Chance(seed, after_seq)))
    return _played(steps, state)


class _Chance:
    """`chance_rng(seed, seq)`, made only when chance first draws from it: the same generator and the same draws,
    but most actions draw nothing (a dealt game's deck order is recorded), and seeding a `Random` from a string
    costs about 7 us an append."""

    __slots__ = ("_seed", "_seq", "_rng")

    def __init__(self, seed: int, seq: int) -> None:
        self._seed, self._seq = seed, seq
        self._rng: Random | None = None

    def __getattr__(self, name: str) -> Any:
        rng = self._rng
        if rng is None:
            rng = self._rng = chance_rng(self._seed, self._seq)
        return getattr(rng, name)


def checked_events(
    game: Game,
    state: Any,
    events: Sequence[Any],
    after_seq: int,
    *,
    may_write: Callable[[int | None], None] | None = None,
) -> Played:
    """Events written by a client (log lines: `type` and fields; `seq`, `turn`, `actor` checked if given), each
    checked against the rules in the position the ones before it reach. Refused with the first one's reason.

    `may_write`, if given, is told each event's actor (None for chance) before its rules run, and refuses it by
    raising: whoever may not write an event learns nothing from the rules' verdict on it."""
    steps: list[Step] = []
    for number, data in enumerate(events, start=1):
        try:
            if may_write is not None and isinstance(data, dict) and isinstance(data.get("type"), str):
                may_write(None if payload_class(data["type"]).BY_CHANCE else game.to_move(state))
            state, step = _checked(game, state, data, after_seq + len(steps) + 1, first=not after_seq and not steps)
        except LoomError as error:
            raise type(error)(f"event {number}: {error}") from None
        steps.append(step)
    return Played(steps, state)


def _checked(game: Game, state: Any, data: Any, seq: int, *, first: bool) -> tuple[Any, Step]:
    # Every field is checked against its type by the parser `logs import` uses, so anything else the rules raise
    # is a bug of the rules, not the client's error.
    envelope, payload = parse_event(data, game.name)
    if first and isinstance(payload, GameStarted) and payload.seed is None:
        # As import does: the seed from which a continuation samples the cards the table did not name.
        payload = replace(payload, seed=SystemRandom().getrandbits(48))
    state, step = record(game, state, payload)
    disagreement = envelope.disagreement(seq, step.turn, step.actor)
    if disagreement is not None:
        raise IllegalAction(disagreement)
    return state, step


def add_game(store: Store, new: NewGame) -> int:
    """Store a new game; its id."""
    return store.add_games([new])[0]


def append_played(store: Store, game_id: int, game: Game, before: Any, played: Played, expected_seq: int) -> int:
    """Append what was played from `before` (the state after event `expected_seq`); the new last seq.

    ConcurrencyError, with nothing written, if another append got there first.
    """
    status = status_of(game, played.state)
    return store.append(
        game_id,
        event_rows(played.steps, expected_seq),
        expected_seq=expected_seq,
        turns=played.steps[-1].turn,
        status=status,
        snapshots=snapshot_rows(game, before, played.steps, expected_seq),
        results=result_rows(game, played.state) if status == "finished" else [],
    )


@dataclass(frozen=True, slots=True)
class Append:
    """One append of a group: what was played in game `info` from `before`, its state after event `info.last_seq`."""

    info: GameInfo
    game: Game
    before: Any
    played: Played


appended = maker(Append)
"""`Append(info, game, before, played)` at half the cost (one an append)."""
moved_on = evolver(GameInfo)
"""`dataclasses.replace` for a game's row (`moved_on(info, last_seq=...)`) at a tenth of its cost (one an append)."""


def append_group(store: Store, appends: Sequence[Append]) -> list[int]:
    """Append to several games in one transaction (the caller's, if it has one); each one's new last seq.

    Written as `append_played` writes each, but with one statement per table for the whole group rather than
    several per append: a DuckDB statement costs far more than its rows. Two appends to one game (the second
    expecting the first's last seq) go in successive rounds. ConcurrencyError, with nothing written, if a game is
    no longer at the seq its append expects."""
    rounds: list[list[Append]] = []
    seen: dict[int, int] = {}
    for a in appends:
        depth = seen[a.info.id] = seen.get(a.info.id, -1) + 1
        if depth == len(rounds):
            rounds.append([])
        rounds[depth].append(a)
    db = store.db
    try:
        with db.written(conflict="a game of the group was appended to by another writer; nothing was written"):
            for group in rounds:
                _append_round(db, group)
    finally:
        for a in appends:  # as Store.append does: a kept row would still be right, only older
            store.rows.forget(a.info.id)
    return [a.info.last_seq + len(a.played.steps) for a in appends]


def _append_round(db: Connection, appends: Sequence[Append]) -> None:
    """Appends to distinct games, in the caller's transaction."""
    parts = []
    for a in appends:
        status = status_of(a.game, a.played.state)
        parts.append(
            GameAppend(
                game_id=a.info.id,
                expected_seq=a.info.last_seq,
                events=event_rows(a.played.steps, a.info.last_seq),
                turns=a.played.steps[-1].turn,
                status=status,
                rules_version=a.info.rules_version,
                snapshots=snapshot_rows(a.game, a.before, a.played.steps, a.info.last_seq),
                results=result_rows(a.game, a.played.state) if status == "finished" else (),
            )
        )
    append_games(db, parts)


def service_secret(store: Store) -> bytes:
    """The database's secret for the service's access tokens, made on first use and kept in the meta table.

    Kept with the games it guards: whoever can read the file can read every hidden card anyway.
    """
    kept = store.meta(SECRET_KEY)
    if kept is not None:
        return bytes.fromhex(kept)
    secret = secrets.token_bytes(32)
    store.set_meta(SECRET_KEY, secret.hex())
    return secret


@dataclass(frozen=True, slots=True)
class Filter:
    """Which games to list, newest first: by kind, status, source or parent; `before` an id, for the next page."""

    game: str | None = None
    status: str | None = None
    source: str | None = None
    parent: int | None = None
    before: int | None = None
    limit: int = 50


def find_games(store: Store, wanted: Filter) -> list[GameInfo]:
    """The games that pass the filter, newest first, with their seats."""
    return store.find_games(
        game=wanted.game,
        status=wanted.status,
        source=wanted.source,
        parent=wanted.parent,
        before=wanted.before,
        limit=wanted.limit,
    )
