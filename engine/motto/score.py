"""Motto's score (T8)."""

from __future__ import annotations

from loom.engine.motto.state import MottoState

# --- Score (T8) -----------------------------------------------------------------------------------------------------


def scores(state: MottoState) -> list[int]:
    """T8: 3 per large, 2 per medium, 1 per small token."""
    return [sum(points for _, points in won) for won in state.tokens]


def winners(state: MottoState) -> list[int]:
    """T8: the highest score wins; ties are shared victories."""
    points = scores(state)
    best = max(points, default=0)
    return [seat for seat, p in enumerate(points) if p == best]


def breakdown(state: MottoState) -> list[dict[str, int]]:
    """Points per seat from symbol, number and colour tokens, and the count of each token size."""
    out = []
    for won in state.tokens:
        row = {"symbol": 0, "number": 0, "colour": 0, "large": 0, "medium": 0, "small": 0}
        for value, points in won:
            row[("symbol", "number", "colour")[value // 3]] += points
            row[("small", "medium", "large")[points - 1]] += 1
        out.append(row)
    return out
