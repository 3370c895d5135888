"""Recording events into hand-built states, for the rules tests of every game: `record_all` and `refused`, bound to
a game with functools.partial (`refused = partial(recording.refused, GAME)`)."""

from __future__ import annotations

from typing import Any

import pytest

from loom.engine.play import record
from loom.engine.protocol import Game
from loom.events.base import IllegalAction, Payload


def record_all(game: Game, state: Any, *payloads: Payload) -> Any:
    """The state after recording (checking) each payload in turn."""
    for payload in payloads:
        state, _ = record(game, state, payload)
    return state


def refused(game: Game, state: Any, payload: Payload) -> str:
    """The reason `payload` is refused in `state`."""
    with pytest.raises(IllegalAction) as refusal:
        record(game, state, payload)
    return str(refusal.value)
