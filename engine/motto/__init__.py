"""Motto: collect tokens by playing three cards that share a symbol, number or colour."""

from __future__ import annotations

from typing import Any, ClassVar

from engine.bots import RandomBot
from engine.motto import render as _render
from engine.motto import rules
from engine.motto.bots import GreedyBot
from engine.motto.cards import MAX_PLAYERS, MIN_PLAYERS
from engine.motto.rules import MottoState
from engine.protocol import Bot


class Motto:
    """The Game protocol bound to Motto's rules module."""

    name: ClassVar[str] = "motto"
    title: ClassVar[str] = "Motto"
    min_players: ClassVar[int] = MIN_PLAYERS
    max_players: ClassVar[int] = MAX_PLAYERS
    rules_version: ClassVar[int] = 1
    bots: ClassVar[dict[str, type[Bot]]] = {"random": RandomBot, "greedy": GreedyBot}
    state_type: ClassVar[type] = MottoState

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
        """The state before `motto.started`."""
        return MottoState()


GAME = Motto()
