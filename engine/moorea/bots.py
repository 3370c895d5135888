"""Moorea's greedy bot: the action worth the most points per card spent, and the cards that feed it kept and drawn."""

from __future__ import annotations

from collections.abc import Sequence
from random import Random

from loom.engine.moorea.actions import Buy, BuyTool, Draw, DrawFaceUp, Exchange, Lay, Pass
from loom.engine.moorea.cards import CARDS, HAND_CARDS, PRODUCTS, TOOLS, Product
from loom.engine.moorea.state import DISCARD, N_COMMODITIES, MooreaState, counts, phase, sites_of

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
    intermediates = []
    for p in view.layout:
        product = PRODUCTS[p]
        kind = product.kind
        if kind == "intermediate":
            intermediates.append(p)
            continue
        if kind == "seashell necklace":
            value = float(table[min(necklaces + 1, len(table) - 1)] - table[min(necklaces, len(table) - 1)])
        elif kind == "store":
            held = sum(1 for c in view.hands[seat] if c in product.accepts) - STORE_NEED[p]
            value = product.per_card * (max(0, held) + STORE_HOPE * left)
        elif kind == "production site":
            value = product.points + SITE_USE * left
        else:
            value = float(product.points)
        worth[p] = value
        for code in INTERMEDIATES_NEEDED[p]:
            rates[code] = max(rates[code], value / COST_CARDS[p])
    for p in intermediates:
        worth[p] = 0.9 * INTERMEDIATE_COST * rates[PRODUCTS[p].hand_code]
    return worth


def _cards_spent(paid: tuple[int, ...]) -> int:
    return sum(INTERMEDIATE_COST if c >= N_COMMODITIES else 1 for c in paid)


def _cost_cards(product: Product) -> int:
    return product.same or sum(INTERMEDIATE_COST * n if c >= N_COMMODITIES else n for c, n in enumerate(product.need))


COST_CARDS = tuple(max(1, _cost_cards(product)) for product in PRODUCTS)
STORE_NEED = tuple(sum(product.need[c] for c in product.accepts) for product in PRODUCTS)
"""What a store's own cost takes of the cards it accepts."""
INTERMEDIATES_NEEDED = tuple(
    tuple(code for code in range(N_COMMODITIES, len(HAND_CARDS)) if product.need[code]) for product in PRODUCTS
)
"""The intermediate products each product's cost names."""


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


CARD_HOPE = (0.4, 0.4, 0.4, 0.4, 0.5, 1.0, 1.0, 1.0)
"""What a hand card no owned store takes is worth toward a product (seashells, wood, bamboo, clay, fish: about a
card's share of a product's points, less the cards lost to exchanges and discards; fish more, a joker with a net;
stoneware, hut, canoe: two commodities already spent, R8)."""
LAY_HOPE = 0.9  # a hand card an owned store takes: its points there, a turn's action away (R5, R11)


def promise(state: MooreaState) -> list[float]:
    """What each seat's holdings promise beyond its score (a leaf evaluation for the search, `Game.promise`): the hand
    (a card an owned store takes at `LAY_HOPE` of that store's points per card, the best such store; any other at its
    `CARD_HOPE`), and what tools, production sites and stores are still worth by the game's remaining part (the
    greedy bot's `TOOL_USE`, `SITE_USE`, `STORE_HOPE` times `_progress_left`): R5-R11. Read from a full state, a
    determinization: a hand card hidden there (HIDDEN, negative) counts for nobody."""
    left = _progress_left(state)
    out = []
    for hand, tools, owned in zip(state.hands, state.tools, state.owned, strict=True):
        rate = list(CARD_HOPE)
        future = sum(TOOL_USE[kind] for kind in tools)
        for p in owned:
            product = PRODUCTS[p]
            if product.kind == "store":
                future += STORE_HOPE * product.per_card
                for code in product.accepts:
                    rate[code] = max(rate[code], LAY_HOPE * product.per_card)
            elif product.kind == "production site":
                future += SITE_USE
        out.append(left * future + sum(rate[code] for code in hand if code >= 0))
    return out
