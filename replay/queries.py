"""Every SQL statement of Loom, in one place; the column lists of whole rows come from replay/columns.py."""

from collections.abc import Sequence

from loom.replay.columns import pick, select_list, tables

SCHEMA_VERSION = "SELECT value FROM meta WHERE key = 'schema_version'"
SET_SCHEMA_VERSION = "UPDATE meta SET value = ? WHERE key = 'schema_version'"
INSERT_SCHEMA_VERSION = "INSERT INTO meta VALUES ('schema_version', ?)"
TABLE_NAMES = "SELECT table_name FROM duckdb_tables()"
TABLE_EXISTS = "SELECT count(*) FROM duckdb_tables() WHERE table_name = 'meta'"
USER_TABLES = "SELECT (SELECT count(*) FROM duckdb_tables()) + (SELECT count(*) FROM duckdb_views() WHERE NOT internal)"

# Schema 2 to 3: the events table rebuilt without its key index, sorted so that zonemaps find a game's rows.
RENAME_OLD_EVENTS = "ALTER TABLE events RENAME TO events_keyed"
COPY_OLD_EVENTS = "INSERT INTO events BY NAME SELECT * FROM events_keyed ORDER BY game_id, seq"
DROP_OLD_EVENTS = "DROP TABLE events_keyed"

NEXT_GAME_ID = "SELECT coalesce(max(id), 0) + 1 FROM games"

# Whole rows of a table, read into the named records of replay/records.py by column name.
GAME_COLUMNS = select_list("games")
GAME = f"SELECT {GAME_COLUMNS} FROM games WHERE id = ?"
GAMES = f"SELECT {GAME_COLUMNS} FROM games WHERE (? IS NULL OR game = ?) ORDER BY id DESC LIMIT ?"
CHILDREN = f"SELECT {GAME_COLUMNS} FROM games WHERE parent_id = ? ORDER BY fork_seq, id"
SEATS = "SELECT name, bot FROM seats WHERE game_id = ? ORDER BY seat"
RESULTS = f"SELECT {select_list('results', without=('game_id',))} FROM results WHERE game_id = ? ORDER BY seat"
WINNERS_OF = """
SELECT game_id, list(seat ORDER BY seat) FROM results WHERE winner AND list_contains(?, game_id) GROUP BY game_id
"""
LAST_SEQ = "SELECT last_seq FROM games WHERE id = ?"

# Branches stored without seats by Loom before issue 12 get their parent's (a branch of such a branch: next round).
SEATLESS_GAMES = "SELECT count(*) FROM games WHERE players = 0"  # every stored game has seats since issue 12
COPY_PARENT_SEATS = """
INSERT INTO seats
SELECT b.id, s.seat, s.name, s.bot FROM games b JOIN seats s ON s.game_id = b.parent_id
WHERE NOT EXISTS (SELECT 1 FROM seats o WHERE o.game_id = b.id)
"""
COUNT_PLAYERS = """
UPDATE games SET players = (SELECT count(*) FROM seats s WHERE s.game_id = games.id)
WHERE players <> (SELECT count(*) FROM seats s WHERE s.game_id = games.id)
"""
# An append changes the game's content: its fingerprint is computed again later (replay/fingerprint.py's `fill`).
UPDATE_PROGRESS = (
    "UPDATE games SET last_seq = ?, turns = ?, status = ?, fingerprint = NULL WHERE id = ? AND last_seq = ?"
)
# The same for a group of appends to distinct games (the service's writer), from lists: the count says how many games
# were still where their append expected them.
UPDATE_PROGRESS_OF_GAMES = """
UPDATE games SET last_seq = n.last_seq, turns = n.turns, status = n.status, fingerprint = NULL
FROM (SELECT unnest(?::BIGINT[]) AS id, unnest(?::BIGINT[]) AS last_seq, unnest(?::BIGINT[]) AS turns,
             unnest(?::VARCHAR[]) AS status, unnest(?::BIGINT[]) AS expected) n
WHERE games.id = n.id AND games.last_seq = n.expected
"""


def insert_batch(table: str) -> str:
    """The insert of a batch of the table's rows, the Arrow table `arrow_batch` (columns by name)."""
    return f"INSERT INTO {table} BY NAME SELECT * FROM arrow_batch"


# The staging tables of an older version's import (it committed a file's games there, then moved them): one a crash
# interrupted left them behind, and the next writable open drops them. Imports now write the real tables at once.
STAGED = ("games", "seats", "events", "snapshots", "results", "turn_facts", "game_facts", "projected")
STAGING_TABLES = "SELECT table_name FROM duckdb_tables() WHERE starts_with(table_name, 'staging_')"


