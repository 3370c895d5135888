"""How each game is drawn for a person: its `render` module's `PRESENTATION`, found by the game's name.

The pure engine (`engine/protocol.py`) knows nothing of rich; the command line and the dashboards ask here.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, Generic, Literal

from loom.engine.protocol import S
from loom.engine.registry import PACKAGES, get_game
from loom.events.base import Event

if TYPE_CHECKING:
    from rich.console import RenderableType


PUBLIC: Final = "public"
Reader = int | Literal["public"] | None
"""Who a table is drawn for: a seat, PUBLIC (what every seat knows, as a spectator sees it) or None (every card)."""


def seen_as(reader: Reader) -> str:
    """The words a drawn table's heading says its reader by."""
    if reader is None:
        return "all cards shown"
    return "the public view" if reader == PUBLIC else f"as seen by seat {reader}"


@dataclass(frozen=True, slots=True, kw_only=True)
class Presentation(Generic[S]):
    """A game as a person sees it."""

    render: Callable[[S, Reader], RenderableType]
    """The table drawn for a reader, from the state as that reader may see it (a view, unless the reader is None)."""
    public_move: Callable[[dict[str, Any]], dict[str, Any]]
    """What every seat saw of a move (an action's JSON form) made by another seat."""
    tell: Callable[[S, Event, S, Voice], str]
    """One stored event in words (the state before it, the event, the state after it) as the voice's reader saw it
    at the table: plain text, never naming a card the reader could not see then (`engine/telling.py`)."""
    legend: tuple[str, ...]
    """What the symbols the table draws mean, one plain line each."""


@dataclass(frozen=True, slots=True)
class Voice:
    """Who tells a game to whom: the players' names by seat and the reader's seat (None: the omniscient reader)."""

    players: Sequence[str]
    viewer: int | None

    def sees(self, seat: int | None) -> bool:
        """Whether the reader sees what `seat` alone sees: its own seat's cards, or every card when omniscient."""
        return self.viewer is None or (seat is not None and seat == self.viewer)

    def who(self, seat: int) -> str:
        """A seat as the reader calls it: "you" for the reader's own seat, else the player's name."""
        return "you" if seat == self.viewer else self.name(seat)

    def name(self, seat: int) -> str:
        """The player's name at `seat` (or "seat N" for a seat the names do not cover)."""
        return self.players[seat] if 0 <= seat < len(self.players) else f"seat {seat}"

    def seating(self) -> str:
        """Every player in turn order, the reader's own seat marked "(you)"."""
        return listed([f"{self.name(s)} (you)" if s == self.viewer else self.name(s) for s in range(len(self.players))])


def listed(items: Sequence[str]) -> str:
    """Items as English lists them: "a", "a and b", "a, b and c"; "nothing" for none."""
    if not items:
        return "nothing"
    if len(items) == 1:
        return items[0]
    return ", ".join(items[:-1]) + " and " + items[-1]


def sentence(text: str) -> str:
    """`text` as a sentence: its first letter capitalised (only that: a player's name stays as written), a full stop."""
    text = text[:1].upper() + text[1:] if text.startswith("you") else text
    return text if text.endswith((".", "!", "?")) else text + "."


def reshuffled(discarded: int) -> str:
    """The sentence of a discard pile of `discarded` cards shuffled into a new deck (Motto's and Moorea's rule)."""
    return f"The deck ran out: the discard pile ({discarded} cards) was shuffled into a new deck."


def presentation(name: str) -> Presentation[Any]:
    """The presentation of the game called `name` (UnknownGame if Loom does not know it)."""
    get_game(name)  # a game Loom does not know is refused here, not by an import error
    module = importlib.import_module(f"{PACKAGES[name]}.render")
    found: Presentation[Any] = module.PRESENTATION
    return found
