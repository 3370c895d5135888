"""The per-turn and per-game facts projections, gathered event by event by the projector (replay/projector.py), or
by a simulation as it plays.

`turn_facts` has a row per seat for every turn: its score once the turn's events are in, and the decisions it made
with the legal actions it had (the branching factor). `game_facts` holds what each game's `facts` finds notable.
A batch of events that ends inside a turn writes that turn's rows so far; the next batch adds to them (see
`replay/projection_tables.py`), so a game projected action by action gets the same rows as one projected at once.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from loom.engine.play import Step
from loom.engine.protocol import Game

# Plain tuples, their fields named here: a game makes a turn fact per seat every turn, and a named tuple would cost a
# simulation several per cent. tests/integration/test_store_port.py checks the names against the tables.
TurnFact = tuple[int, int, int, bool, int, int]
TURN_FACT_FIELDS = ("turn", "seat", "score", "leads", "decisions", "choices")
GameFact = tuple[int, str, str, int, int | None, int]
GAME_FACT_FIELDS = ("seq", "kind", "key", "turn", "seat", "value")


@dataclass
class Facts:
    """The facts of one batch of a game's events."""

    turns: list[TurnFact] = field(default_factory=list)
    notable: list[GameFact] = field(default_factory=list)


class FactTaker:
    """Keeps the facts of the events it is told of, numbered from after_seq + 1. Turn 0, the setup, has none."""

    def __init__(self, game: Game, after_seq: int) -> None:
        self.game = game
        self.seq = after_seq
        self.facts = Facts()
        self._turn = 0
        self._last: Any = None  # the state after the latest event of the turn under way
        self._decisions: dict[tuple[int, int], list[int]] = {}

    def decided(self, turn: int, seat: int, choices: int) -> None:
        tally = self._decisions.setdefault((turn, seat), [0, 0])
        tally[0] += 1
        tally[1] += choices

    def recorded(self, before: Any, step: Step, after: Any) -> None:
        self.seq += 1
        if step.turn != self._turn:
            self._close()
            self._turn = step.turn
        self._last = after if step.turn else None
        for seat, kind, key, value in self.game.facts(before, step.payload, after):
            self.facts.notable.append((self.seq, kind, key, step.turn, seat, value))

    def done(self) -> Facts:
        """The facts of every event told, the turn under way included."""
        self._close()
        return self.facts

    def _close(self) -> None:
        if self._last is None:
            return
        scores = self.game.scores(self._last)
        top = max(scores)
        alone = scores.count(top) == 1
        for seat, score in enumerate(scores):
            decisions, choices = self._decisions.pop((self._turn, seat), (0, 0))
            self.facts.turns.append((self._turn, seat, score, alone and score == top, decisions, choices))
        self._last = None


def facts_of(game: Game, state: Any, steps: Iterable[Step], after_seq: int, *, count_choices: bool) -> Facts:
    """The facts of `steps` played from `state`; with `count_choices`, each seat event is a decision among the
    legal actions of the state before it (for logs, where the choices were not seen being made)."""
    return facts_and_state(game, state, steps, after_seq, count_choices=count_choices)[0]


def facts_and_state(
    game: Game, state: Any, steps: Iterable[Step], after_seq: int, *, count_choices: bool
) -> tuple[Facts, Any]:
    """The facts of `steps` played from `state` (see `facts_of`) and the state after them."""
    taker = FactTaker(game, after_seq)
    apply, legal_actions = game.apply, game.legal_actions
    for step in steps:
        if count_choices and step.actor is not None:
            taker.decided(step.turn, step.actor, len(legal_actions(state)))
        after = apply(state, step.payload)
        taker.recorded(state, step, after)
        state = after
    return taker.done(), state
