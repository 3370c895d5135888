"""Projections: tables derived from events, kept by the projector (replay/projector.py) and rebuilt at any time."""

from __future__ import annotations

import json
from typing import Any

from loom.engine.protocol import Game
from loom.replay.store import ResultInfo

_compact = json.JSONEncoder(separators=(",", ":")).encode
"""`json.dumps(..., separators=(",", ":"))` without a new encoder each call (which costs five times the encoding)."""


def result_rows(game: Game, state: Any) -> list[ResultInfo]:
    """The results rows of a finished game, a seat each."""
    scores, winners, parts = game.scores(state), set(game.winners(state)), game.breakdown(state)
    rows = []
    for seat, score in enumerate(scores):
        # Competition ranking: the winners first (a tie-break may have settled them), then by score.
        beaten_by = len(winners) + sum(1 for s, other in enumerate(scores) if s not in winners and other > score)
        rank = 1 if seat in winners else 1 + beaten_by
        rows.append(ResultInfo(seat, score, rank, seat in winners, _compact(parts[seat])))
    return rows
