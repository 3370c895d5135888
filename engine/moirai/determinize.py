"""Moirai's positions consistent with what a seat has seen (`Game.determinize`)."""

from __future__ import annotations

from random import Random

from loom.engine.moirai.cards import FULL_DECK
from loom.engine.moirai.state import Life, MoiraiState, replace
from loom.engine.protocol import HIDDEN
from loom.engine.unseen import fill, rest, shuffled, unseen


def determinize(state: MoiraiState, seat: int | None, rng: Random) -> MoiraiState:
    """A full position consistent with what `seat` sees in `state` (its view): every card hidden from it (face-down
    cards, others' drawn cards, the deck) dealt at random from the cards it has not seen. A table log's setup starting
    cards, which nobody knows, stay unknown. With `seat` None, `state` is a full position and only what nobody has
    seen (the setup starting cards, the deck's order) is drawn anew."""
    if seat is None:
        return _redeal_setup_and_deck(state, rng)
    seen = [c for loom in state.looms for start, ups, close in loom for c in (start, *ups, close) if c is not None]
    seen += [c for pile_cards in state.piles for c in pile_cards] + list(state.drawn)
    cards = shuffled(unseen(FULL_DECK, seen), rng)
    # A table log without the starting cards keeps them unknown: its deck is then every card not yet named.
    keep_setup = not state.deck_ordered and len(state.deck) > state.deck_left and not state.revealed
    looms = tuple(
        tuple(_dealt_into(life, index == 0 and keep_setup, cards) for index, life in enumerate(loom))
        for loom in state.looms
    )
    drawn = fill(state.drawn, cards)
    deck = rest(cards, len(state.deck), state.deck_ordered, rng)
    return replace(state, looms=looms, drawn=drawn, deck=deck, seed=rng.getrandbits(48))


def _dealt_into(life: Life, keep_start: bool, cards: list[int]) -> Life:
    start, ups, close = life
    if start == HIDDEN and not keep_start:
        start = cards.pop()
    return (start, ups, cards.pop() if close == HIDDEN else close)


def _redeal_setup_and_deck(state: MoiraiState, rng: Random) -> MoiraiState:
    """The setup starting cards nobody has seen and the deck, shuffled together and dealt again."""
    if state.revealed or not state.dealt:
        return state
    starts = [loom[0][0] for loom in state.looms]
    cards = shuffled([*state.deck, *(c for c in starts if c != HIDDEN)], rng)
    looms = tuple(
        loom if start == HIDDEN else ((cards.pop(), *loom[0][1:]),) + loom[1:]
        for start, loom in zip(starts, state.looms)
    )
    return replace(state, looms=looms, deck=rest(cards, len(state.deck), state.deck_ordered, rng))
