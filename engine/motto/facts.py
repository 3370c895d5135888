"""Motto's notable facts for the dashboards: the token race, in the order the stacks empty."""

from __future__ import annotations

from loom.engine.motto.cards import VALUE_BY_NAME
from loom.engine.motto.state import MottoState
from loom.events.base import Payload
from loom.events.motto import CardsPlayed

Fact = tuple[int | None, str, str, int]


def facts(before: MottoState, payload: Payload, after: MottoState) -> tuple[Fact, ...]:
    """(seat, "stack-emptied", value, how many stacks are empty now) for each stack this play took the last of."""
    if type(payload) is not CardsPlayed or not payload.tokens:
        return ()
    emptied = sum(1 for height in after.stacks if height == 0)
    return tuple(
        (before.seat, "stack-emptied", name, emptied)
        for name, _ in payload.tokens
        if after.stacks[VALUE_BY_NAME[name]] == 0
    )
