"""An append's chance (replay/live.played_action) draws what `logs play` draws at the same point: the generator of
`engine.play.chance_rng(seed, seq)`, made only when chance first draws from it."""

from __future__ import annotations

from dataclasses import replace
from random import Random
from typing import Any

import pytest

from loom.engine.motto import GAME as MOTTO
from loom.engine.play import act, chance_rng, start
from loom.engine.protocol import AnyGame
from loom.engine.registry import get_game, playable
from loom.events.motto import DeckCardDrawn, DiscardReshuffled, PoolRefilled
from loom.replay.live import played_action


def _played_both_ways(game: AnyGame, state: Any, seed: int, seq: int, rng: Random) -> list[Any]:
    """Play the game out with random legal actions, each through `played_action` and through `act` with the
    seeded generator; every event of the first (which must equal the second's)."""
    events = []
    while (mover := game.to_move(state)) is not None:
        legal = game.legal_actions(game.view(state, mover))
        action = game.action_json(legal[rng.randrange(len(legal))])
        played = played_action(game, state, seed, seq, action)
        expected, steps = act(game, state, game.parse_action(action), chance_rng(seed, seq))
        assert played.steps == steps and played.state == expected
        events.extend(step.payload for step in played.steps)
        seq += len(steps)
        state = played.state
    return events


@pytest.mark.parametrize("name", playable())
def test_an_appended_action_draws_what_the_seeded_generator_draws(name: str) -> None:
    game = get_game(name)
    state, steps = start(game, ["A", "B", "C"], Random(3))
    assert _played_both_ways(game, state, 3, len(steps), Random(4))


def test_a_draw_from_a_deck_of_unknown_order_and_a_reshuffle_come_from_the_seed() -> None:
    """Motto draws from the generator when the deck's order is unknown (T4) and when it reshuffles the discard."""
    state, steps = start(MOTTO, ["A", "B", "C"], Random(5))
    events = _played_both_ways(MOTTO, replace(state, deck_ordered=False), 5, len(steps), Random(6))
    assert any(isinstance(e, DiscardReshuffled) for e in events)
    assert any(isinstance(e, DeckCardDrawn | PoolRefilled) for e in events)
