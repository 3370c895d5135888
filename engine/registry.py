"""The games Loom knows, by their command-line name. A game's package is imported only when it is asked for."""

from __future__ import annotations

import importlib

from loom.engine.protocol import AnyGame, Bot
from loom.events.base import LoomError

PACKAGES = {
    "motto": "loom.engine.motto",
    "moirai": "loom.engine.moirai",
    "moorea": "loom.engine.moorea",
    "stones-of-fate": "loom.engine.stones_of_fate",
}


class UnknownGame(LoomError):
    """A game name Loom does not know."""


class UnknownBot(LoomError):
    """A bot name the game does not have."""


class BadBudget(LoomError):
    """A search bot's budget that is not a number of playouts, or a budget with no search bot to spend it."""


def _load(name: str) -> AnyGame | None:
    try:
        module = importlib.import_module(PACKAGES[name])
    except ModuleNotFoundError as error:
        if error.name == PACKAGES[name]:
            return None
        raise
    game: AnyGame = module.GAME
    return game


def playable() -> list[str]:
    """The names of the games whose rules are implemented."""
    return [name for name in PACKAGES if _load(name) is not None]


_LOADED: dict[str, AnyGame] = {}
"""The games asked for so far: every append and every line of an imported file asks for its game, and importing
its module again (even from `sys.modules`) costs about 0.1 ms, more than the line's parse."""


def get_game(name: str) -> AnyGame:
    """The game called `name` on the command line."""
    found = _LOADED.get(name)
    if found is not None:
        return found
    if name not in PACKAGES:
        raise UnknownGame(f"unknown game {name!r}; known games: {', '.join(sorted(PACKAGES))}")
    game = _load(name)
    if game is None:
        raise UnknownGame(f"{name} is not playable yet; playable games: {', '.join(playable())}")
    _LOADED[name] = game
    return game


SEARCH_BOT = "mcts"
"""The label of every game's search bot (`engine.search.IsmctsBot`, information-set Monte Carlo tree search; the label
is stored in logs); `mcts:N` is the same bot with N iterations (one playout each) per decision."""


def get_bot(game: AnyGame, name: str) -> Bot:
    """A new bot of `game` called `name`: one of the game's own, or `mcts`, `mcts:PLAYOUTS` or `mcts:MSms` (a time
    per decision: as strong as the machine is fast, so a seeded run is not played again move for move)."""
    if name == SEARCH_BOT or name.startswith(SEARCH_BOT + ":"):
        from dataclasses import replace

        from loom.engine.search import IsmctsBot  # loaded only when a search is asked for

        _, _, budget = name.partition(":")
        if budget.endswith("ms") and budget[:-2].isdigit() and int(budget[:-2]) > 0:
            return IsmctsBot(game, tuning=replace(game.search, seconds=int(budget[:-2]) / 1000))
        if budget and not (budget.isdigit() and int(budget) > 0):
            raise BadBudget(
                f"the search bot's budget is a number of playouts (mcts:200) or a time per move (mcts:300ms); "
                f"not {name!r}"
            )
        return IsmctsBot(game, int(budget) if budget else None)
    try:
        return game.bots[name]()
    except KeyError:
        known = ", ".join(sorted([*game.bots, SEARCH_BOT]))
        raise UnknownBot(f"{game.name} has no bot {name!r}; its bots: {known} (mcts:N for N playouts)") from None


def with_budget(names: list[str], budget: int | None) -> list[str]:
    """The bot names with `budget` playouts given to each search bot (`mcts` becomes `mcts:BUDGET`)."""
    if budget is None:
        return names
    if budget < 1:
        raise BadBudget(f"--budget is a number of playouts per decision, at least 1; not {budget}")
    if not any(name.partition(":")[0] == SEARCH_BOT for name in names):
        raise BadBudget("--budget sets the playouts of the search bot: add --bot mcts")
    return [f"{SEARCH_BOT}:{budget}" if name.partition(":")[0] == SEARCH_BOT else name for name in names]
