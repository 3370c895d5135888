"""Moorea: draw commodities, trade them for products, tools and stores, and score at the end (rulings R1-R11)."""

from engine.binding import bind_game
from engine.bots import RandomBot
from engine.moorea import actions, facts, render, rules, score
from engine.moorea.bots import GreedyBot
from engine.moorea.cards import MAX_PLAYERS, MIN_PLAYERS
from engine.moorea.state import MooreaState

GAME = bind_game(
    name="moorea",
    title="Moorea",
    modules=(rules, actions, score, facts, render),
    state_type=MooreaState,
    bots={"random": RandomBot, "greedy": GreedyBot},
    min_players=MIN_PLAYERS,
    max_players=MAX_PLAYERS,
)
