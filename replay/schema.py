"""The tables of a Loom database, as SQLModel classes, and the DDL that creates them in DuckDB.

Only table definitions live here, and they are the only ones: replay/columns.py reads each table's columns, key
and kind from these classes' source for the SELECT lists, the Arrow schemas and the statements creating the tables.
Reads and writes go through DuckDB's own API (replay/store.py), because the ORM would be orders of magnitude slower
on bulk paths. No command imports this module (the ORM takes a third of a second to load): the tests do, to check
that what columns.py reads is what the ORM makes of it. It imports nothing of Loom's.
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime

from sqlalchemy import BigInteger, Column, MetaData, Table
from sqlalchemy.schema import CreateTable
from sqlmodel import Field, SQLModel


class GameRow(SQLModel, table=True):
    """One game: a root game or a branch of another (parent + fork_seq; the prefix is the parent's)."""

    __tablename__ = "games"
    id: int = Field(primary_key=True, sa_column_kwargs={"autoincrement": False})
    game: str = Field(description="the game's command-line name: motto, moirai, moorea, stones-of-fate")
    players: int
    status: str = Field(description="open or finished")
    source: str = Field(description="simulated, imported, branch or live")
    parent_id: int | None = Field(default=None, description="the game this one branches from")
    fork_seq: int | None = Field(default=None, description="the last event shared with the parent")
    last_seq: int = 0
    turns: int = 0
    seed: int = Field(default=0, sa_type=BigInteger, description="the recorded seed of chance not fixed by the log")
    rules_version: int = 1
    created_at: datetime
    fingerprint: str | None = Field(
        default=None, description="the hash of its content (replay/fingerprint.py); NULL until computed"
    )
    played: str | None = Field(default=None, description="the day it was played, YYYY-MM-DD (the log's `date`)")
    place: str | None = Field(default=None, description="where it was played (the log header's tags)")
    event: str | None = Field(default=None, description="the event it was played at")
    round: str | None = Field(default=None, description="the round of that event")
    notes: str | None = Field(default=None, description="free notes")


class SeatRow(SQLModel, table=True):
    """Who sat where: seats are numbered from 0 in turn order."""

    __tablename__ = "seats"
    game_id: int = Field(primary_key=True, sa_column_kwargs={"autoincrement": False})
    seat: int = Field(primary_key=True, sa_column_kwargs={"autoincrement": False})
    name: str
    bot: str | None = None


class EventRow(SQLModel, table=True):
    """An immutable fact. A branch stores only the events after its fork; seq continues the parent's numbering.

    Stored without a key index (see UNKEYED): (game_id, seq) is unique because the writer makes it so."""

    __tablename__ = "events"
    game_id: int = Field(primary_key=True, sa_column_kwargs={"autoincrement": False})
    seq: int = Field(primary_key=True, sa_column_kwargs={"autoincrement": False})
    turn: int
    actor: int | None = Field(default=None, description="the seat that acted; NULL for chance")
    type: str
    version: int = 1
    payload: str = Field(description="the event's fields as JSON")


class SnapshotRow(SQLModel, table=True):
    """A cached state after event seq; dropped and rebuilt at will (rules_version guards stale ones)."""

    __tablename__ = "snapshots"
    game_id: int = Field(primary_key=True, sa_column_kwargs={"autoincrement": False})
    seq: int = Field(primary_key=True, sa_column_kwargs={"autoincrement": False})
    turn: int = Field(description="the turn of event seq, so the snapshot before a turn is found without events")
    rules_version: int
    state: str


class ResultRow(SQLModel, table=True):
    """Projection: the outcome of a finished game per seat, rebuilt from events by `logs rebuild`."""

    __tablename__ = "results"
    game_id: int = Field(primary_key=True, sa_column_kwargs={"autoincrement": False})
    seat: int = Field(primary_key=True, sa_column_kwargs={"autoincrement": False})
    score: int
    rank: int = Field(description="1 for the winners, 2 for the next score, ...")
    winner: bool
    breakdown: str = Field(description="points by source as a JSON object")


class TurnFactRow(SQLModel, table=True):
    """Projection: each seat's score at the end of every turn and the decisions it made in it, kept as games are
    recorded."""

    __tablename__ = "turn_facts"
    game_id: int = Field(primary_key=True, sa_column_kwargs={"autoincrement": False})
    turn: int = Field(primary_key=True, sa_column_kwargs={"autoincrement": False})
    seat: int = Field(primary_key=True, sa_column_kwargs={"autoincrement": False})
    score: int = Field(description="the seat's points once the turn is over")
    leads: bool = Field(description="it alone has the most points")
    decisions: int = Field(description="actions the seat chose in this turn")
    choices: int = Field(description="legal actions it had, summed over those decisions (branching factor)")


class GameFactRow(SQLModel, table=True):
    """Projection: the game's own notable facts (a token stack emptied, a product bought, a card won and why)."""

    __tablename__ = "game_facts"
    game_id: int = Field(primary_key=True, sa_column_kwargs={"autoincrement": False})
    seq: int = Field(primary_key=True, sa_column_kwargs={"autoincrement": False})
    kind: str = Field(primary_key=True, description="what happened, e.g. stack-emptied, bought, card-won")
    key: str = Field(primary_key=True, description="what it happened to, e.g. a token value, a product, a card")
    turn: int
    seat: int | None = Field(default=None, description="the seat it happened to, if any")
    value: int = Field(default=1, description="a number that goes with the fact (an order, a count, points)")


class ProjectedRow(SQLModel, table=True):
    """The projector's position in each game's events: its facts (turn_facts, game_facts) cover the events up to seq.

    A table of its own, not a column of `games`: appends update games rows while the projector moves its positions,
    and DuckDB would refuse one of two transactions updating the same row. A game without a row is at its start
    (its fork, for a branch): nothing of it is projected yet."""

    __tablename__ = "projected"
    game_id: int = Field(primary_key=True, sa_column_kwargs={"autoincrement": False})
    seq: int = Field(description="the last event whose facts are in the projections")


class WinChanceRow(SQLModel, table=True):
    """Projection: a seat's estimated chance to win from the position after event seq (`logs analyse`)."""

    __tablename__ = "win_chances"
    game_id: int = Field(primary_key=True, sa_column_kwargs={"autoincrement": False})
    seq: int = Field(primary_key=True, sa_column_kwargs={"autoincrement": False})
    seat: int = Field(primary_key=True, sa_column_kwargs={"autoincrement": False})
    turn: int
    chance: float = Field(description="the share of rollouts the seat won (shared wins count as a share)")
    margin: float = Field(description="the half-width of its 95% confidence interval")
    rollouts: int
    bot: str = Field(description="the bot that played the rollouts")


class KeyMomentRow(SQLModel, table=True):
    """Projection: a decision where a seat's chance to win moved most, with the best alternative the search found."""

    __tablename__ = "key_moments"
    game_id: int = Field(primary_key=True, sa_column_kwargs={"autoincrement": False})
    seq: int = Field(primary_key=True, sa_column_kwargs={"autoincrement": False}, description="the decision's event")
    turn: int
    seat: int
    before: float = Field(description="the seat's chance to win before the decision")
    after: float = Field(description="and after it")
    action: str = Field(description="the action played, as JSON")
    best_action: str | None = Field(default=None, description="the search bot's best alternative, as JSON")
    best_chance: float | None = Field(default=None, description="the seat's chance after that alternative")


class MetaRow(SQLModel, table=True):
    """Facts about the database itself, such as its schema version."""

    __tablename__ = "meta"
    key: str = Field(primary_key=True)
    value: str


TABLES = (
    GameRow, SeatRow, EventRow, SnapshotRow, ResultRow, TurnFactRow, GameFactRow, ProjectedRow, WinChanceRow,
    KeyMomentRow, MetaRow,
)  # fmt: skip


UNKEYED = frozenset({"events", "turn_facts", "game_facts"})
"""Tables created without a key index (the classes name a key only because the ORM wants one).

The projections are written in bulk and read by scans and joins: a key index would take more room than their rows
and slow every insert. The events are written in (game_id, seq) order, so DuckDB's zonemaps (min and max per row
group) find a game's rows without an index; the key they would protect, one event per (game, seq), is kept by the
writer: an append moves the game's last_seq from the seq it expected, in the transaction that writes its events
(replay/writing.py). An index on events cost about 15 bytes an event, more than the rest of the row."""


def create_tables(leave_out: Collection[str] = ()) -> list[str]:
    """The ORM's DuckDB statements creating every table but those named in `leave_out`: what columns.create_tables,
    which creates a store's tables without loading the ORM, must make (tests/unit/test_create_tables.py)."""
    from duckdb_engine import Dialect

    dialect = Dialect()
    statements = []
    for model in TABLES:
        table: Table = model.__table__  # type: ignore[union-attr]
        if table.name in leave_out:
            continue
        if table.name in UNKEYED:
            columns = (Column(c.name, c.type, nullable=c.nullable) for c in table.columns)
            table = Table(table.name, MetaData(), *columns)
        statements.append(str(CreateTable(table).compile(dialect=dialect)))
    return statements
