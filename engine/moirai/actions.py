"""Moirai's actions (M7-M11): what a player decides, which are legal, the events they become, their JSON form."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from random import Random
from typing import Any

from loom.engine.moirai.cards import CHOICES, CLOSE, COLOURS, DRAW, OPEN, UP, pile
from loom.engine.moirai.rules import placement, to_move
from loom.engine.moirai.state import Loom, MoiraiState
from loom.engine.protocol import CHANCE_TO_MOVE, HIDDEN
from loom.events.base import IllegalAction, Payload
from loom.events.moirai import CardKept, CardsDrawn, ObjectivesDrawn, PileTaken, Placement, StartsDealt, StartsRevealed


# Actions: what a player decides. The events they produce name the cards.
@dataclass(frozen=True, slots=True)
class Draw:
    """Option 1, first half: draw up to three cards."""


@dataclass(frozen=True, slots=True)
class Keep:
    """Option 1, second half: keep one drawn card and place it."""

    placement: Placement


@dataclass(frozen=True, slots=True)
class Take:
    """Option 2: take the pile of colour `pile` and place all of it, in this order."""

    pile: int
    placed: tuple[Placement, ...]


Action = Draw | Keep | Take


# --- Placements and arrangements (M5, M6, M8) -------------------------------------------------------------------------
# Where the cards of a turn may go: every placement of one card, and a bounded family of arrangements of a pile.
#
# Option 2 (M8) places a whole pile, in any order, at most one card face down; with p cards and L open lives there
# are up to (L + 2)^p arrangements, far too many to list for a bot. `pile_arrangements` therefore lists every
# arrangement of a one-card pile, and for a larger pile a deterministic family of sensible ones, each built by the
# same rule ("tight fit": the face-up cards go in increasing order, each onto the open life whose last face-up card is
# the highest one below it, so no room is wasted):
# - no card face down, all tight fit; and all cards onto one single life, for each life that can take them all;
# - for each candidate face-down card (every card of a pile of up to four, else its lowest and its highest):
#   it opens a new life first, then the rest tight fit, or all of the rest continue that new life;
#   or the rest tight fit and it then closes a life, for each life that can be closed.
# Arrangements that cannot be made are left out; duplicates are kept once. `rules.check` accepts any legal arrangement,
# listed here or not.

ALL_DOWN_CANDIDATES = 4
"""Piles of up to this many cards try each card face down; larger piles try only their lowest and highest."""


def open_tails(loom: Loom) -> list[tuple[int, int]]:
    """(life number, last face-up card or -1) of each open life."""
    return [(n, cards[-1] if cards else -1) for n, (_, cards, close) in enumerate(loom, start=1) if close is None]


def single_placements(loom: Loom, card: int) -> list[Placement]:
    """M5, M6: face up on each open life it may follow, face down opening a new life, face down closing each open
    life that holds a face-up card."""
    tails = open_tails(loom)
    ups = [(card, UP, n) for n, last in tails if card > last]
    closes = [(card, CLOSE, n) for n, (_, cards, close) in enumerate(loom, start=1) if close is None and cards]
    return [*ups, (card, OPEN, len(loom) + 1), *closes]


def tight_fit(tails: list[tuple[int, int]], cards: Iterable[int]) -> list[Placement] | None:
    """The increasing `cards` face up, each onto the life whose last card is the highest below it; None if one fits
    nowhere. `tails` is (life, last card) of the open lives and is not changed."""
    lasts = dict(tails)
    placed: list[Placement] = []
    for card in sorted(cards):
        below = [(last, -n) for n, last in lasts.items() if last < card]
        if not below:
            return None
        _, negative = max(below)
        lasts[-negative] = card
        placed.append((card, UP, -negative))
    return placed


def _onto(life: int, last: int, cards: Sequence[int]) -> list[Placement] | None:
    ordered = sorted(cards)
    if ordered and ordered[0] <= last:
        return None
    return [(card, UP, life) for card in ordered]


def _closable(tails: list[tuple[int, int]], placed: list[Placement]) -> list[int]:
    filled = {life for _, _, life in placed}
    return [n for n, last in tails if last >= 0 or n in filled]


def _with_down(loom: Loom, tails: list[tuple[int, int]], down: int, rest: list[int]) -> Iterable[list[Placement]]:
    new = len(loom) + 1
    opener: Placement = (down, OPEN, new)
    fitted = tight_fit([*tails, (new, -1)], rest)
    if fitted is not None:
        yield [opener, *fitted]
    yield [opener, *(_onto(new, -1, rest) or [])]
    fitted = tight_fit(tails, rest)
    if fitted is not None:
        for life in _closable(tails, fitted):
            yield [*fitted, (down, CLOSE, life)]


def pile_arrangements(loom: Loom, cards: Sequence[int]) -> list[tuple[Placement, ...]]:
    """The arrangements offered to bots for taking a pile (see the module's docstring), in a deterministic order."""
    if len(cards) == 1:
        return [(p,) for p in single_placements(loom, cards[0])]
    tails = open_tails(loom)
    found: list[list[Placement]] = []
    fitted = tight_fit(tails, cards)
    if fitted is not None:
        found.append(fitted)
    found += [placed for n, last in tails if (placed := _onto(n, last, cards)) is not None]
    ordered = sorted(cards)
    downs = ordered if len(ordered) <= ALL_DOWN_CANDIDATES else [ordered[0], ordered[-1]]
    for down in downs:
        rest = [c for c in ordered if c != down]
        found += _with_down(loom, tails, down, rest)
    return list(dict.fromkeys(tuple(placed) for placed in found))


# --- Legal actions, their events, their JSON form ---------------------------------------------------------------------


def legal_actions(state: MoiraiState) -> list[Action]:
    """M7, M8: after a draw, every placement of every drawn card; otherwise draw (while the deck lasts), then, pile
    by pile, the arrangements of `pile_arrangements` (all of them for a one-card pile; for a larger pile a bounded,
    deterministic family: see there). `check` accepts any other legal arrangement too."""
    if to_move(state) in (None, CHANCE_TO_MOVE):
        return []
    loom = state.looms[state.seat]
    if state.drawn:
        return [Keep(p) for c in sorted(state.drawn) for p in single_placements(loom, c)]
    actions: list[Action] = [Draw()] if state.deck_left else []
    for c, cards in enumerate(state.piles):
        if cards:
            actions.extend(Take(c, placed) for placed in pile_arrangements(loom, cards))
    return actions


def option(action: Action) -> tuple[str, int]:
    """What an action decides, wherever its cards go: to draw, which pile to take, which drawn card to keep."""
    match action:
        case Keep(placement=(card, _, _)):
            return ("keep", card)
        case Take(pile=pile):
            return ("take", pile)
    return ("draw", 0)


def resolve(state: MoiraiState, action: Action, rng: Random) -> list[Payload]:
    """The event of the seat's action; a draw names the top cards (or, deck order unknown, unseen cards by rng)."""
    match action:
        case Draw():
            count = min(DRAW, state.deck_left)
            if not count:
                raise IllegalAction("the deck is empty: the game is over (M11)")
            drawn = state.deck[:count] if state.deck_ordered else tuple(rng.sample(state.deck, count))
            return [CardsDrawn(cards=drawn)]
        case Keep(placement=placed):
            return [CardKept(placed=(placed,))]
        case Take(pile=taken, placed=placed):
            return [PileTaken(pile=COLOURS[taken], placed=placed)]
    raise IllegalAction(f"{action!r} is not a Moirai action")


def chance(state: MoiraiState, rng: Random) -> Payload:
    """Whatever setup a table log left out (objectives, the deal), or the final reveal of the starting cards."""
    if not state.objectives:
        return ObjectivesDrawn(objectives=tuple(rng.choice(ids) for ids in CHOICES))  # type: ignore[arg-type]
    if not state.dealt:
        return StartsDealt(starts=state.deck[: len(state.players)] if state.deck_ordered else None)
    unknown = rng.sample(state.deck, sum(loom[0][0] == HIDDEN for loom in state.looms))
    starts = tuple(unknown.pop() if loom[0][0] == HIDDEN else loom[0][0] for loom in state.looms)
    return StartsRevealed(starts=starts)


def _placements(raw: object) -> tuple[Placement, ...]:
    if not isinstance(raw, list | tuple):
        raise IllegalAction(f"expected a list of placements [card, how, life], got {raw!r}")
    return tuple(placement(p) for p in raw)


def parse_action(data: Any) -> Action:
    """An action from JSON: {"type": "draw"}, {"type": "keep", "place": [29, "up", 2]},
    {"type": "take", "pile": "green", "place": [[4, "open", 3], [8, "up", 3]]}."""
    kind = data.get("type") if isinstance(data, dict) else None
    if kind == "draw":
        return Draw()
    if kind == "keep":
        return Keep(placement(data.get("place")))
    if kind == "take":
        return Take(pile(data.get("pile")), _placements(data.get("place")))
    raise IllegalAction(f"{data!r} is not a Moirai action; use draw, keep or take")


def action_json(action: Action) -> dict[str, Any]:
    """The JSON form of an action."""
    match action:
        case Keep(placement=placed):
            return {"type": "keep", "place": list(placed)}
        case Take(pile=taken, placed=placed):
            return {"type": "take", "pile": COLOURS[taken], "place": [list(p) for p in placed]}
    return {"type": "draw"}
