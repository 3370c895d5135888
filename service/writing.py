"""Writing games: create one (dealt by the server or by a real table), append an action or a table's events at an
expected sequence number, branch. Every rule is checked before the single write; a refusal writes nothing.

Each write is a job of the database's one writer (`service.committer`): it is checked there against the game's live
state, written with the writes that arrived with it in one transaction, and answered once that is committed. Each
function returns the answer to come (a Future): the API awaits it, a thread may wait on `.result()`."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

from loom.engine.protocol import CHANCE_TO_MOVE, Game
from loom.engine.registry import get_bot, get_game
from loom.events.base import IllegalAction
from loom.replay.branches import BadSeed, Line, WhatIf, branch, plan_whatif, record_whatif
from loom.replay.live import (
    Played,
    add_game,
    appended,
    checked_events,
    dealt_game,
    moved_on,
    played_action,
    table_game,
)
from loom.replay.store import GameInfo, NewGame, Seat, Store, StoreError
from loom.service.access import Forbidden, Unauthorized, may_act, require_admin
from loom.service.committer import Job, Live, Staged
from loom.service.context import Caller, Service
from loom.service.errors import Conflict
from loom.service.link import LinkClosed
from loom.service.models import ActionBody, BranchBody, EventsBody, NewGameBody
from loom.service.owners import Elsewhere, moving
from loom.service.views import tell_state


def create(service: Service, caller: Caller, body: NewGameBody) -> Future[dict[str, Any]]:
    """A new game; its id, sequence number and tokens."""
    require_admin(service.keys, caller.token, "creating a game")
    game = get_game(body.game)
    if (body.players is None) == (body.events is None):
        raise IllegalAction("give players (the server deals) or events (a real table's opening), not both or neither")
    if body.events is not None and body.seed is not None:
        raise IllegalAction("a seed is for a game the server deals; a table's events carry their own")
    if body.players is not None:
        labels = body.bots if body.bots is not None else [None] * len(body.players)
        if len(labels) != len(body.players):
            raise IllegalAction(f"{len(labels)} bot labels for {len(body.players)} players")
        new = dealt_game(game, [Seat(name, bot) for name, bot in zip(body.players, labels)], body.seed)
    else:
        new = table_game(game, body.events or [], body.bots)
    return service.db.submit(lambda live: _created(service, new))


def _created(service: Service, new: NewGame) -> Staged[dict[str, Any]]:
    def answer(game_id: int) -> dict[str, Any]:
        issued = service.keys.tokens(game_id, len(new.seats))
        return {"id": game_id, "seq": new.events.seq[-1], "status": new.status, "tokens": issued}

    return Staged(answer, write=lambda store: add_game(store, new), after_moved=False)  # new rows only


def act(
    service: Service, caller: Caller, game_id: int, body: ActionBody, *, now: bool = False, hops: int = 1
) -> Future[dict[str, Any]]:
    """The seat to move plays an action; chance follows from the game's seed. `now`: written on this thread at
    once if the writer is idle (the answer's Future is then done on return)."""
    job: Job[dict[str, Any]] = lambda live: _acted(service, caller, game_id, body, live)  # noqa: E731
    return _appending(service, job, "actions", game_id, body, caller, now, hops)


def _acted(service: Service, caller: Caller, game_id: int, body: ActionBody, live: Live) -> Staged[dict[str, Any]]:
    info, state = _at(live, game_id, body.expected_seq)
    game = get_game(info.game)
    mover = game.to_move(state)
    if mover is None:
        raise IllegalAction(f"game {game_id} is over")
    if mover == CHANCE_TO_MOVE:
        raise IllegalAction("chance must act first: write its event (POST .../events) before any action")
    seat = mover if body.seat is None else body.seat
    if seat >= info.players:
        raise IllegalAction(f"seat {seat} is out of range: game {game_id} has seats 0 to {info.players - 1}")
    grant = caller.grant(service, info)
    may_act(grant, seat, caller.token is not None)
    if seat != mover:
        raise IllegalAction(f"it is seat {mover}'s turn, not seat {seat}'s")
    played = played_action(game, state, info.seed, info.last_seq, body.action)
    return _append(live, info, game, state, played, seat if not grant.everything else None)


def write_events(
    service: Service, caller: Caller, game_id: int, body: EventsBody, *, now: bool = False, hops: int = 1
) -> Future[dict[str, Any]]:
    """Events a client writes itself, each checked by the rules: the table's token writes any; a seat's token only
    events its seat makes (chance's need the table), and none in a game Loom dealt (its seats play actions).

    Whose event each one is is checked before its rules run: a rule's refusal may describe the table as it really
    is (the top card of the deck), which a seat must not learn by writing events it may not write."""
    job: Job[dict[str, Any]] = lambda live: _written_events(service, caller, game_id, body, live)  # noqa: E731
    return _appending(service, job, "events", game_id, body, caller, now, hops)


def forwarded(
    service: Service, route: str, game_id: int, body: bytes, token: str | None, *, relay: bool = False
) -> Future[dict[str, Any]]:
    """An append another serving process was asked for, of a game this one holds. With `relay` (the primary, for a
    shard that found the game held elsewhere), one held by a third process is passed on to it; never further."""
    write = act if route == "actions" else write_events
    model = (ActionBody if route == "actions" else EventsBody).model_validate_json(body)
    return write(service, Caller(token), game_id, model, now=True, hops=int(relay))  # type: ignore[arg-type]


def _appending(
    service: Service,
    job: Job[dict[str, Any]],
    route: str,
    game_id: int,
    body: ActionBody | EventsBody,
    caller: Caller,
    now: bool,
    hops: int,
) -> Future[dict[str, Any]]:
    """The append written here; or, if another serving process holds the game, its answer there (passed on at most
    `hops` more times: a client's request once, to the holder or, from a shard, to the primary, which passes it on
    once more if a third process holds the game)."""
    written = service.db.submit(job, appends_to=game_id if now else None)
    forward = service.forward
    if forward is None or (written.done() and not isinstance(written.exception(), Elsewhere)):
        return written
    answer: Future[dict[str, Any]] = Future()

    def settled(done: Future[dict[str, Any]]) -> None:
        error = done.exception()
        if not isinstance(error, Elsewhere):
            _copy(done, answer)
        elif not hops:  # it moved again meanwhile: the client tries again (no request goes round in circles)
            answer.set_exception(moving(game_id))
        else:
            there = forward(error.process, route, game_id, body.model_dump_json().encode(), caller.token)
            there.add_done_callback(lambda done: _copy(done, answer))

    written.add_done_callback(settled)
    return answer


def _copy(done: Future[Any], to: Future[Any]) -> None:
    error = done.exception()
    if isinstance(error, LinkClosed):
        error = StoreError("a process of the server stopped while it answered; try again")
    to.set_exception(error) if error is not None else to.set_result(done.result())


def _written_events(
    service: Service, caller: Caller, game_id: int, body: EventsBody, live: Live
) -> Staged[dict[str, Any]]:
    info, state = _at(live, game_id, body.expected_seq)
    game = get_game(info.game)
    grant = caller.grant(service, info)
    if grant.anonymous:
        _refuse(caller, "writing events needs the game's table token, or a seat's token for that seat's own events")
    if grant.seat is not None and live.dealt_by_loom(game_id):
        raise Forbidden(
            f"game {game_id} was dealt by Loom, which knows its hidden cards: seat {grant.seat} plays actions "
            f"(POST /games/{game_id}/actions) and writes no events"
        )
    may_write = None if grant.everything else _own_events_of(grant.seat, caller)
    played = checked_events(game, state, body.events, info.last_seq, may_write=may_write)
    if not grant.everything and any(step.actor != grant.seat for step in played.steps):
        # may_write saw every event before its rules; this second look keeps it so whatever the parser accepts
        _refuse(caller, f"seat {grant.seat}'s token writes only seat {grant.seat}'s events")
    return _append(live, info, game, state, played, grant.seat)


def _own_events_of(seat: int | None, caller: Caller) -> Callable[[int | None], None]:
    """A check that refuses any event that is not `seat`'s own."""

    def may_write(actor: int | None) -> None:
        if actor != seat:
            whose = "chance's" if actor is None else f"seat {actor}'s" if actor >= 0 else "no seat's to make now"
            _refuse(caller, f"this event is {whose}; seat {seat}'s token writes only seat {seat}'s events")

    return may_write


def _refuse(caller: Caller, reason: str) -> None:
    raise (Forbidden if caller.token is not None else Unauthorized)(reason)


def _at(live: Live, game_id: int, expected_seq: int) -> tuple[GameInfo, Any]:
    """The game and its latest state, if the client's expected sequence number is still its last event."""
    info, state = live.latest(game_id)
    if info.last_seq != expected_seq:
        raise Conflict(f"game {game_id} is at event {info.last_seq}, not {expected_seq}; read it again", info.last_seq)
    return info, state


def _append(live: Live, info: GameInfo, game: Game, before: Any, played: Played, seat: int | None) -> Staged[Any]:
    """What was played, to append at the expected sequence number; once written, the new position as the actor
    sees it."""
    last, turn = info.last_seq + len(played.steps), played.steps[-1].turn
    status = "finished" if game.to_move(played.state) is None else "open"
    live.play(moved_on(info, last_seq=last, turns=turn, status=status), played.state)

    def answer(_: None) -> dict[str, Any]:
        told = tell_state(game, played.state, "all" if seat is None else seat, info.players)
        return {
            "id": info.id,
            "seq": last,
            "turn": turn,
            "status": status,
            "to_move": told.to_move,
            "legal": told.legal,
            "state": told.described,
        }

    return Staged(answer, appends=[appended(info, game, before, played)])


def fork(service: Service, caller: Caller, game_id: int, body: BranchBody) -> Future[dict[str, Any]]:
    """A branch of the game at the start of a turn or just after an event: for the table's or the admin token, a
    game with the recorded deal (its id and tokens); for a seat's token, that seat's what-if, dealt from its own view
    (`replay.branches`) and from the body's seed if it gives one.

    A branch plays on with the game's recorded deal and seed, so whoever plays it sees the cards the game would
    have dealt next: the live game's future draws. Only the table (who sees every card) may do that. A seat gets
    what its own rights allow: a line from its view of the position, every card it could not see dealt anew from
    a recorded seed, kept as a recipe and never as a game, so no token of it and no door reads the real deal.
    """
    return service.db.submit(lambda live: _forked(service, caller, game_id, body, live))


def _forked(service: Service, caller: Caller, game_id: int, body: BranchBody, live: Live) -> Staged[dict[str, Any]]:
    info = live.store.game_row(game_id)
    grant = caller.grant(service, info)
    if not grant.everything:
        if grant.seat is not None:
            return _seat_whatif(info.game, game_id, grant.seat, body)
        _refuse(
            caller,
            f"branching game {game_id} needs a seat's token of it (a what-if), its table token or the admin token",
        )
    if body.seed is not None:
        raise BadSeed(
            "body.seed: a seed is for a seat's what-if (a seat's token): the table's branch plays on with the game's "
            "recorded deal"
        )
    if body.bot is not None:
        get_bot(get_game(info.game), body.bot)

    def write(store: Store) -> GameInfo:
        return store.game_row(branch(store, game_id, body.turn, body.actions, body.bot, seq=body.seq))

    def answer(new: GameInfo) -> dict[str, Any]:
        return {
            "id": new.id,
            "parent": game_id,
            "seq": new.last_seq,
            "status": new.status,
            "tokens": service.keys.tokens(new.id, new.players),
        }

    return Staged(answer, write=write)


def _seat_whatif(game_name: str, game_id: int, seat: int, body: BranchBody) -> Staged[dict[str, Any]]:
    """Seat `seat`'s what-if: played and its recipe numbered and kept by the write, which reads the game once every
    acknowledged append is in the file (as a branch's does); a failing action refuses it there, nothing kept."""
    game = get_game(game_name)
    if body.bot is not None:
        get_bot(game, body.bot)

    def write(store: Store) -> tuple[WhatIf, Line]:
        planned, line = plan_whatif(
            store, game_id, body.turn, seat, body.actions, body.bot, seq=body.seq, seed=body.seed
        )
        return record_whatif(store, planned), line

    def answer(written: tuple[WhatIf, Line]) -> dict[str, Any]:
        made, line = written
        over = game.to_move(line.end) is None
        return made.to_json() | {
            "seq": made.fork_seq + len(line.steps),
            "turns": line.turns,
            "status": "finished" if over else "open",
            "scores": game.scores(line.end),
            "winners": game.winners(line.end) if over else [],
        }

    return Staged(answer, write=write)


def tokens(service: Service, caller: Caller, game_id: int) -> dict[str, Any]:
    """Every token of a game, for the admin to hand out (a game recorded by the command line has tokens too)."""
    if not service.keys.admin_set:
        raise Forbidden("handing out tokens needs the admin token, and this server has none (--admin-token)")
    require_admin(service.keys, caller.token, "handing out a game's tokens")
    info = service.db.reader().game_row(game_id)
    return {"id": game_id, "tokens": service.keys.tokens(game_id, info.players)}
