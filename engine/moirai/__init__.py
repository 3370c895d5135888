"""Moirai: weave lives on a loom under the three Moirai's objectives."""

from engine.bots import RandomBot
from engine.moirai import facts, render, rules
from engine.moirai.bots import GreedyBot
from engine.moirai.cards import MAX_PLAYERS, MIN_PLAYERS
from engine.moirai.rules import Action, MoiraiState
from engine.protocol import Game, Tuning

GAME: Game[MoiraiState, Action] = Game(
    name="moirai",
    title="Moirai",
    min_players=MIN_PLAYERS,
    max_players=MAX_PLAYERS,
    state_type=MoiraiState,
    bots={"random": RandomBot, "greedy": GreedyBot},
    setup=rules.setup,
    check=rules.check,
    apply=rules.apply,
    to_move=rules.to_move,
    next_turn=rules.next_turn,
    legal_actions=rules.legal_actions,
    resolve=rules.resolve,
    chance=rules.chance,
    view=rules.view,
    determinize=rules.determinize,
    scores=rules.scores,
    winners=rules.winners,
    breakdown=rules.breakdown,
    facts=facts.facts,
    describe=render.describe,
    parse_action=rules.parse_action,
    action_json=rules.action_json,
    search=Tuning(budget=40, horizon=16, spread=4.0, confidence=0.5),
    report=("objectives",),  # its sources are its objectives, drawn by their own figure
)
