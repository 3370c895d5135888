"""Where the cards of a turn may go: every placement of one card, and a bounded family of arrangements of a pile.

Option 2 (M8) places a whole pile, in any order, at most one card face down; with p cards and L open lives there
are up to (L + 2)^p arrangements, far too many to list for a bot. `pile_arrangements` therefore lists every
arrangement of a one-card pile, and for a larger pile a deterministic family of sensible ones, each built by the
same rule ("tight fit": the face-up cards go in increasing order, each onto the open life whose last face-up card is
the highest one below it, so no room is wasted):
- no card face down, all tight fit; and all cards onto one single life, for each life that can take them all;
- for each candidate face-down card (every card of a pile of up to four, else its lowest and its highest):
  it opens a new life first, then the rest tight fit, or all of the rest continue that new life;
  or the rest tight fit and it then closes a life, for each life that can be closed.
Arrangements that cannot be made are left out; duplicates are kept once. `rules.check` accepts any legal arrangement,
listed here or not.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from loom.engine.moirai.cards import CLOSE, OPEN, UP
from loom.engine.moirai.state import Loom
from loom.events.moirai import Placement

ALL_DOWN_CANDIDATES = 4
"""Piles of up to this many cards try each card face down; larger piles try only their lowest and highest."""


def open_tails(loom: Loom) -> list[tuple[int, int]]:
    """(life number, last face-up card or -1) of each open life."""
    return [(n, cards[-1] if cards else -1) for n, (_, cards, close) in enumerate(loom, start=1) if close is None]


def single_placements(loom: Loom, card: int) -> list[Placement]:
    """M5, M6: face up on each open life it may follow, face down opening a new life, face down closing each open
    life that holds a face-up card."""
    tails = open_tails(loom)
    ups = [(card, UP, n) for n, last in tails if card > last]
    closes = [(card, CLOSE, n) for n, (_, cards, close) in enumerate(loom, start=1) if close is None and cards]
    return [*ups, (card, OPEN, len(loom) + 1), *closes]


def tight_fit(tails: list[tuple[int, int]], cards: Iterable[int]) -> list[Placement] | None:
    """The increasing `cards` face up, each onto the life whose last card is the highest below it; None if one fits
    nowhere. `tails` is (life, last card) of the open lives and is not changed."""
    lasts = dict(tails)
    placed: list[Placement] = []
    for card in sorted(cards):
        below = [(last, -n) for n, last in lasts.items() if last < card]
        if not below:
            return None
        _, negative = max(below)
        lasts[-negative] = card
        placed.append((card, UP, -negative))
    return placed


def _onto(life: int, last: int, cards: Sequence[int]) -> list[Placement] | None:
    ordered = sorted(cards)
    if ordered and ordered[0] <= last:
        return None
    return [(card, UP, life) for card in ordered]


def _closable(tails: list[tuple[int, int]], placed: list[Placement]) -> list[int]:
    filled = {life for _, _, life in placed}
    return [n for n, last in tails if last >= 0 or n in filled]


def _with_down(loom: Loom, tails: list[tuple[int, int]], down: int, rest: list[int]) -> Iterable[list[Placement]]:
    new = len(loom) + 1
    opener: Placement = (down, OPEN, new)
    fitted = tight_fit([*tails, (new, -1)], rest)
    if fitted is not None:
        yield [opener, *fitted]
    yield [opener, *(_onto(new, -1, rest) or [])]
    fitted = tight_fit(tails, rest)
    if fitted is not None:
        for life in _closable(tails, fitted):
            yield [*fitted, (down, CLOSE, life)]


def pile_arrangements(loom: Loom, cards: Sequence[int]) -> list[tuple[Placement, ...]]:
    """The arrangements offered to bots for taking a pile (see the module's docstring), in a deterministic order."""
    if len(cards) == 1:
        return [(p,) for p in single_placements(loom, cards[0])]
    tails = open_tails(loom)
    found: list[list[Placement]] = []
    fitted = tight_fit(tails, cards)
    if fitted is not None:
        found.append(fitted)
    found += [placed for n, last in tails if (placed := _onto(n, last, cards)) is not None]
    ordered = sorted(cards)
    downs = ordered if len(ordered) <= ALL_DOWN_CANDIDATES else [ordered[0], ordered[-1]]
    for down in downs:
        rest = [c for c in ordered if c != down]
        found += _with_down(loom, tails, down, rest)
    return list(dict.fromkeys(tuple(placed) for placed in found))
