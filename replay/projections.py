"""Projections: tables derived from events, kept as games are recorded and rebuilt from events at any time."""

from __future__ import annotations

import json
from typing import Any

from loom.engine.play import Step
from loom.engine.protocol import Game
from loom.engine.registry import get_game
from loom.replay.facts import facts_of
from loom.replay.replay import fold
from loom.replay.store import ResultInfo, Store, StoredResult


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


def rebuild(store: Store) -> int:
    """Recompute the results, turn facts and game facts of every game from its events; the number of games.

    A branch's facts cover only its own events, as they do when it is recorded."""
    results: list[StoredResult] = []
    ids, facts = [], []
    for game_id, name, fork_seq in store.all_games():
        game = get_game(name)
        events = store.load(game_id)
        shared = [e for e in events if e.seq <= (fork_seq or 0)]
        own = [Step(e.turn, e.actor, e.payload) for e in events if e.seq > (fork_seq or 0)]
        start = fold(game, shared)
        found = facts_of(game, start, own, fork_seq or 0, count_choices=True)
        state = fold(game, events[len(shared) :], start)
        if game.to_move(state) is None:
            results += [StoredResult(game_id, *row) for row in result_rows(game, state)]
        ids.append(game_id)
        facts.append(found)
    with store.transaction():
        store.replace_results(results)
        store.replace_facts(ids, facts)
    return len(ids)
