"""The replay page as a board: the move list beside the table, each move a position, key moments in words, the last
position named, and a seat told only what it saw, in the moves as in the table after every event."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from functools import cache
from html import unescape
from pathlib import Path
from typing import Any

import pytest

from loom.dashboards.viewer import _table_html, positions, replay_html
from loom.engine.protocol import Game
from loom.engine.registry import get_game
from loom.engine.telling import tell_game
from loom.replay.analysis import analyse
from loom.replay.replay import fold
from loom.replay.store import Store
from tests.dashboards.conftest import EVIL, EVIL_GAME
from tests.dashboards.pages import page_tables
from tests.security.common import card_names, named_in

MOTTO, STONES = 2, 26
"""A game of Motto and one of Stones of Fate, whose cards are named by distinctive strings (Moirai's are numbers;
Moorea's games are as named, but long)."""


@pytest.fixture(scope="module")
def analysed(recorded: Path) -> Iterator[Path]:
    """The store, with a Motto and a Stones of Fate game analysed by `logs analyse` (few rollouts, five moments)."""
    for game_id in (MOTTO, STONES):
        analyse(str(recorded), game_id, rollouts=4, bot="random", budget=40, moments=5)
    yield recorded


@pytest.fixture(scope="module")
def seat_page(analysed: Path) -> Callable[[int, int], tuple[list[Any], str]]:
    """The events of an analysed game and its page as a seat sees it, each page made once for the module's tests."""

    @cache
    def made(game_id: int, seat: int) -> tuple[list[Any], str]:
        with Store.open(analysed, read_only=True) as store:
            return store.load(game_id), replay_html(store, game_id, seat)

    return made


def buttons(html: str, kind: str) -> list[tuple[dict[str, str], str]]:
    """The moves (buttons) or key moments (table rows) of a page: each one's data attributes and its text."""
    tag = "button" if kind == "move" else "tr"
    found = re.findall(rf'<{tag}[^>]* class="{kind}" ([^>]*)>(.*?)</{tag}>', html, re.S)
    return [
        (dict(re.findall(r'data-(\w+)="(\d+)"', attrs)), unescape(re.sub(r"<[^>]+>", "", text)))
        for attrs, text in found
    ]


def states_after(game: Game, events: list[Any]) -> list[Any]:
    """The state before the first event, then after each."""
    out = [game.blank()]
    for event in events:
        out.append(game.apply(out[-1], event.payload))
    return out


def names_of(game: Game, state: Any) -> set[str]:
    return card_names(json.loads(json.dumps(game.describe(state))))


def hidden_around(game: Game, states: list[Any], seq: int, seat: int) -> set[str]:
    """The cards at the table before or after event `seq` that `seat` saw at neither moment."""
    around = [states[seq - 1], states[seq]]
    shown = set().union(*(names_of(game, game.view(state, seat)) for state in around))
    return set().union(*(names_of(game, state) for state in around)) - shown


def test_the_move_list_has_a_sentence_per_event_each_jumping_to_the_table_right_after_it(recorded: Path) -> None:
    with Store.open(recorded, read_only=True) as store:
        events = store.load(MOTTO)
        game = get_game("motto")
        html = replay_html(store, MOTTO)
    moves = buttons(html, "move")
    names = list(fold(game, events[:1]).players)
    stops = positions(game, events, None)
    assert [text.split(" ", 1)[1] for _, text in moves] == tell_game("motto", events, names, None)
    assert [stops[int(data["stop"])].seq for data, _ in moves] == [event.seq for event in events]
    assert [int(data["seq"]) for data, _ in moves] == [event.seq for event in events]
    assert int(moves[-1][0]["stop"]) == len(stops) - 1  # the last move shows the end


def test_the_move_list_shows_names_as_text(recorded: Path) -> None:
    with Store.open(recorded, read_only=True) as store:
        html = replay_html(store, EVIL_GAME, 0)
    moves = html[html.index('<ol id="moves"') : html.index("</ol>", html.index('<ol id="moves"'))]
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in moves and EVIL not in moves


def test_the_last_position_names_the_winner_and_each_score_with_its_breakdown(recorded: Path) -> None:
    with Store.open(recorded, read_only=True) as store:
        game, events = get_game("stones-of-fate"), store.load(STONES)
        html = replay_html(store, STONES)
    final = fold(game, events)
    names = list(final.players)
    shown = unescape(re.sub(r"<[^>]+>", " ", html[html.index('<div id="final"') : html.index('<div class="side">')]))
    winner = names[game.winners(final)[0]]
    assert f"{winner} won" in shown or "shared the win" in shown
    for seat, parts in enumerate(game.breakdown(final)):
        assert f"{names[seat]}: {game.scores(final)[seat]} points" in shown
        assert all(f"{part} {points}" in shown for part, points in parts.items())


@pytest.mark.parametrize(("name", "game_id"), [("motto", MOTTO), ("stones-of-fate", STONES)])
@pytest.mark.parametrize("seat", [0, 1, 2])
def test_a_seats_move_list_names_no_card_it_did_not_see(seat_page: Any, name: str, game_id: int, seat: int) -> None:
    game = get_game(name)
    events, html = seat_page(game_id, seat)
    states = states_after(game, events)
    moves = buttons(html, "move")
    assert len(moves) == len(events)
    hidden = [hidden_around(game, states, event.seq, seat) for event in events]
    assert any(hidden)  # the game hides cards from this seat: the check below has something to find
    leaks = {event.seq: named_in(text, cards) for event, (_, text), cards in zip(events, moves, hidden)}
    assert {seq: found for seq, found in leaks.items() if found} == {}


@pytest.mark.parametrize(("name", "game_id"), [("motto", MOTTO), ("stones-of-fate", STONES)])
@pytest.mark.parametrize("seat", [0, 1, 2])
def test_a_seats_table_after_every_event_is_its_view_there(seat_page: Any, name: str, game_id: int, seat: int) -> None:
    game = get_game(name)
    events, html = seat_page(game_id, seat)
    states = states_after(game, events)
    tables = page_tables(html)
    assert [seq for seq, _ in tables] == [event.seq for event in events]  # a position after every event
    hidden = {seq: names_of(game, states[seq]) - names_of(game, game.view(states[seq], seat)) for seq, _ in tables}
    assert any(hidden.values())
    assert {
        seq: named_in(unescape(table), hidden[seq]) for seq, table in tables if named_in(unescape(table), hidden[seq])
    } == {}
    if name == "motto":  # Motto draws its cards as glyphs: each table must be the drawing of the seat's view
        assert [seq for seq, table in tables if table != _table_html(game, game.view(states[seq], seat), seat)] == []


@pytest.mark.parametrize(("name", "game_id"), [("motto", MOTTO), ("stones-of-fate", STONES)])
@pytest.mark.parametrize("seat", [0, 1, 2])
def test_a_seats_key_moments_name_no_card_it_did_not_see(seat_page: Any, name: str, game_id: int, seat: int) -> None:
    game = get_game(name)
    events, html = seat_page(game_id, seat)
    states = states_after(game, events)
    moments = buttons(html, "moment")
    assert moments
    for data, text in moments:
        assert named_in(text, hidden_around(game, states, int(data["seq"]), seat)) == set()
        assert "→" not in text  # no chance: each was estimated from every hand


def test_key_moments_read_as_moves_in_words_with_the_swing_and_jump_to_their_move(analysed: Path) -> None:
    with Store.open(analysed, read_only=True) as store:
        game, events = get_game("motto"), store.load(MOTTO)
        html = replay_html(store, MOTTO)
        stored = store.key_moment_frame(MOTTO)
    names = list(fold(game, events[:1]).players)
    told = tell_game("motto", events, names, None)
    stops = positions(game, events, None)
    moments = buttons(html, "moment")
    assert len(moments) == len(stored)
    for (data, text), m in zip(moments, stored.itertuples()):
        assert told[int(m.seq) - 1] in text
        assert f"{m.before:.0%} → {m.after:.0%}" in text
        assert stops[int(data["stop"])].seq == m.seq  # the table right after the move


def test_a_written_page_brings_everything_it_needs_with_it(recorded: Path) -> None:
    with Store.open(recorded, read_only=True) as store:
        html = replay_html(store, MOTTO)
    assert "<script src=" not in html and "<link " not in html and "Plotly" in html
    assert len(html) > 4_000_000  # plotly.js inline: the file opens offline
    assert 'id="whatif"' not in html  # what-if needs the server
