"""Reading games: a game's summary, the games list, a position as a viewer sees it, the events, the branch tree."""

from __future__ import annotations

from typing import Any

from loom.engine.registry import get_game
from loom.events.base import LoomError
from loom.replay.branches import tree
from loom.replay.chances import win_chances
from loom.replay.game_json import game_json
from loom.replay.live import Filter, find_games
from loom.replay.replay import position
from loom.replay.store import GameInfo, Store
from loom.service.access import Forbidden, Unauthorized, viewer_for
from loom.service.context import Caller, Service
from loom.service.views import OMNISCIENT, Viewer, tell_events, tell_state, whole

MAX_EVENTS = 5000
"""Events in one answer; a client pages on with `after`."""
ROLLOUTS = 40
MAX_ROLLOUTS = 400
"""Games played out for a position's chances by default, and at most in one request (they run in its thread)."""


def summary(store: Store, info: GameInfo) -> dict[str, Any]:
    """A game's public facts (`replay.game_json`): players, status, progress, parent, and its results once
    finished."""
    if not info.seats:
        info = store.game(info.id)
    return game_json(info, results=store.results(info.id) if info.status == "finished" else [])


def list_games(service: Service, wanted: Filter) -> list[dict[str, Any]]:
    """The games that pass the filter, newest first (without scores: the list stays one query per page)."""
    if wanted.game is not None:
        get_game(wanted.game)
    store = service.db.reader()
    infos = find_games(store, wanted)
    winners = store.winners([info.id for info in infos if info.status == "finished"])
    return [game_json(info, winners.get(info.id)) for info in infos]


def viewer_of(service: Service, caller: Caller, info: GameInfo, asked: str | None) -> Viewer:
    """Whose view a request gets of this game (see `access.viewer_for`)."""
    return viewer_for(caller.grant(service, info), asked, caller.token is not None, info.players, info.id)


def state_at(
    service: Service, caller: Caller, game_id: int, turn: int | None, seq: int | None, asked: str | None
) -> dict[str, Any]:
    """The position at the start of `turn`, after event `seq`, or now, as the caller may see it."""
    if turn is None and seq is None:
        info, state = service.db.latest(game_id)
        at_seq, at_turn = info.last_seq, info.turns
    else:
        at = position(service.db.reader(), game_id, turn=turn, seq=seq)
        info, state, at_seq, at_turn = at.info, at.state, at.seq, at.turn
    viewer = viewer_of(service, caller, info, asked)
    game = get_game(info.game)
    told = tell_state(game, state, viewer, info.players)
    return {
        "id": info.id,
        "game": info.game,
        "turn": at_turn,
        "seq": at_seq,
        "as": viewer,
        "status": "finished" if game.to_move(state) is None else "open",
        "to_move": told.to_move,
        "legal": told.legal,
        "state": told.described,
    }


def events_after(
    service: Service, caller: Caller, game_id: int, after: int, limit: int, asked: str | None
) -> dict[str, Any]:
    """The game's events after `after`: whole for a viewer of everything, else each one's envelope with the
    viewer's view of the table after it."""
    store = service.db.reader()
    info = store.game_row(game_id)
    viewer = viewer_of(service, caller, info, asked)
    if after < 0:
        raise LoomError(f"after={after}: give 0 or an event number")
    upto = min(info.last_seq, after + min(limit, MAX_EVENTS))
    return {
        "id": info.id,
        "as": viewer,
        "seq": info.last_seq,
        "events": told_events(store, info, viewer, after, upto)[0],
    }


def told_events(
    store: Store, info: GameInfo, viewer: Viewer, after: int, upto: int, before: Any = None
) -> tuple[list[dict[str, Any]], Any]:
    """Events (after, upto] of a game as `viewer` may know them, and the state after them (None for OMNISCIENT,
    who is told the events only). `before`, the state after event `after`, is read from the store if not given."""
    events = store.load(info.id, after=after, upto=upto) if after < upto else []
    if viewer == OMNISCIENT:
        return [whole(event) for event in events], None
    game = get_game(info.game)
    if before is None:
        before = position(store, info.id, seq=after).state if after else game.blank()
    return tell_events(game, before, events, viewer, info.players)


def branch_tree(service: Service, game_id: int) -> dict[str, Any]:
    """The game, its branches and theirs, with fork turns and outcomes."""
    return tree(service.db.reader(), game_id).to_json()


def chances_at(
    service: Service, caller: Caller, game_id: int, turn: int | None, bot: str | None, rollouts: int
) -> dict[str, Any]:
    """Each seat's chance to win from the start of `turn` (past the game's last turn, or None: its end), by
    `rollouts` games played out with `bot` (default: greedy). The rollouts deal from every hand, so, like a branch,
    they are for the game's table token or the admin token only; the same position is always played out on the same
    random numbers, so two lines compare fairly."""
    store = service.db.reader()
    info = store.game_row(game_id)
    if not caller.grant(service, info).everything:
        refused = Forbidden if caller.token is not None else Unauthorized
        raise refused(f"chances are played out from every hand: game {game_id}'s table token or the admin token")
    game = get_game(info.game)
    bot = bot if bot is not None else "greedy" if "greedy" in game.bots else sorted(game.bots)[0]
    at = position(store, game_id, turn=turn) if turn is not None and turn <= info.turns else position(store, game_id)
    found = win_chances(game, at.state, rollouts=rollouts, bot=bot)
    return {
        "id": game_id,
        "turn": at.turn,
        "seq": at.seq,
        "chance": list(found.chance),
        "margin": list(found.margin),
        "rollouts": found.rollouts,
        "bot": found.bot,
    }
