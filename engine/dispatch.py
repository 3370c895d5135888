"""The `check` and `apply` of a game, from one table of its events' own check and apply functions.

Every game refuses the same way before an event's own rules are asked: an event of another game, an event out of
the setup's order, an event after the end. The table is built once, when the rules module is imported, and `apply`
is one dictionary look-up and a call (replay calls it once per event).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from loom.engine.protocol import S
from loom.events.base import IllegalAction, Payload

Check = Callable[[S, Any], None]
"""An event's own check: raise IllegalAction if it cannot happen in the state."""
Apply = Callable[[S, Any], S]
"""An event's own apply: the state after it."""


def event_rules(
    state_type: type[S],
    title: str,
    table: Mapping[type[Payload], tuple[Check[S], Apply[S]]],
    *,
    setup: Sequence[tuple[type[Payload], str]],
    setup_done: Callable[[S], int],
    over: Callable[[S, Payload], bool] | None = None,
) -> tuple[Callable[[S, Payload], None], Callable[[S, Payload], S]]:
    """The `check` and `apply` of the game whose states are `state_type`, for the events of `table` (event class ->
    its check and its apply).

    `check` refuses an event not in `table`; then, while `setup_done(state)` (the setup events played so far) is
    below `len(setup)`, any event but the next setup one, with that one's refusal; then an event for which
    `over(state, event)` holds, as coming after the end; and then asks the event's own check.
    """
    checks = {cls: own_check for cls, (own_check, _) in table.items()}
    applies = {cls: own_apply for cls, (_, own_apply) in table.items()}

    stages = len(setup)

    def check(state: S, event: Payload) -> None:
        """Raise IllegalAction if `event` cannot come next."""
        cls = type(event)
        own = checks.get(cls)
        if own is None:
            raise IllegalAction(f"{event.TYPE} is not a {title} event")
        stage = setup_done(state)
        if stage < stages and cls is not setup[stage][0]:
            raise IllegalAction(setup[stage][1])
        if over is not None and over(state, event):
            raise IllegalAction("the game is over")
        own(state, event)

    def apply(state: S, event: Payload) -> S:
        """The state after a checked event."""
        return applies[type(event)](state, event)

    return check, apply
