"""What a seat's page may show: names as typed (never markup), moves as the seat saw them, no hidden chance.

The moves of every game (`engine.moves`, each game's `public_move`) are checked against the rulebooks; the replay
page against a Moirai game whose key moments include a card kept face down, stored as `logs analyse` stores them.
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Iterator
from pathlib import Path
from random import Random
from typing import Any

import pytest
from rich.console import Console

from loom.dashboards.viewer import replay_html
from loom.engine.moves import advice_for, public_move, seen_move
from loom.engine.presentation import presentation
from loom.engine.registry import PACKAGES, get_game
from loom.replay.analysis import turn_starts
from loom.replay.store import Store
from tests.dashboards.conftest import EVIL, EVIL_GAME, LINK, STYLED
from tests.dashboards.pages import page_tables

NAMES = [LINK, STYLED, EVIL]
KEEP_DOWN = {"type": "keep", "place": [57, "close", 1]}


# --- Names are text ---------------------------------------------------------------------------------------------------


def drawn_table(name: str, seat: int | None) -> Console:
    """A new game of `name` with the NAMES at the table, drawn as `logs replay` draws it (recorded)."""
    game = get_game(name)
    state = game.blank()
    for payload in game.setup(NAMES, Random(7)):
        state = game.apply(state, payload)
    console = Console(record=True, width=400, file=io.StringIO(), color_system="truecolor")
    console.print(presentation(game.name).render(state if seat is None else game.view(state, seat), seat))
    return console


@pytest.mark.parametrize("name", list(PACKAGES))
def test_every_game_draws_player_names_as_typed(name: str) -> None:
    text = drawn_table(name, None).export_text()
    for player in NAMES:
        assert player in text


@pytest.mark.parametrize("name", list(PACKAGES))
def test_no_player_name_becomes_a_link_or_a_style_in_the_exported_table(name: str) -> None:
    html = drawn_table(name, 1).export_html(inline_styles=True)
    assert "<a " not in html and "href" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html and EVIL not in html
    assert "[bold red]Ben" in html  # the brackets are shown, not read as a style


def tables_of(html: str) -> list[str]:
    """The tables the replay page shows as it steps, one after each event."""
    return [table for _, table in page_tables(html)]


@pytest.mark.parametrize("seat", [None, 0, 1, 2])
def test_the_replay_page_shows_names_with_markup_as_text_and_links_nowhere(recorded: Path, seat: int | None) -> None:
    with Store.open(recorded, read_only=True) as store:
        html = replay_html(store, EVIL_GAME, seat)
    assert not re.search(r"""href\s*=\s*["']?\s*javascript:""", html, re.I)
    assert EVIL not in html
    tables = tables_of(html)
    assert all("<a " not in table for table in tables)
    first = tables[0]  # later, long hands narrow the name column and wrap the names
    assert "[link=javascript:alert(document.domain)]Ann[/link]" in first
    assert "[bold red]Ben" in first and "&lt;script&gt;alert(1)&lt;/script&gt;" in first


# --- Moves as a seat saw them ------------------------------------------------------------------------------------


def test_a_card_another_seat_kept_face_down_is_hidden() -> None:
    assert seen_move("moirai", KEEP_DOWN, 0, 1) == {"type": "keep", "place": [None, "close", 1]}
    assert seen_move("moirai", {"type": "keep", "place": [12, "open", 3]}, 0, 1) == {
        "type": "keep",
        "place": [None, "open", 3],
    }


def test_the_mover_and_everyone_see_the_whole_move() -> None:
    assert seen_move("moirai", KEEP_DOWN, 0, 0) == KEEP_DOWN
    assert seen_move("moirai", KEEP_DOWN, 0, None) == KEEP_DOWN


def test_a_card_kept_face_up_and_a_pile_taken_are_public() -> None:
    up = {"type": "keep", "place": [40, "up", 1]}
    take = {"type": "take", "pile": "red", "place": [[75, "up", 2], [47, "close", 1]]}  # M9: the pile was face up
    assert public_move("moirai", up) == up
    assert public_move("moirai", take) == take
    assert public_move("moirai", {"type": "draw"}) == {"type": "draw"}


@pytest.mark.parametrize(
    "name, move",
    [
        ("motto", {"type": "take", "card": "red-2-love"}),
        ("motto", {"type": "draw"}),
        ("motto", {"type": "play", "cards": ["blue-1-love", "blue-2-love", "blue-3-love"]}),
        ("moorea", {"type": "exchange", "paid": ["wood", "clay"], "card": "fish"}),
        ("moorea", {"type": "discard", "cards": ["wood"]}),
        ("stones-of-fate", {"type": "peek", "at": "b1"}),
        ("stones-of-fate", {"type": "recover", "card": "the-moon"}),
    ],
)
def test_moves_that_name_only_public_cards_are_shown_whole(name: str, move: dict[str, Any]) -> None:
    assert public_move(name, move) == move