def drop_staging(table: str) -> str:
    """The drop of the staging table of `table` (a name of STAGED)."""
    if table not in STAGED:
        raise ValueError(f"{table!r} has no staging table")
    return f"DROP TABLE IF EXISTS staging_{table}"


# The decisions stored for a turn of many games at once (the projector's batch, merging a turn under way), and their
# deletion: lists of game ids and turns, then the range of the ids (it lets DuckDB skip other games' row groups).
_GAME_TURNS = "(SELECT unnest(?::BIGINT[]) AS game_id, unnest(?::BIGINT[]) AS turn) b"
TURNS_DECISIONS = f"""
SELECT f.game_id, f.seat, f.decisions, f.choices FROM turn_facts f JOIN {_GAME_TURNS}
ON f.game_id = b.game_id AND f.turn = b.turn WHERE f.game_id >= ? AND f.game_id <= ?
"""
DELETE_TURNS_FACTS = f"""
DELETE FROM turn_facts f USING {_GAME_TURNS} WHERE f.game_id = b.game_id AND f.turn = b.turn
AND f.game_id >= ? AND f.game_id <= ?
"""
DELETE_FACTS = "DELETE FROM turn_facts; DELETE FROM game_facts"

# The service's listing of games (replay/live.py), with the seats of many games at once.
FIND_GAMES = f"""
SELECT {GAME_COLUMNS}
FROM games
WHERE (? IS NULL OR game = ?) AND (? IS NULL OR status = ?) AND (? IS NULL OR source = ?)
  AND (? IS NULL OR parent_id = ?) AND (? IS NULL OR id < ?)
ORDER BY id DESC LIMIT ?
"""
SEATS_OF = """
SELECT game_id, list(name ORDER BY seat), list(bot ORDER BY seat) FROM seats
WHERE list_contains(?, game_id) GROUP BY game_id
"""

# The service's secret (replay/live.py), kept in the meta table.
META_VALUE = "SELECT value FROM meta WHERE key = ?"
INSERT_META = "INSERT INTO meta VALUES (?, ?)"

# A game's events and snapshots, their columns in the order replay/reading.py unpacks them.
EVENT_COLUMNS = pick("events", ("seq", "turn", "actor", "type", "version", "payload"))
SNAPSHOT_COLUMNS = pick("snapshots", ("seq", "turn", "state", "rules_version"))

# Events of one segment of a lineage: game_id's own events with seq in (after, upto].
EVENTS = f"SELECT {EVENT_COLUMNS} FROM events WHERE game_id = ? AND seq > ? AND seq <= ? ORDER BY seq"


def lineage_rows(
    select: str, table: str, segments: Sequence[tuple[int, int, int]], bound: str, limit: int, after: int = 0
) -> tuple[str, list[int]]:
    """SQL and parameters for the rows of a lineage's segments (game id, after seq, up to seq) past `after`.

    `bound` is "turn" (rows before the start of turn `limit`), "seq" (rows up to event `limit`) or "end" (every row
    of the game's own segment, however many it has by now; `limit` unused). One UNION ALL
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
        if bound != "end":
            where.append("turn < ?" if bound == "turn" else "seq <= ?")
            values.append(limit)
        arms.append(f"SELECT {select} FROM {table} WHERE {' AND '.join(where)}")
        params += values
    return " UNION ALL ".join(arms), params


ALL_GAMES = "SELECT id, game, fork_seq FROM games ORDER BY id"

# --- Reads in one query (replay/reading.py) --------------------------------------------------------------------------
# Game rows are kept by a store, read a window of ids (or a chunk of a bulk read) at a time; the places of a long
# game's snapshots (seq, turn and rules version, not the state) are kept with its row once a position needs them.
GAME_WINDOW = f"SELECT {GAME_COLUMNS} FROM games WHERE id >= ? AND id < ?"
GAMES_LISTED = f"SELECT {GAME_COLUMNS} FROM games WHERE id >= ? AND id <= ? AND list_contains(?, id)"
SNAPSHOT_PLACES = "SELECT seq, turn, rules_version FROM snapshots WHERE game_id = ?"
# The events of many games at once (a bulk read), unordered: the reader groups them by game and sorts them by seq.
# The range lets DuckDB skip the row groups of other games (list_contains alone scans every game_id of the table).
EVENTS_OF = f"""
SELECT game_id, {EVENT_COLUMNS} FROM events WHERE game_id >= ? AND game_id <= ? AND list_contains(?, game_id)
"""
# The events of many games, each's own with seq in (after, upto] (the projector's batch: lists of game ids, afters and
# uptos, then the range of the ids), unordered: the reader groups them by game and sorts them by seq.
EVENTS_AFTER = f"""
SELECT e.game_id, {", ".join(f"e.{name}" for name in EVENT_COLUMNS.split(", "))} FROM events e
JOIN (SELECT unnest(?::BIGINT[]) AS game_id, unnest(?::BIGINT[]) AS after, unnest(?::BIGINT[]) AS upto) b
ON e.game_id = b.game_id AND e.seq > b.after AND e.seq <= b.upto WHERE e.game_id >= ? AND e.game_id <= ?
"""
# A position's snapshot (its place known from the kept rows) in the EVENT_COLUMNS shape: the type is NULL, the
# version is its rules version, the payload its state. It is one arm of the position's statement.
SNAPSHOT_ARM = "SELECT seq, turn, NULL, NULL, rules_version, state FROM snapshots WHERE game_id = ? AND seq = ?"
UNBOUNDED = 2**62
"""An upper seq bound no game reaches: the events of a game's own segment read to its end, however far that is."""


