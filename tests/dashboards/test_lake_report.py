"""The dashboard drawn from a Parquet lake is the dashboard of the store the lake was exported from, filters and all."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from loom.dashboards.report import Selection, game_section, report_html
from loom.engine.registry import PACKAGES, get_game
from loom.events.base import LoomError
from loom.replay import export
from loom.replay.lake import lake_store, write_lake
from loom.replay.simulate import simulate
from loom.replay.store import Store
from tests.cli.run import fails, ok


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


@pytest.fixture(scope="module")
def lineups(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Path]]:
    """A store of two-player Motto games of three lineups, two games each: the search bot at a budget against random,
    greedy against itself, greedy against random; and its lake."""
    folder = tmp_path_factory.mktemp("lineups")
    path, lake = folder / "loom.duckdb", folder / "lake"
    with Store.open(path) as store:
        for seed, bots in enumerate((["mcts:2", "random"], ["greedy", "greedy"], ["greedy", "random"])):
            simulate(store, get_game("motto"), 2, bots, seed=seed, facts=True)
        assert write_lake(store, lake, export.Selection()).behind == 0
    yield path, lake


def games_of(html: str) -> str:
    return html.split("<h2>Summary</h2>")[1].split(" finished games")[0].split(">")[-1]


@pytest.mark.parametrize(
    ("selection", "games"),
    [(Selection(bot="mcts"), 2), (Selection(bot="mcts:2"), 2), (Selection(bot="mcts:5"), 0),
     (Selection(self_play=True), 2), (Selection(bot="greedy", self_play=True), 2), (Selection(bot="greedy"), 4)],
)  # fmt: skip
def test_bot_and_self_play_filters_choose_the_same_games_from_the_store_and_the_lake(
    lineups: tuple[Path, Path], selection: Selection, games: int
) -> None:
    from_store, from_lake = both(*lineups, "motto", selection)
    assert from_lake == from_store
    assert (from_store is None) == (games == 0)
    if from_store is not None:
        assert from_store[0][1][0]["customdata"] is not None
        with Store.open(lineups[0], read_only=True) as store:
            kept = report_html(store, "motto", bot=selection.bot, self_play=selection.self_play)
        assert games_of(kept) == str(games)


def test_self_play_games_measure_the_seat_advantage_and_the_others_give_rates_per_bot_and_seat(
    lineups: tuple[Path, Path],
) -> None:
    with lake_store(lineups[1]) as store:
        report = game_section(store, "motto", Selection())
    assert report is not None
    titles = [(fig.layout.title.text, fig.layout.title.subtitle.text) for fig in report.section.figures]
    assert ("Seat advantage in self-play games: win rate per seat", "n = 2 games, 4 seats") in titles
    assert [t for t in titles if "per bot and seat" in t[0]][0][1] == "n = 4 games, 8 seats"


def test_the_dashboard_command_filters_by_a_bot_at_any_budget_and_by_self_play(
    lineups: tuple[Path, Path], tmp_path: Path
) -> None:
    path, lake = lineups
    page = tmp_path / "report.html"
    ok("dashboard", "--bot", "mcts", "-o", page, "--db", path)
    assert games_of(page.read_text()) == "2" and "with bot mcts" in page.read_text()
    ok("dashboard", "--lake", lake, "--self-play", "-o", page)
    assert games_of(page.read_text()) == "2" and "self-play only" in page.read_text()
    assert "no finished games to report on with bot random self-play only" in fails(
        "dashboard", "--lake", lake, "--bot", "random", "--self-play", "-o", page
    )
