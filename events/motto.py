"""Motto's events. Cards are named `colour-number-symbol` (`red-2-love`); tokens are `[value, points]` pairs."""

from __future__ import annotations

from dataclasses import dataclass

from loom.events import base
from loom.events.base import Payload
from loom.events.registry import register

Card = str


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class GameStarted(base.GameStarted):
    """Setup (T3): seats in turn order (seat 0 starts), the seed of later chance, the shuffled deck if known.

    A log written at a real table leaves out the deck (its order is unknown) and may leave out the seed: import
    then draws one and records it, so continuing the game samples the unseen cards reproducibly.
    """

    TYPE = "motto.started"
    BY_CHANCE = True
    deck: tuple[Card, ...] | None = None


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class CardsDealt(Payload):
    """Setup (T3): two private cards per seat, then four face-up pool cards."""

    TYPE = "motto.dealt"
    BY_CHANCE = True
    hands: tuple[tuple[Card, ...], ...]
    pool: tuple[Card, ...]


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class PoolCardTaken(Payload):
    """T4: the player took a face-up card from the pool."""

    TYPE = "motto.took"
    card: Card


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class DeckCardDrawn(Payload):
    """T4: the player drew the top card of the deck; only the drawer sees it."""

    TYPE = "motto.drew"
    card: Card


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class CardsPlayed(Payload):
    """T5: three cards sharing a value were played; one token taken per shared value whose stack was not empty."""

    TYPE = "motto.played"
    cards: tuple[Card, Card, Card]
    tokens: tuple[tuple[str, int], ...] = ()


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class TurnPassed(Payload):
    """T6: the player had no legal action."""

    TYPE = "motto.passed"


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class PoolRefilled(Payload):
    """T4: the top card of the deck filled the pool's empty place."""

    TYPE = "motto.refilled"
    BY_CHANCE = True
    card: Card


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class DiscardReshuffled(Payload):
    """T4: the deck ran out and the discard pile became the new deck; its order, when known."""

    TYPE = "motto.reshuffled"
    BY_CHANCE = True
    deck: tuple[Card, ...] | None = None
