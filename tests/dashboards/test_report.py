"""The dashboard: every figure of every game's section is drawn from data, and text from logs stays text."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import plotly.graph_objects as go
import pytest

from loom.dashboards.report import Selection, game_section, report_html
from loom.engine.registry import PACKAGES
from loom.replay.store import Store
from tests.dashboards.conftest import EVIL

DATA_KEYS = ("x", "y", "z", "q1", "cells")
Plotted = dict[str, list[dict[str, Any]]]
"""Every figure of each game's section as plotly writes it, by game."""
FIRST = next(iter(PACKAGES))
"""The game whose first log is imported again, with other names: it has 9 games recorded, the others 8."""


def drawn(trace: Any) -> bool:
    """Whether a trace has data to draw."""
    for key in DATA_KEYS:
        value = trace[key] if key in trace else None  # noqa: SIM401  (plotly traces have no .get)
        if key == "cells" and value is not None:
            return any(len(column) for column in value["values"])
        if value is not None and len(value):
            return True
    return False


@pytest.mark.parametrize("name", list(PACKAGES))
def test_every_figure_of_the_report_is_present_and_drawn(recorded: Path, name: str) -> None:
    with Store.open(recorded, read_only=True) as store:
        report = game_section(store, name, Selection())
    assert report is not None
    section = report.section
    titles = [fig.layout.title.text for fig in section.figures]
    expected = ["Scores per seat", "Scores per bot", "Margin of victory", "Game length",
                "Score over turns", "Lead changes", "Balance", "Branching factor", "Bot against bot"]  # fmt: skip
    # greedy against two random bots, no self-play: no seat advantage in general, a win rate per bot and seat
    assert not any(t.startswith("Seat advantage in self-play") for t in titles)
    assert any(t.startswith(("Win rate per bot and seat", "Seat advantage per bot")) for t in titles)
    for title in expected:
        assert any(t.startswith(title) for t in titles), f"{title} missing from {name}'s report"
    own = {"moirai": ["Moirai: points"], "motto": ["Motto: the token race"], "moorea": ["Moorea: product popularity"],
           "stones-of-fate": ["Stones of Fate: how often", "Stones of Fate: the kind of zone"]}[name]  # fmt: skip
    for title in own:
        assert any(t.startswith(title) for t in titles), f"{title} missing from {name}'s report"
    for fig in section.figures:
        assert isinstance(fig, go.Figure)
        assert fig.data and all(drawn(trace) for trace in fig.data), fig.layout.title.text


def test_the_report_embeds_plotly_once_and_opens_offline(recorded: Path) -> None:
    with Store.open(recorded, read_only=True) as store:
        html = report_html(store)
    assert html.count("Plotly.newPlot") >= 4 * 10
    assert html.count("plotly.js v") == 1  # the library's banner: embedded once
    assert "<script src=" not in html and "<link" not in html  # nothing fetched from elsewhere


def test_a_player_name_with_markup_appears_as_text(recorded: Path) -> None:
    with Store.open(recorded, read_only=True) as store:
        html = report_html(store, "motto")
    assert EVIL not in html


def test_the_report_opens_with_a_summary_of_the_chosen_games(recorded: Path) -> None:
    with Store.open(recorded, read_only=True) as store:
        html = report_html(store)
    summary = html[html.index("<h2>Summary</h2>") :][:600]
    assert "33 finished games: Moirai 8, Moorea 8, Motto 9, Stones of Fate 8" in summary


def test_the_report_can_be_limited_to_one_game_and_a_bot(recorded: Path) -> None:
    with Store.open(recorded, read_only=True) as store:
        html = report_html(store, "moorea", bot="greedy")
    assert "Moorea" in html and "Motto: the token race" not in html


@pytest.fixture(scope="module")
def plotted(recorded: Path) -> Plotted:
    """Every figure of each game's section as plotly writes it: its data and layout."""
    out = {}
    with Store.open(recorded, read_only=True) as store:
        for name in PACKAGES:
            report = game_section(store, name, Selection())
            assert report is not None
            out[name] = [json.loads(fig.to_json()) for fig in report.section.figures]
    return out


def titled(figures: list[dict[str, Any]], start: str) -> dict[str, Any]:
    (figure,) = [f for f in figures if f["layout"]["title"]["text"].startswith(start)]
    return figure


