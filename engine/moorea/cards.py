"""Moorea's cards, loaded from `cards.toml` and validated (rulings R1-R2).

Hand cards are small numbers ("codes"): the five commodities 0-4, then the three intermediate products 5-7, which are
held in the hand like commodities (R8). Product cards are numbered 0-69 in the file's order and named by their ids
(`canoe-3`); tools by kind 0-3.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from loom.events.base import IllegalAction, LoomError

CARD_FILE = Path(__file__).with_name("cards.toml")

COMMODITIES = ("seashells", "wood", "bamboo", "clay", "fish")
N_COMMODITIES = len(COMMODITIES)
"""Hand-card codes below this are commodities; the intermediate products follow."""
INTERMEDIATES = ("stoneware", "hut", "canoe")
HAND_CARDS = COMMODITIES + INTERMEDIATES
"""The name of each hand-card code."""
FISH = COMMODITIES.index("fish")
TOOL_KINDS = ("basket", "spear", "fishing net", "cart")
BASKET, SPEAR, NET, CART = range(4)
KINDS = ("intermediate", "production site", "store", "seashell necklace", "product")
MARKINGS = ("all", "4+", "5")
PILES = ("I", "II")
PRODUCT_COUNT = 70
MARKED_FIVE = 6
TOOL_COPIES = 5
COMMODITY_COPIES = 15
_PRODUCT_FIELDS = frozenset(
    {"id", "name", "kind", "pile", "cost", "points", "copies", "invented", "accepts", "per_card", "produces"}
)
_TOOL_FIELDS = frozenset({"name", "copies", "same", "points", "invented"})


class CardFileError(LoomError):
    """A card data file that breaks R1: the reason names the card and the rule."""


@dataclass(frozen=True, slots=True)
class Product:
    """One product card. `need` counts each hand-card code of the cost; `same` is N for "N of one commodity"."""

    id: str
    name: str
    kind: str
    pile: int  # 0 for pile I, 1 for pile II
    marking: str
    need: tuple[int, ...]
    same: int
    points: int
    accepts: tuple[int, ...] = ()  # a store's hand-card codes
    per_card: int = 0
    produces: int = -1  # a production site's commodity
    hand_code: int = -1  # an intermediate product's hand-card code
    items: tuple[tuple[int, int], ...] = ()  # (code, count) of each hand card the cost names: `need` without zeros

    @property
    def size(self) -> int:
        """How many cards the cost names, before any production site lowers it."""
        return self.same or sum(self.need)


@dataclass(frozen=True, slots=True)
class Tool:
    """A tool kind: `copies` cards, each paid with `same` identical commodities."""

    name: str
    copies: int
    same: int
    points: int


@dataclass(frozen=True, slots=True)
class CardData:
    """Everything the rules read from the card file."""

    products: tuple[Product, ...]
    tools: tuple[Tool, ...]
    commodity_copies: tuple[int, ...]
    min_players: int
    max_players: int
    hand_size: int
    basket_limit: int
    face_up: int
    layout: int
    necklace_points: tuple[int, ...]


def _fail(message: str) -> CardFileError:
    return CardFileError(f"card file: {message}")


def _code(name: object, where: str, allowed: tuple[str, ...] = HAND_CARDS) -> int:
    if name not in allowed:
        raise _fail(f"{where} names an unknown commodity {name!r}; known: {', '.join(allowed)}")
    return allowed.index(name)  # type: ignore[arg-type]


def _invented(entry: dict[str, Any], where: str, fields: frozenset[str]) -> None:
    marks = entry.get("invented")
    if not isinstance(marks, list) or not set(marks) <= fields:
        raise _fail(f"{where} must list its invented values in `invented` (field names, empty if none) (R1)")


def _cost(entry: dict[str, Any], where: str) -> tuple[tuple[int, ...], int]:
    cost = entry.get("cost")
    if not isinstance(cost, dict) or not cost:
        raise _fail(f"{where} has no cost")
    need = [0] * len(HAND_CARDS)
    same = 0
    for name, count in cost.items():
        if not isinstance(count, int) or count < 1:
            raise _fail(f"{where} costs {count!r} {name}; a cost counts cards, 1 or more")
        if name == "same":
            same = count
        else:
            need[_code(name, f"the cost of {where}")] = count
    if same and any(need):
        raise _fail(f"{where} costs `same` and named cards at once")
    return tuple(need), same


def _product(entry: dict[str, Any], marking: str, number: int) -> Product:
    where = f"product {entry.get('id')!r}"
    unknown = set(entry) - _PRODUCT_FIELDS
    if unknown:
        raise _fail(f"{where} has an unknown field {sorted(unknown)[0]!r}")
    if entry.get("kind") not in KINDS:
        raise _fail(f"{where} has kind {entry.get('kind')!r}; kinds are {', '.join(KINDS)}")
    if entry.get("pile") not in PILES:
        raise _fail(f"{where} is in pile {entry.get('pile')!r}; piles are I and II")
    if marking not in MARKINGS:
        raise _fail(f"{where} has a copy marked {marking!r}; markings are all, 4+ and 5")
    if not isinstance(entry.get("points"), int) or entry["points"] < 0:
        raise _fail(f"{where} has no points (0 or more)")
    _invented(entry, where, _PRODUCT_FIELDS)
    need, same = _cost(entry, where)
    kind = entry["kind"]
    product = Product(
        id=f"{entry['id']}-{number}",
        name=str(entry.get("name", entry["id"])),
        kind=kind,
        pile=PILES.index(entry["pile"]),
        marking=marking,
        need=need,
        same=same,
        points=entry["points"],
        items=tuple((code, n) for code, n in enumerate(need) if n),
    )
    if kind == "store":
        accepts = entry.get("accepts")
        if not isinstance(accepts, list) or not accepts:
            raise _fail(f"store {entry['id']!r} accepts nothing: list what may be laid there in `accepts` (R1)")
        per_card = entry.get("per_card")
        if not isinstance(per_card, int) or per_card < 1:
            raise _fail(f"store {entry['id']!r} needs `per_card`, the points of each card laid there (R1)")
        codes = tuple(sorted(_code(name, f"what store {entry['id']!r} accepts") for name in accepts))
        return _with(product, accepts=codes, per_card=per_card)
    if kind == "production site":
        return _with(product, produces=_code(entry.get("produces"), f"what {where} produces", COMMODITIES))
    if kind == "intermediate":
        if product.name not in INTERMEDIATES or any(need[len(COMMODITIES) :]) or same:
            raise _fail(f"{where}: an intermediate product is stoneware, hut or canoe and costs commodities only")
        return _with(product, hand_code=HAND_CARDS.index(product.name))
    return product


def _with(product: Product, **changes: Any) -> Product:
    fields = {name: getattr(product, name) for name in Product.__slots__}
    return Product(**(fields | changes))


def _tools(entries: object) -> tuple[Tool, ...]:
    if not isinstance(entries, list) or [t.get("name") for t in entries] != list(TOOL_KINDS):
        raise _fail(f"the tools are exactly {', '.join(TOOL_KINDS)}, in that order (R1)")
    tools = []
    for entry in entries:
        where = f"tool {entry['name']!r}"
        if set(entry) - _TOOL_FIELDS:
            raise _fail(f"{where} has an unknown field {sorted(set(entry) - _TOOL_FIELDS)[0]!r}")
        if entry.get("copies") != TOOL_COPIES:
            raise _fail(f"{where} has {entry.get('copies')!r} cards; each tool kind has {TOOL_COPIES} (R1)")
        for name in ("same", "points"):
            if not isinstance(entry.get(name), int) or entry[name] < (1 if name == "same" else 0):
                raise _fail(f"{where} needs `{name}`, a whole number")
        _invented(entry, where, _TOOL_FIELDS)
        tools.append(Tool(entry["name"], entry["copies"], entry["same"], entry["points"]))
    return tuple(tools)


def _products(entries: object) -> tuple[Product, ...]:
    if not isinstance(entries, list):
        raise _fail("no [[product]] tables")
    numbers: dict[str, int] = {}
    products: list[Product] = []
    for entry in entries:
        if not isinstance(entry.get("id"), str) or not entry["id"]:
            raise _fail(f"a [[product]] table has no id (the {len(products) + 1}th card)")
        copies = entry.get("copies")
        if not isinstance(copies, list) or not copies:
            raise _fail(f"product {entry.get('id')!r} needs `copies`, the marking of each copy")
        for marking in copies:
            numbers[entry.get("id")] = numbers.get(entry.get("id"), 0) + 1
            products.append(_product(entry, marking, numbers[entry["id"]]))
    if len(products) != PRODUCT_COUNT:
        raise _fail(f"it lists {len(products)} product cards; Moorea has {PRODUCT_COUNT} (R1)")
    fives = sum(1 for p in products if p.marking == "5")
    if fives != MARKED_FIVE:
        raise _fail(f"{fives} product cards are marked 5; exactly {MARKED_FIVE} are (R1)")
    return tuple(products)


def validate(data: dict[str, Any]) -> CardData:
    """The card data of a parsed card file, or CardFileError with the reason it breaks R1."""
    counts = data.get("commodities")
    if not isinstance(counts, dict) or list(counts) != list(COMMODITIES):
        raise _fail(f"[commodities] lists exactly {', '.join(COMMODITIES)}, in that order (R3)")
    for name, count in counts.items():
        if count != COMMODITY_COPIES:
            raise _fail(f"there are {count!r} {name} cards; each commodity has {COMMODITY_COPIES} (R3)")
    necklace = data.get("necklace_points")
    if not isinstance(necklace, list) or len(necklace) < 2 or necklace[0] != 0:
        raise _fail("necklace_points lists the points for 0, 1, 2, ... necklaces, starting at 0 (R11)")
    try:
        return CardData(
            products=_products(data.get("product")),
            tools=_tools(data.get("tool")),
            commodity_copies=tuple(counts.values()),
            min_players=int(data["min_players"]),
            max_players=int(data["max_players"]),
            hand_size=int(data["hand_size"]),
            basket_limit=int(data["basket_limit"]),
            face_up=int(data["face_up"]),
            layout=int(data["layout"]),
            necklace_points=tuple(necklace),
        )
    except KeyError as missing:
        raise _fail(f"the setting {missing} is missing") from None


def load(path: Path = CARD_FILE) -> CardData:
    """Read and validate a card file."""
    try:
        with path.open("rb") as file:
            data = tomllib.load(file)
    except tomllib.TOMLDecodeError as error:
        raise _fail(f"{path.name} is not TOML: {error}") from None
    return validate(data)


CARDS = load()
PRODUCTS = CARDS.products
TOOLS = CARDS.tools
MIN_PLAYERS, MAX_PLAYERS = CARDS.min_players, CARDS.max_players
PRODUCT_BY_ID = {product.id: number for number, product in enumerate(PRODUCTS)}
FULL_DECK: tuple[int, ...] = tuple(c for c, count in enumerate(CARDS.commodity_copies) for _ in range(count))


def in_game(players: int) -> tuple[int, ...]:
    """R3: the product cards used by this many players: without those marked "5" under 5, "4+" under 4."""
    kept = {"all"} | ({"4+"} if players >= 4 else set()) | ({"5"} if players >= 5 else set())
    return tuple(n for n, product in enumerate(PRODUCTS) if product.marking in kept)


_CODE_BY_NAME = {name: code for code, name in enumerate(HAND_CARDS)}


def hand_card(name: object) -> int:
    """The hand-card code called `name` (`wood`, `canoe`), or IllegalAction."""
    try:
        return _CODE_BY_NAME[name]  # type: ignore[index]
    except (KeyError, TypeError):
        raise IllegalAction(f"{name!r} is not a Moorea hand card; they are {', '.join(HAND_CARDS)}") from None


_COMMODITY_BY_NAME = {name: code for code, name in enumerate(COMMODITIES)}


def commodity(name: object) -> int:
    """The commodity called `name`, or IllegalAction."""
    try:  # one look-up for a commodity (every chance event names one); anything else is refused below
        return _COMMODITY_BY_NAME[name]  # type: ignore[index]
    except (KeyError, TypeError):
        pass
    code = hand_card(name)
    if code >= len(COMMODITIES):
        raise IllegalAction(f"{name} is a product, not a commodity card")
    return code


def hand_cards(names: object) -> tuple[int, ...]:
    """The hand-card codes of a list of names, sorted."""
    if not isinstance(names, list | tuple):
        raise IllegalAction(f"expected a list of cards, got {names!r}")
    return tuple(sorted(map(hand_card, names)))


def product(name: object) -> int:
    """The product card with id `name` (`canoe-3`), or IllegalAction."""
    try:
        return PRODUCT_BY_ID[name]  # type: ignore[index]
    except (KeyError, TypeError):
        raise IllegalAction(f"{name!r} is not a Moorea product card (ids look like 'canoe-3')") from None


def tool(name: object) -> int:
    """The tool kind called `name`, or IllegalAction."""
    if name not in TOOL_KINDS:
        raise IllegalAction(f"{name!r} is not a Moorea tool; they are {', '.join(TOOL_KINDS)}")
    return TOOL_KINDS.index(name)  # type: ignore[arg-type]


def names(codes: tuple[int, ...]) -> tuple[str, ...]:
    """The names of hand-card codes."""
    return tuple(HAND_CARDS[c] for c in codes)
