"""A game's rules modules bound into one object with the members of the Game protocol."""

from __future__ import annotations

from types import ModuleType
from typing import cast

from engine.protocol import Bot, Game

FUNCTIONS = (
    "setup", "check", "apply", "to_move", "next_turn", "legal_actions", "resolve", "chance", "view", "determinize",
    "scores", "winners", "breakdown", "parse_action", "action_json", "render", "describe", "facts",
)  # fmt: skip


def bind_game(
    *,
    name: str,
    title: str,
    modules: tuple[ModuleType, ...],
    state_type: type,
    bots: dict[str, type[Bot]],
    min_players: int,
    max_players: int,
    rules_version: int = 1,
) -> Game:
    """The game whose protocol functions are the like-named functions of `modules` (the first that has each).

    The functions become static methods of a class made for the game, so a call costs what a call of the module
    function costs: replay calls `apply` once per event.
    """
    namespace: dict[str, object] = {
        "name": name,
        "title": title,
        "min_players": min_players,
        "max_players": max_players,
        "rules_version": rules_version,
        "bots": bots,
        "state_type": state_type,
        "blank": staticmethod(state_type),
        "__doc__": f"The Game protocol bound to {title}'s rules.",
    }
    for function in FUNCTIONS:
        owner = next((module for module in modules if hasattr(module, function)), None)
        if owner is None:
            raise TypeError(f"{title}: no module defines {function}()")
        namespace[function] = staticmethod(getattr(owner, function))
    return cast(Game, type(title.replace(" ", ""), (), namespace)())
