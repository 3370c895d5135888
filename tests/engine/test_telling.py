"""The games told in words (`engine/telling.py`): one sentence per event, as each seat saw it at the table.

Hidden information is a promise: for every game, a whole simulated game is told to every seat, and no sentence names a
card that the seat's own view (`Game.view`) did not show just before or just after the event; the omniscient reader
sees every card. A few sentences are checked word for word against the rulebooks' examples.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import replace
from functools import cache
from random import Random
from typing import Any

import pytest

from loom.engine.moirai.state import MoiraiState
from loom.engine.moorea.cards import HAND_CARDS, PRODUCT_BY_ID
from loom.engine.motto.cards import CARD_NAMES
from loom.engine.presentation import Voice, presentation
from loom.engine.protocol import HIDDEN
from loom.engine.registry import get_game
from loom.engine.stones_of_fate.cards import CARD_IDS
from loom.engine.telling import ending, tell_game
from loom.events.base import Event, LoomError
from tests.playouts import Playout, playout

GAMES = ("motto", "moirai", "moorea", "stones-of-fate")


@cache
def played(game: str) -> tuple[Playout, tuple[Event, ...]]:
    """A three-player game of `game`, greedy against two random bots, and its events as the store numbers them."""
    rules = get_game(game)
    game_played = playout(rules, rules.bots, 7, ["greedy", "random", "random"])
    events = tuple(Event(1, n, step.turn, step.actor, step.payload) for n, step in enumerate(game_played.steps, 1))
    return game_played, events


def told(game: str, viewer: int | None) -> list[str]:
    """The simulated game of `game` told to `viewer`."""
    game_played, events = played(game)
    return tell_game(game, events, game_played.states[1].players, viewer)


# --- Which card names a sentence holds, and which a seat could see ---------------------------------------------------


def _words(names: Iterable[str]) -> re.Pattern[str]:
    alternatives = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
    return re.compile(rf"(?<![\w-])({alternatives})(?![\w-])")


MOTTO_CARD = _words(CARD_NAMES)
MOIRAI_CARD = re.compile(r"\b(green|blue|purple|red) (\d+)\b")
MOOREA_PRODUCT = re.compile(r"the [a-z ]+ \(([\w-]+)\)")
MOOREA_CARD = _words([*HAND_CARDS, *PRODUCT_BY_ID])
STONES_CARD = _words(CARD_IDS)


def _strings(value: Any) -> set[str]:
    """Every text inside a described state."""
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return _strings(list(value.keys())) | _strings(list(value.values()))
    if isinstance(value, list | tuple):
        return set().union(*(_strings(v) for v in value)) if value else set()
    return set()


def _moirai_seen(state: MoiraiState) -> set[str]:
    cards = [c for pile in state.piles for c in pile] + list(state.drawn)
    for loom in state.looms:
        for start, face_up, close in loom:
            cards += [start, *face_up] + ([close] if close is not None else [])
    return {str(c) for c in cards if c != HIDDEN}


def named(game: str, sentence: str) -> set[str]:
    """The cards a sentence names, as the game's describe names them (Moirai: the card's number)."""
    if game == "motto":
        return set(MOTTO_CARD.findall(sentence))
    if game == "moirai":
        return {number for _, number in MOIRAI_CARD.findall(sentence)}
    if game == "moorea":
        return set(MOOREA_CARD.findall(MOOREA_PRODUCT.sub(r"\1", sentence)))
    return set(STONES_CARD.findall(sentence))


def seen(game: str, state: Any, seat: int) -> set[str]:
    """Every card `seat` sees in `state`, by the game's own view."""
    rules = get_game(game)
    view = rules.view(state, seat)
    return _moirai_seen(view) if game == "moirai" else _strings(rules.describe(view))


# --- Every game, every seat: nothing leaks --------------------------------------------------------------------------


