"""The dashboard: every figure of every game's section is drawn from data, and text from logs stays text."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import plotly.graph_objects as go
import pytest

from loom.dashboards.report import Selection, game_section, report_html
from loom.engine.registry import PACKAGES
from loom.replay.store import Store
from tests.dashboards.conftest import EVIL

DATA_KEYS = ("x", "y", "z", "q1", "cells")


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
    expected = ["Seat advantage", "Scores per seat", "Scores per bot", "Margin of victory", "Game length",
                "Score over turns", "Lead changes", "Balance", "Branching factor", "Bot against bot"]  # fmt: skip
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
