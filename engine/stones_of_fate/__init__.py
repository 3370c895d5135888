"""Stones of Fate: place fate stones beside face-down cards, flip them, and collect the ones your stones win."""

from engine.binding import bind_game
from engine.bots import RandomBot
from engine.stones_of_fate import actions, facts, render, rules, score
from engine.stones_of_fate.bots import GreedyBot
from engine.stones_of_fate.cards import MAX_PLAYERS, MIN_PLAYERS
from engine.stones_of_fate.state import StonesState

GAME = bind_game(
    name="stones-of-fate",
    title="Stones of Fate",
    modules=(rules, actions, score, facts, render),
    state_type=StonesState,
    bots={"random": RandomBot, "greedy": GreedyBot},
    min_players=MIN_PLAYERS,
    max_players=MAX_PLAYERS,
)