@pytest.mark.parametrize("game", GAMES)
def test_one_sentence_per_event_for_every_reader(game: str) -> None:
    _, events = played(game)
    for viewer in (None, 0, 1, 2):
        sentences = told(game, viewer)
        assert len(sentences) == len(events)
        assert all(s and s[-1] in ".!?" for s in sentences), viewer
        assert not [s for s, e in zip(sentences, events, strict=True) if e.type in s], viewer  # no bare type names


@pytest.mark.parametrize("game", GAMES)
def test_no_sentence_names_a_card_its_seat_could_not_see(game: str) -> None:
    """A seat is told only cards its view showed just before or just after the event."""
    game_played, events = played(game)
    states = game_played.states
    for seat in range(3):
        for n, sentence in enumerate(told(game, seat)):
            leaked = named(game, sentence) - seen(game, states[n], seat) - seen(game, states[n + 1], seat)
            assert not leaked, (seat, events[n], sentence)


@pytest.mark.parametrize("game", GAMES)
def test_the_omniscient_reader_is_told_more_than_any_seat(game: str) -> None:
    """Everything hidden from a seat is a card the omniscient reader is told: the deal, the draws, the peeks."""
    everything = told(game, None)
    for seat in range(3):
        seat_told = told(game, seat)
        assert sum(map(len, (named(game, s) for s in everything))) > sum(map(len, (named(game, s) for s in seat_told)))


@pytest.mark.parametrize("game", GAMES)
def test_a_seat_is_you_and_the_others_are_named(game: str) -> None:
    game_played, events = played(game)
    players = game_played.states[1].players
    mine = [s for e, s in zip(events, told(game, 1), strict=True) if e.actor == 1]
    theirs = [s for e, s in zip(events, told(game, 1), strict=True) if e.actor == 0]
    assert mine and all(s.startswith("You ") for s in mine)
    assert theirs and all(s.startswith(players[0]) for s in theirs)
    assert all(s.startswith(players[1]) for e, s in zip(events, told(game, None), strict=True) if e.actor == 1)


HIDDEN_DRAWS: dict[str, tuple[str, Callable[[Any], Iterable[str]]]] = {
    "motto": ("motto.drew", lambda p: [p.card]),
    "moirai": ("moirai.drew", lambda p: [f"{c}" for c in p.cards]),
    "moorea": ("moorea.drew", lambda p: [p.card]),
    "stones-of-fate": ("stones-of-fate.peeked", lambda p: [p.card]),
}


@pytest.mark.parametrize("game", GAMES)
def test_a_card_drawn_or_peeked_in_secret_is_named_to_its_seat_alone(game: str) -> None:
    """Motto T4, Moirai M7, Moorea R4, Stones of Fate S5: the drawer (peeker) and the omniscient reader see it."""
    _, events = played(game)
    kind, cards = HIDDEN_DRAWS[game]
    secret = [n for n, e in enumerate(events) if e.type == kind]
    assert secret
    by_reader = {viewer: told(game, viewer) for viewer in (None, 0, 1, 2)}
    for n in secret:
        event = events[n]
        for viewer, sentences in by_reader.items():
            shown = named(game, sentences[n])
            if viewer is None or viewer == event.actor:
                assert set(cards(event.payload)) <= shown, sentences[n]
            else:
                assert not shown, sentences[n]


def test_moirai_a_card_kept_face_down_is_named_to_its_owner_alone() -> None:
    """M9: a face-down card from option 1 is seen by its owner only; the cards not kept go to the public piles."""
    _, events = played("moirai")
    down = [n for n, e in enumerate(events) if e.type == "moirai.kept" and e.payload.placed[0][1] != "up"]
    assert down
    for n in down:
        event = events[n]
        card = str(event.payload.placed[0][0])
        other = (event.actor + 1) % 3
        assert card in named("moirai", told("moirai", event.actor)[n])
        assert card not in named("moirai", told("moirai", other)[n])
        assert "a card face down" in told("moirai", other)[n]


