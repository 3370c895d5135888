"""Moorea's table drawn for a terminal (rich) and described as JSON."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from loom.engine.moorea.cards import HAND_CARDS, PRODUCT_BY_ID, PRODUCTS, TOOL_KINDS
from loom.engine.moorea.rules import to_move
from loom.engine.moorea.score import breakdown, scores
from loom.engine.moorea.state import DRAW, PHASES, MooreaState, phase
from loom.engine.moves import Move, only_type
from loom.engine.presentation import Presentation, Reader, Voice, listed, reshuffled, seen_as, sentence
from loom.engine.protocol import CHANCE_TO_MOVE, HIDDEN
from loom.events import moorea as ev
from loom.events.base import Event

STYLES = {
    "seashells": "bold magenta",
    "wood": "bold yellow",
    "bamboo": "bold green",
    "clay": "bold red",
    "fish": "bold blue",
    "stoneware": "bold white",
    "hut": "bold white",
    "canoe": "bold white",
}


def card_text(code: int) -> Text:
    """A hand card by name in its colour; a hidden card as a grey box."""
    if code == HIDDEN:
        return Text("▒▒", style="dim")
    return Text(HAND_CARDS[code], style=STYLES[HAND_CARDS[code]])


def cards_text(codes: tuple[int, ...]) -> Text:
    """Hand cards side by side, grouped as `3×wood`."""
    if not codes:
        return Text("—", style="dim")
    counted = Counter(codes)
    parts = []
    for code in sorted(counted, key=lambda c: (c == HIDDEN, c)):
        part = card_text(code)
        parts.append(Text(f"{counted[code]}×").append_text(part) if counted[code] > 1 else part)
    return Text(" ").join(parts)


def cost_text(number: int) -> str:
    """A product's cost: `2 wood + 1 canoe`, or `4 of one commodity`."""
    product = PRODUCTS[number]
    if product.same:
        return f"{product.same} of one commodity"
    return " + ".join(f"{n} {HAND_CARDS[code]}" for code, n in product.items)


def owned_text(numbers: tuple[int, ...]) -> str:
    """Owned products (stores apart) by name, with how many: `2×forest, bridge`."""
    counted = Counter(PRODUCTS[p].name for p in numbers if PRODUCTS[p].kind != "store")
    return ", ".join(f"{n}×{name}" if n > 1 else name for name, n in counted.items()) or "—"


def _layout(state: MooreaState) -> Table:
    table = Table(title="Layout", show_header=True, box=None, padding=(0, 1), title_justify="left")
    for column in ("card", "kind", "cost", "points"):
        table.add_column(column)
    for number in state.layout:
        product = PRODUCTS[number]
        points = f"{product.per_card} per card laid" if product.kind == "store" else str(product.points or "")
        table.add_row(product.id, product.kind, cost_text(number), points)
    return table


def _stores(state: MooreaState, seat: int) -> Text:
    laid: dict[int, list[int]] = {}
    for store, code in state.laid[seat]:
        laid.setdefault(store, []).append(code)
    stores = [p for p in state.owned[seat] if PRODUCTS[p].kind == "store"]
    if not stores:
        return Text("—", style="dim")
    return Text("\n").join(
        Text(f"{PRODUCTS[s].name}: ").append_text(cards_text(tuple(sorted(laid.get(s, []))))) for s in stores
    )


def render(state: MooreaState, seat: Reader) -> RenderableType:
    """The face-up commodities, deck, pile, layout, and every seat's hand, tools, products and stores."""
    mover = to_move(state)
    if mover is None:
        status = "game over"
    elif mover == CHANCE_TO_MOVE:
        status = "chance to act"
    else:
        status = f"seat {mover} to move ({PHASES[phase(state)]})"
    viewer = seen_as(seat)
    final = f", final round: {state.final_turns} turns left" if state.final_turns and mover is not None else ""
    when = f"after turn {state.turn}" if state.phase == DRAW else f"during turn {state.turn}"
    header = Text.assemble(("Moorea", "bold"), f" — {when}, {status}{final} ({viewer})")
    info = Text.assemble(
        "Face up: ",
        cards_text(tuple(sorted(state.face_up))),
        f"   Deck: {len(state.deck)} cards   Discard: {len(state.discard)} cards   Product pile: {len(state.pile)}",
    )
    players = Table(show_lines=True)
    for column in ("seat", "player", "hand", "tools", "products", "stores (laid)", "points"):
        players.add_column(column)
    points = scores(state) if state.players else []
    for s, name in enumerate(state.players):
        # A name comes from the log: a Text, so rich never reads it as markup (a link, a style, an emoji code).
        players.add_row(
            f"{'▶ ' if s == mover else '  '}{s}",
            Text(name),
            cards_text(state.hands[s]),
            ", ".join(TOOL_KINDS[k] for k in state.tools[s]) or "—",
            owned_text(state.owned[s]),
            _stores(state, s),
            str(points[s]),
        )
    return Group(header, info, _layout(state), players)


