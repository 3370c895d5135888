"""Stones of Fate's cards, loaded and validated from `cards.toml` (rulings S1-S2), and the grid of the spread (S3-S4).

Cards are numbers 0..81 in the file's order; logs name them by their stable `id` (`the-tower`, `ace-of-coins`).
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from loom.events.base import IllegalAction, LoomError

CARDS_FILE = Path(__file__).with_name("cards.toml")

SIDES = ("top", "right", "bottom", "left")
TOP, RIGHT, BOTTOM, LEFT = range(4)
BLANK, POWER, FORBIDDEN, OPPORTUNITY = 0, 1, 2, 3
KEYSTONE = 10
"""A keystone zone asking for n stones is the code KEYSTONE + n."""
ZONE_CODES = {"blank": BLANK, "power": POWER, "forbidden": FORBIDDEN, "opportunity": OPPORTUNITY}
MAX_KEYSTONE = 3

FLIP_EFFECTS = ("tower", "fortune", "priestess", "chariot", "temperance", "moon", "star")
WIN_EFFECTS = ("strength", "sun", "devil", "judgement", "hermit", "justice")
END_EFFECTS = ("death",)
SCORING_KINDS = ("set", "per-suit", "per-major")
SUITS = ("coins", "wands", "cups", "swords")
MAJOR_COUNT, SUIT_COUNT = 22, 15
RULEBOOK_EFFECTS = {"The Tower": ("flip", "tower"), "Strength": ("win", "strength"), "Death": ("end", "death")}
FIELDS = frozenset(
    {"id", "name", "arcana", "suit", "points", *SIDES, "flip", "win", "end", "scoring", "invented", "which card"}
)


class CardDataError(LoomError):
    """A card data file that breaks rulings S1-S2."""


@dataclass(frozen=True, slots=True)
class Card:
    """One card: its zones (codes, top, right, bottom, left), points, scoring rule and effects."""

    id: str
    name: str
    arcana: str
    suit: str | None
    points: int
    zones: tuple[int, int, int, int]
    scoring: tuple[str, str | None, int, int] | None  # (kind, suit, count, points)
    flip: str | None
    win: str | None
    end: str | None
    invented: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class CardData:
    """The whole data file: cards and the components of S3."""

    cards: tuple[Card, ...]
    colours: tuple[str, ...]
    stones: int
    deck_per_player: int
    min_players: int
    max_players: int
    grids: dict[int, tuple[int, int]]


def zone_code(text: object, where: str) -> int:
    """The code of a zone written as `power`, `keystone-2`, ... in the data file."""
    if isinstance(text, str) and text in ZONE_CODES:
        return ZONE_CODES[text]
    if isinstance(text, str) and text.startswith("keystone-") and text[9:].isdigit():
        count = int(text[9:])
        if 1 <= count <= MAX_KEYSTONE:
            return KEYSTONE + count
    raise CardDataError(f"{where}: {text!r} is not a zone (power, keystone-1..{MAX_KEYSTONE}, forbidden, ...)")


def zone_name(code: int) -> str:
    """The data file's name of a zone code."""
    if code > KEYSTONE:
        return f"keystone-{code - KEYSTONE}"
    return next(name for name, c in ZONE_CODES.items() if c == code)


def _scoring(raw: object, where: str) -> tuple[str, str | None, int, int] | None:
    if raw is None:
        return None
    if not isinstance(raw, dict) or raw.get("kind") not in SCORING_KINDS:
        raise CardDataError(f"{where}: scoring must be a table whose kind is one of {', '.join(SCORING_KINDS)}")
    suit = raw.get("suit")
    if raw["kind"] != "per-major" and suit not in SUITS:
        raise CardDataError(f"{where}: a {raw['kind']} scoring rule needs a suit among {', '.join(SUITS)}")
    points, count = raw.get("points"), raw.get("count", 0)
    if not isinstance(points, int) or not isinstance(count, int) or points < 0 or count < 0:
        raise CardDataError(f"{where}: scoring points and count must be whole numbers")
    return raw["kind"], suit, count, points


def _effect(raw: dict[str, Any], key: str, allowed: tuple[str, ...], where: str) -> str | None:
    value = raw.get(key)
    if value is not None and value not in allowed:
        raise CardDataError(f"{where}: {key} effect {value!r} is unknown; known: {', '.join(allowed)}")
    return value


