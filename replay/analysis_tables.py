"""The win chances and key moments of `logs analyse`: one game's rows replaced together, read back by name."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from loom.replay import queries
from loom.replay.columns import arrow_table
from loom.replay.connection import Connection
from loom.replay.projection_tables import by_column
from loom.replay.reading import build
from loom.replay.records import KeyMoment, WinChance

if TYPE_CHECKING:
    import pandas as pd


def replace_analysis(db: Connection, game_id: int, chances: Sequence[WinChance], moments: Sequence[KeyMoment]) -> None:
    """A game's win-chance curve and its key moments, replacing its earlier ones."""
    with db.written():
        db.run(queries.DELETE_WIN_CHANCES, [game_id])
        db.run(queries.DELETE_KEY_MOMENTS, [game_id])
        for table, record, rows in (("win_chances", WinChance, chances), ("key_moments", KeyMoment, moments)):
            columns = by_column(record._fields, rows)
            batch = arrow_table(table, {"game_id": [game_id] * len(rows), **columns})
            db.insert(table, batch)


def win_chances(db: Connection, game_id: int) -> list[WinChance]:
    """The stored win-chance curve of a game, by seq and seat."""
    names, rows = db.named(queries.WIN_CHANCES, [game_id])
    return [build(WinChance, names, row) for row in rows]


def key_moments(db: Connection, game_id: int) -> list[KeyMoment]:
    """The stored key moments of a game, by seq."""
    names, rows = db.named(queries.KEY_MOMENTS, [game_id])
    return [build(KeyMoment, names, row) for row in rows]


def win_chance_frame(db: Connection, game_id: int) -> pd.DataFrame:
    """The stored win-chance curve of a game as a DataFrame (a column per field of WinChance)."""
    return db.frame(queries.WIN_CHANCES, [game_id])


def key_moment_frame(db: Connection, game_id: int) -> pd.DataFrame:
    """The stored key moments of a game as a DataFrame (a column per field of KeyMoment)."""
    return db.frame(queries.KEY_MOMENTS, [game_id])
