"""How a deal splits by seat: the rows of a chance event that each seat alone is dealt (its hand), told by the
event's own form and confirmed by the game's views, so that each seat's part of a deal may be recorded apart."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from loom.engine.protocol import AnyGame
from loom.events.base import LoomError, Payload


def _rows(line: Mapping[str, Any], seats: int) -> list[tuple[str, int]]:
    """The fields that hold one row per seat (a list of `seats` lists): each row's path and its seat."""
    return [
        (f"/{name}/{seat}", seat)
        for name, value in line.items()
        if isinstance(value, list | tuple) and len(value) == seats and all(isinstance(v, list | tuple) for v in value)
        for seat in range(seats)
    ]


def dealt_to(game: AnyGame, state: Any, payload: Payload, seats: int) -> dict[str, int]:
    """The paths (`/field/row`) of the event's rows that one seat alone is dealt, and that seat: a field holding one
    row per seat whose row the seat's own view shows after the event and no other seat's view does. Empty for an
    event that deals nobody a private row (a face-up spread, a face-down card nobody sees)."""
    line = payload.to_json()
    rows = _rows(line, seats)
    if not rows:
        return {}
    try:
        after = game.apply(state, payload)
    except (LoomError, LookupError, ValueError):
        return {}
    views = [game.view(after, seat) for seat in range(seats)]
    return {
        path: seat for path, seat in rows if all(views[other] != views[seat] for other in range(seats) if other != seat)
    }


def owner(paths: Mapping[str, int], leaf: str) -> int | None:
    """The seat a leaf of the event (its path, `/hands/1/0`) is dealt to alone, or None (a public or the table's)."""
    for path, seat in paths.items():
        if leaf.startswith(path + "/"):
            return seat
    return None
