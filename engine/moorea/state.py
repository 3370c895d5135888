"""Moorea's position and its players' decisions: the state, the phases of a turn, the actions, and the questions
the rules, the score and the bots all ask of a position (which decision is due, the hand limit, what a seat's cards
can pay)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from loom.engine.moorea.cards import BASKET, CARDS, FISH, HAND_CARDS, N_COMMODITIES, PRODUCTS, SPEAR, TOOLS, Product
from loom.engine.state import evolver

DRAW, SECOND_DRAW, ACTION, DISCARD = range(4)
PHASES = ("draw", "second draw", "action", "discard")


# --- State ----------------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class MooreaState:
    """A Moorea position. Hands are sorted hand-card codes; in a seat's view, what it cannot see is HIDDEN."""

    players: tuple[str, ...] = ()
    seed: int = 0
    dealt: bool = False
    deck: tuple[int, ...] = ()  # commodity cards, top first when `deck_ordered`; otherwise unseen ones, sorted
    deck_ordered: bool = False
    discard: tuple[int, ...] = ()
    face_up: tuple[int, ...] = ()
    pile: tuple[int, ...] = ()  # product cards, top first when `pile_ordered`; otherwise unseen ones, sorted
    pile_ordered: bool = False
    layout: tuple[int, ...] = ()
    hands: tuple[tuple[int, ...], ...] = ()
    tools: tuple[tuple[int, ...], ...] = ()  # tool kinds per seat
    owned: tuple[tuple[int, ...], ...] = ()  # product cards per seat, face up (intermediates are in the hand)
    laid: tuple[tuple[tuple[int, int], ...], ...] = ()  # per seat: (store, hand-card code) of each card laid
    removed: tuple[int, ...] = ()  # intermediate products spent or discarded: out of the game (R8, R9)
    supply: tuple[int, ...] = tuple(t.copies for t in TOOLS)  # tool cards left per kind
    turn: int = 0  # turns begun so far
    seat: int = 0  # the seat whose turn it is, or comes next
    phase: int = DRAW  # DRAW: the seat's turn has not begun
    final_turns: int | None = None  # R10: turns still to play once the end is triggered


replace = evolver(MooreaState)


# --- Questions about a position ---------------------------------------------------------------------------------------


def _can_draw(state: MooreaState) -> bool:
    """R4: a card is left to draw face down, or (spear) face up. With none, the turn goes on without a draw."""
    return bool(state.deck or state.discard) or (SPEAR in state.tools[state.seat] and bool(state.face_up))


def phase(state: MooreaState) -> int:
    """The decision the seat to move faces: DRAW, SECOND_DRAW (optional: an action declines it), ACTION, DISCARD."""
    if state.phase in (DRAW, SECOND_DRAW) and not _can_draw(state):
        return ACTION
    return state.phase


def hand_limit(state: MooreaState, seat: int) -> int:
    """R9: 6 cards at the end of a turn, 8 with a basket."""
    return limit_of(state.tools[seat])


def limit_of(tools: tuple[int, ...]) -> int:
    """R9: the hand limit of a seat with these tools."""
    return CARDS.basket_limit if BASKET in tools else CARDS.hand_size


def set_at(row: tuple[Any, ...], index: int, value: Any) -> tuple[Any, ...]:
    """`row` with its item `index` replaced by `value`."""
    return row[:index] + (value,) + row[index + 1 :]


# --- Costs and payments (R5-R7) ---------------------------------------------------------------------------------------
# What a product or tool costs a seat, whether a payment is exact, and the sensible payments a hand can make.
#
# R5 (tools: N identical commodities, no joker), R6 (a production site lowers its commodity by one), R7 (the fishing
# net's fish stands in for any commodity of a product's cost, never for intermediate products, tools or stores).
# A payment is a multiset of hand-card codes, held as a count per code.

N_CODES = len(HAND_CARDS)


def counts(cards: Iterable[int]) -> list[int]:
    """How many of each hand-card code."""
    out = [0] * N_CODES
    for code in cards:
        out[code] += 1
    return out


def expand(count: list[int] | tuple[int, ...]) -> tuple[int, ...]:
    """The sorted cards of a count per code."""
    return tuple(code for code in range(N_CODES) for _ in range(count[code]))


def sites_of(owned: Iterable[int]) -> frozenset[int]:
    """R6: the commodities whose production site a seat owns."""
    return frozenset(PRODUCTS[p].produces for p in owned if PRODUCTS[p].produces >= 0)


def needed(product: Product, sites: frozenset[int]) -> tuple[int, ...]:
    """R6: the product's cost for a seat owning production sites for `sites`: one less of each such commodity.

    Owning two sites of one commodity still saves one card, as the rulebook says ("you need 1 less"). A
    production site's own cost (`same`) names no commodity, so no site lowers it."""
    if not sites:
        return product.need
    return tuple(n - 1 if code in sites and n > 0 else n for code, n in enumerate(product.need))


def product_problem(product: Product, paid: list[int], sites: frozenset[int], net: bool) -> str | None:
    """Why `paid` is not exactly the cost of `product` for this seat (R5-R7), or None if it is."""
    if product.same:
        return _same_problem(product.name, product.same, paid, joker=net)
    need = needed(product, sites)
    for code in range(N_COMMODITIES, N_CODES):
        if paid[code] != need[code]:
            return f"{product.name} takes {need[code]} {HAND_CARDS[code]}, not {paid[code]} (R7: no joker for it)"
    short = 0
    for code in range(N_COMMODITIES):
        if code != FISH and paid[code] > need[code]:
            return f"{product.name} takes {need[code]} {HAND_CARDS[code]}, not {paid[code]}"
        if code != FISH:
            short += need[code] - paid[code]
    if paid[FISH] != need[FISH] + short:
        missing = need[FISH] + short - paid[FISH]
        return f"the payment for {product.name} is {abs(missing)} card(s) {'short' if missing > 0 else 'over'}"
    if short and not net:
        return f"only a fishing net lets fish stand in for other commodities (R7); {product.name} is not paid"
    return None


def tool_problem(kind: int, paid: list[int]) -> str | None:
    """Why `paid` is not N identical commodities for this tool (R5: fish is no joker here), or None."""
    tool = TOOLS[kind]
    return _same_problem(tool.name, tool.same, paid, joker=False)


def _same_problem(name: str, same: int, paid: list[int], *, joker: bool) -> str | None:
    if any(paid[N_COMMODITIES:]):
        return f"{name} is paid with commodities only"
    if sum(paid) != same:
        return f"{name} takes {same} cards of one commodity, not {sum(paid)}"
    kinds = [code for code in range(N_COMMODITIES) if paid[code] and code != FISH]
    if len(kinds) > 1 or (kinds and paid[FISH] and not joker):
        why = " (fish is no joker here: R5, R7)" if kinds and paid[FISH] and not joker else ""
        return f"{name} takes {same} cards of one commodity{why}"
    return None


def product_payments(product: Product, hand: list[int], sites: frozenset[int], net: bool) -> list[tuple[int, ...]]:
    """The sensible exact payments of `product` from `hand` (a count per code): real commodities first and fish as
    joker only where short; with a net and fish to spare, also the payment that uses every spare fish as joker.
    Empty if the hand cannot pay."""
    if product.same:
        return _same_payments(product.same, hand, joker=net)
    if not _may_pay(product, hand, sites, net):  # (a hand that may pay holds at least `product.size - len(sites)`)
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
