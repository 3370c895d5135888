"""Motto's cards and token values, built from `cards.toml` (rulings T1-T2)."""

from __future__ import annotations

import tomllib
from pathlib import Path

from loom.events.base import IllegalAction

with (Path(__file__).with_name("cards.toml")).open("rb") as _file:
    COMPONENTS = tomllib.load(_file)

SYMBOLS: tuple[str, ...] = tuple(COMPONENTS["symbols"])
NUMBERS: tuple[str, ...] = tuple(COMPONENTS["numbers"])
COLOURS: tuple[str, ...] = tuple(COMPONENTS["colours"])
COPIES: int = COMPONENTS["copies"]
TOKEN_POINTS: tuple[int, ...] = tuple(COMPONENTS["token_points"])
HAND_SIZE: int = COMPONENTS["hand_size"]
POOL_SIZE: int = COMPONENTS["pool_size"]
MIN_PLAYERS: int = COMPONENTS["min_players"]
MAX_PLAYERS: int = COMPONENTS["max_players"]

VALUES: tuple[str, ...] = SYMBOLS + NUMBERS + COLOURS
"""The nine token stacks: value v's stack is `VALUES[v]`."""

# A card is a number 0..26: colour * 9 + number * 3 + symbol. Its three values index VALUES.
CARD_VALUES: tuple[tuple[int, int, int], ...] = tuple(
    (symbol, len(SYMBOLS) + number, len(SYMBOLS) + len(NUMBERS) + colour)
    for colour in range(len(COLOURS))
    for number in range(len(NUMBERS))
    for symbol in range(len(SYMBOLS))
)
CARD_NAMES: tuple[str, ...] = tuple(
    f"{COLOURS[colour]}-{NUMBERS[number]}-{SYMBOLS[symbol]}"
    for colour in range(len(COLOURS))
    for number in range(len(NUMBERS))
    for symbol in range(len(SYMBOLS))
)
CARD_BY_NAME: dict[str, int] = {name: card for card, name in enumerate(CARD_NAMES)}
FULL_DECK: tuple[int, ...] = tuple(sorted(list(range(len(CARD_NAMES))) * COPIES))
VALUE_BY_NAME: dict[str, int] = {name: value for value, name in enumerate(VALUES)}


def card(name: object) -> int:
    """The card called `name` (`red-2-love`), or IllegalAction naming the problem."""
    try:
        return CARD_BY_NAME[name]  # type: ignore[index]
    except (KeyError, TypeError):
        raise IllegalAction(f"{name!r} is not a Motto card (cards look like 'red-2-love')") from None


def cards(names: object) -> tuple[int, ...]:
    """The cards named in a list."""
    if not isinstance(names, list | tuple):
        raise IllegalAction(f"expected a list of cards, got {names!r}")
    return tuple(map(card, names))


def _shared(a: int, b: int, c: int) -> tuple[int, ...]:
    va, vb, vc = CARD_VALUES[a], CARD_VALUES[b], CARD_VALUES[c]
    return tuple(va[i] for i in range(3) if va[i] == vb[i] == vc[i])


_KINDS = len(CARD_NAMES)
# Every trio looked up rather than compared: bots and legal_actions ask this hundreds of times a turn.
_SHARED = tuple(_shared(a, b, c) for a in range(_KINDS) for b in range(_KINDS) for c in range(_KINDS))


def shared_values(a: int, b: int, c: int) -> tuple[int, ...]:
    """The values (symbol, number, colour) that three cards all have (T5)."""
    return _SHARED[(a * _KINDS + b) * _KINDS + c]
