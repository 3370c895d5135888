"""Moorea's end and score: the engine's stall rule beyond R10, and R11's points by source."""

from __future__ import annotations

from loom.engine.moorea.cards import CARDS, FISH, HAND_CARDS, N_COMMODITIES, NET, PRODUCTS, TOOLS
from loom.engine.moorea.state import MooreaState, counts, product_payments, sites_of

SITE_COMMODITIES = frozenset(p.produces for p in PRODUCTS if p.produces >= 0)
_SAVED = tuple(int(c in SITE_COMMODITIES) for c in range(N_COMMODITIES))  # R6: what a site saves, per commodity
_COPIES = [CARDS.commodity_copies[c] if c < N_COMMODITIES else 0 for c in range(len(HAND_CARDS))]

# --- The stall rule (docs/log-format.md, Moorea) ------------------------------------------------------------------


def stalled(state: MooreaState) -> bool:
    """The engine's rule beyond R10 (docs/log-format.md, Moorea): the game could never end, so the final round of R10
    begins. Either no card of the (full, or last) layout can ever be paid, not even with every remaining fish as
    joker and every kind of production site owned, because what it needs is no longer in play; or no card is left
    to draw or exchange (deck, discard pile and face-up places all empty), so hands can only shrink, and no seat
    can pay any layout card from its hand now."""
    if state.pile and len(state.layout) < CARDS.layout:
        return False
    if not (state.deck or state.discard or state.face_up) and not _anyone_can_buy(state):
        return True
    left = list(_COPIES)
    for seat_laid in state.laid:
        for _, code in seat_laid:
            if code < N_COMMODITIES:
                left[code] -= 1
    for hand in state.hands:
        for code in hand:
            if code >= N_COMMODITIES:
                left[code] += 1
    for p in state.layout:
        if PRODUCTS[p].hand_code >= 0:
            left[PRODUCTS[p].hand_code] += 1
    return not any(_payable(PRODUCTS[p].need, PRODUCTS[p].same, left) for p in state.layout)


def _anyone_can_buy(state: MooreaState) -> bool:
    for seat, hand in enumerate(state.hands):
        held, sites, net = counts(hand), sites_of(state.owned[seat]), NET in state.tools[seat]
        if any(product_payments(PRODUCTS[p], held, sites, net) for p in state.layout):
            return True
    return False


def _payable(need: tuple[int, ...], same: int, left: list[int]) -> bool:
    # Plain loops, no generators: the end of every turn asks this of the layout's cards (`stalled`).
    fish = left[FISH]
    if same:
        return any(left[c] + (fish if c != FISH else 0) >= same for c in range(N_COMMODITIES))
    for c in range(N_COMMODITIES, len(HAND_CARDS)):
        if left[c] < need[c]:
            return False
    short = 0
    for c in range(N_COMMODITIES):
        if c != FISH:
            lack = need[c] - _SAVED[c] - left[c]
            if lack > 0:
                short += lack
    return short + need[FISH] - _SAVED[FISH] <= fish


# --- Score (R11) ---------------------------------------------------------------------------------------------------


def breakdown(state: MooreaState) -> list[dict[str, int]]:
    """R11 per seat: points of owned products, of tools, of cards laid at stores, and of seashell necklaces."""
    table = CARDS.necklace_points
    out = []
    for owned, tools, laid in zip(state.owned, state.tools, state.laid, strict=True):
        necklaces = sum(1 for p in owned if PRODUCTS[p].kind == "seashell necklace")
        out.append(
            {
                "products": sum(PRODUCTS[p].points for p in owned),
                "tools": sum(TOOLS[k].points for k in tools),
                "stores": sum(PRODUCTS[store].per_card for store, _ in laid),
                "necklaces": table[min(necklaces, len(table) - 1)],
            }
        )
    return out


def scores(state: MooreaState) -> list[int]:
    """R11: products, tools, cards laid at stores and the necklace table."""
    return [sum(row.values()) for row in breakdown(state)]


def winners(state: MooreaState) -> list[int]:
    """R11: the highest score wins; ties are shared victories."""
    points = scores(state)
    best = max(points, default=0)
    return [seat for seat, p in enumerate(points) if p == best]
