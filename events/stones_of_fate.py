"""Stones of Fate's events. Cards are named by their id (`the-tower`); spread positions `a1`..`c3` (row letter,
column number); edges by a card and a side (`b2-left`, the same edge as `b1-right`); `supply` is off the grid.
"""

from __future__ import annotations

from dataclasses import dataclass

from loom.events import base
from loom.events.base import Payload
from loom.events.registry import register

Card = str


# --- Setup (S3) ------------------------------------------------------------------------------------------------------


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class GameStarted(base.GameStarted):
    """S3: seats in turn order (seat 0 starts), the seed of later chance, the shuffled draw deck (top first) if known.

    A log written at a real table leaves out the deck (its order is unknown) and may leave out the seed.
    """

    TYPE = "stones-of-fate.started"
    BY_CHANCE = True
    deck: tuple[Card, ...] | None = None


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class SpreadDealt(Payload):
    """S3: the spread dealt face up (every seat sees it), position by position, then turned face down."""

    TYPE = "stones-of-fate.dealt"
    BY_CHANCE = True
    spread: tuple[Card, ...]


# --- A seat's decisions (S5-S7, effects) ------------------------------------------------------------------------------


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class CardPeeked(Payload):
    """S5: the seat looked at a face-down card of the spread (`a1`..) or the top card of the `deck`; it alone knows."""

    TYPE = "stones-of-fate.peeked"
    at: str
    card: Card


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class StoneMoved(Payload):
    """S6 (or Strength, The Chariot): a stone of `colour` went from an edge or `supply` to an edge or `supply`."""

    TYPE = "stones-of-fate.moved"
    colour: str
    source: str
    target: str


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class CardFlipped(Payload):
    """S7 (or Wheel of Fortune): the seat flipped the card at `at` face up; it is `card`."""

    TYPE = "stones-of-fate.flipped"
    at: str
    card: Card


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class CardsSwapped(Payload):
    """The Moon: two face-down cards of the spread changed places (their stones stay on the edges)."""

    TYPE = "stones-of-fate.swapped"
    positions: tuple[str, str]


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class CardTaken(Payload):
    """The Devil: the winner took `card` from the collection of seat `owner`."""

    TYPE = "stones-of-fate.took"
    owner: int
    card: Card


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class CardRecovered(Payload):
    """Judgement: the winner took `card` from the discard pile into their collection."""

    TYPE = "stones-of-fate.recovered"
    card: Card


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class EffectStopped(Payload):
    """The seat used no more of an effect that allows up to some number of steps (Strength, Chariot, ...)."""

    TYPE = "stones-of-fate.stopped"


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class NextChosen(Payload):
    """S7: with several cards face up, the current seat chose the one whose winner is determined next."""

    TYPE = "stones-of-fate.chose"
    at: str


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class DeathGiven(Payload):
    """S2, S11: the highest score was tied and Death's holder gave Death to seat `to`, one of the tied seats."""

    TYPE = "stones-of-fate.gave-death"
    to: int


# --- Chance and consequences (S7-S10) ---------------------------------------------------------------------------------


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class CardDrawn(Payload):
    """S7 (Opportunity zone), The Star, The Sun: seat `seat` drew the top card of the deck into its collection."""

    TYPE = "stones-of-fate.drew"
    BY_CHANCE = True
    seat: int
    card: Card


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class RandomDiscards(Payload):
    """The Tower: each seat discarded a card of its collection at random (null: it had none)."""

    TYPE = "stones-of-fate.discarded"
    BY_CHANCE = True
    cards: tuple[Card | None, ...]


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class CardWon(Payload):
    """S8: the face-up card at `at` went to seat `winner`'s collection, or (null) to the discard pile."""

    TYPE = "stones-of-fate.won"
    BY_CHANCE = True
    at: str
    card: Card
    winner: int | None


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class SpreadRefilled(Payload):
    """S9: the empty space `at` got the top card of the deck, face down, unseen."""

    TYPE = "stones-of-fate.refilled"
    BY_CHANCE = True
    at: str
    card: Card


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class FinalFlip(Payload):
    """S10: the deck is empty after a turn: every card of the spread is flipped and won by S8, without effects.

    `cards` and `winners` go by position (null: an empty space; a card nobody wins is discarded).
    """

    TYPE = "stones-of-fate.final-flip"
    BY_CHANCE = True
    cards: tuple[Card | None, ...]
    winners: tuple[int | None, ...]
