"""A database's schema: created in a new file, checked in an existing one, upgraded from an older version.

An existing file is written only when it is Loom's: a DuckDB file with someone else's tables is refused untouched.
"""

from __future__ import annotations

import duckdb

from loom.replay import queries
from loom.replay.connection import Connection, StoreError, friendly

SCHEMA_VERSION = 5
READABLE = ("2", "3", "4", str(SCHEMA_VERSION))
"""Versions a read-only store opens as they are, so a reader never has to migrate (nor wait for the writer that
would): schema 3 differs from 2 only by the events' key index, which no read needs; schema 4 adds the projector's
positions, which a reader of an older file takes from the games themselves (every write of schemas 2 and 3 kept its
game's facts in its own transaction); schema 5 adds the games' fingerprints and header tags, which a reader of an
older file sees as NULL (it has none)."""


def ensure_schema(db: Connection, read_only: bool) -> None:
    """Make the file a Loom store of SCHEMA_VERSION (a new one, or upgraded), or refuse it with a StoreError."""
    foreign = StoreError(f"{db.path} is a DuckDB database but not a Loom store; give another --db")
    try:
        if not db.run(queries.TABLE_EXISTS)[0][0]:
            if db.run(queries.USER_TABLES)[0][0]:  # someone else's data: never write in it
                raise foreign
            if read_only:
                raise StoreError(f"{db.path} is not a Loom database")
            _create(db)
            return
        rows = db.run(queries.SCHEMA_VERSION)
    except (duckdb.BinderException, duckdb.CatalogException):
        raise foreign from None  # a table `meta` of someone else's, without Loom's columns
    except duckdb.Error as error:
        raise friendly(error, db.path) from None
    if not rows:
        raise foreign  # Loom writes its schema version in the transaction that creates its tables
    version = rows[0][0]
    if version in ("1", "2", "3", "4") and not read_only:
        _upgrade(db, version)
    elif version not in READABLE:
        raise StoreError(f"{db.path} has schema version {version}; this Loom reads {SCHEMA_VERSION}")
    elif version != str(SCHEMA_VERSION):
        if version != "4":
            db.all(queries.POSITIONS_OF_OLD_STORE)  # a temporary view: a read-only file is never written
        db.all(queries.games_of_old_store(db.one(queries.CURRENT_DATABASE)[0]))
    if not read_only and db.one(queries.SEATLESS_GAMES)[0]:
        repair_branch_seats(db)
    if not read_only and db.all(queries.STAGING_TABLES):
        from loom.replay.writing import drop_staging

        drop_staging(db)  # an import a crash interrupted: its staged games were never the store's
    if not read_only and db.one(queries.UNFINGERPRINTED)[0]:
        from loom.replay.fingerprint import fill

        fill(db)  # games appended to, or branched, since the last open for writing: their content is known now


def _create(db: Connection) -> None:
    from loom.replay.columns import create_tables  # schema.py's tables, read without loading the ORM

    with db.transaction():
        for statement in create_tables():
            db.run(statement)
        db.run(queries.INSERT_SCHEMA_VERSION, [str(SCHEMA_VERSION)])
        db.run(queries.VIEWS)


def _upgrade(db: Connection, version: str) -> None:
    """Bring a store of schema 1 to 4 to SCHEMA_VERSION in one transaction: all of it or none.

    Schema 2 added the per-turn and analysis projections; schema 3 keeps the events without their key index,
    rewritten in (game_id, seq) order; schema 4 adds the projector's positions (replay/projector.py); schema 5
    (migration 5) adds each game's fingerprint, computed here for every stored game (replay/fingerprint.py), and the
    log header's tags (the day played, place, event, round, notes), NULL for the games stored before. A game that
    has facts already (schemas 2 and 3 kept them in the transaction of each write) is projected to its last event,
    so nothing is projected twice; the others (a schema-1 store's) are left at their start for the projector."""
    from loom.replay.columns import create_tables

    with db.written():
        present = {name for (name,) in db.run(queries.TABLE_NAMES)}
        for statement in create_tables(leave_out=present):
            db.run(statement)  # the tables a store of this version lacks: every new one of 2 (from 1) and 4
        if version in ("1", "2"):
            _drop_event_key(db)
        if version != "4":
            db.run(queries.POSITIONS_OF_PROJECTED_GAMES)
        for statement in queries.FINGERPRINT_COLUMNS:
            db.run(statement)
        if version in ("1", "2", "3", "4"):
            from loom.replay.fingerprint import fill

            fill(db)
        db.run(queries.SET_SCHEMA_VERSION, [str(SCHEMA_VERSION)])


def _drop_event_key(db: Connection) -> None:
    """Rebuild the events table from the schema's one definition, without a key, its rows sorted by (game, seq)."""
    from loom.replay.columns import create_tables

    db.run(queries.RENAME_OLD_EVENTS)
    others = {name for (name,) in db.run(queries.TABLE_NAMES)} - {"events"}
    for statement in create_tables(leave_out=others):
        db.run(statement)
    db.run(queries.COPY_OLD_EVENTS)
    db.run(queries.DROP_OLD_EVENTS)


def repair_branch_seats(db: Connection) -> None:
    """Give every branch stored without seats (by Loom before issue 12) its parent's: done when a store is opened
    for writing, so every door sees a branch's seats."""
    with db.written():
        while db.run(queries.COPY_PARENT_SEATS)[0][0]:
            pass  # a branch of a seatless branch gets its seats in the round after its parent's
        db.run(queries.COUNT_PLAYERS)
