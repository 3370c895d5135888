"""Moirai: weave lives on a loom under the three Moirai's objectives."""

from loom.engine.bots import RandomBot
from loom.engine.moirai import actions, determinize, facts, render, rules, score
from loom.engine.moirai.actions import Action
from loom.engine.moirai.bots import GreedyBot, chances
from loom.engine.moirai.cards import MAX_PLAYERS, MIN_PLAYERS
from loom.engine.moirai.state import MoiraiState
from loom.engine.protocol import Game, Tuning

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
    option=actions.option,
    value=chances,
    # The leaf value fitted to games, with the searcher's own information sets and the others' replies from the policy:
    # the best measured tuning (bench/profiles/ismcts.md, its last section): ahead of the old search, not yet at 95%.
    search=Tuning(budget=40, horizon=16, spread=4.0, confidence=0.5, observed=True, policy_replies=True, value=True),
    report=("objectives",),  # its sources are its objectives, drawn by their own figure
)
