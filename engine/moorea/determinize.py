"""Moorea's determinization: a full position consistent with what one seat sees (its view), for search and rollouts.

A view hides the other hands, the commodity deck and the product pile. Commodities are counted: the 75 of R3 are
in hands, the deck, the discard pile, face up or laid at stores. Product cards not in the layout nor owned are in
the pile or were bought as intermediate products (stoneware, huts, canoes) that went into a hand, to a store, or
out of the game (R8); the intermediates the seat cannot account for are in other hands.
"""

from __future__ import annotations

from random import Random

from loom.engine.moorea.cards import FULL_DECK, HAND_CARDS, N_COMMODITIES, PRODUCTS, in_game
from loom.engine.moorea.state import MooreaState, replace
from loom.engine.unseen import rest, shuffled, unseen
from loom.events.base import IllegalAction

INTERMEDIATE_CODES = range(N_COMMODITIES, len(HAND_CARDS))


def determinize(state: MooreaState, seat: int | None, rng: Random) -> MooreaState:
    """A full position consistent with what `seat` sees in `state` (its view): others' hands, the deck and the pile
    dealt at random from what it has not seen. With `seat` None, `state` is a full position and only what nobody
    has seen, the order of the deck and of the pile, is drawn anew."""
    if seat is None:
        deck = rest(list(state.deck), len(state.deck), state.deck_ordered, rng)
        return replace(state, deck=deck, pile=_pile_order(list(state.pile), state.pile_ordered, rng))
    laid = [code for seat_laid in state.laid for _, code in seat_laid]
    seen = [c for c in (*state.hands[seat], *laid) if c < N_COMMODITIES] + [*state.face_up, *state.discard]
    commodities = shuffled(unseen(FULL_DECK, seen), rng)
    slots = sum(len(hand) for s, hand in enumerate(state.hands) if s != seat)
    held = slots + len(state.deck) - len(commodities)  # intermediate products in the other hands
    pile, intermediates = _split_products(state, seat, held, rng)
    hidden = shuffled([*intermediates, *commodities[: slots - held]], rng)
    hands = tuple(
        hand if s == seat else tuple(sorted(hidden.pop() for _ in hand)) for s, hand in enumerate(state.hands)
    )
    deck = rest(commodities[slots - held :], len(state.deck), state.deck_ordered, rng)
    return replace(state, hands=hands, deck=deck, pile=pile, seed=rng.getrandbits(48))


def _split_products(state: MooreaState, seat: int, held: int, rng: Random) -> tuple[tuple[int, ...], list[int]]:
    """The pile, and the hand codes of the `held` intermediate products in other hands, drawn from the product cards
    the seat cannot place. Pile I's cards leave the pile first (R3), so they are the likelier to have been bought."""
    owned = [p for seat_owned in state.owned for p in seat_owned]
    hidden_products = unseen(in_game(len(state.players)), [*state.layout, *owned])
    accounted = [0] * len(HAND_CARDS)  # intermediates known bought: in the seat's hand, at stores, out of the game
    for code in (*state.hands[seat], *(c for seat_laid in state.laid for _, c in seat_laid), *state.removed):
        accounted[code] += 1
    bought: list[int] = []
    spare: list[int] = []
    for code in INTERMEDIATE_CODES:
        candidates = _pile_i_first([p for p in hidden_products if PRODUCTS[p].hand_code == code], rng)
        if len(candidates) < accounted[code]:
            raise IllegalAction(f"the position shows more {HAND_CARDS[code]} cards than the game holds")
        bought += candidates[: accounted[code]]
        spare += candidates[accounted[code] :]
    spare = _pile_i_first(spare, rng)
    if len(hidden_products) - len(bought) - len(state.pile) != held or held > len(spare):
        raise IllegalAction("the position's hands, deck and pile do not add up to Moorea's cards")
    others = spare[:held]
    gone = set(bought) | set(others)
    pile = _pile_order([p for p in hidden_products if p not in gone], state.pile_ordered, rng)
    return pile, [PRODUCTS[p].hand_code for p in others]


def _pile_i_first(products: list[int], rng: Random) -> list[int]:
    """The products in a random order, pile I's before pile II's."""
    return sorted(products, key=lambda p: (PRODUCTS[p].pile, rng.random()))


def _pile_order(pile: list[int], ordered: bool, rng: Random) -> tuple[int, ...]:
    """R3: pile I shuffled on top of pile II shuffled; a table's pile is only its set of cards, sorted."""
    if not ordered:
        return tuple(sorted(pile))
    first = shuffled((p for p in pile if PRODUCTS[p].pile == 0), rng)
    return tuple(first + shuffled((p for p in pile if PRODUCTS[p].pile == 1), rng))
