"""The contract every game keeps: one package layout, a typed first event, its report and search as data."""

from __future__ import annotations

import importlib
from pathlib import Path
from random import Random

import pytest

from loom.engine.presentation import presentation
from loom.engine.protocol import REPORT_SECTIONS, Game
from loom.engine.registry import PACKAGES, UnknownGame, get_game
from loom.events.base import GameStarted, IllegalAction, MalformedEvent
from loom.events.registry import decode_payload

CORE_FILES = {
    "__init__.py",
    "state.py",
    "actions.py",
    "rules.py",
    "score.py",
    "facts.py",
    "determinize.py",
    "render.py",
    "bots.py",
    "cards.py",
    "cards.toml",
}


@pytest.mark.parametrize("name", PACKAGES)
def test_every_game_package_has_the_same_core_files(name: str) -> None:
    folder = Path(importlib.import_module(PACKAGES[name]).__file__ or "").parent
    assert {path.name for path in folder.iterdir()} >= CORE_FILES


def _files(name: str) -> set[str]:
    folder = Path(importlib.import_module(PACKAGES[name]).__file__ or "").parent
    return {path.name for path in folder.iterdir() if path.is_file() and not path.name.startswith(".")}


def test_the_game_packages_list_exactly_the_same_file_names() -> None:
    """Knowing where a thing lives in one game means knowing where it lives in every other (issue 13)."""
    files = {name: _files(name) for name in PACKAGES}
    assert len(files) == 4
    first = files["motto"]
    for name, names in files.items():
        assert names == first, f"{name}: extra {sorted(names - first)}, missing {sorted(first - names)}"
    assert first == CORE_FILES


@pytest.mark.parametrize("name", PACKAGES)
def test_every_game_begins_with_its_subclass_of_game_started(name: str) -> None:
    game = get_game(name)
    first = game.setup(["ann", "bob"], Random(1))[0]
    assert isinstance(first, GameStarted)
    assert first.players == ("ann", "bob")
    assert first.seed is not None
    assert next(iter(first.to_json())) == "players"  # the inherited fields stay first in the log line


@pytest.mark.parametrize("name", PACKAGES)
def test_the_inherited_fields_of_a_started_event_are_checked_by_type(name: str) -> None:
    with pytest.raises(MalformedEvent, match=r"started: players\[1\] is empty"):
        decode_payload(f"{name}.started", {"players": ["ann", ""]})
    with pytest.raises(MalformedEvent, match="seed must be at least 0"):
        decode_payload(f"{name}.started", {"players": ["ann", "bob"], "seed": -1})


@pytest.mark.parametrize("name", PACKAGES)
def test_every_game_is_a_game_with_its_report_sections_known(name: str) -> None:
    game = get_game(name)
    assert isinstance(game, Game)
    assert set(game.report) <= REPORT_SECTIONS
    assert game.search.budget > 0


@pytest.mark.parametrize("name", PACKAGES)
def test_a_game_refuses_another_games_event_by_name(name: str) -> None:
    game = get_game(name)
    other = next(other for other in PACKAGES if other != name)
    foreign = get_game(other).setup(["ann", "bob"], Random(1))[0]
    with pytest.raises(IllegalAction, match=f"{other}.started is not a {game.title} event"):
        game.check(game.blank(), foreign)


@pytest.mark.parametrize("name", PACKAGES)
def test_a_game_refuses_any_event_before_its_started_one(name: str) -> None:
    game = get_game(name)
    started, dealt = game.setup(["ann", "bob"], Random(1))[:2]
    with pytest.raises(IllegalAction, match=f"begins with {name}.started"):
        game.check(game.blank(), dealt)
    game.check(game.blank(), started)


def test_a_report_section_no_figure_draws_is_refused_when_a_game_is_bound() -> None:
    game = get_game("motto")
    fields = {name: getattr(game, name) for name in Game.__dataclass_fields__}
    with pytest.raises(ValueError, match="no report section"):
        Game(**{**fields, "report": ("token-race", "typo")})


def test_presentation_is_found_by_the_games_name_and_refuses_an_unknown_one() -> None:
    assert callable(presentation("moorea").render)
    with pytest.raises(UnknownGame):
        presentation("chess")
