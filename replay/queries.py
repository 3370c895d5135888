"""Every SQL statement of Loom, in one place."""

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


def position_query(segments: int, bound: str) -> str:
    """The snapshots and events of a lineage of `segments` segments, up to a bound, in seq order.

    `bound` is "turn" (everything before the start of turn $bound) or "seq" (everything up to event $bound).
    Parameters: $rules (the rules version of usable snapshots), $bound, and $g<i>, $lo<i>, $hi<i> for segment i
    (its game's own events with seq in (lo, hi]). A snapshot row has a NULL type and its state as payload. One
    UNION ALL arm per segment keeps each filter simple enough for DuckDB to skip row groups by their min/max.
    """
    limit = "turn < $bound" if bound == "turn" else "seq <= $bound"
    arms = []
    for i in range(segments):
        own = f"game_id = $g{i} AND seq > $lo{i} AND seq <= $hi{i} AND {limit}"
        arms.append(f"SELECT seq, turn, actor, type, version, payload FROM events WHERE {own}")
        arms.append(f"SELECT seq, turn, NULL, NULL, NULL, state FROM snapshots WHERE {own} AND rules_version = $rules")
    return " UNION ALL ".join(arms) + " ORDER BY seq, type NULLS LAST"


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
