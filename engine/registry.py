"""The games Loom knows, by their command-line name."""

from __future__ import annotations

from engine.motto import Motto
from engine.protocol import Game
from events.base import LoomError

GAMES: dict[str, Game] = {"motto": Motto()}
PLANNED = ("moirai", "moorea", "stones-of-fate")


class UnknownGame(LoomError):
    """A game name Loom does not know."""


def get_game(name: str) -> Game:
    """The game called `name` on the command line."""
    if name in GAMES:
        return GAMES[name]
    if name in PLANNED:
        raise UnknownGame(f"{name} is not playable yet; playable games: {', '.join(sorted(GAMES))}")
    raise UnknownGame(f"unknown game {name!r}; known games: {', '.join(sorted((*GAMES, *PLANNED)))}")


def get_bot(game: Game, name: str):  # type: ignore[no-untyped-def]
    """A new bot of `game` called `name`."""
    try:
        return game.bots[name]()
    except KeyError:
        raise UnknownGame(f"{game.name} has no bot {name!r}; its bots: {', '.join(sorted(game.bots))}") from None
