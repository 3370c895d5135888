"""Motto: collect tokens by playing three cards that share a symbol, number or colour."""

from loom.engine.bots import RandomBot
from loom.engine.motto import actions, determinize, facts, render, rules, score
from loom.engine.motto.actions import Action
from loom.engine.motto.bots import GreedyBot
from loom.engine.motto.cards import MAX_PLAYERS, MIN_PLAYERS
from loom.engine.motto.state import MottoState
from loom.engine.protocol import Game, Tuning

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
    legal_actions=actions.legal_actions,
    resolve=actions.resolve,
    chance=actions.chance,
    view=rules.view,
    determinize=determinize.determinize,
    scores=score.scores,
    winners=score.winners,
    breakdown=score.breakdown,
    facts=facts.facts,
    describe=render.describe,
    parse_action=actions.parse_action,
    action_json=actions.action_json,
    search=Tuning(budget=50, horizon=30, spread=3.0),
    report=("points-by-source", "token-race"),
)
