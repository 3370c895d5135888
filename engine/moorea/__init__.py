"""Moorea: draw commodities, trade them for products, tools and stores, and score at the end (rulings R1-R11)."""

from loom.engine.bots import RandomBot
from loom.engine.moorea import actions, determinize, facts, render, rules, score
from loom.engine.moorea.actions import Action
from loom.engine.moorea.bots import GreedyBot, promise
from loom.engine.moorea.cards import MAX_PLAYERS, MIN_PLAYERS
from loom.engine.moorea.state import MooreaState
from loom.engine.protocol import Game, Tuning

GAME: Game[MooreaState, Action] = Game(
    name="moorea",
    title="Moorea",
    min_players=MIN_PLAYERS,
    max_players=MAX_PLAYERS,
    state_type=MooreaState,
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
    search=Tuning(budget=60, explore=0.0, horizon=12, spread=8.0, promise=1.0),  # bench/profiles/ismcts.md, Moorea
    promise=promise,
    report=("points-by-source", "products"),
)
