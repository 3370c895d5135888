"""Moirai's events. Life cards are their numbers (0..79); piles are named by colour (`green`, `blue`, `purple`,
`red`); a placement is `[card, how, life]` with `how` one of `up`, `open`, `close` and lives numbered from 1 per seat.
"""

from __future__ import annotations

from dataclasses import dataclass

from loom.events import base
from loom.events.base import Payload
from loom.events.registry import register

Placement = tuple[int, str, int]


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class GameStarted(base.GameStarted):
    """Setup (M1): seats in turn order (seat 0 starts), the seed of later chance, the shuffled deck if known.

    A log written at a real table leaves out the deck (its order is unknown) and may leave out the seed.
    """

    TYPE = "moirai.started"
    BY_CHANCE = True
    deck: tuple[int, ...] | None = None


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class ObjectivesDrawn(Payload):
    """Setup (M2): the Clotho (1-4), Lachesis (5-8) and Atropos (9-12) objectives in play, public."""

    TYPE = "moirai.objectives-drawn"
    BY_CHANCE = True
    objectives: tuple[int, int, int]


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class StartsDealt(Payload):
    """Setup (M3): each seat's face-down starting card, seat 0's first off the deck. Nobody sees them until scoring;
    `starts` names them only in an omniscient log (the simulator's), and is left out of a table log."""

    TYPE = "moirai.dealt"
    BY_CHANCE = True
    starts: tuple[int, ...] | None = None


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class CardsDrawn(Payload):
    """Option 1 (M7, M10): the player drew up to three cards off the top of the deck and looks at them secretly."""

    TYPE = "moirai.drew"
    cards: tuple[int, ...]


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class CardKept(Payload):
    """Option 1 (M7, M9): the player placed one drawn card; the others went to the piles of their colours."""

    TYPE = "moirai.kept"
    placed: tuple[Placement]


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class PileTaken(Payload):
    """Option 2 (M8, M9): the player took a whole pile and placed every card of it, in this order."""

    TYPE = "moirai.took"
    pile: str
    placed: tuple[Placement, ...]


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class StartsRevealed(Payload):
    """Scoring (M3, M12): the deck is spent; every seat's setup starting card is turned up (seat 0's first)."""

    TYPE = "moirai.revealed"
    BY_CHANCE = True
    starts: tuple[int, ...]
