"""Moorea's notable facts for the dashboards: what each seat bought."""

from __future__ import annotations

from loom.engine.moorea.cards import PRODUCT_BY_ID, PRODUCTS
from loom.engine.moorea.state import MooreaState
from loom.events.base import Payload
from loom.events.moorea import ProductBought, ToolBought

Fact = tuple[int | None, str, str, int]


def facts(before: MooreaState, payload: Payload, after: MooreaState) -> tuple[Fact, ...]:
    """(seat, "bought", product name, points) for a product (any copy); (seat, "bought-tool", tool kind) for a tool."""
    if type(payload) is ProductBought:
        bought = PRODUCTS[PRODUCT_BY_ID[payload.product]]
        return ((before.seat, "bought", bought.name, bought.points),)
    if type(payload) is ToolBought:
        return ((before.seat, "bought-tool", payload.tool, 1),)
    return ()
