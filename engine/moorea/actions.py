"""Moorea's actions: what a seat may do (a bounded, deterministic set for bots; `rules.check` accepts any legal
action), the events an action and chance become, and the JSON form of actions."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from random import Random
from typing import Any

from loom.engine.moorea.cards import (
    CARDS,
    HAND_CARDS,
    N_COMMODITIES,
    NET,
    PRODUCTS,
    SPEAR,
    TOOL_KINDS,
    TOOLS,
    commodity,
    hand_cards,
    names,
    product,
    tool,
)
from loom.engine.moorea.rules import to_move
from loom.engine.moorea.state import (
    DISCARD,
    DRAW,
    SECOND_DRAW,
    MooreaState,
    counts,
    hand_limit,
    phase,
    product_payments,
    sites_of,
    tool_payments,
)
from loom.engine.protocol import CHANCE_TO_MOVE
from loom.events.base import IllegalAction, Payload
from loom.events.moorea import (
    CardDrawn,
    CardsDiscarded,
    CardsExchanged,
    CardsLaid,
    DiscardReshuffled,
    FaceUpDrawn,
    FaceUpRefilled,
    ProductBought,
    ProductLaidOut,
    ToolBought,
    TurnPassed,
)


# Actions: what a player decides. The events they produce name the cards.
@dataclass(frozen=True, slots=True)
class Draw:
    pass


@dataclass(frozen=True, slots=True)
class DrawFaceUp:
    card: int


@dataclass(frozen=True, slots=True)
class Pass:
    pass


@dataclass(frozen=True, slots=True)
class Exchange:
    paid: tuple[int, int]
    card: int


@dataclass(frozen=True, slots=True)
class Buy:
    product: int
    paid: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class BuyTool:
    tool: int
    paid: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Lay:
    store: int
    cards: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Discard:
    cards: tuple[int, ...]


Action = Draw | DrawFaceUp | Pass | Exchange | Buy | BuyTool | Lay | Discard


def legal_actions(state: MooreaState) -> list[Action]:
    """R4-R9 for the seat to move, a bounded and deterministic set (`check` accepts any other legal action too):

    - draw: the deck, and with a spear each distinct face-up commodity; with a cart the second draw comes with
      every action as well (an action declines it);
    - action: pass; per distinct face-up commodity, one exchange paying the two commodity cards of other kinds the
      hand holds most of; per layout card the payments of `state.product_payments` (real commodities first,
      fish as joker only where short, and with a net the all-spare-fish variant); per tool not owned, each
      commodity the hand holds enough of; per owned store, all accepted cards of one kind, and all accepted cards;
    - discard: every distinct choice of cards that brings the hand to its limit.
    """
    if to_move(state) in (None, CHANCE_TO_MOVE):
        return []
    now = phase(state)
    if now == DISCARD:
        return _discards(state)
    actions: list[Action] = []
    if now in (DRAW, SECOND_DRAW):
        if state.deck:
            actions.append(Draw())
        if SPEAR in state.tools[state.seat]:
            actions.extend(DrawFaceUp(c) for c in sorted(set(state.face_up)))
        if now == DRAW:
            return actions
    return actions + _actions(state)


def _actions(state: MooreaState) -> list[Action]:
    seat = state.seat
    hand = counts(state.hands[seat])
    actions: list[Action] = [Pass(), *_exchanges(state, hand)]
    sites, net = sites_of(state.owned[seat]), NET in state.tools[seat]
    by_same: dict[int, list[tuple[int, ...]]] = {}  # "N of one commodity" costs: the payments depend on N alone
    for p in sorted(state.layout):
        product = PRODUCTS[p]
        if product.same:
            payments = by_same.get(product.same)
            if payments is None:
                payments = by_same[product.same] = product_payments(product, hand, sites, net)
        else:
            payments = product_payments(product, hand, sites, net)
        if payments:
            actions += [Buy(p, paid) for paid in payments]
    most = max(hand[:N_COMMODITIES])  # a tool takes N cards of one commodity (R5)
    for kind in range(len(TOOLS)):
        if TOOLS[kind].same <= most and kind not in state.tools[seat] and state.supply[kind]:
            actions.extend(BuyTool(kind, paid) for paid in tool_payments(kind, hand))
    for store in state.owned[seat]:
        accepts = [c for c in PRODUCTS[store].accepts if hand[c]]
        actions.extend(Lay(store, (c,) * hand[c]) for c in accepts)
        if len(accepts) > 1:
            actions.append(Lay(store, tuple(c for c in accepts for _ in range(hand[c]))))
    return actions


def _exchanges(state: MooreaState, hand: list[int]) -> list[Action]:
    out: list[Action] = []
    held = sorted((c for c in range(N_COMMODITIES) if hand[c]), key=lambda c: (-hand[c], c))  # the most first
    for wanted in sorted(set(state.face_up)):
        plenty = [c for c in held if c != wanted]
        paid = [c for c in plenty for _ in range(hand[c])][:2]
        if len(paid) == 2:
            out.append(Exchange((min(paid), max(paid)), wanted))
    return out


def _discards(state: MooreaState) -> list[Action]:
    hand = state.hands[state.seat]
    over = len(hand) - hand_limit(state, state.seat)
    return [Discard(cards) for cards in dict.fromkeys(combinations(hand, over))]


def parse_action(data: Any) -> Action:
    """An action from JSON: draw, draw_face_up, pass, exchange, buy, buy_tool, lay, discard."""
    kind = data.get("type") if isinstance(data, dict) else None
    match kind:
        case "draw":
            return Draw()
        case "draw_face_up":
            return DrawFaceUp(commodity(data.get("card")))
        case "pass":
            return Pass()
        case "exchange":
            paid = hand_cards(data.get("paid"))
            if len(paid) != 2:
                raise IllegalAction("an exchange gives exactly 2 hand cards (R5)")
            return Exchange((paid[0], paid[1]), commodity(data.get("card")))
        case "buy":
            return Buy(product(data.get("product")), hand_cards(data.get("paid")))
        case "buy_tool":
            return BuyTool(tool(data.get("tool")), hand_cards(data.get("paid")))
        case "lay":
            return Lay(product(data.get("store")), hand_cards(data.get("cards")))
        case "discard":
            return Discard(hand_cards(data.get("cards")))
    raise IllegalAction(
        f"{data!r} is not a Moorea action; use draw, draw_face_up, pass, exchange, buy, buy_tool, lay or discard"
    )


def action_json(action: Action) -> dict[str, Any]:
    """The JSON form of an action."""
    match action:
        case DrawFaceUp(card=card):
            return {"type": "draw_face_up", "card": HAND_CARDS[card]}
        case Pass():
            return {"type": "pass"}
        case Exchange(paid=paid, card=card):
            return {"type": "exchange", "paid": list(names(paid)), "card": HAND_CARDS[card]}
        case Buy(product=bought, paid=paid):
            return {"type": "buy", "product": PRODUCTS[bought].id, "paid": list(names(paid))}
        case BuyTool(tool=kind, paid=paid):
            return {"type": "buy_tool", "tool": TOOL_KINDS[kind], "paid": list(names(paid))}
        case Lay(store=store, cards=cards):
            return {"type": "lay", "store": PRODUCTS[store].id, "cards": list(names(cards))}
        case Discard(cards=cards):
            return {"type": "discard", "cards": list(names(cards))}
    return {"type": "draw"}


# --- From an action to its events ----------------------------------------------------------------------------------


def chance(state: MooreaState, rng: Random) -> Payload:
    """R4: reshuffle an empty deck; R5: refill the face-up commodities, then the layout (pile I first)."""
    if not state.deck and state.discard:
        order = list(state.discard)
        rng.shuffle(order)
        return DiscardReshuffled(deck=names(tuple(order)))
    if len(state.face_up) < CARDS.face_up and state.deck:
        drawn = state.deck[0] if state.deck_ordered else rng.choice(state.deck)
        return FaceUpRefilled(card=HAND_CARDS[drawn])
    if state.pile_ordered:
        return ProductLaidOut(product=PRODUCTS[state.pile[0]].id)
    first = [p for p in state.pile if PRODUCTS[p].pile == 0]
    return ProductLaidOut(product=PRODUCTS[rng.choice(first or list(state.pile))].id)


def resolve(state: MooreaState, action: Action, rng: Random) -> list[Payload]:
    """The event of the seat's action; a face-down draw names the top card (or, order unknown, one drawn by rng)."""
    match action:
        case Draw():
            if not state.deck:
                raise IllegalAction("the commodity deck is empty")
            drawn = state.deck[0] if state.deck_ordered else rng.choice(state.deck)
            return [CardDrawn(card=HAND_CARDS[drawn])]
        case DrawFaceUp(card=card):
            return [FaceUpDrawn(card=HAND_CARDS[card])]
        case Pass():
            return [TurnPassed()]
        case Exchange(paid=paid, card=card):
            return [CardsExchanged(paid=names(paid), card=HAND_CARDS[card])]  # type: ignore[arg-type]
        case Buy(product=bought, paid=paid):
            return [ProductBought(product=PRODUCTS[bought].id, paid=names(paid))]
        case BuyTool(tool=kind, paid=paid):
            return [ToolBought(tool=TOOL_KINDS[kind], paid=names(paid))]
        case Lay(store=store, cards=cards):
            return [CardsLaid(store=PRODUCTS[store].id, cards=names(cards))]
        case Discard(cards=cards):
            return [CardsDiscarded(cards=names(cards))]
    raise IllegalAction(f"{action!r} is not a Moorea action")
