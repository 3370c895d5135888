"""Projections: tables derived from events, kept by the projector (replay/projector.py) and rebuilt at any time."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from loom.engine.protocol import Game
from loom.replay.store import ResultInfo, Store


def result_rows(game: Game, state: Any) -> list[ResultInfo]:
    """The results rows of a finished game, a seat each."""
    scores, winners, parts = game.scores(state), set(game.winners(state)), game.breakdown(state)
    rows = []
    for seat, score in enumerate(scores):
        # Competition ranking: the winners first (a tie-break may have settled them), then by score.
        beaten_by = len(winners) + sum(1 for s, other in enumerate(scores) if s not in winners and other > score)
        rank = 1 if seat in winners else 1 + beaten_by
        rows.append(ResultInfo(seat, score, rank, seat in winners, json.dumps(parts[seat], separators=(",", ":"))))
    return rows


def rebuild(store: Store, progress: Callable[[int], None] = lambda done: None) -> int:
    """Recompute the results, turn facts and game facts of every game from its events; the number of games.

    The projector from position 0 (replay/projector.py), `progress` told the games of each batch. A branch's facts
    cover only its own events, as they do when it is recorded."""
    from loom.replay.projector import rebuild as from_the_start  # the projector replays games: it imports this module

    return from_the_start(store, progress)
