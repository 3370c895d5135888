"""Every SQL statement of Loom, in one place."""

from collections.abc import Sequence

SCHEMA_VERSION = "SELECT value FROM meta WHERE key = 'schema_version'"
TABLE_EXISTS = "SELECT count(*) FROM duckdb_tables() WHERE table_name = 'meta'"

NEXT_GAME_ID = "SELECT coalesce(max(id), 0) + 1 FROM games"
GAME = """
SELECT id, game, players, status, source, parent_id, fork_seq, last_seq, turns, seed, rules_version, created_at
FROM games WHERE id = ?
"""
GAMES = """
SELECT id, game, players, status, source, parent_id, fork_seq, last_seq, turns, seed, rules_version, created_at
FROM games WHERE (? IS NULL OR game = ?) ORDER BY id DESC LIMIT ?
"""
CHILDREN = """
SELECT id, game, players, status, source, parent_id, fork_seq, last_seq, turns, seed, rules_version, created_at
FROM games WHERE parent_id = ? ORDER BY fork_seq, id
"""
SEATS = "SELECT seat, name, bot FROM seats WHERE game_id = ? ORDER BY seat"
RESULTS = "SELECT seat, score, rank, winner, breakdown FROM results WHERE game_id = ? ORDER BY seat"
WINNERS_OF = """
SELECT game_id, list(seat ORDER BY seat) FROM results WHERE winner AND list_contains(?, game_id) GROUP BY game_id
"""
LAST_SEQ = "SELECT last_seq FROM games WHERE id = ?"
UPDATE_PROGRESS = "UPDATE games SET last_seq = ?, turns = ?, status = ? WHERE id = ? AND last_seq = ?"

INSERT_GAMES = "INSERT INTO games SELECT * FROM new_games"
INSERT_SEATS = "INSERT INTO seats SELECT * FROM new_seats"
INSERT_EVENTS = "INSERT INTO events SELECT * FROM new_events"
INSERT_SNAPSHOTS = "INSERT INTO snapshots SELECT * FROM new_snapshots"
INSERT_RESULTS = "INSERT INTO results SELECT * FROM new_results"
DELETE_RESULTS = "DELETE FROM results"

# Events of one segment of a lineage: game_id's own events with seq in (after, upto].
EVENTS = """
SELECT seq, turn, actor, type, version, payload FROM events
WHERE game_id = ? AND seq > ? AND seq <= ? ORDER BY seq
"""


def lineage_rows(
    select: str, table: str, segments: Sequence[tuple[int, int, int]], bound: str, limit: int, after: int = 0
) -> tuple[str, list[int]]:
    """SQL and parameters for the rows of a lineage's segments (game id, after seq, up to seq) past `after`.

    `bound` is "turn" (rows before the start of turn `limit`) or "seq" (rows up to event `limit`). One UNION ALL
    arm per segment, each with only the predicates it needs: every predicate costs DuckDB planning time, more than
    the scan of one game's rows, so a root game's read is just `game_id = ? AND turn < ?`. Rows come unordered.
    """
    arms, params = [], []
    for number, (game_id, lo, hi) in enumerate(segments):
        where, values = ["game_id = ?"], [game_id]
        if max(lo, after) > 0:
            where.append("seq > ?")
            values.append(max(lo, after))
        if number < len(segments) - 1:  # a parent's rows stop at the fork
            where.append("seq <= ?")
            values.append(hi)
        where.append("turn < ?" if bound == "turn" else "seq <= ?")
        values.append(limit)
        arms.append(f"SELECT {select} FROM {table} WHERE {' AND '.join(where)}")
        params += values
    return " UNION ALL ".join(arms), params


EVENT_COLUMNS = "seq, turn, actor, type, version, payload"
SNAPSHOT_COLUMNS = "seq, turn, state, rules_version"


FINISHED_GAMES = "SELECT id, game FROM games WHERE status = 'finished' ORDER BY id"

# Views for analysts (duckdb shell, pandas, polars): documented in the README.
VIEWS = """
CREATE OR REPLACE VIEW game_results AS
SELECT g.id AS game_id, g.game, g.players, g.source, g.parent_id, g.turns, g.created_at,
       r.seat, s.name, s.bot, r.score, r.rank, r.winner, r.breakdown
FROM games g JOIN results r ON r.game_id = g.id JOIN seats s ON s.game_id = g.id AND s.seat = r.seat;

CREATE OR REPLACE VIEW bot_win_rates AS
SELECT game, players, bot, count(*) AS seats_played, avg(winner::INT) AS win_rate, avg(score) AS mean_score
FROM game_results GROUP BY game, players, bot;
"""
