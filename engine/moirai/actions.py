"""Moirai's actions (M7-M11): what a player decides, which are legal, the events they become, their JSON form."""

from __future__ import annotations

from dataclasses import dataclass
from random import Random
from typing import Any

from loom.engine.moirai.arrangements import pile_arrangements, single_placements
from loom.engine.moirai.cards import CHOICES, COLOURS, DRAW, pile
from loom.engine.moirai.rules import placement, to_move
from loom.engine.moirai.state import MoiraiState
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


def legal_actions(state: MoiraiState) -> list[Action]:
    """M7, M8: after a draw, every placement of every drawn card; otherwise draw (while the deck lasts), then, pile
    by pile, the arrangements of `arrangements.pile_arrangements` (all of them for a one-card pile; for a larger
    pile a bounded, deterministic family: see there). `check` accepts any other legal arrangement too."""
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
