"""Moorea's events. Hand cards are named `seashells`, `wood`, `bamboo`, `clay`, `fish` (commodities) and `stoneware`,
`hut`, `canoe` (intermediate products, held in the hand); product cards by their id (`canoe-3`, `jetty-1`); tools by
kind (`basket`, `spear`, `fishing net`, `cart`).

A turn is several events of the same seat (R4-R9): one or two draws, then one action (or a pass), then a hand-limit
discard if needed. Chance refills the face-up commodities and the layout, and reshuffles the discard pile.
"""

from __future__ import annotations

from dataclasses import dataclass

from loom.events import base
from loom.events.base import Payload
from loom.events.registry import register

Card = str


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class GameStarted(base.GameStarted):
    """Setup (R3): seats in turn order (seat 0 starts), the seed of later chance, the shuffled orders if known.

    `deck` is the 75 commodity cards top first; `pile` the product cards in play, top first (pile I over pile II).
    A log written at a real table leaves both out: drawn and laid-out cards are then checked to be unseen ones.
    """

    TYPE = "moorea.started"
    BY_CHANCE = True
    deck: tuple[Card, ...] | None = None
    pile: tuple[Card, ...] | None = None


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class CardsDealt(Payload):
    """Setup (R3): six commodity cards per seat, three face up, ten product cards laid out."""

    TYPE = "moorea.dealt"
    BY_CHANCE = True
    hands: tuple[tuple[Card, ...], ...]
    face_up: tuple[Card, ...]
    layout: tuple[Card, ...]


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class CardDrawn(Payload):
    """R4: the player drew the top face-down commodity card; only the drawer sees it."""

    TYPE = "moorea.drew"
    card: Card


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class FaceUpDrawn(Payload):
    """R4: with a spear, the player drew a face-up commodity card instead."""

    TYPE = "moorea.drew_face_up"
    card: Card


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class TurnPassed(Payload):
    """R5: the player performed no action."""

    TYPE = "moorea.passed"


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class CardsExchanged(Payload):
    """R5: two hand cards onto the discard pile (an intermediate product leaves the game) for one face-up commodity."""

    TYPE = "moorea.exchanged"
    paid: tuple[Card, Card]
    card: Card


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class ProductBought(Payload):
    """R5-R8: a product from the layout, paid with exactly these hand cards."""

    TYPE = "moorea.bought"
    product: Card
    paid: tuple[Card, ...]


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class ToolBought(Payload):
    """R5: a tool, paid with N identical commodities."""

    TYPE = "moorea.bought_tool"
    tool: str
    paid: tuple[Card, ...]


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class CardsLaid(Payload):
    """R5, R8: hand cards laid at one store the player owns."""

    TYPE = "moorea.laid"
    store: Card
    cards: tuple[Card, ...]


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class CardsDiscarded(Payload):
    """R9: the hand-limit discard at the end of the turn, chosen by the player."""

    TYPE = "moorea.discarded"
    cards: tuple[Card, ...]


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class FaceUpRefilled(Payload):
    """R4, R5: the top face-down commodity card filled an empty face-up place."""

    TYPE = "moorea.refilled"
    BY_CHANCE = True
    card: Card


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class ProductLaidOut(Payload):
    """R3, R5: the top product card of the pile filled the layout's empty place."""

    TYPE = "moorea.laid_out"
    BY_CHANCE = True
    product: Card


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class DiscardReshuffled(Payload):
    """R4: the commodity deck ran out and the discard pile became the new deck; its order, when known."""

    TYPE = "moorea.reshuffled"
    BY_CHANCE = True
    deck: tuple[Card, ...] | None = None
