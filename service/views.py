"""What a reader may see: a seat's view, the public view (what every seat knows), and events told per viewer."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, fields, is_dataclass
from typing import Any

from loom.engine.presentation import PUBLIC
from loom.engine.protocol import CHANCE_TO_MOVE, HIDDEN, Game
from loom.events.base import Event

OMNISCIENT = "all"
Viewer = int | str
"""A seat number, PUBLIC (no seat: what every seat knows) or OMNISCIENT (the whole log)."""


def _common(values: list[Any]) -> Any:
    """What every seat's view agrees on; HIDDEN wherever they differ."""
    first = values[0]
    if all(value == first for value in values[1:]):
        return first
    if is_dataclass(first) and not isinstance(first, type):
        return type(first)(*(_common([getattr(v, f.name) for v in values]) for f in fields(first)))
    if isinstance(first, tuple) and all(isinstance(v, tuple) and len(v) == len(first) for v in values):
        return tuple(_common([v[i] for v in values]) for i in range(len(first)))
    if isinstance(first, tuple):
        return (HIDDEN,) * min(len(v) for v in values)
    return HIDDEN


def public_view(game: Game, state: Any, seats: int) -> Any:
    """The state as someone without a seat may know it: only what every seat's view shows.

    Built from the games' own `view`, so a card is shown only if no seat has it hidden: nothing a seat may not
    know reaches a reader without a token. (A game's view of a seat it does not have is not a public view: Stones
    of Fate would index its last seat's knowledge.)
    """
    return _common([game.view(state, seat) for seat in range(seats)])


def seen_by(game: Game, state: Any, viewer: Viewer, seats: int) -> Any:
    """The state as `viewer` may know it."""
    if viewer == OMNISCIENT:
        return state
    if viewer == PUBLIC:
        return public_view(game, state, seats)
    return game.view(state, int(viewer))


@dataclass(frozen=True, slots=True)
class Told:
    """A state described for a viewer, with the seat to move and that seat's legal actions if the viewer is it."""

    described: dict[str, Any]
    to_move: int | str | None
    legal: list[dict[str, Any]] | None


def tell_state(game: Game, state: Any, viewer: Viewer, seats: int) -> Told:
    """The state as JSON for `viewer`; the legal actions too when `viewer` is to move (or sees everything)."""
    view = seen_by(game, state, viewer, seats)
    mover = game.to_move(state)
    legal = None
    if mover is not None and mover != CHANCE_TO_MOVE and viewer in (mover, OMNISCIENT):
        seen = view if viewer == mover else game.view(state, mover)  # a seat to move has its view already
        legal = [game.action_json(action) for action in game.legal_actions(seen)]
    return Told(game.describe(view), "chance" if mover == CHANCE_TO_MOVE else mover, legal)


def envelope(event: Event) -> dict[str, Any]:
    """The public part of an event: its number, turn, actor and type (its fields may name hidden cards)."""
    return {"seq": event.seq, "turn": event.turn, "actor": event.actor, "type": event.type}


def whole(event: Event) -> dict[str, Any]:
    """An event as a log line (docs/log-format.md), every field included."""
    return {**envelope(event), "v": event.schema_version, **event.payload.to_json()}


def tell_events(
    game: Game, state: Any, events: Iterable[Event], viewer: Viewer, seats: int
) -> tuple[list[dict[str, Any]], Any]:
    """Each event as `viewer` may know it, with the table it led to as `viewer` sees it; and the state after the
    last. `state` is the state before the first.

    The whole log goes only to OMNISCIENT (as log lines, without the table); anyone else gets each event's envelope
    and their view of the table after it, which the games' `view` functions keep honest.
    """
    told = []
    for event in events:
        state = game.apply(state, event.payload)
        if viewer == OMNISCIENT:
            told.append(whole(event))
        else:
            told.append(envelope(event) | {"state": game.describe(seen_by(game, state, viewer, seats))})
    return told, state
