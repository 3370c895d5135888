"""Moirai's notable facts: none beyond its results, whose breakdown already gives the points of every objective."""

from __future__ import annotations

from typing import Any

from loom.events.base import Payload

Fact = tuple[int | None, str, str, int]


def facts(before: Any, payload: Payload, after: Any) -> tuple[Fact, ...]:
    """Moirai's dashboards read the points by objective from the results; no event adds a fact."""
    return ()
