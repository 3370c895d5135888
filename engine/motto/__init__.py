"""Motto: collect tokens by playing three cards that share a symbol, number or colour."""

from engine.binding import bind_game
from engine.bots import RandomBot
from engine.motto import facts, render, rules
from engine.motto.bots import GreedyBot
from engine.motto.cards import MAX_PLAYERS, MIN_PLAYERS
from engine.motto.rules import MottoState

GAME = bind_game(
    name="motto",
    title="Motto",
    modules=(rules, facts, render),
    state_type=MottoState,
    bots={"random": RandomBot, "greedy": GreedyBot},
    min_players=MIN_PLAYERS,
    max_players=MAX_PLAYERS,
)
