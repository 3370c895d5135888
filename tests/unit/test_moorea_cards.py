"""Moorea's card data file, rulings R1 (one validated data file, invented values marked) and R2 (a playable,
balanced invented list). A broken file is refused with its reason: each test breaks a parsed copy of the shipped
file (or a copy written to a temporary directory), never the file itself."""

from __future__ import annotations

import copy
import tomllib
from collections import Counter
from pathlib import Path
from statistics import fmean
from typing import Any

import pytest

from loom.engine.moorea.cards import (
    CARD_FILE,
    CARDS,
    COMMODITIES,
    FULL_DECK,
    HAND_CARDS,
    INTERMEDIATES,
    PRODUCTS,
    TOOL_KINDS,
    TOOLS,
    CardFileError,
    load,
    validate,
)

SHIPPED: dict[str, Any] = tomllib.loads(CARD_FILE.read_text())


def broken(change: Any) -> str:
    """The reason `validate` refuses a copy of the shipped data after `change(data)`."""
    data = copy.deepcopy(SHIPPED)
    change(data)
    with pytest.raises(CardFileError) as refusal:
        validate(data)
    return str(refusal.value)


def entry(data: dict[str, Any], entry_id: str) -> dict[str, Any]:
    """The first [[product]] table with this id."""
    return next(e for e in data["product"] if e["id"] == entry_id)


# --- R1: the card data file -------------------------------------------------------------------------------------------


def test_r1_the_shipped_file_holds_70_products_4_tools_of_5_and_75_commodities() -> None:
    """R1, R3: 70 product cards with unique stable ids, 6 of them marked "5"; 4 tool kinds of 5; 15 of each of five
    commodities."""
    assert len(PRODUCTS) == 70 and len({p.id for p in PRODUCTS}) == 70
    assert Counter(p.marking for p in PRODUCTS)["5"] == 6
    assert [t.name for t in TOOLS] == list(TOOL_KINDS) and all(t.copies == 5 for t in TOOLS)
    assert Counter(FULL_DECK) == {c: 15 for c in range(len(COMMODITIES))}
    assert COMMODITIES == ("seashells", "wood", "bamboo", "clay", "fish")


def test_r1_every_card_has_the_fields_of_its_kind() -> None:
    """R1: id, name, kind, cost, points, pile, marking; a store what it accepts and its points per card; a
    production site its commodity; an intermediate product its hand card."""
    kinds = Counter(p.kind for p in PRODUCTS)
    assert set(kinds) == {"intermediate", "production site", "store", "seashell necklace", "product"}
    for p in PRODUCTS:
        assert p.id and p.name and (p.same or any(p.need)) and p.pile in (0, 1) and p.marking in ("all", "4+", "5")
        assert (p.kind == "store") == bool(p.accepts and p.per_card > 0)
        assert (p.kind == "production site") == (p.produces >= 0)
        assert (p.kind == "intermediate") == (p.hand_code >= 0)
    sites = {p.name: COMMODITIES[p.produces] for p in PRODUCTS if p.kind == "production site"}
    assert sites == {"forest": "wood", "clay pit": "clay", "bamboo forest": "bamboo", "seashell beach": "seashells"}


def test_r1_ids_are_stable_names_numbered_in_file_order() -> None:
    """R1: a design's copies are `<id>-1`, `<id>-2`, ... across every table with that id."""
    assert [p.id for p in PRODUCTS if p.name == "canoe"] == [f"canoe-{k}" for k in range(1, 8)]
    assert [p.id for p in PRODUCTS if p.kind == "seashell necklace"] == [f"necklace-{k}" for k in range(1, 7)]


def test_r1_every_invented_value_is_marked_invented() -> None:
    """R1: every product and tool table lists its invented values; the rulebook's values are not marked."""
    for table in [*SHIPPED["product"], *SHIPPED["tool"]]:
        assert isinstance(table["invented"], list), table
    assert "per_card" not in entry(SHIPPED, "wood-store")["invented"]  # 1 per wood: the rulebook
    assert "per_card" not in entry(SHIPPED, "jetty")["invented"]  # 3 per canoe: the rulebook
    assert "cost" not in entry(SHIPPED, "market")["invented"]  # 1 canoe, 1 hut, 1 stoneware: the rulebook
    assert "cost" not in entry(SHIPPED, "forest")["invented"]  # 4 of one commodity: the rulebook
    assert all({"same", "points"} <= set(t["invented"]) for t in SHIPPED["tool"])


def test_r1_the_file_says_how_to_replace_it_with_the_printed_cards() -> None:
    """R1: the header tells a user with the printed cards what to copy, and that nothing else changes."""
    header = CARD_FILE.read_text().split("min_players")[0]
    assert "Replacing this file with the printed cards" in header and "Nothing in the code needs to change" in header


def test_r1_a_file_missing_a_product_card_is_refused() -> None:
    """R1: 69 product cards is a count off."""
    reason = broken(lambda d: entry(d, "tiles")["copies"].pop())
    assert reason == "card file: it lists 69 product cards; Moorea has 70 (R1)"