def _card(raw: object, number: int) -> Card:
    where = f"card {number + 1}"
    if not isinstance(raw, dict) or not isinstance(raw.get("id"), str) or not isinstance(raw.get("name"), str):
        raise CardDataError(f"{where}: every card needs an id and a name")
    where = f"card {number + 1} ({raw['id']})"
    unknown = set(raw) - FIELDS
    if unknown:
        raise CardDataError(f"{where}: unknown field {sorted(unknown)[0]!r}")
    arcana, suit, points = raw.get("arcana"), raw.get("suit"), raw.get("points")
    if arcana not in ("major", "minor") or (arcana == "minor") != (suit in SUITS) or (arcana == "major" and suit):
        raise CardDataError(f"{where}: a card is major (no suit) or minor with a suit among {', '.join(SUITS)}")
    if not isinstance(points, int) or isinstance(points, bool) or points < 0:
        raise CardDataError(f"{where}: points must be a whole number, 0 or more")
    zones = tuple(zone_code(raw.get(side), f"{where} {side}") for side in SIDES)
    if not any(z == POWER or z > KEYSTONE for z in zones):
        raise CardDataError(f"{where}: every card has at least one power or keystone zone (S2)")
    invented = raw.get("invented", [])
    if not isinstance(invented, list) or not set(invented) <= FIELDS | {"zones"}:
        raise CardDataError(f"{where}: invented must list field names of the card")
    return Card(
        id=raw["id"],
        name=raw["name"],
        arcana=arcana,
        suit=suit,
        points=points,
        zones=zones,  # type: ignore[arg-type]
        scoring=_scoring(raw.get("scoring"), where),
        flip=_effect(raw, "flip", FLIP_EFFECTS, where),
        win=_effect(raw, "win", WIN_EFFECTS, where),
        end=_effect(raw, "end", END_EFFECTS, where),
        invented=tuple(invented),
    )


def _check_deck(cards: tuple[Card, ...]) -> None:
    if len(cards) != MAJOR_COUNT + SUIT_COUNT * len(SUITS):
        raise CardDataError(f"the deck has {len(cards)} cards; Stones of Fate has 82 (S1)")
    if len({c.id for c in cards}) != len(cards):
        raise CardDataError("two cards share an id (S1)")
    if sum(c.arcana == "major" for c in cards) != MAJOR_COUNT:
        raise CardDataError("the deck must hold 22 Major Arcana (S1)")
    for suit in SUITS:
        if sum(c.suit == suit for c in cards) != SUIT_COUNT:
            raise CardDataError(f"the deck must hold 15 cards of {suit} (S1)")
    by_name = {c.name: c for c in cards}
    for name, (slot, key) in RULEBOOK_EFFECTS.items():
        if name not in by_name or getattr(by_name[name], slot) != key:
            raise CardDataError(f"{name} must carry the rulebook's {slot} effect {key!r} (S2)")
    effects = {e for c in cards for e in (c.flip, c.win, c.end) if e}
    if len(effects) < 12:
        raise CardDataError(f"the deck uses {len(effects)} distinct effects; at least 12 are needed (S2)")


def load_cards(path: Path = CARDS_FILE) -> CardData:
    """Read and validate a card data file (S1-S2); CardDataError says what is wrong."""
    try:
        with path.open("rb") as file:
            raw = tomllib.load(file)
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise CardDataError(f"cannot read the card data {path}: {error}") from None
    cards = tuple(_card(entry, n) for n, entry in enumerate(raw.get("cards", [])))
    _check_deck(cards)
    try:
        grids = {int(k): (int(v[0]), int(v[1])) for k, v in raw["grid"].items()}
        data = CardData(
            cards,
            tuple(raw["colours"]),
            int(raw["stones_per_player"]),
            int(raw["deck_per_player"]),
            int(raw["min_players"]),
            int(raw["max_players"]),
            grids,
        )
    except (KeyError, TypeError, ValueError, IndexError) as error:
        raise CardDataError(f"the card data needs colours, stones_per_player, deck_per_player, grid: {error}") from None
    if any(n not in data.grids for n in range(data.min_players, data.max_players + 1)):
        raise CardDataError("the card data needs a grid for every number of players")
    if len(data.colours) < data.max_players:
        raise CardDataError("the card data needs a stone colour for every seat")
    for c in cards:
        needed = sum(z - KEYSTONE for z in c.zones if z > KEYSTONE) + (POWER in c.zones)
        if needed > data.stones:
            raise CardDataError(f"{c.id} needs {needed} stones to be won; a player has {data.stones} (S2)")
    return data


DATA = load_cards()
CARDS: tuple[Card, ...] = DATA.cards
CARD_IDS: tuple[str, ...] = tuple(c.id for c in CARDS)
CARD_BY_ID: dict[str, int] = {c.id: n for n, c in enumerate(CARDS)}
ZONES: tuple[tuple[int, int, int, int], ...] = tuple(c.zones for c in CARDS)
POINTS: tuple[int, ...] = tuple(c.points for c in CARDS)
FULL_DECK: tuple[int, ...] = tuple(range(len(CARDS)))
COLOURS: tuple[str, ...] = DATA.colours
STONES: int = DATA.stones
DECK_PER_PLAYER: int = DATA.deck_per_player
MIN_PLAYERS: int = DATA.min_players
MAX_PLAYERS: int = DATA.max_players
DEATH: int = next(n for n, c in enumerate(CARDS) if c.end == "death")


