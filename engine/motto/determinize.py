"""Motto's positions consistent with what a seat has seen (`Game.determinize`)."""

from __future__ import annotations

from random import Random

from loom.engine.motto.cards import FULL_DECK
from loom.engine.motto.state import MottoState, replace
from loom.engine.unseen import fill, rest, shuffled, unseen


def determinize(state: MottoState, seat: int | None, rng: Random) -> MottoState:
    """A full position consistent with what `seat` sees in `state` (its view): the cards hidden from it (the rest of
    others' hands, the deck) dealt at random from the cards it has not seen. With `seat` None, `state` is a full
    position and only what nobody has seen, the deck's order, is drawn anew."""
    if seat is None:
        return replace(state, deck=rest(list(state.deck), len(state.deck), state.deck_ordered, rng))
    seen = [c for hand in state.hands for c in hand] + list(state.pool) + list(state.discard)
    cards = shuffled(unseen(FULL_DECK, seen), rng)
    hands = tuple(tuple(sorted(fill(hand, cards))) for hand in state.hands)
    deck = rest(cards, len(state.deck), state.deck_ordered, rng)
    return replace(state, hands=hands, deck=deck, seed=rng.getrandbits(48))
