"""Motto: collect tokens by playing three cards that share a symbol, number or colour."""

from engine.bots import RandomBot
from engine.motto import facts, render, rules
from engine.motto.bots import GreedyBot
from engine.motto.cards import MAX_PLAYERS, MIN_PLAYERS
from engine.motto.rules import Action, MottoState
from engine.protocol import Game, Tuning

GAME: Game[MottoState, Action] = Game(
    name="motto",
    title="Motto",
    min_players=MIN_PLAYERS,
    max_players=MAX_PLAYERS,
    state_type=MottoState,
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
    search=Tuning(budget=50, horizon=60, spread=3.0),
    report=("points-by-source", "token-race"),
)
