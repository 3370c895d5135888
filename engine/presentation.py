"""How each game is drawn for a person: its `render` module's `PRESENTATION`, found by the game's name.

The pure engine (`engine/protocol.py`) knows nothing of rich; the command line and the dashboards ask here.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic

from loom.engine.protocol import S
from loom.engine.registry import PACKAGES, get_game

if TYPE_CHECKING:
    from rich.console import RenderableType


@dataclass(frozen=True, slots=True, kw_only=True)
class Presentation(Generic[S]):
    """A game as a person sees it."""

    render: Callable[[S, int | None], RenderableType]
    """The table drawn for a person; the seat is the viewer (None: omniscient)."""
    public_move: Callable[[dict[str, Any]], dict[str, Any]]
    """What every seat saw of a move (an action's JSON form) made by another seat."""


def presentation(name: str) -> Presentation[Any]:
    """The presentation of the game called `name` (UnknownGame if Loom does not know it)."""
    get_game(name)  # a game Loom does not know is refused here, not by an import error
    module = importlib.import_module(f"{PACKAGES[name]}.render")
    found: Presentation[Any] = module.PRESENTATION
    return found