@pytest.mark.parametrize("name", list(PACKAGES))
def test_an_event_standing_for_a_move_shows_another_seat_only_its_type(name: str) -> None:
    move = {"event": "motto.drew", "card": "red-2-love"}
    assert seen_move(name, move, 0, 1) == {"event": "motto.drew"}
    assert seen_move(name, move, 0, 0) == move


@pytest.mark.parametrize("name", list(PACKAGES))
def test_a_move_of_an_unknown_kind_shows_only_its_kind(name: str) -> None:
    assert public_move(name, {"type": "cheat", "card": 57}) == {"type": "cheat"}


def test_the_best_action_is_advice_for_the_mover_only() -> None:
    assert advice_for(KEEP_DOWN, 0, 0) == KEEP_DOWN
    assert advice_for(KEEP_DOWN, 0, None) == KEEP_DOWN
    assert advice_for(KEEP_DOWN, 0, 1) is None


@pytest.mark.parametrize("name", list(PACKAGES))
def test_every_recorded_move_of_a_game_has_a_public_form_of_the_same_kind(recorded: Path, name: str) -> None:
    first = 1 + 8 * list(PACKAGES).index(name)
    with Store.open(recorded, read_only=True) as store:
        starts, _, _ = turn_starts(get_game(name), store.load(first))
    moves = [start.choice.action for start in starts if start.choice is not None]
    assert moves
    for move in moves:
        public = public_move(name, move)
        assert public["type"] == move["type"]
        assert public == move or (name, move["type"]) == ("moirai", "keep")  # only Moirai hides a part of a move


# --- The replay page of an analysed game, as each seat ---------------------------------------------------------------


def face_down_keep(store: Store) -> tuple[int, Any]:
    """A Moirai game and a recorded first choice of a turn in it that kept a drawn card face down."""
    for game_id in range(9, 17):
        starts, _, _ = turn_starts(get_game("moirai"), store.load(game_id))
        for start in starts:
            action = start.choice.action if start.choice is not None else {}
            if action.get("type") == "keep" and action["place"][1] != "up":
                return game_id, start
    raise AssertionError("no Moirai game kept a card face down")


@pytest.fixture(scope="module")
def analysed(recorded: Path) -> Iterator[tuple[int, int, dict[str, Any], dict[str, Any]]]:
    """A Moirai game with a stored analysis whose one key moment kept a card face down, the search's best action
    another face-down placement: (game, mover, action, best action)."""
    with Store.open(recorded) as store:
        game_id, start = face_down_keep(store)
        game, action = get_game("moirai"), start.choice.action
        down = [game.action_json(a) for a in game.legal_actions(start.choice.state)]
        best = next(a for a in down if a != action and a["place"][1] != "up")
        seats = store.game(game_id).players
        curve = [(start.seq, s, start.turn, 1 / seats, 0.1, 8, "greedy") for s in range(seats)]
        moment = (start.choice.seq, start.turn, start.seat, 0.3, 0.6, json.dumps(action), json.dumps(best), 0.7)
        store.replace_analysis(game_id, curve, [moment])
    yield game_id, start.seat, action, best


def moments_of(html: str) -> str:
    return html[html.index("<h3>Key moments</h3>") :]


def test_another_seat_sees_the_key_moment_without_the_face_down_card(recorded: Path, analysed: Any) -> None:
    game_id, mover, action, best = analysed
    other = (mover + 1) % 3
    with Store.open(recorded, read_only=True) as store:
        moments = moments_of(replay_html(store, game_id, other))
    hidden = {"type": "keep", "place": [None, *action["place"][1:]]}
    assert json.dumps(hidden) in moments.replace("&quot;", '"')
    assert json.dumps(action).replace('"', "&quot;") not in moments
    assert json.dumps(best).replace('"', "&quot;") not in moments  # the mover's advice names a drawn card


def test_the_mover_sees_its_own_key_moment_and_the_best_action(recorded: Path, analysed: Any) -> None:
    game_id, mover, action, best = analysed
    with Store.open(recorded, read_only=True) as store:
        moments = moments_of(replay_html(store, game_id, mover)).replace("&quot;", '"')
    assert json.dumps(action) in moments and json.dumps(best) in moments


def test_a_seat_is_shown_no_chance_estimated_from_every_hand(recorded: Path, analysed: Any) -> None:
    game_id, mover, _, _ = analysed
    with Store.open(recorded, read_only=True) as store:
        everyone = replay_html(store, game_id)
        seat = replay_html(store, game_id, mover)
    assert "Chance to win (logs analyse" in everyone and "30% → 60%" in everyone and "(70%)" in everyone
    assert "Chance to win (logs analyse" not in seat
    assert "30% → 60%" not in seat and "(70%)" not in seat and "chance to win</th>" not in seat
    assert "only the page with every card shows them" in seat
