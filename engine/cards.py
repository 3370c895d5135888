"""Helpers for hands, piles and decks held as tuples of card numbers."""

from __future__ import annotations

from bisect import bisect_right, insort
from collections.abc import Iterable, Sequence


def without(cards: tuple[int, ...], card: int) -> tuple[int, ...]:
    """`cards` with one copy of `card` removed; ValueError if absent."""
    i = cards.index(card)
    return cards[:i] + cards[i + 1 :]


def without_all(cards: tuple[int, ...], removed: Iterable[int]) -> tuple[int, ...]:
    """`cards` with one copy of each of `removed` taken out; ValueError if one is missing."""
    left = list(cards)
    for card in removed:
        left.remove(card)
    return tuple(left)


def with_sorted(cards: tuple[int, ...], *added: int) -> tuple[int, ...]:
    """A sorted tuple `cards` with `added` inserted in order."""
    if len(added) == 1:  # the usual case (a card drawn or taken): two slices, no list
        i = bisect_right(cards, added[0])
        return cards[:i] + added + cards[i:]
    out = list(cards)
    for card in added:
        insort(out, card)
    return tuple(out)


def contains_all(cards: Sequence[int], wanted: Iterable[int]) -> bool:
    """True if `cards` holds every card of `wanted`, counting copies."""
    left = list(cards)
    for card in wanted:
        if card not in left:
            return False
        left.remove(card)
    return True
