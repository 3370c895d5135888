"""Bots every game can use."""

from __future__ import annotations

from collections.abc import Sequence
from random import Random
from typing import Any


class RandomBot:
    """Uniform over the legal actions; reproducible from its rng."""

    def choose(self, view: Any, legal: Sequence[Any], rng: Random) -> Any:
        """Any legal action, each equally likely."""
        return legal[rng.randrange(len(legal))]
