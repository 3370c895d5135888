"""The rulebooks' examples told in words, word for word where the rulebook says what happens, and every event type of
every game told in its own words (never the bare type name)."""

from __future__ import annotations

import importlib
import inspect
from random import Random

import pytest

from loom.engine.moorea.actions import Lay
from loom.engine.moorea.cards import hand_cards, product
from loom.engine.play import Step, act
from loom.engine.presentation import Voice, presentation
from loom.engine.registry import PACKAGES, get_game
from loom.engine.stones_of_fate.actions import Flip
from loom.events.base import Event, Payload
from loom.events.registry import EVENT_MODULES
from loom.events.stones_of_fate import DeathGiven
from tests.unit import test_moorea_rules as moorea_rules
from tests.unit import test_stones_of_fate_rules as stones_rules


def _told(game: str, before: object, steps: list[Step], players: tuple[str, ...], viewer: int | None) -> list[str]:
    """`steps` played from `before`, each told as `viewer` saw it."""
    rules, tell = get_game(game), presentation(game).tell
    voice, told, state = Voice(players, viewer), [], before
    for n, step in enumerate(steps, 1):
        after = rules.apply(state, step.payload)
        told.append(tell(state, Event(1, n, step.turn, step.actor, step.payload), after, voice))
        state = after
    return told


def test_moorea_andrea_lays_two_canoes_and_one_hut_at_the_market() -> None:
    """R8, the rulebook's example: "Andrea lays 2 canoes and 1 hut at the market"."""
    state = moorea_rules.drawn(
        moorea_rules.table([("canoe", "canoe", "hut", "clay"), moorea_rules.QUIET], owned=[("market-1",)])
    )
    lay = Lay(product("market-1"), hand_cards(["canoe", "canoe", "hut"]))
    _, steps = act(get_game("moorea"), state, lay, Random(0))
    for viewer in (None, 1):
        assert _told("moorea", state, steps, ("Andrea", "Ben"), viewer)[0] == (
            "Andrea laid 2 canoes and 1 hut at the market (market-1)."
        )


def test_moorea_the_forest_owner_buys_the_jetty_with_2_wood() -> None:
    """R6, the rulebook's example: "The player who owns the forest can acquire the jetty card using only 2 wood"."""
    state = moorea_rules.drawn(
        moorea_rules.table([("wood", "wood", "wood"), moorea_rules.QUIET], owned=[("forest-2",)])
    )
    steps = [Step(1, 0, moorea_rules.buy("jetty-1", "wood", "wood"))]
    assert _told("moorea", state, steps, ("Ann", "Ben"), 0)[0] == "You bought the jetty (jetty-1) with 2 wood."
    assert _told("moorea", state, steps, ("Ann", "Ben"), 1)[0] == "Ann bought the jetty (jetty-1) with 2 wood."


def test_stones_of_fate_example_6_every_player_discards_then_black_adds_the_tower() -> None:
    """Rulebook example 6: black flips The Tower; each player, black included, discards a card at random; "black then
    adds The Tower to his/her collection"."""
    state = stones_rules.table(
        3,
        spread={"a1": "the-tower"},
        stones={0: {"a1-top": 2}, 1: {"a1-bottom": 1}},
        collections={0: ["ace-of-coins", "two-of-coins"], 1: ["ace-of-cups"], 2: []},
    )
    _, steps = stones_rules.play(state, Flip("a1"), rng=Random(3))
    lost = steps[1].payload.cards[0]  # type: ignore[attr-defined]
    told = _told("stones-of-fate", state, steps, ("black", "green", "red"), None)
    assert told[:3] == [
        "black flipped the card at a1: the-tower.",
        f"Each player discarded a card of their collection at random: black {lost}, green ace-of-cups and red none.",
        "black won the-tower at a1.",
    ]


def test_stones_of_fate_death_given_names_the_tied_seat() -> None:
    """S2, S11: Death's holder gives Death to one of the tied seats."""
    blank, tell = get_game("stones-of-fate").blank(), presentation("stones-of-fate").tell
    event = Event(1, 90, 9, 0, DeathGiven(to=1))  # what a tie leaves: no state is needed to say it
    assert tell(blank, event, blank, Voice(("Ann", "Ben"), 1)) == "Ann gave Death to you."
    assert tell(blank, event, blank, Voice(("Ann", "Ben"), 0)) == "You gave Death to Ben."


def _payload_classes(game: str) -> list[type[Payload]]:
    module = importlib.import_module(EVENT_MODULES[game])
    return [
        c
        for c in vars(module).values()
        if inspect.isclass(c) and issubclass(c, Payload) and c.__module__ == module.__name__
    ]


@pytest.mark.parametrize("game", list(PACKAGES))
def test_every_event_type_of_the_game_has_its_own_words(game: str) -> None:
    """Each game's `tell` words every one of its event types (deals, draws, plays, scoring, the end)."""
    source = inspect.getsource(presentation(game).tell)
    classes = _payload_classes(game)
    assert len(classes) >= 7
    missing = [c.__name__ for c in classes if f"ev.{c.__name__})" not in source]
    assert not missing
