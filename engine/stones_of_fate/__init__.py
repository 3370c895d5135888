"""Stones of Fate: place fate stones beside face-down cards, flip them, and collect the ones your stones win."""

from loom.engine.bots import RandomBot
from loom.engine.protocol import Game, Tuning
from loom.engine.stones_of_fate import actions, determinize, facts, render, rules, score
from loom.engine.stones_of_fate.actions import Action
from loom.engine.stones_of_fate.bots import GreedyBot, promise
from loom.engine.stones_of_fate.cards import MAX_PLAYERS, MIN_PLAYERS
from loom.engine.stones_of_fate.state import StonesState

GAME: Game[StonesState, Action] = Game(
    name="stones-of-fate",
    title="Stones of Fate",
    min_players=MIN_PLAYERS,
    max_players=MAX_PLAYERS,
    state_type=StonesState,
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
    search=Tuning(budget=40, horizon=8, spread=3.0, promise=1.0),  # bench/profiles/ismcts.md, the leaf evaluation
    promise=promise,
    report=("points-by-source", "card-wins", "zones"),
)
