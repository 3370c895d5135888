"""The dashboard drawn from a Parquet lake is the dashboard of the store the lake was exported from, filters and all."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from loom.dashboards.report import Selection, game_section, report_html
from loom.engine.registry import PACKAGES
from loom.events.base import LoomError
from loom.replay import export
from loom.replay.lake import lake_store, write_lake
from loom.replay.store import Store


@pytest.fixture(scope="module")
def lake(recorded: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The recorded store's games, every one, exported to a lake."""
    folder = tmp_path_factory.mktemp("lake") / "lake"
    with Store.open(recorded, read_only=True) as store:
        assert write_lake(store, folder, export.Selection()).behind == 0
    yield folder


def figures(store: Store, name: str, selection: Selection) -> list[Any] | None:
    """The data of every figure of a game's section, as plotly writes it (None: no game chosen)."""
    report = game_section(store, name, selection)
    if report is None:
        return None
    return [(fig.layout.title.text, json.loads(fig.to_json())["data"]) for fig in report.section.figures]


def both(recorded: Path, lake: Path, name: str, selection: Selection) -> tuple[Any, Any]:
    with Store.open(recorded, read_only=True) as store:
        from_store = figures(store, name, selection)
    with lake_store(lake) as store:
        from_lake = figures(store, name, selection)
    return from_store, from_lake


@pytest.mark.parametrize("name", list(PACKAGES))
def test_every_figure_from_the_lake_has_the_stores_data(recorded: Path, lake: Path, name: str) -> None:
    from_store, from_lake = both(recorded, lake, name, Selection())
    assert from_store is not None
    assert from_lake == from_store


def test_a_bot_filter_chooses_the_same_games_from_the_lake(recorded: Path, lake: Path) -> None:
    from_store, from_lake = both(recorded, lake, "motto", Selection(bot="greedy"))
    assert from_store is not None
    assert from_lake == from_store


def test_a_date_filter_chooses_the_same_games_from_the_lake(recorded: Path, lake: Path) -> None:
    with Store.open(recorded, read_only=True) as store:
        [(middle,)] = store.con.execute(
            "SELECT created_at FROM games WHERE game = 'motto' ORDER BY id LIMIT 1 OFFSET 4"
        ).fetchall()
    from_store, from_lake = both(recorded, lake, "motto", Selection(since=middle))
    assert from_store is not None
    assert from_lake == from_store
    assert both(recorded, lake, "motto", Selection(since=middle + timedelta(days=1))) == (None, None)


def test_the_lakes_report_names_the_same_games(recorded: Path, lake: Path) -> None:
    with Store.open(recorded, read_only=True) as store:
        summary = report_html(store).split("Hover over a figure")[0]
    with lake_store(lake) as store:
        assert report_html(store).split("Hover over a figure")[0] == summary


def test_a_filter_that_matches_nothing_in_the_lake_is_an_error(lake: Path) -> None:
    with lake_store(lake) as store, pytest.raises(LoomError, match="no finished motto games"):
        report_html(store, "motto", datetime.now().astimezone() + timedelta(days=1))
