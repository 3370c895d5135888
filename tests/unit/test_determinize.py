"""`determinize`: a full position consistent with what one seat sees, for every game; and, with no seat, the same
position with what nobody has seen drawn anew. Checked on simulated games (deck order recorded) and on the example
games typed after a real table (deck order unknown), played on to their end."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from random import Random
from typing import Any

import pytest

from loom.engine.bots import RandomBot
from loom.engine.moirai.cards import FULL_DECK as MOIRAI_DECK
from loom.engine.moorea.cards import FULL_DECK as MOOREA_DECK
from loom.engine.moorea.cards import PRODUCTS, in_game
from loom.engine.motto.cards import FULL_DECK as MOTTO_DECK
from loom.engine.play import chance_rng, play_out, start
from loom.engine.protocol import CHANCE_TO_MOVE, HIDDEN, Game
from loom.engine.registry import get_game
from loom.engine.stones_of_fate.state import EMPTY
from loom.events.registry import decode_payload

EXAMPLES = Path(__file__).parents[2] / "docs" / "examples"
GAMES = ("motto", "moirai", "moorea", "stones-of-fate")
EXAMPLE_FILES = {
    "motto": "motto-table-game.jsonl",
    "moirai": "moirai-table-game.jsonl",
    "moorea": "moorea-table-game.jsonl",
    "stones-of-fate": "stones-of-fate-table-game.jsonl",
}


def _moves(game: Game, first: Any, rng: Random) -> list[Any]:
    """The positions of a game played on from `first` by random bots, every one in which a seat decides."""
    seen: list[Any] = []

    def keep(state: Any, steps: list[Any]) -> None:
        if game.to_move(state) not in (None, CHANCE_TO_MOVE):
            seen.append(state)

    seats = range(len(game.scores(first)))
    play_out(game, first, {s: RandomBot() for s in seats}, rng, {s: Random(s) for s in seats}, observe=keep)
    return seen


def simulated(name: str, seed: int) -> list[Any]:
    """Every decision position of a seeded three-player game between random bots (deck order recorded)."""
    game = get_game(name)
    rng = Random(f"determinize/{name}/{seed}")
    state, steps = start(game, ["a", "b", "c"], rng)
    return [state, *_moves(game, state, chance_rng(seed, len(steps)))]


def table(name: str) -> list[Any]:
    """The example game typed after a real table (no deck order), and the positions of it played on to the end."""
    game = get_game(name)
    state = game.blank()
    for line in (EXAMPLES / EXAMPLE_FILES[name]).read_text().splitlines()[1:]:
        data = json.loads(line)
        state = game.apply(state, decode_payload(data.pop("type"), data))
    return [state, *_moves(game, state, chance_rng(7, 100))]


def sample(positions: list[Any], count: int = 12) -> list[Any]:
    """`count` positions spread over the game."""
    step = max(1, len(positions) // count)
    return positions[::step]


def positions(name: str) -> list[Any]:
    """Positions of a simulated game and of the table example, with the seats of each."""
    return sample(simulated(name, 3)) + sample(table(name))


# --- What a full position holds, game by game --------------------------------------------------------------------


def motto_cards(state: Any) -> None:
    held = [c for hand in state.hands for c in hand] + [*state.pool, *state.deck, *state.discard]
    assert Counter(held) == Counter(MOTTO_DECK)


def moirai_cards(state: Any) -> None:
    placed = [c for loom in state.looms for start, ups, close in loom for c in (start, *ups, close) if c is not None]
    held = [c for c in placed if c != HIDDEN] + [c for pile in state.piles for c in pile] + [*state.drawn, *state.deck]
    assert sorted(held) == sorted(MOIRAI_DECK)
    if state.deck_ordered:
        assert len(state.deck) == state.deck_left


def moorea_cards(state: Any) -> None:
    laid = [code for seat_laid in state.laid for _, code in seat_laid]
    cards = [c for hand in state.hands for c in hand] + laid + [*state.deck, *state.discard, *state.face_up]
    assert Counter(c for c in cards if c < 5) == Counter(MOOREA_DECK)
    products = [*state.layout, *(p for owned in state.owned for p in owned), *state.pile]
    bought = Counter(c for c in [*cards, *state.removed] if c >= 5)
    assert len(set(products)) == len(products)
    unplaced = Counter(PRODUCTS[p].hand_code for p in set(in_game(len(state.players))) - set(products))
    assert unplaced == bought


def stones_cards(state: Any) -> None:
    cards = [c for c in state.spread if c != EMPTY] + [c for held in state.collections for c in held]
    cards += [*state.discard, *state.deck]
    assert HIDDEN not in cards and len(set(cards)) == len(cards)
    if state.deck_ordered:
        assert len(state.deck) == state.deck_size


FULL: dict[str, Callable[[Any], None]] = {
    "motto": motto_cards,
    "moirai": moirai_cards,
    "moorea": moorea_cards,
    "stones-of-fate": stones_cards,
}


# --- The properties ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", GAMES)
def test_a_seat_sees_in_a_determinization_of_its_view_exactly_its_view(name: str) -> None:
    game = get_game(name)
    for number, state in enumerate(positions(name)):
        for seat in range(len(game.scores(state))):
            seen = game.view(state, seat)
            full = game.determinize(seen, seat, Random(number))
            assert game.view(full, seat) == seen


@pytest.mark.parametrize("name", GAMES)
def test_a_determinization_deals_every_card_the_seat_cannot_see_exactly_once(name: str) -> None:
    game = get_game(name)
    for number, state in enumerate(positions(name)):
        FULL[name](state)
        for seat in range(len(game.scores(state))):
            FULL[name](game.determinize(game.view(state, seat), seat, Random(number)))


@pytest.mark.parametrize("name", GAMES)
def test_the_hidden_cards_differ_from_one_determinization_to_the_next(name: str) -> None:
    game = get_game(name)
    state = simulated(name, 5)[8]
    seen = game.view(state, 0)
    worlds = {game.determinize(seen, 0, Random(k)) for k in range(6)}
    assert len(worlds) > 1
    assert game.determinize(seen, 0, Random(1)) == game.determinize(seen, 0, Random(1))


@pytest.mark.parametrize("name", GAMES)
def test_a_determinization_is_a_position_the_rules_play_on_to_the_end(name: str) -> None:
    game = get_game(name)
    for number, state in enumerate(sample(simulated(name, 4), 4) + sample(table(name), 4)):
        seat = game.to_move(state)
        full = game.determinize(game.view(state, seat), seat, Random(number))
        seats = range(len(game.scores(full)))
        end, _ = play_out(game, full, {s: RandomBot() for s in seats}, Random(number), {s: Random(s) for s in seats})
        assert game.to_move(end) is None


@pytest.mark.parametrize("name", GAMES)
def test_drawing_anew_what_nobody_has_seen_changes_no_seat_s_view(name: str) -> None:
    game = get_game(name)
    for number, state in enumerate(positions(name)):
        again = game.determinize(state, None, Random(number))
        FULL[name](again)
        for seat in range(len(game.scores(state))):
            assert game.view(again, seat) == game.view(state, seat)


@pytest.mark.parametrize("name", GAMES)
def test_a_recorded_deck_order_is_drawn_anew(name: str) -> None:
    game = get_game(name)
    state = simulated(name, 6)[4]
    assert len({game.determinize(state, None, Random(k)) for k in range(6)}) > 1


def test_a_table_game_s_unknown_deck_stays_unordered_and_moirai_s_unknown_starting_cards_stay_unknown() -> None:
    game = get_game("moirai")
    state = table("moirai")[0]
    assert not state.deck_ordered and all(loom[0][0] == HIDDEN for loom in state.looms)
    for seat in (None, 0, 1):
        seen = state if seat is None else game.view(state, seat)
        full = game.determinize(seen, seat, Random(2))
        assert not full.deck_ordered and all(loom[0][0] == HIDDEN for loom in full.looms)
