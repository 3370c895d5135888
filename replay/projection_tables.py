"""The projections' tables as the store writes them: results, turn facts, game facts and the projector's positions.

A game projected up to an event inside a turn has that turn's rows so far: the projector's next pass over the game
merges its decisions into them (`merged`), so a game recorded action by action gets the same rows as one recorded at
once.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from itertools import repeat
from operator import itemgetter
from typing import Any

from loom.replay import queries
from loom.replay.columns import arrow_table
from loom.replay.connection import Connection
from loom.replay.facts import GAME_FACT_FIELDS, TURN_FACT_FIELDS, Facts
from loom.replay.records import ResultInfo, StoredResult


def insert_results(db: Connection, rows: Sequence[StoredResult]) -> None:
    """Add rows to the results projection."""
    batch = arrow_table("results", by_column(StoredResult._fields, rows))
    db.insert("results", batch)


def results_of(game_ids: Sequence[int], results: Sequence[Sequence[ResultInfo]]) -> list[StoredResult]:
    """Each game's results with its id."""
    return [StoredResult(game_id, *row) for game_id, rows in zip(game_ids, results) for row in rows]


def insert_facts(db: Connection, game_ids: Sequence[int], facts: Sequence[Facts]) -> None:
    """Add the turn and game facts of these games."""
    for table, columns in fact_columns(game_ids, facts).items():
        db.insert(table, arrow_table(table, columns))


def fact_columns(game_ids: Sequence[int], facts: Sequence[Facts]) -> dict[str, dict[str, list[Any]]]:
    """The rows of the turn and game facts of these games, column by column, per table."""
    # Straight to columns: a simulation's batch has as many turn facts as events, and a tuple per row with its game
    # id, transposed afterwards, cost more than the insert itself.
    tables = {}
    for table, fields, rows_of in (
        ("turn_facts", TURN_FACT_FIELDS, lambda f: f.turns),
        ("game_facts", GAME_FACT_FIELDS, lambda f: f.notable),
    ):
        ids: list[int] = []
        rows: list[Sequence[Any]] = []
        for game_id, found in zip(game_ids, facts):
            own = rows_of(found)
            ids += repeat(game_id, len(own))
            rows += own
        tables[table] = {"game_id": ids} | by_column(fields, rows)
    return tables


def move_positions(db: Connection, game_ids: Sequence[int], seqs: Sequence[int]) -> None:
    """Record that these games' facts now cover their events up to these seqs (the projector's pass; new games
    stored with their facts have their positions in their batch, `writing.batch_of`)."""
    batch = arrow_table("projected", {"game_id": list(game_ids), "seq": list(seqs)})
    db.insert("projected", batch, queries.MOVE_POSITIONS)


def replace_results_of(db: Connection, game_ids: Sequence[int], rows: Sequence[StoredResult]) -> None:
    """The results of these games, replacing their earlier ones (a rebuild's batch)."""
    with db.written():
        db.run(queries.DELETE_RESULTS_OF, [list(game_ids)])
        insert_results(db, rows)


def forget_facts(db: Connection) -> None:
    """Empty the turn and game facts and set every game's position back to its start: a rebuild's first step."""
    with db.written():
        db.run(queries.DELETE_FACTS)
        db.run(queries.FORGET_POSITIONS)


def merged(db: Connection, game_ids: Sequence[int], facts: Sequence[Facts]) -> list[Facts]:
    """Each game's `facts` of events after its projected position, with the decisions already stored for the turn
    they continue, whose rows go: one read and one delete for all the games."""
    going = [(game_id, found.turns[0][0]) for game_id, found in zip(game_ids, facts) if found.turns]
    if not going:
        return list(facts)
    ids, turns = [game_id for game_id, _ in going], [turn for _, turn in going]
    span = [min(ids), max(ids)]
    before: dict[int, dict[int, tuple[int, int]]] = {}
    for game_id, seat, decisions, choices in db.run(queries.TURNS_DECISIONS, [ids, turns, *span]):
        before.setdefault(game_id, {})[seat] = (decisions, choices)
    if not before:
        return list(facts)
    db.run(queries.DELETE_TURNS_FACTS, [ids, turns, *span])
    return [
        _continued(found, before[game_id]) if game_id in before else found for game_id, found in zip(game_ids, facts)
    ]


def _continued(facts: Facts, before: dict[int, tuple[int, int]]) -> Facts:
    """`facts` whose first turn continues a turn whose rows so far held the decisions `before` (by seat)."""
    turn = facts.turns[0][0]
    turns = [
        (t, seat, score, leads, decisions + before[seat][0], choices + before[seat][1])
        if t == turn and seat in before
        else (t, seat, score, leads, decisions, choices)
        for t, seat, score, leads, decisions, choices in facts.turns
    ]
    return replace(facts, turns=turns)


def by_column(names: Sequence[str], rows: Sequence[Sequence[Any]]) -> dict[str, list[Any]]:
    """Rows (tuples in the order of `names`) as lists by column name, what an Arrow table is made of."""
    # A column at a time by itemgetter: several times faster than transposing with zip(*rows) for large batches.
    return {name: list(map(itemgetter(k), rows)) for k, name in enumerate(names)}
