"""Moirai's life cards and Moira objectives, built from `cards.toml` (M1, M2)."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from loom.events.base import IllegalAction


def _load(name: str) -> dict[str, Any]:
    with Path(__file__).with_name(name).open("rb") as file:
        return tomllib.load(file)


COMPONENTS = _load("cards.toml")
CARDS: int = COMPONENTS["cards"]
COLOURS: tuple[str, ...] = tuple(COMPONENTS["colours"])
DRAW: int = COMPONENTS["draw"]
MIN_PLAYERS: int = COMPONENTS["min_players"]
MAX_PLAYERS: int = COMPONENTS["max_players"]
FULL_DECK: tuple[int, ...] = tuple(range(CARDS))
COLOUR_BY_NAME: dict[str, int] = {name: c for c, name in enumerate(COLOURS)}

UP, OPEN, CLOSE = "up", "open", "close"
"""How a card is placed: face up on an open life, face down to open a new life, face down to close a life."""
HOWS = (UP, OPEN, CLOSE)


def colour(card: int) -> int:
    """M1: 0 green, 1 blue, 2 purple, 3 red."""
    return card % len(COLOURS)


def decade(card: int) -> int:
    """M1: cards 0-9 are decade 0, 10-19 decade 1, ..."""
    return card // 10


COLOUR_OF: tuple[int, ...] = tuple(map(colour, FULL_DECK))
"""`colour` of each card, looked up: scoring reads it for every card of a loom."""
DECADE_OF: tuple[int, ...] = tuple(map(decade, FULL_DECK))
"""`decade` of each card, looked up."""


def card(value: object) -> int:
    """The life card numbered `value`, or IllegalAction naming the problem."""
    if type(value) is not int or not 0 <= value < CARDS:
        raise IllegalAction(f"{value!r} is not a Moirai life card (cards are numbered 0 to {CARDS - 1})")
    return value


def pile(name: object) -> int:
    """The discard pile (a colour) called `name`."""
    try:
        return COLOUR_BY_NAME[name]  # type: ignore[index]
    except (KeyError, TypeError):
        raise IllegalAction(f"{name!r} is not a pile; the piles are {', '.join(COLOURS)}") from None


@dataclass(frozen=True, slots=True)
class Objective:
    """One Moira card: its number (1-12), its Moira, what it rewards and the figures it uses."""

    id: int
    moira: str
    summary: str
    points: tuple[int, ...]

    @property
    def key(self) -> str:
        """Its name in a score breakdown, `clotho 2`."""
        return f"{self.moira} {self.id}"


OBJECTIVES: dict[int, Objective] = {
    row["id"]: Objective(row["id"], row["moira"], row["summary"], tuple(row["points"]))
    for row in COMPONENTS["objective"]
}
MOIRAI: tuple[str, ...] = ("clotho", "lachesis", "atropos")
CHOICES: tuple[tuple[int, ...], ...] = tuple(
    tuple(sorted(o.id for o in OBJECTIVES.values() if o.moira == moira)) for moira in MOIRAI
)
"""M2: the objectives each Moira may bring into play (Clotho 1-4, Lachesis 5-8, Atropos 9-12)."""
