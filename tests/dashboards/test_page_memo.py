"""The replay page draws its tables through a memo of the tables, cells and lines drawn before: every table must be
byte for byte the one the game's render draws alone."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.console import Console

from loom.dashboards.viewer import _cached, drawn_lines, positions
from loom.engine.presentation import presentation
from loom.engine.registry import get_game
from loom.replay.store import Store

FIRST_OF_EACH = (1, 9, 17, 25)
"""A game of each kind in the shared store (eight of each, in the registry's order)."""
ALONE = 200
"""Positions drawn alone per seat, spread over the game (a Moorea game has 560: drawing each alone took 20 s)."""


@pytest.mark.parametrize("game_id", FIRST_OF_EACH)
def test_every_table_drawn_through_the_memo_is_the_table_drawn_alone(recorded: Path, game_id: int) -> None:
    with Store.open(recorded, read_only=True) as store:
        game = get_game(store.game_row(game_id).game)
        events = store.load(game_id)
    stride = -(-len(events) // ALONE)
    for offset, seat in enumerate((None, 1)):  # the seat's positions between the table's, in a long game
        drawn = [p.lines for p in positions(game, events, seat)]  # every position, through one memo
        state, alone = game.blank(), []
        for k, event in enumerate(events):
            state = game.apply(state, event.payload)
            if k % stride == offset % stride or k == len(events) - 1:
                alone.append((k, drawn_lines(game, state if seat is None else game.view(state, seat), seat)))
        assert [(k, drawn[k]) for k, _ in alone] == alone


def test_drawing_through_the_memo_leaves_the_games_own_renderable_as_it_was(recorded: Path) -> None:
    with Store.open(recorded, read_only=True) as store:
        game = get_game(store.game_row(17).game)
        events = store.load(17)
    state = game.blank()
    for event in events[:6]:
        state = game.apply(state, event.payload)
    memo: dict[object, object] = {}
    renderable = presentation(game.name).render(state, None)
    console = Console(width=120, record=True, color_system=None)
    console.print(renderable)
    before = console.export_text()
    _cached(renderable, memo)
    console.print(renderable)
    assert console.export_text() == before
