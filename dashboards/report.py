"""`logs dashboard`: one HTML report over a chosen set of recorded games, a section per game.

The report reads only projections (results, turn facts, game facts), which the projector keeps (replay/projector.py),
so its cost grows with the number of games but never replays one; a game the projector has not brought to its last
event is left out (`logs dashboard` lets it catch up first, or says how many are behind).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import pandas as pd
import plotly.graph_objects as go

from loom.dashboards import figures as fig
from loom.dashboards import game_figures as per_game
from loom.dashboards.page import Section, page
from loom.engine.registry import get_game
from loom.events.base import LoomError
from loom.replay import queries
from loom.replay.queries import ReportQuery
from loom.replay.store import Store


@dataclass(frozen=True)
class Selection:
    """Which games a report covers: finished games that are not branches, of one game, since a date, with a bot."""

    game: str | None = None
    since: datetime | None = None
    bot: str | None = None

    def describe(self) -> str:
        parts = [f"since {self.since:%Y-%m-%d %H:%M}" if self.since else "", f"with bot {self.bot}" if self.bot else ""]
        return " ".join(p for p in parts if p)


class Reader:
    """Reads the report's named queries (replay/queries.py) over the games chosen for one game."""

    def __init__(self, store: Store, game: str, selection: Selection) -> None:
        self.chosen = store.choose_games(game, selection.since, selection.bot)

    def frame(self, query: ReportQuery, **params: Any) -> pd.DataFrame:
        return self.chosen.frame(query, **params)


def _summary(summary: pd.Series, title: str) -> str:
    counts = ", ".join(str(n) for n in summary["player_counts"])
    first, last = summary["first"], summary["last"]
    when = f"{first:%Y-%m-%d}" if f"{first:%Y-%m-%d}" == f"{last:%Y-%m-%d}" else f"{first:%Y-%m-%d} to {last:%Y-%m-%d}"
    return (
        f"{summary['games']:,} finished {title} games ({', '.join(summary['sources'])}), recorded {when}; "
        f"{counts} players a game; {summary['names']:,} player names; "
        f"seats played by {', '.join(summary['bots'])}."
    )


def _game_figures(sections: tuple[str, ...], read: Reader, games: int) -> list[go.Figure]:
    """The figures the game asks for beyond those every game has (its `Game.report`), in its order."""
    figures: dict[str, Callable[[], go.Figure]] = {
        "points-by-source": lambda: fig.plot_points_by_source(read.frame(queries.POINTS_BY_SOURCE)),
        "objectives": lambda: per_game.plot_objectives(read.frame(queries.POINTS_BY_SOURCE)),
        "token-race": lambda: per_game.plot_token_race(read.frame(queries.TOKEN_RACE), games),
        "products": lambda: per_game.plot_products(read.frame(queries.PRODUCTS)),
        "card-wins": lambda: per_game.plot_card_wins(read.frame(queries.CARD_WINS)),
        "zones": lambda: per_game.plot_zones(read.frame(queries.ZONES)),
    }
    return [figures[section]() for section in sections]


@dataclass(frozen=True)
class GameReport:
    """One game's section, and the counts the report's opening summary adds up."""

    section: Section
    summary: pd.Series


def game_section(store: Store, name: str, selection: Selection) -> GameReport | None:
    """The section of one game, or None if no game of it is chosen."""
    game = get_game(name)
    title = game.title
    read = Reader(store, name, selection)
    summary = read.frame(queries.SUMMARY).iloc[0]
    games = int(summary["games"])
    if games == 0:
        return None
    seat_wins = read.frame(queries.SEAT_WINS)
    lengths = read.frame(queries.LENGTHS)
    players = _most_common_players(seat_wins)
    lead_changes = read.frame(queries.LEAD_CHANGES)
    branching = read.frame(queries.BRANCHING)
    by_bot = read.frame(queries.SCORES_BY_BOT)
    figures = [
        fig.plot_seat_advantage(seat_wins),
        fig.plot_scores(read.frame(queries.SCORES_BY_SEAT), "seat"),
        fig.plot_scores(by_bot, "bot"),
        fig.plot_margins(read.frame(queries.MARGINS)),
        fig.plot_lengths(lengths),
        fig.plot_score_over_turns(read.frame(queries.SCORE_COUNTS, players=players), players),
        fig.plot_lead_changes(lead_changes),
        fig.plot_balance(
            seat_wins, lead_changes, read.frame(queries.MIDGAME_LEADERS), read.frame(queries.WINNER_BEHIND), branching
        ),
        fig.plot_branching(branching),
    ]
    if by_bot["who"].nunique() > 1:
        figures.append(fig.plot_bot_table(read.frame(queries.BOT_AGAINST_BOT)))
    figures += _game_figures(game.report, read, games)
    return GameReport(Section(title, [_summary(summary, title)], figures), summary)


def _most_common_players(seat_wins: pd.DataFrame) -> int:
    per_count = seat_wins[seat_wins["seat"] == 0].set_index("players")["games"]
    return int(per_count.idxmax())


def _overview(reports: list[GameReport], selection: Selection, behind: int) -> Section:
    """The report's opening lines: how many games of which, by how many players, recorded when."""
    games = sum(int(r.summary["games"]) for r in reports)
    first = min(r.summary["first"] for r in reports)
    last = max(r.summary["last"] for r in reports)
    each = ", ".join(f"{r.section.title} {int(r.summary['games']):,}" for r in reports)
    names = sum(int(r.summary["names"]) for r in reports)
    chosen = f" ({selection.describe()})" if selection.describe() else ""
    return Section(
        "Summary",
        [
            f"{games:,} finished games{chosen}: {each}; {names:,} player names; recorded from {first:%Y-%m-%d %H:%M} "
            f"to {last:%Y-%m-%d %H:%M}. Branches are left out: they are what-ifs, not games anyone played.",
            "Hover over a figure for its numbers; figures are per game, since scores of different games differ.",
            *(
                [
                    f"{behind:,} more finished game{'s are' if behind != 1 else ' is'} left out: the projector has not "
                    "worked out their facts yet (a server's projector follows the games as they are recorded)."
                ]
                if behind
                else []
            ),
        ],
    )


def report_html(store: Store, game: str | None = None, since: datetime | None = None, bot: str | None = None) -> str:
    """The dashboard of the chosen games as one self-contained HTML page."""
    selection = Selection(game, since, bot)
    names = [get_game(game).name] if game else store.recorded_kinds()
    reports = [r for r in (game_section(store, name, selection) for name in names) if r is not None]
    if not reports:
        which = f"{game} " if game else ""
        raise LoomError(f"no finished {which}games to report on {selection.describe()}".strip())
    subtitle = selection.describe()
    sections = [_overview(reports, selection, store.report_behind(game)), *(r.section for r in reports)]
    return page(f"Loom dashboard{': ' + subtitle if subtitle else ''}", sections)