def count_rows(table: str) -> str:
    """The count of a table's rows."""
    if table not in tables():
        raise ValueError(f"no table {table!r}")
    return f"SELECT count(*) FROM {table}"


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


# --- Dashboards ------------------------------------------------------------------------------------------------------
# A report first chooses its games into the temporary table `chosen` (finished root games: branches are what-ifs,
# not games anyone played), then reads every figure's data from the projections joined to it. The figures' queries
# are `ReportQuery`s, the closed set `ChosenGames.frame` runs (replay/report_tables.py).


class ReportQuery(str):
    """A query of the dashboard over the chosen games: only these run there."""

    __slots__ = ()


# When a game was played: the day its log's header gives (midnight, local time), else when it was recorded.
PLAYED_AT = "coalesce(CAST(g.played AS DATE)::TIMESTAMPTZ, g.created_at)"

# A game with `$bot` at a seat: the bot by its name alone matches it at any budget (`mcts` matches `mcts:50`). The
# report's choice and the export's share it.
_WITH_BOT = """
($bot::VARCHAR IS NULL OR g.id IN (
    SELECT game_id FROM seats WHERE bot = $bot::VARCHAR OR starts_with(bot, $bot::VARCHAR || ':')))"""
# Self-play: every seat played by one bot (one name and budget); a person at the table makes no game self-play.
_SELF_PLAY = "(SELECT count(DISTINCT s.bot) = 1 AND count(s.bot) = count(*) FROM seats s WHERE s.game_id = g.id)"

# Only games the projector has brought to their last event (see PROJECTED_AT): never a half-projected one.
CHOOSE_GAMES = f"""
CREATE OR REPLACE TEMP TABLE chosen AS
SELECT * FROM (
    SELECT g.id, g.players, g.turns, g.last_seq AS events, g.source, {PLAYED_AT} AS played_at,
           (SELECT count(*) FROM results r WHERE r.game_id = g.id AND r.winner) = 1 AS single_winner,
           {_SELF_PLAY} AS self_play
    FROM games g
    WHERE g.status = 'finished' AND g.parent_id IS NULL AND g.game = $game
      AND g.last_seq = coalesce((SELECT p.seq FROM projected p WHERE p.game_id = g.id), 0)
      AND ($since::TIMESTAMPTZ IS NULL OR {PLAYED_AT} >= $since::TIMESTAMPTZ)
      AND {_WITH_BOT.strip()}
    -- a game stored twice (before fingerprints refused it) is counted once
    QUALIFY row_number() OVER (PARTITION BY coalesce(g.fingerprint, g.id::VARCHAR) ORDER BY g.id) = 1
) WHERE self_play OR NOT $self_play::BOOLEAN
"""
RECORDED_GAMES = "SELECT DISTINCT game FROM games WHERE status = 'finished' AND parent_id IS NULL ORDER BY game"

