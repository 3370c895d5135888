"""Motto's table as JSON (`render.describe`): every field as the rulebook's table shows it, hidden cards null."""

from __future__ import annotations

from random import Random
from typing import Any

from loom.engine.motto import GAME
from loom.engine.motto.cards import CARD_NAMES, TOKEN_POINTS, VALUES
from loom.engine.motto.render import describe
from loom.engine.motto.score import scores
from loom.engine.motto.state import MottoState
from loom.engine.play import act, chance_rng, start
from loom.engine.protocol import CHANCE_TO_MOVE, HIDDEN


def _plainly(state: MottoState) -> dict[str, Any]:
    """The description written field by field, the slow way."""
    mover = GAME.to_move(state)
    return {
        "players": list(state.players),
        "turn": state.turn,
        "to_move": "chance" if mover == CHANCE_TO_MOVE else mover,
        "over": mover is None,
        "hands": [[None if c == HIDDEN else CARD_NAMES[c] for c in hand] for hand in state.hands],
        "pool": [None if c == HIDDEN else CARD_NAMES[c] for c in state.pool],
        "deck": [None if c == HIDDEN else CARD_NAMES[c] for c in state.deck],
        "deck_ordered": state.deck_ordered,
        "discard": [None if c == HIDDEN else CARD_NAMES[c] for c in state.discard],
        "stacks": {VALUES[v]: list(TOKEN_POINTS[len(TOKEN_POINTS) - h :]) for v, h in enumerate(state.stacks)},
        "tokens": [[[VALUES[v], p] for v, p in won] for won in state.tokens],
        "scores": scores(state),
        "final_turns": state.final_turns,
    }


def test_every_position_of_a_game_is_described_field_by_field_for_every_reader() -> None:
    rng = Random(8)
    state, steps = start(GAME, ["A", "B", "C"], Random(8))
    positions = [state]
    while (mover := GAME.to_move(state)) is not None:
        legal = GAME.legal_actions(GAME.view(state, mover))
        state, more = act(GAME, state, legal[rng.randrange(len(legal))], chance_rng(8, len(steps)))
        steps += more
        positions.append(state)
    assert GAME.to_move(positions[-1]) is None and any(s.tokens != ((), (), ()) for s in positions)
    for position in positions:
        for seen in (position, *(GAME.view(position, seat) for seat in range(3))):
            described = describe(seen)
            assert described == _plainly(seen)
            assert list(described) == list(_plainly(seen))  # the same keys in the same order: the same JSON


def test_a_hidden_card_is_null_and_a_stack_lists_its_tokens_from_the_top() -> None:
    state = MottoState(players=("A", "B"), dealt=True, hands=((0, HIDDEN), ()), tokens=((), ()), stacks=(3, 2, 1, 0))
    described = describe(state)
    assert described["hands"] == [[CARD_NAMES[0], None], []]
    assert [described["stacks"][VALUES[v]] for v in range(4)] == [[3, 2, 1], [2, 1], [1], []]