@pytest.mark.parametrize("name", list(PACKAGES))
def test_every_figure_says_its_sample_and_its_method(plotted: Plotted, name: str) -> None:
    games = 9 if name == FIRST else 8  # the first game's log imported again, with other names
    for figure in plotted[name]:
        title = figure["layout"]["title"]
        assert title["subtitle"]["text"].startswith("n = "), title["text"]
        if not title["text"].startswith("Score over turns"):  # its own player count's games: all are 3-player
            assert title["subtitle"]["text"].startswith(f"n = {games} games"), title["text"]
        assert len(figure["layout"]["meta"]["method"]) > 40, title["text"]


@pytest.mark.parametrize("name", list(PACKAGES))
def test_each_bot_and_seat_win_rate_has_its_interval_n_and_the_bots_own_rate(plotted: Plotted, name: str) -> None:
    figure = next(
        f for f in plotted[name] if "per bot" in f["layout"]["title"]["text"] and "seat" in f["layout"]
        ["title"]["text"]
    )  # fmt: skip
    bars = [t for t in figure["data"] if t["type"] == "bar"]
    lines = [t for t in figure["data"] if t["type"] == "scatter"]
    assert {t["name"] for t in bars} == {"greedy", "random"}
    assert {t["name"] for t in lines} == {"greedy: all its seats", "random: all its seats"}
    games = 9 if name == FIRST else 8
    assert sum(n for t in bars for n in t["customdata"]) == 3 * games  # every seat of every game
    assert all("array" in t["error_y"] and "arrayminus" in t["error_y"] for t in bars)


@pytest.mark.parametrize("name", list(PACKAGES))
def test_score_boxes_name_their_seats(plotted: Plotted, name: str) -> None:
    figures = plotted[name]
    games = 9 if name == FIRST else 8
    seats = titled(figures, "Scores per seat")["data"]
    assert [t["name"] for t in seats] == [f"seat {k} (n={games})" for k in range(3)]
    bots = titled(figures, "Scores per bot")["data"]
    assert [t["name"] for t in bots] == [f"greedy (n={games})", f"random (n={2 * games})"]


def test_the_token_race_draws_every_stack_that_emptied_on_a_categorical_axis(plotted: Plotted) -> None:
    race = titled(plotted["motto"], "Motto: the token race")
    assert race["layout"]["xaxis"]["type"] == "category"
    stacks = race["data"][0]["x"]
    assert len(stacks) == len(set(stacks)) >= 6
    assert all(t["x"] == stacks for t in race["data"])
    assert max(sum(t["y"][k] for t in race["data"]) for k in range(len(stacks))) <= 1


def test_moirais_objective_cards_run_in_the_order_of_their_numbers(plotted: Plotted) -> None:
    objectives = titled(plotted["moirai"], "Moirai: points per seat")
    cards = objectives["data"][0]["x"]
    numbers = {moira: [int(c.split()[1]) for c in cards if c.startswith(moira)] for moira in ("atropos", "clotho")}
    assert all(found == sorted(found) and found for found in numbers.values())
    assert objectives["layout"]["xaxis"]["type"] == "category"


def test_stones_of_fates_cards_have_their_n_interval_and_the_rate_of_all_seats(plotted: Plotted) -> None:
    cards = titled(plotted["stones-of-fate"], "Stones of Fate: how often")
    (bars,) = cards["data"]
    assert all(re.fullmatch(r"[a-z-]+ \(n=\d+\)", label) for label in bars["y"])
    assert len(bars["error_x"]["array"]) == len(bars["y"])
    (baseline,) = cards["layout"]["shapes"]
    assert baseline["x0"] == pytest.approx(1 / 3)  # one winner of three seats in every recorded game, or a tie
    assert cards["layout"]["xaxis"]["range"] == [0, 1]


def test_moorea_names_each_product_once_on_a_category_axis(plotted: Plotted) -> None:
    products = titled(plotted["moorea"], "Moorea: product popularity")
    popularity, rates = products["data"]
    assert popularity["y"] == rates["y"] and len(set(rates["y"])) == len(rates["y"])
    assert "text" not in rates  # names on the axis, not as labels beside the points, where they overlapped
    assert products["layout"]["yaxis"]["type"] == "category"


def test_the_report_has_a_table_of_contents_linking_each_game_and_figure(recorded: Path) -> None:
    with Store.open(recorded, read_only=True) as store:
        html = report_html(store)
    contents = html[html.index('<nav class="contents">') : html.index("</nav>")]
    for name in PACKAGES:
        assert f'href="#game-{name}"' in contents and f'<section id="game-{name}">' in html
    figures = html.count('<div class="figure">')
    assert [f'href="#figure-{k}"' in contents for k in range(1, figures + 2)] == [True] * figures + [False]
    assert html.index('<nav class="contents">') < html.index('id="figure-1"')
    assert html.count('<p class="method">') == figures
