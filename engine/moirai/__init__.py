"""Moirai: weave lives on a loom under the three Moirai's objectives."""

from engine.binding import bind_game
from engine.bots import RandomBot
from engine.moirai import facts, render, rules
from engine.moirai.bots import GreedyBot
from engine.moirai.cards import MAX_PLAYERS, MIN_PLAYERS
from engine.moirai.rules import MoiraiState

GAME = bind_game(
    name="moirai",
    title="Moirai",
    modules=(rules, facts, render),
    state_type=MoiraiState,
    bots={"random": RandomBot, "greedy": GreedyBot},
    min_players=MIN_PLAYERS,
    max_players=MAX_PLAYERS,
)
