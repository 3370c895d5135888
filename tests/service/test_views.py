"""The public view (what a reader without a token gets) shows a card only where every seat's own view shows it."""

from __future__ import annotations

from typing import Any

import pytest

from loom.engine.registry import get_game
from loom.events.registry import decode_payload_text
from loom.replay.simulate import simulate_one
from loom.service.views import public_view

DERIVED = frozenset({"scores", "breakdown"})
"""Numbers a game's `describe` works out from the view it is given: not cards, so not compared."""


def _shown_by_all(public: Any, views: list[Any], where: str) -> None:
    if isinstance(public, dict):
        for key, value in public.items():
            if key not in DERIVED:
                _shown_by_all(value, [view[key] for view in views], f"{where}.{key}")
    elif isinstance(public, list):
        assert all(isinstance(view, list) and len(view) == len(public) for view in views), where
        for index, value in enumerate(public):
            _shown_by_all(value, [view[index] for view in views], f"{where}[{index}]")
    elif public is not None:
        assert all(view == public for view in views), (where, public, views)


@pytest.mark.parametrize("name", ["motto", "moirai", "moorea", "stones-of-fate"])
def test_the_public_view_shows_only_what_every_seat_sees(name: str) -> None:
    game = get_game(name)
    recorded = simulate_one(game, ["random"] * 3, f"public-view/{name}")
    state, hidden_somewhere = game.blank(), 0
    for kind, version, payload in zip(recorded.events.type, recorded.events.version, recorded.events.payload):
        state = game.apply(state, decode_payload_text(kind, payload, version))
        public = game.describe(public_view(game, state, 3))
        views = [game.describe(game.view(state, seat)) for seat in range(3)]
        _shown_by_all(public, views, name)
        hidden_somewhere += public != views[0]
    assert hidden_somewhere > 0