SUMMARY = ReportQuery("""
SELECT count(*) AS games, min(played_at) AS first, max(played_at) AS last,
       (SELECT count(DISTINCT s.name) FROM seats s JOIN chosen c ON c.id = s.game_id) AS names,
       (SELECT list(DISTINCT coalesce(s.bot, 'human') ORDER BY coalesce(s.bot, 'human'))
        FROM seats s JOIN chosen c ON c.id = s.game_id) AS bots,
       (SELECT list(DISTINCT players ORDER BY players) FROM chosen) AS player_counts,
       (SELECT list(DISTINCT source ORDER BY source) FROM chosen) AS sources
FROM chosen
""")
# Per player count, self-play games apart (where seats are exchangeable) from the others: each seat's games and wins.
SEAT_WINS = ReportQuery("""
SELECT c.players, c.self_play, r.seat, count(*) AS games, sum(r.winner::INT) AS wins
FROM results r JOIN chosen c ON c.id = r.game_id GROUP BY ALL ORDER BY ALL
""")
# Per player count, self-play or not, bot and seat: the seats and their wins (win rate per bot and seat).
BOT_SEAT_WINS = ReportQuery("""
SELECT c.players, c.self_play, coalesce(s.bot, 'human') AS bot, r.seat, count(*) AS games, sum(r.winner::INT) AS wins
FROM results r JOIN chosen c ON c.id = r.game_id JOIN seats s ON s.game_id = r.game_id AND s.seat = r.seat
GROUP BY ALL ORDER BY ALL
""")
# The sample of the chosen games, and the win rate of all their seats: the baseline of every figure of win rates.
SAMPLE = ReportQuery("""
SELECT count(DISTINCT r.game_id) AS games, count(*) AS seats, coalesce(sum(r.winner::INT), 0) AS wins
FROM results r JOIN chosen c ON c.id = r.game_id
""")
SCORES_BY_SEAT = ReportQuery("""
SELECT c.players, r.seat AS who, count(*) AS n,
       quantile_cont(r.score, [0.05, 0.25, 0.5, 0.75, 0.95]) AS q, avg(r.score) AS mean
FROM results r JOIN chosen c ON c.id = r.game_id GROUP BY ALL ORDER BY ALL
""")
SCORES_BY_BOT = ReportQuery("""
SELECT c.players, coalesce(s.bot, 'human') AS who, count(*) AS n,
       quantile_cont(r.score, [0.05, 0.25, 0.5, 0.75, 0.95]) AS q, avg(r.score) AS mean
FROM results r JOIN chosen c ON c.id = r.game_id JOIN seats s ON s.game_id = r.game_id AND s.seat = r.seat
GROUP BY ALL ORDER BY ALL
""")
# The winners' score over the best score of the seats that did not win (a shared victory: over the next seat).
MARGINS = ReportQuery("""
SELECT margin, count(*) AS games FROM (
    SELECT max(score) FILTER (WHERE winner) - coalesce(max(score) FILTER (WHERE NOT winner), max(score)) AS margin
    FROM results r JOIN chosen c ON c.id = r.game_id GROUP BY r.game_id
) GROUP BY margin ORDER BY margin
""")
LENGTHS = ReportQuery("SELECT turns, events FROM chosen")
# How many games had each score at the end of each turn, per seat: the report takes the quantiles from these
# counts, six times faster than quantiles over every row.
SCORE_COUNTS = ReportQuery("""
SELECT f.turn, f.seat, f.score, count(*) AS games
FROM turn_facts f JOIN chosen c ON c.id = f.game_id WHERE c.players = $players GROUP BY ALL
""")
LEAD_CHANGES = ReportQuery("""
SELECT coalesce(l.changes, 0) AS changes, count(*) AS games
FROM chosen c LEFT JOIN (
    SELECT game_id, len(list_filter(range(2, len(leaders) + 1), lambda i: leaders[i] <> leaders[i - 1])) AS changes
    FROM (
        SELECT f.game_id, list(f.seat ORDER BY f.turn) AS leaders
        FROM turn_facts f JOIN chosen c ON c.id = f.game_id WHERE f.leads GROUP BY f.game_id
    )
) l ON l.game_id = c.id
GROUP BY ALL ORDER BY ALL
""")
# The sole leader halfway through each game, and whether that seat won.
MIDGAME_LEADERS = ReportQuery("""
SELECT c.players, r.winner AS leader_won
FROM chosen c JOIN turn_facts f ON f.game_id = c.id AND f.turn = (c.turns + 1) // 2 AND f.leads
JOIN results r ON r.game_id = c.id AND r.seat = f.seat
""")
# For a game with one winner: the last turn the winner was not alone in the lead (0: it led from the first turn).
WINNER_BEHIND = ReportQuery("""
SELECT c.players, c.turns, coalesce(max(f.turn) FILTER (WHERE NOT f.leads), 0) AS last_behind
FROM chosen c JOIN results r ON r.game_id = c.id AND r.winner
JOIN turn_facts f ON f.game_id = c.id AND f.seat = r.seat
WHERE c.single_winner GROUP BY c.id, c.players, c.turns
""")
BRANCHING = ReportQuery("""
SELECT least(9, (f.turn - 1) * 10 // c.turns) AS decile, sum(f.choices) AS choices, sum(f.decisions) AS decisions
FROM turn_facts f JOIN chosen c ON c.id = f.game_id WHERE f.decisions > 0 GROUP BY ALL ORDER BY ALL
""")
# Each bot's win rate in the games where it met another: one row per seat and opponent bot.
BOT_AGAINST_BOT = ReportQuery("""
WITH seated AS (
    SELECT r.game_id, r.seat, coalesce(s.bot, 'human') AS bot, r.winner
    FROM results r JOIN chosen c ON c.id = r.game_id JOIN seats s ON s.game_id = r.game_id AND s.seat = r.seat
)
SELECT bot, opponent, count(*) AS seats, avg(winner::INT) AS win_rate FROM (
    SELECT DISTINCT a.game_id, a.seat, a.bot, a.winner, b.bot AS opponent
    FROM seated a JOIN seated b ON b.game_id = a.game_id AND b.seat <> a.seat
) GROUP BY ALL ORDER BY ALL
""")
POINTS_BY_SOURCE = ReportQuery("""
SELECT j.key AS source, avg(j.value::INT) AS mean, avg(j.value::INT) FILTER (WHERE r.winner) AS winners_mean,
       count(*) AS seats
FROM results r JOIN chosen c ON c.id = r.game_id, json_each(r.breakdown) j GROUP BY j.key ORDER BY j.key
""")
TOKEN_RACE = ReportQuery("""
SELECT f.key AS stack, f.value AS place, count(*) AS games, median(f.turn) AS turn
FROM game_facts f JOIN chosen c ON c.id = f.game_id WHERE f.kind = 'stack-emptied' GROUP BY ALL ORDER BY ALL
""")
PRODUCTS = ReportQuery("""
SELECT f.key AS product, count(*) AS seats, avg(r.winner::INT) AS win_rate,
       (SELECT count(*) FROM results r JOIN chosen c ON c.id = r.game_id) AS all_seats
FROM (
    SELECT DISTINCT f.game_id, f.seat, f.key FROM game_facts f JOIN chosen c ON c.id = f.game_id
    WHERE f.kind = 'bought'
) f JOIN results r ON r.game_id = f.game_id AND r.seat = f.seat
GROUP BY ALL ORDER BY ALL
""")
CARD_WINS = ReportQuery("""
SELECT f.key AS card, count(r.seat) AS won, count(*) - count(r.seat) AS discarded, avg(r.winner::INT) AS win_rate
FROM game_facts f JOIN chosen c ON c.id = f.game_id
LEFT JOIN results r ON r.game_id = f.game_id AND r.seat = f.seat
WHERE f.kind = 'card-won' GROUP BY ALL ORDER BY ALL
""")
ZONES = ReportQuery("""
SELECT f.key AS zone, sum(f.value) AS cards
FROM game_facts f JOIN chosen c ON c.id = f.game_id WHERE f.kind = 'decided-by' GROUP BY ALL ORDER BY ALL
""")

