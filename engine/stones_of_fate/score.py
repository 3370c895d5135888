"""Stones of Fate's score (S11): card points with their scoring rules (S1), the winners, and who holds Death (S2)."""

from __future__ import annotations

from collections.abc import Sequence

from loom.engine.stones_of_fate.cards import DEATH, IS_MAJOR, POINTS, SCORING, SUIT_OF
from loom.engine.stones_of_fate.state import StonesState


def card_points(held: int, collection: Sequence[int]) -> int:
    """S11: a card's points in this collection, its scoring rule applied (S1)."""
    rule = SCORING[held]
    if rule is None:
        return POINTS[held]
    kind, suit, count, points = rule
    if kind == "set":
        return points if sum(SUIT_OF[c] == suit for c in collection) >= count else POINTS[held]
    if kind == "per-suit":
        return POINTS[held] + points * sum(SUIT_OF[c] == suit for c in collection)
    return POINTS[held] + points * sum(IS_MAJOR[c] for c in collection)


def scores(state: StonesState) -> list[int]:
    """S11: the sum of each collected card's points, scoring rules applied."""
    return [sum(card_points(c, held) for c in held) for held in state.collections]


def death_holder(state: StonesState) -> int | None:
    """The seat holding Death, if any."""
    return next((s for s, held in enumerate(state.collections) if DEATH in held), None)


def tied_for_first(state: StonesState) -> list[int]:
    """The seats sharing the highest score."""
    points = scores(state)
    best = max(points, default=0)
    return [s for s, p in enumerate(points) if p == best]


def winners(state: StonesState) -> list[int]:
    """S11: the highest score; tied: the most cards; still tied: a shared victory."""
    points = scores(state)
    best = max((p, len(held)) for p, held in zip(points, state.collections))
    return [s for s, (p, held) in enumerate(zip(points, state.collections)) if (p, len(held)) == best]


def breakdown(state: StonesState) -> list[dict[str, int]]:
    """Points per seat from printed card points and from scoring rules, and the cards and Major Arcana held."""
    out = []
    for held in state.collections:
        printed = sum(POINTS[c] for c in held)
        total = sum(card_points(c, held) for c in held)
        out.append(
            {"printed": printed, "rules": total - printed, "cards": len(held), "major": sum(IS_MAJOR[c] for c in held)}
        )
    return out
