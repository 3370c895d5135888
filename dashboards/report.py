"""`logs dashboard`: one HTML report over a chosen set of recorded games, a section per game.

The report reads only projections (results, turn facts, game facts), which the projector keeps (replay/projector.py),
so its cost grows with the number of games but never replays one; a game the projector has not brought to its last
event is left out (`logs dashboard` lets it catch up first, or says how many are behind).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from html import escape
from typing import Any

import pandas as pd
import plotly.graph_objects as go

from loom.dashboards import figures as fig
from loom.dashboards import game_figures as per_game
from loom.dashboards.figures import Sample
from loom.dashboards.page import Section, page
from loom.engine.registry import get_game
from loom.events.base import LoomError
from loom.replay import queries
from loom.replay.queries import ReportQuery
from loom.replay.store import Store


@dataclass(frozen=True)
class Selection:
    """Which games a report covers: finished games that are not branches, of one game, since a date, with a bot (at
    any budget: `mcts` takes `mcts:50`), self-play only (every seat the same bot)."""

    game: str | None = None
    since: datetime | None = None
    bot: str | None = None
    self_play: bool = False

    def describe(self) -> str:
        parts = [
            f"since {self.since:%Y-%m-%d %H:%M}" if self.since else "",
            f"with bot {self.bot}" if self.bot else "",
            "self-play only" if self.self_play else "",
        ]
        return " ".join(p for p in parts if p)


class Reader:
    """Reads the report's named queries (replay/queries.py) over the games chosen for one game."""

    def __init__(self, store: Store, game: str, selection: Selection) -> None:
        self.chosen = store.choose_games(game, selection.since, selection.bot, selection.self_play)

    def frame(self, query: ReportQuery, **params: Any) -> pd.DataFrame:
        return self.chosen.frame(query, **params)


def _summary(summary: pd.Series, title: str) -> str:
    counts = ", ".join(str(n) for n in summary["player_counts"])
    first, last = summary["first"], summary["last"]
    when = f"{first:%Y-%m-%d}" if f"{first:%Y-%m-%d}" == f"{last:%Y-%m-%d}" else f"{first:%Y-%m-%d} to {last:%Y-%m-%d}"
    return (
        f"{summary['games']:,} finished {title} games ({', '.join(summary['sources'])}), played {when}; "
        f"{counts} players a game; {summary['names']:,} player names; "
        f"seats played by {', '.join(summary['bots'])}."
    )


def _game_figures(sections: tuple[str, ...], read: Reader, sample: Sample, baseline: float) -> list[go.Figure]:
    """The figures the game asks for beyond those every game has (its `Game.report`), in its order."""
    figures: dict[str, Callable[[], go.Figure]] = {
        "points-by-source": lambda: fig.plot_points_by_source(read.frame(queries.POINTS_BY_SOURCE), sample),
        "objectives": lambda: per_game.plot_objectives(read.frame(queries.POINTS_BY_SOURCE), sample),
        "token-race": lambda: per_game.plot_token_race(read.frame(queries.TOKEN_RACE), sample),
        "products": lambda: per_game.plot_products(read.frame(queries.PRODUCTS), sample, baseline),
        "card-wins": lambda: per_game.plot_card_wins(read.frame(queries.CARD_WINS), sample, baseline),
        "zones": lambda: per_game.plot_zones(read.frame(queries.ZONES), sample),
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
    counted = read.frame(queries.SAMPLE).iloc[0]
    sample = Sample(int(counted["games"]), int(counted["seats"]))
    baseline = int(counted["wins"]) / int(counted["seats"])  # the win rate of all seats
    seat_wins = read.frame(queries.SEAT_WINS)
    players, of_players = _most_common_players(seat_wins)
    lead_changes = read.frame(queries.LEAD_CHANGES)
    branching = read.frame(queries.BRANCHING)
    by_bot = read.frame(queries.SCORES_BY_BOT)
    bot_seats = read.frame(queries.BOT_SEAT_WINS)
    figures = [
        # Seat advantage where the seats are exchangeable (self-play), and the win rate per bot and seat elsewhere.
        *(f for f in (fig.plot_seat_advantage(seat_wins), fig.plot_bot_seats(bot_seats)) if f is not None),
        fig.plot_scores(read.frame(queries.SCORES_BY_SEAT), "seat", sample),
        fig.plot_scores(by_bot, "bot", sample),
        fig.plot_margins(read.frame(queries.MARGINS)),
        fig.plot_lengths(read.frame(queries.LENGTHS)),
        fig.plot_score_over_turns(
            read.frame(queries.SCORE_COUNTS, players=players), players, Sample(of_players, of_players * players)
        ),
        fig.plot_lead_changes(lead_changes),
        fig.plot_balance(
            seat_wins, lead_changes, read.frame(queries.MIDGAME_LEADERS), read.frame(queries.WINNER_BEHIND), branching
        ),
        fig.plot_branching(branching, sample),
    ]
    if by_bot["who"].nunique() > 1:
        figures.append(fig.plot_bot_table(read.frame(queries.BOT_AGAINST_BOT), sample, baseline))
    figures += _game_figures(game.report, read, sample, baseline)
    return GameReport(Section(title, [_summary(summary, title)], figures, anchor=f"game-{name}"), summary)


def _most_common_players(seat_wins: pd.DataFrame) -> tuple[int, int]:
    """The most common player count, and its number of games."""
    per_count = seat_wins[seat_wins["seat"] == 0].groupby("players")["games"].sum()
    players = int(per_count.idxmax())
    return players, int(per_count[players])


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
            f"{games:,} finished games{chosen}: {each}; {names:,} player names; played (or, without a date in "
            f"their log, recorded) from {first:%Y-%m-%d %H:%M} to {last:%Y-%m-%d %H:%M}. Branches are left out: "
            "they are what-ifs, not games anyone played.",
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


def _contents(sections: list[Section]) -> Section:
    """The table of contents: each game's section, and under it each of its figures, linked (the page numbers its
    figures figure-1, figure-2, ... in order, and the sections before the games' have none)."""
    items, number = [], 0
    for section in sections:
        figures = []
        for figure in section.figures:
            number += 1
            figures.append(f'<li><a href="#figure-{number}">{escape(str(figure.layout.title.text))}</a></li>')
        items.append(
            f'<li><a href="#{escape(section.anchor)}">{escape(section.title)}</a>'
            f" ({len(section.figures)} figures)<ol>{''.join(figures)}</ol></li>"
        )
    return Section("Contents", html=f'<nav class="contents"><ul>{"".join(items)}</ul></nav>')


def report_html(
    store: Store,
    game: str | None = None,
    since: datetime | None = None,
    bot: str | None = None,
    self_play: bool = False,
    progress: Callable[[int, int], None] = lambda done, steps: None,
) -> str:
    """The dashboard of the chosen games as one self-contained HTML page; `progress(done, steps)` after each game's
    section and the page."""
    selection = Selection(game, since, bot, self_play)
    names = [get_game(game).name] if game else store.recorded_kinds()
    reports = []
    for done, name in enumerate(names, start=1):
        report = game_section(store, name, selection)
        if report is not None:
            reports.append(report)
        progress(done, len(names) + 1)
    if not reports:
        which = f"{game} " if game else ""
        raise LoomError(f"no finished {which}games to report on {selection.describe()}".strip())
    subtitle = selection.describe()
    games = [r.section for r in reports]
    sections = [_overview(reports, selection, store.report_behind(game)), _contents(games), *games]
    html = page(f"Loom dashboard{': ' + subtitle if subtitle else ''}", sections)
    progress(len(names) + 1, len(names) + 1)
    return html
