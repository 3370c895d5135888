"""Stones of Fate: place fate stones beside face-down cards, flip them, and collect the ones your stones win."""

from __future__ import annotations

from typing import Any, ClassVar

from engine.bots import RandomBot
from engine.protocol import Bot
from engine.stones_of_fate import actions, rules, score
from engine.stones_of_fate import render as _render
from engine.stones_of_fate.bots import GreedyBot
from engine.stones_of_fate.cards import MAX_PLAYERS, MIN_PLAYERS
from engine.stones_of_fate.state import StonesState


class StonesOfFate:
    """The Game protocol bound to Stones of Fate's rules."""

    name: ClassVar[str] = "stones-of-fate"
    title: ClassVar[str] = "Stones of Fate"
    min_players: ClassVar[int] = MIN_PLAYERS
    max_players: ClassVar[int] = MAX_PLAYERS
    rules_version: ClassVar[int] = 1
    bots: ClassVar[dict[str, type[Bot]]] = {"random": RandomBot, "greedy": GreedyBot}
    state_type: ClassVar[type] = StonesState

    setup = staticmethod(rules.setup)
    check = staticmethod(rules.check)
    apply = staticmethod(rules.apply)
    to_move = staticmethod(rules.to_move)
    next_turn = staticmethod(rules.next_turn)
    legal_actions = staticmethod(actions.legal_actions)
    resolve = staticmethod(actions.resolve)
    chance = staticmethod(actions.chance)
    view = staticmethod(rules.view)
    scores = staticmethod(score.scores)
    winners = staticmethod(score.winners)
    breakdown = staticmethod(score.breakdown)
    parse_action = staticmethod(actions.parse_action)
    action_json = staticmethod(actions.action_json)
    render = staticmethod(_render.render)
    describe = staticmethod(_render.describe)

    @staticmethod
    def blank() -> Any:
        """The state before `stones-of-fate.started`."""
        return StonesState()


GAME = StonesOfFate()
