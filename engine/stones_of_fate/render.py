"""Stones of Fate's table drawn for a terminal (rich) and described as JSON."""

from __future__ import annotations

from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from loom.engine.moves import Move, only_type
from loom.engine.presentation import Presentation, Voice, sentence
from loom.engine.protocol import CHANCE_TO_MOVE, HIDDEN
from loom.engine.stones_of_fate.cards import CARD_IDS, CARDS, COLOURS, SIDES, zone_name
from loom.engine.stones_of_fate.rules import to_move, waiting_for
from loom.engine.stones_of_fate.score import card_points, scores, winners
from loom.engine.stones_of_fate.state import EFFECTS, EMPTY, StonesState, grid_of, side_edges, supply
from loom.events.base import Event

STYLES = {"black": "bold white on grey23", "green": "bold green", "red": "bold red", "blue": "bold blue"}
ARROWS = ("▲", "▶", "▼", "◀")


def _stones_on(state: StonesState, edge: int) -> Text:
    parts = [
        Text(f"{COLOURS[seat]}×{mine[edge]}", style=STYLES.get(COLOURS[seat], "bold"))
        for seat, mine in enumerate(state.stones)
        if mine[edge]
    ]
    return Text(" ").join(parts) if parts else Text("·", style="dim")


def _label(state: StonesState, at: int, seat: int | None) -> Text:
    c = state.spread[at]
    if c == EMPTY:
        return Text("(empty)", style="dim")
    if c == HIDDEN:
        return Text("▒▒ face down", style="dim")
    name = f"{CARDS[c].name} [{CARDS[c].points}]"
    if at in state.face_up:
        return Text(f"{name} FACE UP", style="bold yellow")
    if seat is not None:
        return Text(f"{name} (remembered)", style="italic")
    return Text(f"{name} (face down)")


def _cell(state: StonesState, at: int, seat: int | None) -> Text:
    """One card: its label, then each side's zone (when the viewer knows the card) and the stones on that edge."""
    c = state.spread[at]
    edges = side_edges(state, at)
    lines = [Text(grid_of(state).position_name(at) + " ", style="dim") + _label(state, at, seat)]
    for side, edge in enumerate(edges):
        zone = zone_name(CARDS[c].zones[side]) if c >= 0 else "?"
        lines.append(Text(f"{ARROWS[side]} {SIDES[side]}: {zone}  ") + _stones_on(state, edge))
    return Text("\n").join(lines)


def _spread(state: StonesState, seat: int | None) -> Table:
    grid = grid_of(state)
    table = Table(show_header=False, show_lines=True, title="Spread (a stone between two cards counts for both)")
    for _ in range(grid.cols):
        table.add_column()
    for r in range(grid.rows):
        table.add_row(*(_cell(state, r * grid.cols + c, seat) for c in range(grid.cols)))
    return table


def _collection(state: StonesState, seat: int) -> str:
    held = state.collections[seat]
    return ", ".join(f"{CARD_IDS[c]} ({card_points(c, held)})" for c in held) or "—"


def render(state: StonesState, seat: int | None) -> RenderableType:
    """The spread with zones and stones, the deck, and every seat's supply, collection and points."""
    if not state.players:
        return Text("Stones of Fate — not started")
    mover = to_move(state)
    status = "game over" if mover is None else "chance to act" if mover == CHANCE_TO_MOVE else f"seat {mover} to move"
    viewer = "all cards shown" if seat is None else f"as seen by seat {seat}"
    header = Text.assemble(
        ("Stones of Fate", "bold"), f" — turn {state.turn}, {status} ({viewer}): {waiting_for(state)}"
    )
    top = (
        state.deck_top if seat is not None else (state.deck[0] if state.deck_ordered and state.deck else state.deck_top)
    )
    known_top = f" (top: {CARD_IDS[top]})" if top >= 0 and state.deck_size else ""
    info = Text(
        f"Deck: {state.deck_size} cards{known_top}   Discard: {', '.join(CARD_IDS[c] for c in state.discard) or '—'}"
    )
    table = Table()
    for column in ("seat", "player", "colour", "supply", "collection (points)", "points"):
        table.add_column(column)
    won = set(winners(state)) if mover is None else set()
    for s, (name, points) in enumerate(zip(state.players, scores(state))):
        marker = "▶ " if s == mover else "★ " if s in won else "  "
        colour = Text(COLOURS[s], style=STYLES.get(COLOURS[s], ""))
        # A name comes from the log: a Text, so rich never reads it as markup (a link, a style, an emoji code).
        table.add_row(f"{marker}{s}", Text(name), colour, str(supply(state, s)), _collection(state, s), str(points))
    parts: list[RenderableType] = [header]
    if state.dealt and not state.final:
        parts.append(_spread(state, seat))
    parts += [info, table]
    return Group(*parts)


def describe(state: StonesState) -> dict[str, Any]:
    """The state as readable JSON; cards the viewer cannot see are null."""

    def name(c: int) -> str | None:
        return CARD_IDS[c] if c >= 0 else None

    mover = to_move(state)
    grid = grid_of(state) if state.rows else None
    spread = (
        [
            {"at": grid.position_name(p), "card": name(c), "face_up": p in state.face_up, "empty": c == EMPTY}
            for p, c in enumerate(state.spread)
        ]
        if grid
        else []
    )
    return {
        "players": list(state.players),
        "turn": state.turn,
        "to_move": "chance" if mover == CHANCE_TO_MOVE else mover,
        "over": mover is None,
        "waiting_for": waiting_for(state) if state.players else "the setup",
        "seat": state.seat,
        "actions": state.actions,
        "grid": [state.rows, state.cols],
        "spread": spread,
        "known": [{grid.position_name(p): CARD_IDS[c] for p, c in enumerate(k) if c >= 0} for k in state.known]
        if grid
        else [],
        "stones": [{grid.edge_name(e): n for e, n in enumerate(mine) if n} for mine in state.stones] if grid else [],
        "colours": list(COLOURS[: len(state.players)]),
        "supply": [supply(state, s) for s in range(len(state.players))],
        "collections": [[CARD_IDS[c] for c in held] for held in state.collections],
        "discard": [CARD_IDS[c] for c in state.discard],
        "deck_size": state.deck_size,
        "deck": [name(c) for c in state.deck] if state.deck_ordered else None,
        "deck_top": name(state.deck_top),
        "known_top": [name(c) for c in state.known_top],
        "tasks": [
            {"effect": EFFECTS[code], "seat": seat, "steps": steps, "at": grid.position_name(at) if grid else None}
            for code, seat, steps, at in state.tasks
        ],
        "scores": scores(state) if state.players else [],
        "final": state.final,
        "winners": winners(state) if mover is None and state.players else [],
    }


PUBLIC_MOVES = ("peek", "move", "flip", "swap", "take", "recover", "stop", "choose", "give-death")


def public_move(move: Move) -> Move:
    """A Stones of Fate move as the other seats saw it: the whole of it. A peek names a place, not the card seen
    there (S5); a card taken or recovered comes from a collection or the discard pile, both public."""
    return dict(move) if move.get("type") in PUBLIC_MOVES else only_type(move)


def tell(before: StonesState, event: Event, after: StonesState, voice: Voice) -> str:
    """An event in words as the voice's reader saw it (its kind only, for now: it names no card)."""
    who = voice.who(event.actor) if event.actor is not None else "chance"
    return sentence(f"{who}: {event.type}")


PRESENTATION: Presentation[StonesState] = Presentation(render=render, public_move=public_move, tell=tell)