# Win chances and key moments (`logs analyse`): one game's rows are replaced together.
DELETE_WIN_CHANCES = "DELETE FROM win_chances WHERE game_id = ?"
DELETE_KEY_MOMENTS = "DELETE FROM key_moments WHERE game_id = ?"
WIN_CHANCES = f"""
SELECT {select_list("win_chances", without=("game_id",))} FROM win_chances WHERE game_id = ? ORDER BY seq, seat
"""
KEY_MOMENTS = f"""
SELECT {select_list("key_moments", without=("game_id",))} FROM key_moments WHERE game_id = ? ORDER BY seq
"""


# --- Bulk export and the Parquet lake (replay/export.py, replay/lake.py) -------------------------------------------
# An export first chooses its games into the temporary table `export_chosen` (a read-only store may keep temporary
# tables), then reads them a page at a time: one query for a page's games and one for every event of the page, each
# game's parents' prefix included. The same statements read a store and a lake, whose views have the store's names.

_CHOSEN = f"""
SELECT g.id, g.parent_id FROM games g
WHERE ($game::VARCHAR IS NULL OR g.game = $game::VARCHAR)
  AND ($since::TIMESTAMPTZ IS NULL OR {PLAYED_AT} >= $since::TIMESTAMPTZ)
  AND ($until::TIMESTAMPTZ IS NULL OR {PLAYED_AT} < $until::TIMESTAMPTZ)
  AND ($players::INTEGER IS NULL OR g.players = $players::INTEGER)
  AND (NOT $finished::BOOLEAN OR g.status = 'finished')
  AND ($branches::BOOLEAN OR g.parent_id IS NULL)
  AND {_WITH_BOT.strip()}
  AND ($ranges::INTEGER[][] IS NULL OR len(list_filter($ranges::INTEGER[][], lambda r: g.id BETWEEN r[1] AND r[2])) > 0)
"""
# With the games they branch from (a lake stores a branch's own events only: its prefix must be there too).
_WITH_ANCESTORS = f"""
WITH RECURSIVE up(id, parent_id) AS (
    {_CHOSEN}
    UNION
    SELECT g.id, g.parent_id FROM up JOIN games g ON g.id = up.parent_id
)
SELECT id FROM up
"""


