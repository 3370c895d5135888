"""The games Loom knows, by their command-line name. A game's package is imported only when it is asked for."""

from __future__ import annotations

import importlib

from engine.protocol import Bot, Game
from events.base import LoomError

PACKAGES = {
    "motto": "engine.motto",
    "moirai": "engine.moirai",
    "moorea": "engine.moorea",
    "stones-of-fate": "engine.stones_of_fate",
}


class UnknownGame(LoomError):
    """A game name Loom does not know."""


def _load(name: str) -> Game | None:
    try:
        module = importlib.import_module(PACKAGES[name])
    except ModuleNotFoundError as error:
        if error.name == PACKAGES[name]:
            return None
        raise
    return module.GAME  # type: ignore[no-any-return]


def playable() -> list[str]:
    """The names of the games whose rules are implemented."""
    return [name for name in PACKAGES if _load(name) is not None]


def get_game(name: str) -> Game:
    """The game called `name` on the command line."""
    if name not in PACKAGES:
        raise UnknownGame(f"unknown game {name!r}; known games: {', '.join(sorted(PACKAGES))}")
    game = _load(name)
    if game is None:
        raise UnknownGame(f"{name} is not playable yet; playable games: {', '.join(playable())}")
    return game


def get_bot(game: Game, name: str) -> Bot:
    """A new bot of `game` called `name`."""
    try:
        return game.bots[name]()
    except KeyError:
        raise UnknownGame(f"{game.name} has no bot {name!r}; its bots: {', '.join(sorted(game.bots))}") from None