def card(name: object) -> int:
    """The card with this id (`the-tower`), or IllegalAction naming the problem."""
    try:
        return CARD_BY_ID[name]  # type: ignore[index]
    except (KeyError, TypeError):
        raise IllegalAction(
            f"{name!r} is not a Stones of Fate card (cards look like 'the-tower', 'ace-of-cups')"
        ) from None


def cards(names: object) -> tuple[int, ...]:
    """The cards named in a list."""
    if not isinstance(names, list | tuple):
        raise IllegalAction(f"expected a list of cards, got {names!r}")
    return tuple(card(name) for name in names)


# --- The grid (S3-S4) ------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Grid:
    """A spread of rows x cols cards; edges numbered horizontal lines first, then vertical ones.

    Horizontal edge (r, c), r in 0..rows, is the line above row r in column c; vertical edge (r, c), c in 0..cols,
    is the line left of column c in row r. An inner edge is a side of two cards (S4).
    """

    rows: int
    cols: int

    @property
    def size(self) -> int:
        """Positions in the spread."""
        return self.rows * self.cols

    @property
    def edges(self) -> int:
        """Edges of the grid."""
        return (self.rows + 1) * self.cols + self.rows * (self.cols + 1)

    def side_edge(self, position: int, side: int) -> int:
        """The edge on `side` of the card at `position`."""
        r, c = divmod(position, self.cols)
        vertical = (self.rows + 1) * self.cols
        if side == TOP:
            return r * self.cols + c
        if side == BOTTOM:
            return (r + 1) * self.cols + c
        if side == LEFT:
            return vertical + r * (self.cols + 1) + c
        return vertical + r * (self.cols + 1) + c + 1

    def adjacent(self, edge: int) -> tuple[tuple[int, int], ...]:
        """The (position, side) pairs that `edge` is a side of: one for an outer edge, two for an inner one."""
        return EDGE_SIDES[(self.rows, self.cols)][edge]

    def position_name(self, position: int) -> str:
        """`a1` for the top-left card, `b3` for row 2, column 3."""
        r, c = divmod(position, self.cols)
        return f"{'abc'[r]}{c + 1}"

    def edge_name(self, edge: int) -> str:
        """The canonical name of an edge: the first card (reading order) it is a side of, and that side."""
        position, side = self.adjacent(edge)[0]
        return f"{self.position_name(position)}-{SIDES[side]}"


def _edge_sides(rows: int, cols: int) -> tuple[tuple[tuple[int, int], ...], ...]:
    grid = Grid.__new__(Grid)
    object.__setattr__(grid, "rows", rows)
    object.__setattr__(grid, "cols", cols)
    found: list[list[tuple[int, int]]] = [[] for _ in range(grid.edges)]
    for position in range(rows * cols):
        for side in range(4):
            found[grid.side_edge(position, side)].append((position, side))
    return tuple(tuple(sorted(pairs)) for pairs in found)


EDGE_SIDES = {shape: _edge_sides(*shape) for shape in set(DATA.grids.values())}
GRIDS = {players: Grid(*shape) for players, shape in DATA.grids.items()}


def grid_for(players: int) -> Grid:
    """S3: 2 x 3 for two players, 3 x 3 otherwise."""
    return GRIDS[players]


# --- Per-card lookups for the winner and the score (S8, S11) ----------------------------------------------------------

SUIT_OF: tuple[str | None, ...] = tuple(c.suit for c in CARDS)
IS_MAJOR: tuple[bool, ...] = tuple(c.arcana == "major" for c in CARDS)
SCORING = tuple(c.scoring for c in CARDS)
FLIP_OF: tuple[str | None, ...] = tuple(c.flip for c in CARDS)
WIN_OF: tuple[str | None, ...] = tuple(c.win for c in CARDS)
POWER_SIDES = tuple(tuple(s for s, z in enumerate(c.zones) if z == POWER) for c in CARDS)
FORBIDDEN_SIDES = tuple(tuple(s for s, z in enumerate(c.zones) if z == FORBIDDEN) for c in CARDS)
OPPORTUNITY_SIDES = tuple(tuple(s for s, z in enumerate(c.zones) if z == OPPORTUNITY) for c in CARDS)
KEYSTONE_SIDES = tuple(tuple((s, z - KEYSTONE) for s, z in enumerate(c.zones) if z > KEYSTONE) for c in CARDS)
