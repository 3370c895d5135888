"""Moorea: draw commodities, trade them for products, tools and stores, and score at the end (rulings R1-R11)."""

from __future__ import annotations

from typing import Any, ClassVar

from engine.bots import RandomBot
from engine.moorea import actions, rules, score
from engine.moorea import render as _render
from engine.moorea.bots import GreedyBot
from engine.moorea.cards import MAX_PLAYERS, MIN_PLAYERS
from engine.moorea.state import MooreaState
from engine.protocol import Bot


class Moorea:
    """The Game protocol bound to Moorea's rules module."""

    name: ClassVar[str] = "moorea"
    title: ClassVar[str] = "Moorea"
    min_players: ClassVar[int] = MIN_PLAYERS
    max_players: ClassVar[int] = MAX_PLAYERS
    rules_version: ClassVar[int] = 1
    bots: ClassVar[dict[str, type[Bot]]] = {"random": RandomBot, "greedy": GreedyBot}
    state_type: ClassVar[type] = MooreaState

    setup = staticmethod(rules.setup)
    check = staticmethod(rules.check)
    apply = staticmethod(rules.apply)
    to_move = staticmethod(rules.to_move)
    next_turn = staticmethod(rules.next_turn)
    legal_actions = staticmethod(actions.legal_actions)
    resolve = staticmethod(rules.resolve)
    chance = staticmethod(rules.chance)
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
        """The state before `moorea.started`."""
        return MooreaState()


GAME = Moorea()