def test_moirai_starting_cards_are_named_to_nobody_until_scoring() -> None:
    """M3: nobody, the owner included, sees the setup starting card; the omniscient reader does."""
    _, events = played("moirai")
    n = next(n for n, e in enumerate(events) if e.type == "moirai.dealt")
    assert all(not named("moirai", told("moirai", seat)[n]) for seat in range(3))
    assert len(named("moirai", told("moirai", None)[n])) == 3


def test_stones_of_fate_a_refilled_card_is_named_to_nobody_who_had_not_seen_it() -> None:
    """S9: the refill is face down and unseen; only the omniscient reader is told the card."""
    _, events = played("stones-of-fate")
    refills = [n for n, e in enumerate(events) if e.type == "stones-of-fate.refilled"]
    assert refills
    assert all(named("stones-of-fate", told("stones-of-fate", None)[n]) for n in refills)
    assert not any(named("stones-of-fate", told("stones-of-fate", 2)[n]) for n in refills)


def test_a_seat_out_of_range_is_refused() -> None:
    _, events = played("motto")
    with pytest.raises(LoomError, match="seat 3 is out of range"):
        tell_game("motto", events, ["a", "b", "c"], 3)


def test_a_game_is_told_from_its_first_event() -> None:
    """The words of an event depend on what came before (Moirai's piles, Stones of Fate's spread)."""
    _, events = played("moirai")
    with pytest.raises(LoomError, match="from its first event, not from event 5"):
        tell_game("moirai", events[4:], ["a", "b", "c"], None)
    assert tell_game("moirai", (), ["a", "b", "c"], None) == []


# --- The rulebooks' examples, word for word ---------------------------------------------------------------------------


def _motto_play(cards: tuple[str, str, str]) -> str:
    """Adam (seat 0, to move, with full token stacks) plays `cards`, told to the omniscient reader."""
    rules = get_game("motto")
    players = ("Adam", "Thomas", "Patrick")
    state = rules.blank()
    for payload in rules.setup(players, Random(1)):
        state = rules.apply(state, payload)
    hands = (tuple(CARD_NAMES.index(c) for c in cards), *state.hands[1:])
    state = replace(state, hands=hands, seat=0)
    (played_event,) = rules.resolve(state, rules.parse_action({"type": "play", "cards": list(cards)}), Random(1))
    after = rules.apply(state, played_event)
    event = Event(1, 9, 1, 0, played_event)
    return presentation("motto").tell(state, event, after, Voice(players, None))


def test_motto_example_1_red_and_two_symbols_take_two_tokens() -> None:
    """Rulebook example 1: all three red with 2 symbols: the largest red and the largest "2" token, no symbol."""
    assert _motto_play(("red-2-love", "red-2-passion", "red-2-passion")) == (
        "Adam played red-2-love, red-2-passion and red-2-passion and took the large 2 token and the large red token."
    )


def test_motto_example_2_money_alone_takes_the_money_token() -> None:
    """Rulebook example 2: all three money, colours and numbers differ: the largest money token only."""
    assert _motto_play(("red-2-money", "blue-3-money", "red-3-money")) == (
        "Adam played red-2-money, red-3-money and blue-3-money and took the large money token."
    )


def test_motto_example_3_adam_wins_with_21_points() -> None:
    """Rulebook example 3: 4 large, 4 medium, 1 small is 21; Thomas 14; Patrick 17; "Thus Adam wins with 21 points"."""
    rules = get_game("motto")
    won = {0: (4, 4, 1), 1: (2, 3, 2), 2: (3, 2, 4)}
    tokens = tuple(tuple((0, p) for p, n in zip((3, 2, 1), won[s], strict=True) for _ in range(n)) for s in range(3))
    final = replace(rules.blank(), players=("Adam", "Thomas", "Patrick"), tokens=tokens)
    assert ending(rules, final, Voice(final.players, None)) == (
        "The game is over: Adam 21, Thomas 14 and Patrick 17. Adam wins with 21 points."
    )
    assert ending(rules, final, Voice(final.players, 0)).endswith("You win with 21 points.")
