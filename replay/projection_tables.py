"""The projections' tables as the store writes them: results, turn facts and game facts.

An append that ends inside a turn has written that turn's rows so far: the next append merges its decisions into
them (`merged`), so a game recorded action by action gets the same rows as one recorded at once.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from loom.replay import queries
from loom.replay.columns import arrow_table
from loom.replay.connection import Connection
from loom.replay.facts import GAME_FACT_FIELDS, TURN_FACT_FIELDS, Facts
from loom.replay.records import ResultInfo, StoredResult


def insert_results(db: Connection, rows: Sequence[StoredResult]) -> None:
    """Add rows to the results projection."""
    batch = arrow_table("results", by_column(StoredResult._fields, rows))
    db.insert("new_results", queries.insert_batch("results"), batch)


def results_of(game_ids: Sequence[int], results: Sequence[Sequence[ResultInfo]]) -> list[StoredResult]:
    """Each game's results with its id."""
    return [StoredResult(game_id, *row) for game_id, rows in zip(game_ids, results) for row in rows]


def insert_facts(db: Connection, game_ids: Sequence[int], facts: Sequence[Facts]) -> None:
    """Add the turn and game facts of these games."""
    turns = [(i, *row) for i, f in zip(game_ids, facts) for row in f.turns]
    notable = [(i, *row) for i, f in zip(game_ids, facts) for row in f.notable]
    db.insert(
        "new_turn_facts",
        queries.insert_batch("turn_facts"),
        arrow_table("turn_facts", by_column(("game_id", *TURN_FACT_FIELDS), turns)),
    )
    db.insert(
        "new_game_facts",
        queries.insert_batch("game_facts"),
        arrow_table("game_facts", by_column(("game_id", *GAME_FACT_FIELDS), notable)),
    )


def merged(db: Connection, game_id: int, facts: Facts) -> Facts:
    """`facts` of an append, with the decisions already stored for the turn it continues, whose rows go."""
    if not facts.turns:
        return facts
    turn = facts.turns[0][0]
    before = {seat: (d, c) for seat, d, c in db.run(queries.TURN_DECISIONS, [game_id, turn])}
    if not before:
        return facts
    db.run(queries.DELETE_TURN_FACTS, [game_id, turn])
    turns = [
        (t, seat, score, leads, decisions + before[seat][0], choices + before[seat][1])
        if t == turn and seat in before
        else (t, seat, score, leads, decisions, choices)
        for t, seat, score, leads, decisions, choices in facts.turns
    ]
    return replace(facts, turns=turns)


def replace_results(db: Connection, rows: Sequence[StoredResult]) -> None:
    """Rebuild the results projection from scratch with these rows."""
    with db.written():
        db.run(queries.DELETE_RESULTS)
        insert_results(db, rows)


def replace_facts(db: Connection, game_ids: Sequence[int], facts: Sequence[Facts]) -> None:
    """Rebuild the turn and game facts projections from scratch with the facts of these games."""
    with db.written():
        db.run(queries.DELETE_FACTS)
        insert_facts(db, game_ids, facts)


def by_column(names: Sequence[str], rows: Sequence[Sequence[Any]]) -> dict[str, list[Any]]:
    """Rows (tuples in the order of `names`) as lists by column name, what an Arrow table is made of."""
    columns = [list(column) for column in zip(*rows)] if rows else [[] for _ in names]
    return dict(zip(names, columns))
