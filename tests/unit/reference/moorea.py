"""Moorea's legal actions, the payments they list and the greedy bot as they were before issue 16's piece `policies`
made them cheaper: the reference that tests/unit/test_policies_same.py checks the engine's against."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations
from random import Random

from loom.engine.moorea.actions import (
    Action,
    Buy,
    BuyTool,
    Discard,
    Draw,
    DrawFaceUp,
    Exchange,
    Lay,
    Pass,
)
from loom.engine.moorea.cards import CARDS, FISH, HAND_CARDS, NET, PRODUCTS, SPEAR, TOOLS, Product
from loom.engine.moorea.rules import to_move
from loom.engine.moorea.state import (
    DISCARD,
    DRAW,
    N_COMMODITIES,
    SECOND_DRAW,
    MooreaState,
    counts,
    expand,
    hand_limit,
    needed,
    phase,
    sites_of,
)
from loom.engine.protocol import CHANCE_TO_MOVE


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
    for p in sorted(state.layout):
        actions.extend(Buy(p, paid) for paid in product_payments(PRODUCTS[p], hand, sites, net))
    for kind in range(len(TOOLS)):
        if kind not in state.tools[seat] and state.supply[kind]:
            actions.extend(BuyTool(kind, paid) for paid in tool_payments(kind, hand))
    for store in state.owned[seat]:
        accepts = [c for c in PRODUCTS[store].accepts if hand[c]]
        actions.extend(Lay(store, (c,) * hand[c]) for c in accepts)
        if len(accepts) > 1:
            actions.append(Lay(store, tuple(c for c in accepts for _ in range(hand[c]))))
    return actions


def _exchanges(state: MooreaState, hand: list[int]) -> list[Action]:
    out: list[Action] = []
    for wanted in sorted(set(state.face_up)):
        plenty = sorted((c for c in range(N_COMMODITIES) if c != wanted and hand[c]), key=lambda c: (-hand[c], c))
        paid = [c for c in plenty for _ in range(hand[c])][:2]
        if len(paid) == 2:
            out.append(Exchange((min(paid), max(paid)), wanted))
    return out


def _discards(state: MooreaState) -> list[Action]:
    hand = state.hands[state.seat]
    over = len(hand) - hand_limit(state, state.seat)
    return [Discard(cards) for cards in dict.fromkeys(combinations(hand, over))]


def product_payments(product: Product, hand: list[int], sites: frozenset[int], net: bool) -> list[tuple[int, ...]]:
    """The sensible exact payments of `product` from `hand` (a count per code): real commodities first and fish as
    joker only where short; with a net and fish to spare, also the payment that uses every spare fish as joker.
    Empty if the hand cannot pay."""
    if product.same:
        return _same_payments(product.same, hand, joker=net)
    if sum(hand) < product.size - len(sites) or not _may_pay(product, hand, sites, net):
        return []
    need = needed(product, sites)
    paid = list(need)
    for code in range(N_COMMODITIES):
        if code != FISH:
            paid[code] = min(hand[code], need[code])
    paid[FISH] = need[FISH] + sum(need[c] - paid[c] for c in range(N_COMMODITIES) if c != FISH)
    payments = [expand(paid)]
    spare = hand[FISH] - paid[FISH]
    if net and spare:
        most = list(paid)
        for code in range(N_COMMODITIES):
            swap = min(spare, most[code]) if code != FISH else 0
            most[code] -= swap
            most[FISH] += swap
            spare -= swap
        if most != paid:
            payments.append(expand(most))
    return payments


def _may_pay(product: Product, hand: list[int], sites: frozenset[int], net: bool) -> bool:
    """The quick test of `product_payments` (most layout cards are out of reach of most hands)."""
    short = fish = 0
    for code, n in product.items:
        if code in sites:
            n -= 1
        if code == FISH:
            fish = n
        elif hand[code] < n:
            if code >= N_COMMODITIES or not net:
                return False
            short += n - hand[code]
    return hand[FISH] >= fish + short


def tool_payments(kind: int, hand: list[int]) -> list[tuple[int, ...]]:
    """R5: every way to pay a tool: N of one commodity, for each commodity the hand holds N of."""
    return _same_payments(TOOLS[kind].same, hand, joker=False)


def _same_payments(same: int, hand: list[int], *, joker: bool) -> list[tuple[int, ...]]:
    out = []
    for code in range(N_COMMODITIES):
        if hand[code] >= same:
            out.append((code,) * same)
        elif joker and code != FISH and hand[code] and hand[code] + hand[FISH] >= same:
            out.append(tuple(sorted((code,) * hand[code] + (FISH,) * (same - hand[code]))))
    return out


TOOL_USE = (1.0, 1.5, 1.5, 3.0)  # basket, spear, fishing net, cart: points a tool's use is worth over a whole game
SITE_USE = 2.5  # points a production site saves over a whole game
STORE_HOPE = 1.5  # cards a new store is expected to take besides those in hand
INTERMEDIATE_COST = 2  # an intermediate product stands for about two commodity cards spent on it
LAY_EARLY = 0.4  # a commodity laid at a store early is a card less to buy with: worth this much less per card
UNSTICK = 0.1
"""How often the bot plays a random legal action instead of passing, or discards at random: two greedy bots each
holding part of what the other needs (with the deck empty) would otherwise wait for ever."""


class GreedyBot:
    """Buys, lays or equips for the most points per card spent; otherwise exchanges toward the layout, or passes."""

    def choose(self, view: MooreaState, legal: Sequence[object], rng: Random) -> object:
        """The legal action the bot values most (ties go to the first in legal order); see `UNSTICK`."""
        if len(legal) == 1:
            return legal[0]
        worth = _appraise(view)
        demand = _demand(view, worth)
        if phase(view) == DISCARD:
            if rng.random() < UNSTICK:
                return legal[rng.randrange(len(legal))]
            return min(legal, key=lambda a: sum(demand[c] for c in a.cards))  # type: ignore[attr-defined]
        draws = [action for action in legal if isinstance(action, Draw | DrawFaceUp)]
        if draws:  # the compulsory draw, and always the cart's second one: a card more costs nothing
            return max(draws, key=lambda a: _draw_value(a, demand))
        best, best_value = legal[0], float("-inf")
        for action in legal:
            value = _action_value(view, action, worth, demand)
            if value > best_value:
                best, best_value = action, value
        if isinstance(best, Pass) and rng.random() < UNSTICK:
            return legal[rng.randrange(len(legal))]
        return best


def _progress_left(view: MooreaState) -> float:
    """About how much of the game is still to come: 1 early, 0 when the pile is gone."""
    return min(1.0, len(view.pile) / 25)


def _appraise(view: MooreaState) -> dict[int, float]:
    """The points each layout card brings the bot, now or (stores, sites, intermediates) by what it makes possible."""
    seat, left = view.seat, _progress_left(view)
    worth: dict[int, float] = {}
    rates = [0.3] * len(HAND_CARDS)  # points per card an intermediate product could be turned into
    for store in view.owned[seat]:
        for code in PRODUCTS[store].accepts:
            rates[code] = max(rates[code], PRODUCTS[store].per_card / INTERMEDIATE_COST)
    necklaces = sum(1 for p in view.owned[seat] if PRODUCTS[p].kind == "seashell necklace")
    table = CARDS.necklace_points
    for p in view.layout:
        product = PRODUCTS[p]
        if product.kind == "intermediate":
            continue
        if product.kind == "seashell necklace":
            value = float(table[min(necklaces + 1, len(table) - 1)] - table[min(necklaces, len(table) - 1)])
        elif product.kind == "store":
            held = sum(1 for c in view.hands[seat] if c in product.accepts) - sum(
                product.need[c] for c in product.accepts
            )
            value = product.per_card * (max(0, held) + STORE_HOPE * left)
        elif product.kind == "production site":
            value = product.points + SITE_USE * left
        else:
            value = float(product.points)
        worth[p] = value
        for code in range(N_COMMODITIES, len(HAND_CARDS)):
            if product.need[code]:
                rates[code] = max(rates[code], value / COST_CARDS[p])
    for p in view.layout:
        if PRODUCTS[p].kind == "intermediate":
            worth[p] = 0.9 * INTERMEDIATE_COST * rates[PRODUCTS[p].hand_code]
    return worth


def _cards_spent(paid: tuple[int, ...]) -> int:
    return sum(INTERMEDIATE_COST if c >= N_COMMODITIES else 1 for c in paid)


def _cost_cards(product: Product) -> int:
    return product.same or sum(INTERMEDIATE_COST * n if c >= N_COMMODITIES else n for c, n in enumerate(product.need))


COST_CARDS = tuple(max(1, _cost_cards(product)) for product in PRODUCTS)


def _action_value(view: MooreaState, action: object, worth: dict[int, float], demand: list[float]) -> float:
    match action:
        case Buy(product=p, paid=paid):
            return worth[p] / max(1, _cards_spent(paid)) + 0.01
        case BuyTool(tool=kind, paid=paid):
            return (TOOLS[kind].points + TOOL_USE[kind] * _progress_left(view)) / len(paid)
        case Lay(store=store, cards=cards):
            early = LAY_EARLY * _progress_left(view) if cards[0] < N_COMMODITIES else 0.0
            return PRODUCTS[store].per_card * (1 - early) * len(cards) / _cards_spent(cards)
        case Exchange(paid=paid, card=card):
            return 0.1 * (demand[card] - (demand[paid[0]] + demand[paid[1]]) / 2)
    return 0.0 if isinstance(action, Pass) else -1.0


def _draw_value(action: object, demand: list[float]) -> float:
    if isinstance(action, DrawFaceUp):
        return demand[action.card]
    return sum(demand[:N_COMMODITIES]) / N_COMMODITIES if isinstance(action, Draw) else -1.0


def _demand(view: MooreaState, worth: dict[int, float]) -> list[float]:
    """How much the bot wants one more of each hand card: the layout's costs weighted by their worth per card (for
    "N of one commodity", the commodity it holds most of), and what its stores accept. An intermediate product
    nothing asks for is worth least: it is the first to go."""
    seat = view.seat
    sites = sites_of(view.owned[seat])
    demand = [0.05] * N_COMMODITIES + [0.0] * (len(HAND_CARDS) - N_COMMODITIES)
    hand = counts(c for c in view.hands[seat] if c >= 0)
    most = max(range(N_COMMODITIES), key=lambda c: hand[c])
    for p in view.layout:
        rate = worth[p] / COST_CARDS[p]
        if PRODUCTS[p].same:
            demand[most] += PRODUCTS[p].same * rate
        for code, n in COST_ITEMS[p]:
            demand[code] += (n - 1 if code in sites else n) * rate
    for store in view.owned[seat]:
        for code in PRODUCTS[store].accepts:
            demand[code] += PRODUCTS[store].per_card
    return demand


COST_ITEMS = tuple(tuple((code, n) for code, n in enumerate(product.need) if n) for product in PRODUCTS)