def test_r1_a_wrong_number_marked_five_is_refused() -> None:
    """R1: exactly six cards are marked "5"."""
    reason = broken(lambda d: entry(d, "palisades")["copies"].__setitem__(0, "5"))
    assert reason == "card file: 7 product cards are marked 5; exactly 6 are (R1)"


def test_r1_an_unknown_commodity_is_refused() -> None:
    """R1: a cost naming something that is not a hand card."""
    reason = broken(lambda d: entry(d, "bridge")["cost"].update(gold=1))
    assert "the cost of product 'bridge' names an unknown commodity 'gold'" in reason


def test_r1_a_store_that_accepts_nothing_is_refused() -> None:
    """R1: a store must say what may be laid there."""
    assert "store 'well' accepts nothing" in broken(lambda d: entry(d, "well").update(accepts=[]))
    assert "store 'well' accepts nothing" in broken(lambda d: entry(d, "well").pop("accepts"))
    assert "unknown commodity 'water'" in broken(lambda d: entry(d, "well").update(accepts=["water"]))
    assert "`per_card`" in broken(lambda d: entry(d, "well").update(per_card=0))


def test_r1_wrong_tool_and_commodity_counts_are_refused() -> None:
    """R1, R3: four tool kinds of five cards each; fifteen cards of each commodity."""
    assert "each tool kind has 5" in broken(lambda d: d["tool"][0].update(copies=4))
    assert "the tools are exactly basket" in broken(lambda d: d["tool"].pop())
    assert "there are 14 fish cards; each commodity has 15" in broken(lambda d: d["commodities"].update(fish=14))


def test_r1_unmarked_values_and_unknown_fields_are_refused() -> None:
    """R1: a table without its `invented` list, or with a misspelt field, is refused."""
    assert "must list its invented values" in broken(lambda d: entry(d, "temple").pop("invented"))
    assert "unknown field 'colour'" in broken(lambda d: entry(d, "temple").update(colour="red"))
    assert "kind 'castle'" in broken(lambda d: entry(d, "temple").update(kind="castle"))
    assert "pile 'III'" in broken(lambda d: entry(d, "temple").update(pile="III"))
    assert "has no id" in broken(lambda d: entry(d, "temple").pop("id"))


def test_r1_load_refuses_a_broken_file_on_disk(tmp_path: Path) -> None:
    """R1: `load` reads a file: a count off or a file that is not TOML is refused with the reason."""
    path = tmp_path / "cards.toml"
    path.write_text(CARD_FILE.read_text().replace('copies = ["all", "all", "4+"]', 'copies = ["all", "4+"]', 1))
    with pytest.raises(CardFileError, match="it lists 69 product cards"):
        load(path)
    path.write_text("[[product]\n")
    with pytest.raises(CardFileError, match="is not TOML"):
        load(path)
    assert load(CARD_FILE) == CARDS


# --- R2: a playable, balanced invented list ---------------------------------------------------------------------------


def _cards_worth(p: Any) -> int:
    """A product's cost in commodity cards, its intermediate products counted at their own cost."""
    inter = {q.name: sum(q.need) for q in PRODUCTS if q.kind == "intermediate"}
    return p.same or sum(n if c < 5 else n * inter[HAND_CARDS[c]] for c, n in enumerate(p.need))


def test_r2_every_product_can_be_paid_from_a_hand() -> None:
    """R2: every cost fits the hand limit of 6, with intermediate products made from commodities only."""
    for p in PRODUCTS:
        assert p.size <= CARDS.hand_size, p.id
    assert all(not any(p.need[5:]) for p in PRODUCTS if p.kind == "intermediate")


def test_r2_the_market_needs_exactly_one_canoe_one_hut_one_stoneware() -> None:
    """R2 and the rulebook: the market's cost, and it takes canoes, huts and stoneware."""
    for market in (p for p in PRODUCTS if p.name == "market"):
        assert {HAND_CARDS[c]: n for c, n in market.items} == {"canoe": 1, "hut": 1, "stoneware": 1}
        assert {HAND_CARDS[c] for c in market.accepts} == set(INTERMEDIATES)


def test_r2_stores_score_and_intermediates_feed_higher_products() -> None:
    """R2: every store takes something for points; every intermediate product is spent on a product or laid."""
    assert all(p.per_card > 0 and p.accepts for p in PRODUCTS if p.kind == "store")
    for code in range(5, 8):
        uses = [p for p in PRODUCTS if p.kind != "intermediate" and p.need[code]]
        assert uses and any(code in p.accepts for p in PRODUCTS), HAND_CARDS[code]


def test_r2_pile_one_is_cheaper_than_pile_two() -> None:
    """R2: the mean cost (in commodity cards) of pile I is below pile II's."""
    first = fmean(_cards_worth(p) for p in PRODUCTS if p.pile == 0)
    second = fmean(_cards_worth(p) for p in PRODUCTS if p.pile == 1)
    assert first < second