def choose_export(*, with_ancestors: bool) -> str:
    """The choice of an export's games (the filters of replay/export.py's Selection) into `export_chosen`."""
    chosen = _WITH_ANCESTORS if with_ancestors else f"SELECT id FROM ({_CHOSEN})"
    return f"CREATE OR REPLACE TEMP TABLE export_chosen AS {chosen}"


EXPORT_COUNT = "SELECT count(*) FROM export_chosen"
DROP_EXPORT_CHOSEN = "DROP TABLE IF EXISTS export_chosen"
EXPORT_PAGE = """
WITH page AS (SELECT id FROM export_chosen WHERE id > $after ORDER BY id LIMIT $limit)
SELECT g.id, g.game, g.parent_id, g.fork_seq, list(s.bot ORDER BY s.seat) AS bots,
       g.played, g.place, g.event, g.round, g.notes
FROM games g JOIN page p ON p.id = g.id LEFT JOIN seats s ON s.game_id = g.id
GROUP BY ALL ORDER BY g.id
"""
# Every event of the games `$ids`, parents' prefix included, in the order of a log: by game, then seq.
EXPORT_EVENTS = """
WITH RECURSIVE part(game_id, owner, after, upto, parent) AS (
    SELECT id, id, coalesce(fork_seq, 0), last_seq, parent_id FROM games WHERE list_contains($ids::INTEGER[], id)
    UNION ALL
    SELECT p.game_id, g.id, coalesce(g.fork_seq, 0), least(p.upto, p.after), g.parent_id
    FROM part p JOIN games g ON g.id = p.parent
)
SELECT p.game_id, e.seq, e.turn, e.actor, e.type, e.version, e.payload
FROM part p JOIN events e ON e.game_id = p.owner AND e.seq > p.after AND e.seq <= p.upto
ORDER BY p.game_id, e.seq
"""
LAKE_TABLES = ("games", "seats", "events", "results", "turn_facts", "game_facts")
"""The tables of a lake, in the order an export writes them: games last, so a game's row says its rows are all in."""


_LAKE_ORDER = {
    "games": "t.id",
    "seats": "t.game_id, t.seat",
    "events": "t.game_id, t.seq",
    "results": "t.game_id, t.seat",
    "turn_facts": "t.game_id, t.turn, t.seat",
    "game_facts": "t.game_id, t.seq, t.kind, t.key",
}


def literal(text: str) -> str:
    """A string as an SQL literal (DuckDB takes no parameter for a COPY's file nor in a view)."""
    return "'" + text.replace("'", "''") + "'"


def copy_to_lake(table: str, directory: str, prefix: str) -> str:
    """The copy of the chosen games' rows of `table` into hive partitions (game, month) of a new directory, every
    file named from `prefix`."""
    if table not in LAKE_TABLES:
        raise ValueError(f"{table!r} is not a lake table")
    key = "id" if table == "games" else "game_id"
    extra = "" if table == "games" else "g.game, "
    return f"""
COPY (
    SELECT t.*, {extra}strftime(timezone('UTC', g.created_at), '%Y-%m') AS month
    FROM {table} t JOIN export_chosen c ON c.id = t.{key} JOIN games g ON g.id = c.id
    ORDER BY {_LAKE_ORDER[table]}
) TO {literal(directory)} (
    FORMAT parquet, COMPRESSION zstd, PARTITION_BY (game, month), FILENAME_PATTERN {literal(prefix + "-{i}")}
)"""


