"""Stones of Fate's notable facts for the dashboards: who won each card, and which kind of zone decided it."""

from __future__ import annotations

from collections import Counter

from loom.engine.stones_of_fate.cards import CARD_IDS, FORBIDDEN_SIDES, KEYSTONE_SIDES, POWER_SIDES
from loom.engine.stones_of_fate.state import EMPTY, StonesState, position, side_edges, winner
from loom.events.base import Payload
from loom.events.stones_of_fate import CardWon, FinalFlip

Fact = tuple[int | None, str, str, int]


def decided_by(state: StonesState, at: int) -> str:
    """The kind of zone that settled the card at `at` (S8): the first whose absence would change its winner.

    "nobody" when the card is discarded; "forbidden" when a Forbidden zone shut out the seat that would have won;
    "keystone" when the Keystones picked the winner (always so on a card without Power zones); else "power".
    """
    card, edges = state.spread[at], side_edges(state, at)
    won = winner(state.stones, edges, card)
    if won is None:
        return "nobody"
    if FORBIDDEN_SIDES[card] and winner(state.stones, edges, card, forbidden=()) != won:
        return "forbidden"
    if KEYSTONE_SIDES[card] and (not POWER_SIDES[card] or winner(state.stones, edges, card, keystones=()) != won):
        return "keystone"
    return "power"


def facts(before: StonesState, payload: Payload, after: StonesState) -> tuple[Fact, ...]:
    """(winner, "card-won", card) for every card won or discarded, and ("decided-by", zone kind, how many)."""
    if type(payload) is CardWon:
        at = position(before, payload.at)
        return ((payload.winner, "card-won", payload.card, 1), (None, "decided-by", decided_by(before, at), 1))
    if type(payload) is FinalFlip:
        settled = [at for at, card in enumerate(before.spread) if card != EMPTY]
        zones = Counter(decided_by(before, at) for at in settled)
        won = tuple((payload.winners[at], "card-won", CARD_IDS[before.spread[at]], 1) for at in settled)
        return won + tuple((None, "decided-by", zone, count) for zone, count in sorted(zones.items()))
    return ()
