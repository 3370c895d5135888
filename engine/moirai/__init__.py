"""Moirai: weave lives on a loom under the three Moirai's objectives."""

from __future__ import annotations

from typing import Any, ClassVar

from engine.bots import RandomBot
from engine.moirai import render as _render
from engine.moirai import rules
from engine.moirai.bots import GreedyBot
from engine.moirai.cards import MAX_PLAYERS, MIN_PLAYERS
from engine.moirai.rules import MoiraiState
from engine.protocol import Bot


class Moirai:
    """The Game protocol bound to Moirai's rules module."""

    name: ClassVar[str] = "moirai"
    title: ClassVar[str] = "Moirai"
    min_players: ClassVar[int] = MIN_PLAYERS
    max_players: ClassVar[int] = MAX_PLAYERS
    rules_version: ClassVar[int] = 1
    bots: ClassVar[dict[str, type[Bot]]] = {"random": RandomBot, "greedy": GreedyBot}
    state_type: ClassVar[type] = MoiraiState

    setup = staticmethod(rules.setup)
    check = staticmethod(rules.check)
    apply = staticmethod(rules.apply)
    to_move = staticmethod(rules.to_move)
    next_turn = staticmethod(rules.next_turn)
    legal_actions = staticmethod(rules.legal_actions)
    resolve = staticmethod(rules.resolve)
    chance = staticmethod(rules.chance)
    view = staticmethod(rules.view)
    scores = staticmethod(rules.scores)
    winners = staticmethod(rules.winners)
    breakdown = staticmethod(rules.breakdown)
    parse_action = staticmethod(rules.parse_action)
    action_json = staticmethod(rules.action_json)
    render = staticmethod(_render.render)
    describe = staticmethod(_render.describe)

    @staticmethod
    def blank() -> Any:
        """The state before `moirai.started`."""
        return MoiraiState()


GAME = Moirai()