def lake_view(table: str, files: str, columns: str) -> str:
    """A view named like the store's table over a lake table's Parquet files (a glob), with the store's columns."""
    if table not in LAKE_TABLES:
        raise ValueError(f"{table!r} is not a lake table")
    return f"""
CREATE OR REPLACE VIEW {table} AS SELECT {columns}
FROM read_parquet({literal(files)}, hive_partitioning = true, hive_types = {{'game': VARCHAR, 'month': VARCHAR}})"""


_SQL_TYPES = {
    "int": "INTEGER",
    "bigint": "BIGINT",
    "str": "VARCHAR",
    "bool": "BOOLEAN",
    "float": "DOUBLE",
    "datetime": "TIMESTAMPTZ",
}


def empty_lake_view(table: str) -> str:
    """A view named like the store's table, with its columns and types, for a lake that holds no file of it."""
    if table not in LAKE_TABLES:
        raise ValueError(f"{table!r} is not a lake table")
    columns = ", ".join(f"NULL::{_SQL_TYPES[c.kind]} AS {c.name}" for c in tables()[table])
    return f"CREATE OR REPLACE VIEW {table} AS SELECT {columns} WHERE false"


# A lake holds a game's facts only up to its last event (an export writes the facts of projected games only; a
# simulation takes them as it plays): every lake game is projected, as the report's CHOOSE_GAMES asks.
LAKE_PROJECTED = "CREATE OR REPLACE VIEW projected AS SELECT id AS game_id, last_seq AS seq FROM games"


def lake_games(files: str) -> str:
    """The games a lake holds already: id, kind, seed and creation time (to tell them from another store's)."""
    return f"""
CREATE OR REPLACE TEMP TABLE lake_games AS SELECT id, game, seed, created_at
FROM read_parquet({literal(files)}, hive_partitioning = true, hive_types = {{'game': VARCHAR, 'month': VARCHAR}})"""


NO_LAKE_GAMES = "CREATE OR REPLACE TEMP TABLE lake_games (id INT, game VARCHAR, seed BIGINT, created_at TIMESTAMPTZ)"
OTHER_STORES_GAME = """
SELECT l.id FROM lake_games l JOIN games g ON g.id = l.id
WHERE g.game <> l.game OR g.seed <> l.seed OR g.created_at <> l.created_at
ORDER BY l.id LIMIT 1
"""
LEAVE_OUT_LAKE_GAMES = "DELETE FROM export_chosen WHERE id IN (SELECT id FROM lake_games)"
DROP_LAKE_GAMES = "DROP TABLE IF EXISTS lake_games"


def lake_max_id(files: str) -> str:
    """The largest game id a lake holds (0 for none): where a simulation's reserved ids may start."""
    return f"SELECT coalesce(max(id), 0) FROM read_parquet({literal(files)}, hive_partitioning = false)"


CHOOSE_EVERY_GAME = "CREATE OR REPLACE TEMP TABLE export_chosen AS SELECT id FROM games"


