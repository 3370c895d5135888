"""Projections: tables derived from events, kept as games are recorded and rebuilt from events at any time."""

from __future__ import annotations

import json
from typing import Any

from engine.protocol import Game
from engine.registry import get_game
from replay.replay import fold
from replay.store import Store

ResultRow = tuple[int, int, int, bool, str]


def result_rows(game: Game, state: Any) -> list[ResultRow]:
    """(seat, score, rank, winner, breakdown JSON) of a finished game."""
    scores, winners, parts = game.scores(state), set(game.winners(state)), game.breakdown(state)
    rows = []
    for seat, score in enumerate(scores):
        # Competition ranking: the winners first (a tie-break may have settled them), then by score.
        beaten_by = len(winners) + sum(1 for s, other in enumerate(scores) if s not in winners and other > score)
        rank = 1 if seat in winners else 1 + beaten_by
        rows.append((seat, score, rank, seat in winners, json.dumps(parts[seat], separators=(",", ":"))))
    return rows


def rebuild_results(store: Store) -> int:
    """Recompute the results of every finished game from its events; the number of games."""
    rows = []
    finished = store.finished_games()
    for game_id, name in finished:
        game = get_game(name)
        state = fold(game, store.load(game_id))
        rows += [(game_id, *row) for row in result_rows(game, state)]
    store.replace_results(rows)
    return len(finished)
