"""A recorded game as JSON: one shape for `logs list`, `logs show`, `GET /games` and `GET /games/{id}` (README)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from loom.replay.store import GameInfo, ResultInfo


def game_json(
    info: GameInfo,
    winners: Sequence[int] | None = None,
    results: Sequence[ResultInfo] | None = None,
    *,
    seed: bool = False,
) -> dict[str, Any]:
    """A game (`info` with its seats) as JSON; `scores` and `breakdown` too when its `results` are given.

    A list passes each game's `winners` (one query for a whole page); a game's own page passes its `results`, which
    give the winners as well. Winners, scores and breakdown are lists indexed by seat once the game is finished, and
    null before. `seed` adds the game's seed, for a reader who may see the whole log: it decides the unseen cards.
    """
    finished = info.status == "finished"
    if results is not None:
        winners = [r.seat for r in results if r.winner]
    data: dict[str, Any] = {
        "id": info.id,
        "game": info.game,
        "players": [seat.name for seat in info.seats],
        "bots": [seat.bot for seat in info.seats],
        "status": info.status,
        "source": info.source,
        "turns": info.turns,  # turns begun: turn 1 is the first player's first (DESIGN.md contract 5); 0 at setup
        "seq": info.last_seq,
        "parent": info.parent_id,
        "fork_seq": info.fork_seq,
        "created_at": info.created_at.isoformat(),
        "winners": list(winners or []) if finished else None,
        "tags": info.tags(),  # the log header's tags that are set: date (played), place, event, round, notes
    }
    if results is not None:
        by_seat = sorted(results, key=lambda r: r.seat)
        data["scores"] = [r.score for r in by_seat] if finished and results else None
        data["breakdown"] = [json.loads(r.breakdown) for r in by_seat] if finished and results else None
    if seed:
        data["seed"] = info.seed
    return data