# --- The projector (replay/projector.py): each game's position in its events, kept in the table `projected` --------
# A game without a row is at its start: its fork for a branch (whose facts cover its own events only), else 0.
# A subquery, not a LEFT JOIN: DuckDB 2.0.1 drops the WHERE and LIMIT of a query left-joined to an empty table.
PROJECTED_AT = "coalesce((SELECT p.seq FROM projected p WHERE p.game_id = g.id), g.fork_seq, 0)"
BEHIND = f"""
SELECT {", ".join(f"g.{name}" for name in GAME_COLUMNS.split(", "))}, {PROJECTED_AT} AS projected
FROM games g WHERE g.last_seq > {PROJECTED_AT} AND g.id > ? ORDER BY g.id LIMIT ?
"""
# Games a report would choose (finished root games, of a kind or any) that the projector has not brought to their end.
REPORT_BEHIND = f"""
SELECT count(*) FROM games g
WHERE g.last_seq > {PROJECTED_AT} AND g.status = 'finished' AND g.parent_id IS NULL AND (? IS NULL OR g.game = ?)
"""
COUNT_BEHIND = f"""
SELECT count(*) FROM games g WHERE g.last_seq > {PROJECTED_AT}"""
# A game the projector has not brought to its last event (and every branch of it) is left out of a lake export: the
# lake never rewrites a game, so its facts would stay short for good. The next export, once projected, adds it.
LEAVE_OUT_BEHIND = f"""
DELETE FROM export_chosen WHERE id IN (
    WITH RECURSIVE left_out(id) AS (
        SELECT g.id FROM games g JOIN export_chosen c ON c.id = g.id WHERE g.last_seq > {PROJECTED_AT}
        UNION
        SELECT g.id FROM games g JOIN left_out l ON g.parent_id = l.id
    )
    SELECT id FROM left_out
)
"""
MOVE_POSITIONS = """
INSERT INTO projected BY NAME SELECT * FROM arrow_batch ON CONFLICT (game_id) DO UPDATE SET seq = excluded.seq
"""
DELETE_RESULTS_OF = "DELETE FROM results WHERE list_contains(?, game_id)"
FORGET_POSITIONS = "DELETE FROM projected"
# Schema 3 to 4: a game with facts was projected in the transaction that wrote its events (schemas 2 and 3).
POSITIONS_OF_PROJECTED_GAMES = """
INSERT INTO projected
SELECT g.id, g.last_seq FROM games g
WHERE (EXISTS (SELECT 1 FROM turn_facts f WHERE f.game_id = g.id)
       OR EXISTS (SELECT 1 FROM game_facts f WHERE f.game_id = g.id))
  AND NOT EXISTS (SELECT 1 FROM projected p WHERE p.game_id = g.id)
"""
# A read-only store of schema 2 or 3 (never written here): every game is projected, as every write kept its facts.
POSITIONS_OF_OLD_STORE = "CREATE OR REPLACE TEMP VIEW projected AS SELECT id AS game_id, last_seq AS seq FROM games"


# --- Fingerprints (replay/fingerprint.py): the games without one, computed through the export's pages -------------
CHOOSE_UNFINGERPRINTED = "CREATE OR REPLACE TEMP TABLE export_chosen AS SELECT id FROM games WHERE fingerprint IS NULL"
UNFINGERPRINTED = "SELECT count(*) FROM games WHERE fingerprint IS NULL"
SET_FINGERPRINTS = """
UPDATE games SET fingerprint = n.fingerprint
FROM (SELECT unnest(?::INTEGER[]) AS id, unnest(?::VARCHAR[]) AS fingerprint) n WHERE games.id = n.id
"""
# The stored games with one of these fingerprints: the first id of each.
STORED_FINGERPRINTS = """
SELECT g.fingerprint, min(g.id) FROM games g JOIN (SELECT unnest(?::VARCHAR[]) AS fingerprint) n USING (fingerprint)
GROUP BY g.fingerprint
"""
FINGERPRINT_COLUMNS = (
    "ALTER TABLE games ADD COLUMN IF NOT EXISTS fingerprint VARCHAR",
    "ALTER TABLE games ADD COLUMN IF NOT EXISTS played VARCHAR",
    "ALTER TABLE games ADD COLUMN IF NOT EXISTS place VARCHAR",
    "ALTER TABLE games ADD COLUMN IF NOT EXISTS event VARCHAR",
    "ALTER TABLE games ADD COLUMN IF NOT EXISTS round VARCHAR",
    "ALTER TABLE games ADD COLUMN IF NOT EXISTS notes VARCHAR",
)
"""Schema 5's columns of `games` (replay/schema.py), added to a store of an older schema."""


def games_of_old_store(database: str) -> str:
    """A temporary view `games` over an older store's table (read-only, so never migrated) with schema 5's columns,
    NULL: the day played, the tags and the fingerprint, which it has none of."""
    return f"""
CREATE OR REPLACE TEMP VIEW games AS SELECT *, NULL::VARCHAR AS fingerprint, NULL::VARCHAR AS played,
    NULL::VARCHAR AS place, NULL::VARCHAR AS event, NULL::VARCHAR AS round, NULL::VARCHAR AS notes
FROM "{database.replace('"', '""')}".main.games"""


CURRENT_DATABASE = "SELECT current_database()"


def lake_columns(files: str) -> str:
    """The columns of a lake table's Parquet files (`DESCRIBE`: name first)."""
    return f"DESCRIBE SELECT * FROM read_parquet({literal(files)}, hive_partitioning = true)"


def sql_type(kind: str) -> str:
    """The SQL type of a column of this kind (replay/columns.py)."""
    return _SQL_TYPES[kind]
