"""Stones of Fate's determinization: a full position consistent with what one seat sees (its view).

The cards nobody holds face up, in a collection or in the discard pile are the face-down cards of the spread, the
deck (S3: 8 cards per player) and the cards that left the game at the setup; a seat knows the face-down cards it saw
at the deal or peeked at, and a top card of the deck it peeked at.
"""

from __future__ import annotations

from random import Random

from loom.engine.protocol import HIDDEN
from loom.engine.stones_of_fate.cards import FULL_DECK
from loom.engine.stones_of_fate.state import StonesState, replace
from loom.engine.unseen import shuffled, unseen
from loom.events.base import IllegalAction


def determinize(state: StonesState, seat: int | None, rng: Random) -> StonesState:
    """A full position consistent with what `seat` sees in `state` (its view): the face-down cards it does not know
    and the deck dealt at random from the cards it has not seen (the other seats are taken to know what it knows).
    With `seat` None, `state` is a full position and only what nobody has seen is drawn anew: the deck, and the
    face-down cards no seat knows."""
    if seat is None:
        hidden = [
            p
            for p, c in enumerate(state.spread)
            if c >= 0 and p not in state.face_up and all(k[p] == HIDDEN for k in state.known)
        ]
        top = next((t for t in state.known_top if t != HIDDEN), HIDDEN)
        known = state.known
    else:
        hidden = [p for p, c in enumerate(state.spread) if c == HIDDEN]
        top = state.deck_top
        known = (state.known[seat],) * len(state.players) if state.known else ()
    seed = state.seed if seat is None else rng.getrandbits(48)
    return replace(_deal(state, hidden, top, rng), known=known, seed=seed)


def _deal(state: StonesState, hidden: list[int], top: int, rng: Random) -> StonesState:
    """The spread's `hidden` places and the deck (under a known `top` card) dealt from the cards not seen."""
    seen = [c for p, c in enumerate(state.spread) if c >= 0 and p not in hidden]
    seen += [c for held in state.collections for c in held] + list(state.discard)
    tops = [] if top == HIDDEN else [top]
    cards = shuffled(unseen(FULL_DECK, seen + tops), rng)
    spread = list(state.spread)
    for p in hidden:
        spread[p] = cards.pop()
    if not state.deck_ordered:  # a table's deck is every unseen card; chance draws from it at random
        return replace(state, spread=tuple(spread), deck=tuple(sorted(tops + cards)), deck_top=top)
    under = state.deck_size - len(tops)
    if under < 0 or len(cards) < under:
        raise IllegalAction(f"the position's deck of {state.deck_size} cards cannot be dealt from the unseen cards")
    return replace(state, spread=tuple(spread), deck=tuple(tops + cards[:under]), deck_top=HIDDEN)
