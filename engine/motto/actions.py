"""Motto's actions (T4-T6): what a player decides, which are legal, the events they become, their JSON form."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from random import Random
from typing import Any

from loom.engine.motto.cards import CARD_NAMES, card, cards, shared_values
from loom.engine.motto.rules import to_move, token_names, tokens_won
from loom.engine.motto.state import MottoState
from loom.engine.protocol import CHANCE_TO_MOVE, HIDDEN
from loom.events.base import IllegalAction, Payload
from loom.events.motto import CardsPlayed, DeckCardDrawn, DiscardReshuffled, PoolCardTaken, PoolRefilled, TurnPassed


# Actions: what a player decides. The events they produce name the cards.
@dataclass(frozen=True, slots=True)
class Take:
    card: int


@dataclass(frozen=True, slots=True)
class Draw:
    pass


@dataclass(frozen=True, slots=True)
class Play:
    cards: tuple[int, int, int]


@dataclass(frozen=True, slots=True)
class Pass:
    pass


Action = Take | Draw | Play | Pass


def turn_actions(state: MottoState) -> list[Action]:
    hand = [c for c in state.hands[state.seat] if c != HIDDEN]
    actions: list[Action] = [Take(c) for c in sorted(set(state.pool))]
    if state.deck:
        actions.append(Draw())
    plays = dict.fromkeys(trio for trio in combinations(hand, 3) if shared_values(*trio))
    actions.extend(Play(trio) for trio in plays)
    return actions or [Pass()]


def legal_actions(state: MottoState) -> list[Action]:
    """T4-T6: take a pool card, draw from the deck, play three cards sharing a value; pass only if none."""
    if to_move(state) in (None, CHANCE_TO_MOVE):
        return []
    return turn_actions(state)


def resolve(state: MottoState, action: Action, rng: Random) -> list[Payload]:
    """The event of the seat's action; a deck draw names the top card (or, deck order unknown, one drawn by rng)."""
    match action:
        case Take(card=taken):
            return [PoolCardTaken(card=CARD_NAMES[taken])]
        case Draw():
            if not state.deck:
                raise IllegalAction("the deck is empty")
            drawn = state.deck[0] if state.deck_ordered else rng.choice(state.deck)
            return [DeckCardDrawn(card=CARD_NAMES[drawn])]
        case Play(cards=played):
            won = tokens_won(state.stacks, played)
            return [CardsPlayed(cards=tuple(CARD_NAMES[c] for c in played), tokens=token_names(won))]  # type: ignore[arg-type]
        case Pass():
            return [TurnPassed()]
    raise IllegalAction(f"{action!r} is not a Motto action")


def chance(state: MottoState, rng: Random) -> Payload:
    """T4: reshuffle the discard pile into an empty deck, else refill the pool from the top of the deck."""
    if not state.deck:
        order = list(state.discard)
        rng.shuffle(order)
        return DiscardReshuffled(deck=tuple(CARD_NAMES[c] for c in order))
    drawn = state.deck[0] if state.deck_ordered else rng.choice(state.deck)
    return PoolRefilled(card=CARD_NAMES[drawn])


def parse_action(data: Any) -> Action:
    """An action from JSON: {"type": "take", "card": ...}, {"type": "draw"}, {"type": "play", "cards": [...]}."""
    kind = data.get("type") if isinstance(data, dict) else None
    if kind == "take":
        return Take(card(data.get("card")))
    if kind == "draw":
        return Draw()
    if kind == "play":
        played = cards(data.get("cards"))
        if len(played) != 3:
            raise IllegalAction("a play is exactly three cards (T5)")
        return Play(tuple(sorted(played)))  # type: ignore[arg-type]
    if kind == "pass":
        return Pass()
    raise IllegalAction(f"{data!r} is not a Motto action; use take, draw, play or pass")


def action_json(action: Action) -> dict[str, Any]:
    """The JSON form of an action."""
    match action:
        case Take(card=taken):
            return {"type": "take", "card": CARD_NAMES[taken]}
        case Play(cards=played):
            return {"type": "play", "cards": [CARD_NAMES[c] for c in played]}
        case Draw():
            return {"type": "draw"}
    return {"type": "pass"}
