"""Each game's notable facts for the dashboards: Motto's token race, Moorea's purchases, the zone that decided a
Stones of Fate card (S8)."""

from __future__ import annotations

from dataclasses import replace

from loom.engine.moorea import facts as moorea_facts
from loom.engine.moorea.state import MooreaState
from loom.engine.motto import facts as motto_facts
from loom.engine.motto.cards import VALUE_BY_NAME, VALUES
from loom.engine.motto.state import MottoState
from loom.engine.stones_of_fate.facts import decided_by
from loom.events.moorea import ProductBought, ToolBought
from loom.events.motto import CardsPlayed, TurnPassed
from tests.unit.test_stones_of_fate_rules import BLACK, GREEN, table


def stacks_without(*emptied: str) -> tuple[int, ...]:
    return tuple(0 if value in emptied else 2 for value in VALUES)


def test_motto_a_play_that_takes_a_stacks_last_token_empties_it_in_its_place_of_the_race() -> None:
    before = MottoState(seat=2, stacks=stacks_without("red"))
    after = replace(before, stacks=stacks_without("red", "love"))
    played = CardsPlayed(cards=("a", "b", "c"), tokens=(("love", 1), ("3", 2)))
    assert after.stacks[VALUE_BY_NAME["3"]] == 2
    assert motto_facts.facts(before, played, after) == ((2, "stack-emptied", "love", 2),)


def test_motto_other_events_add_no_fact() -> None:
    state = MottoState()
    assert motto_facts.facts(state, TurnPassed(), state) == ()


def test_moorea_a_purchase_names_the_product_not_its_copy() -> None:
    state = MooreaState(seat=1)
    fact = moorea_facts.facts(state, ProductBought(product="canoe-3", paid=()), state)
    assert [f[:3] for f in fact] == [(1, "bought", "canoe")]
    assert moorea_facts.facts(state, ToolBought(tool="cart", paid=()), state) == ((1, "bought-tool", "cart", 1),)


def test_s8_example_1_is_decided_by_power() -> None:
    state = table(2, spread={"a1": "ace-of-coins"},
                  stones={BLACK: {"a1-left": 2, "a1-bottom": 1}, GREEN: {"a1-bottom": 1, "a1-left": 1}})  # fmt: skip
    assert decided_by(state, 0) == "power"


def test_s8_example_2_is_decided_by_the_forbidden_zone_that_shut_black_out() -> None:
    state = table(2, spread={"a1": "two-of-wands"}, stones={BLACK: {"a1-top": 2, "a1-left": 1}, GREEN: {"a1-top": 1}})
    assert decided_by(state, 0) == "forbidden"


def test_s8_a_card_with_only_keystones_is_decided_by_them() -> None:
    state = table(2, spread={"a1": "ace-of-cups"}, stones={GREEN: {"a1-right": 2, "a1-bottom": 1}})
    assert decided_by(state, 0) == "keystone"


def test_s8_a_tie_decides_nobody() -> None:
    state = table(2, spread={"a1": "ace-of-coins"}, stones={BLACK: {"a1-top": 1}, GREEN: {"a1-left": 1}})
    assert decided_by(state, 0) == "nobody"