def describe(state: MooreaState) -> dict[str, Any]:
    """The state as readable JSON; hidden cards are null."""

    def hand(codes: tuple[int, ...]) -> list[str | None]:
        return [None if c == HIDDEN else HAND_CARDS[c] for c in codes]

    def ids(numbers: tuple[int, ...]) -> list[str | None]:
        return [None if p == HIDDEN else PRODUCTS[p].id for p in numbers]

    mover = to_move(state)
    stores: list[dict[str, list[str]]] = []
    for s in range(len(state.players)):
        laid: dict[str, list[str]] = {PRODUCTS[p].id: [] for p in state.owned[s] if PRODUCTS[p].kind == "store"}
        for store, code in state.laid[s]:
            laid[PRODUCTS[store].id].append(HAND_CARDS[code])
        stores.append(laid)
    return {
        "players": list(state.players),
        "turn": state.turn,
        "to_move": "chance" if mover == CHANCE_TO_MOVE else mover,
        "phase": PHASES[phase(state)] if mover not in (None, CHANCE_TO_MOVE) else None,
        "over": mover is None,
        "hands": [hand(h) for h in state.hands],
        "face_up": hand(state.face_up),
        "deck": hand(state.deck),
        "deck_ordered": state.deck_ordered,
        "discard": hand(state.discard),
        "layout": ids(state.layout),
        "pile": ids(state.pile),
        "pile_ordered": state.pile_ordered,
        "tools": [[TOOL_KINDS[k] for k in tools] for tools in state.tools],
        "tool_supply": dict(zip(TOOL_KINDS, state.supply, strict=True)),
        "owned": [ids(owned) for owned in state.owned],
        "stores": stores,
        "removed": hand(state.removed),
        "scores": scores(state) if state.players else [],
        "breakdown": breakdown(state) if state.players else [],
        "final_turns": state.final_turns,
    }


PUBLIC_MOVES = ("draw", "draw_face_up", "pass", "exchange", "buy", "buy_tool", "lay", "discard")


def public_move(move: Move) -> Move:
    """A Moorea move as the other seats saw it: the whole of it. A draw names no card, a face-up card is public (R4),
    and every card a move gives up is shown: paid and discarded commodities go to the public discard pile,
    intermediate products out of the game, laid cards to a store (R5, R8, R9)."""
    return dict(move) if move.get("type") in PUBLIC_MOVES else only_type(move)


PLURALS = {"hut": "huts", "canoe": "canoes"}
"""Hand cards whose name takes an -s when counted; commodities are counted as they are named ("2 wood")."""


def counted(cards: Sequence[str]) -> str:
    """Hand cards counted by kind, the most first (ties in the order first named): "2 canoes and 1 hut"."""
    counts = Counter(cards).most_common()
    return listed([f"{n} {PLURALS.get(card, card) if n > 1 else card}" for card, n in counts])


def product_words(product_id: str) -> str:
    """A product card in words: its name and the id of the copy, "the jetty (jetty-1)"."""
    number = PRODUCT_BY_ID.get(product_id)
    if number is None:
        return product_id
    return f"the {PRODUCTS[number].name} ({product_id})"


def tell(before: MooreaState, event: Event, after: MooreaState, voice: Voice) -> str:
    """A Moorea event in words as the voice's reader saw it: a card drawn face down and a dealt hand are named to
    their holder only (R3, R4); face-up cards, the layout, and every card paid, laid or discarded are public (R5-R9)."""
    p = event.payload
    actor = event.actor
    who = voice.who(actor) if actor is not None else "chance"
    if isinstance(p, ev.GameStarted):
        return sentence(f"{voice.seating()} sat down to play Moorea; {voice.who(0)} to play first")
    if isinstance(p, ev.CardsDealt):
        size = len(p.hands[0]) if p.hands else 0
        table = f"face up: {listed(list(p.face_up))}; the layout: {listed([product_words(c) for c in p.layout])}"
        if voice.viewer is None:
            hands = "; ".join(f"{voice.name(s)} {counted(h)}" for s, h in enumerate(p.hands))
            return sentence(f"Each player was dealt {size} commodity cards ({hands}); {table}")
        mine = p.hands[voice.viewer] if voice.viewer < len(p.hands) else ()
        return sentence(f"Each player was dealt {size} commodity cards, you got {counted(mine)}; {table}")
    if isinstance(p, ev.CardDrawn):
        if voice.sees(actor):
            return sentence(f"{who} drew {p.card} from the deck")
        return sentence(f"{who} drew a card from the deck")
    if isinstance(p, ev.FaceUpDrawn):
        return sentence(f"{who} drew the face-up {p.card}")
    if isinstance(p, ev.TurnPassed):
        return sentence(f"{who} passed")
    if isinstance(p, ev.CardsExchanged):
        return sentence(f"{who} exchanged {counted(p.paid)} for the face-up {p.card}")
    if isinstance(p, ev.ProductBought):
        return sentence(f"{who} bought {product_words(p.product)} with {counted(p.paid)}")
    if isinstance(p, ev.ToolBought):
        return sentence(f"{who} bought a {p.tool} with {counted(p.paid)}")
    if isinstance(p, ev.CardsLaid):
        return sentence(f"{who} laid {counted(p.cards)} at {product_words(p.store)}")
    if isinstance(p, ev.CardsDiscarded):
        return sentence(f"{who} discarded {counted(p.cards)} down to the hand limit")
    if isinstance(p, ev.FaceUpRefilled):
        return sentence(f"The face-up commodities were refilled from the deck with {p.card}")
    if isinstance(p, ev.ProductLaidOut):
        return sentence(f"The layout was refilled with {product_words(p.product)}")
    if isinstance(p, ev.DiscardReshuffled):
        return reshuffled(len(before.discard))
    return sentence(f"{who}: {p.TYPE}")


LEGEND = (
    "Hand cards by name (seashells, wood, bamboo, clay, fish; stoneware, hut and canoe are held in the hand); "
    "3×wood is three wood cards.",
    "▒▒ a card you cannot see; — none; a cost 2 wood + 1 canoe names the cards to pay; ▶ the seat to move.",
)
"""What the symbols of the table mean (`logs replay --legend`)."""


PRESENTATION: Presentation[MooreaState] = Presentation(render=render, public_move=public_move, tell=tell, legend=LEGEND)
