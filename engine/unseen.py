"""Helpers of every game's `determinize`: the cards a viewer has not seen, and dealing them into hidden places."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from random import Random

from loom.engine.protocol import HIDDEN
from loom.events.base import IllegalAction


def unseen(full: Iterable[int], seen: Iterable[int]) -> list[int]:
    """The cards of the multiset `full` left once every card of `seen` is taken out (HIDDEN ones are skipped);
    sorted. IllegalAction if `seen` shows a card more often than the game has it: the position is not a real one."""
    left = Counter(full)
    for card in seen:
        if card == HIDDEN:
            continue
        left[card] -= 1
        if left[card] < 0:
            raise IllegalAction(f"the position shows card {card} more often than the game holds it")
    return sorted(left.elements())


def shuffled(cards: Iterable[int], rng: Random) -> list[int]:
    """The cards in a random order."""
    out = list(cards)
    rng.shuffle(out)
    return out


def fill(row: Sequence[int], cards: list[int]) -> tuple[int, ...]:
    """`row` with each HIDDEN card replaced by the next card popped from the end of `cards`."""
    return tuple(cards.pop() if card == HIDDEN else card for card in row)


def rest(cards: list[int], size: int, ordered: bool, rng: Random) -> tuple[int, ...]:
    """The `size` cards left in `cards` as a deck: in a random order when the deck's order is known, else sorted (a
    table's deck is only the set of unseen cards, and chance draws from it at random)."""
    if len(cards) != size:
        raise IllegalAction(f"the position hides {size} deck cards but {len(cards)} cards are unaccounted for")
    return tuple(shuffled(cards, rng)) if ordered else tuple(sorted(cards))
