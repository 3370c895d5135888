"""Stones of Fate's table drawn for a terminal (rich) and described as JSON."""

from __future__ import annotations

from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from loom.engine.moves import Move, only_type
from loom.engine.presentation import Presentation, Reader, Voice, listed, seen_as, sentence
from loom.engine.protocol import CHANCE_TO_MOVE, HIDDEN
from loom.engine.stones_of_fate.cards import CARD_IDS, CARDS, COLOURS, SIDES, zone_name
from loom.engine.stones_of_fate.rules import to_move, waiting_for
from loom.engine.stones_of_fate.score import card_points, scores, winners
from loom.engine.stones_of_fate.state import EFFECTS, EMPTY, StonesState, grid_of, side_edges, supply
from loom.events import stones_of_fate as ev
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


def _label(state: StonesState, at: int, seat: Reader) -> Text:
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


def _cell(state: StonesState, at: int, seat: Reader) -> Text:
    """One card: its label, then each side's zone (when the viewer knows the card) and the stones on that edge."""
    c = state.spread[at]
    edges = side_edges(state, at)
    lines = [Text(grid_of(state).position_name(at) + " ", style="dim") + _label(state, at, seat)]
    for side, edge in enumerate(edges):
        zone = zone_name(CARDS[c].zones[side]) if c >= 0 else "?"
        lines.append(Text(f"{ARROWS[side]} {SIDES[side]}: {zone}  ") + _stones_on(state, edge))
    return Text("\n").join(lines)


def _spread(state: StonesState, seat: Reader) -> Table:
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


def render(state: StonesState, seat: Reader) -> RenderableType:
    """The spread with zones and stones, the deck, and every seat's supply, collection and points."""
    if not state.players:
        return Text("Stones of Fate — not started")
    mover = to_move(state)
    status = "game over" if mover is None else "chance to act" if mover == CHANCE_TO_MOVE else f"seat {mover} to move"
    viewer = seen_as(seat)
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


def whose(voice: Voice, seat: int) -> str:
    """A seat's possessive as the reader says it: "your" or "Ann's"."""
    return "your" if seat == voice.viewer else f"{voice.name(seat)}'s"


def place_words(at: str) -> str:
    """A place of the spread or of a stone in words: "b2", "the supply", "the top of the deck"."""
    return {"supply": "the supply", "deck": "the top of the deck"}.get(at, at)


def _known_at(state: StonesState, at: str, seat: int) -> bool:
    """Whether `seat` knows the card at spread place `at` (`b2`) in `state`: it saw it dealt or peeked at it (S3, S5),
    or it peeked at the top of the deck that then filled the place."""
    if not state.cols or len(at) < 2 or at[0] not in "abc" or not at[1:].isdigit():
        return False
    position = "abc".index(at[0]) * state.cols + int(at[1:]) - 1
    known = state.known[seat] if seat < len(state.known) else ()
    return 0 <= position < len(known) and known[position] != HIDDEN


def tell(before: StonesState, event: Event, after: StonesState, voice: Voice) -> str:
    """A Stones of Fate event in words as the voice's reader saw it: a peeked card is named to the peeker only (S5),
    a card refilling the spread face down to nobody who had not seen it (S9); the spread dealt, stones, flipped
    cards, collections and the discard pile are public (S3, S7)."""
    p = event.payload
    actor = event.actor
    who = voice.who(actor) if actor is not None else "chance"
    if isinstance(p, ev.GameStarted):
        seats = [
            f"{voice.name(s)} ({'you, ' if s == voice.viewer else ''}{COLOURS[s] if s < len(COLOURS) else '?'})"
            for s in range(len(voice.players))
        ]
        return sentence(f"{listed(seats)} sat down to play Stones of Fate; {voice.who(0)} to play first")
    if isinstance(p, ev.SpreadDealt):
        grid = grid_of(after)
        cards = listed([f"{grid.position_name(n)} {card}" for n, card in enumerate(p.spread)])
        return sentence(f"The spread was dealt face up for everyone to see, then turned face down: {cards}")
    if isinstance(p, ev.CardPeeked):
        if voice.sees(actor):
            return sentence(f"{who} peeked at {place_words(p.at)}: {p.card}")
        return sentence(f"{who} peeked at the face-down card at {place_words(p.at)}")
    if isinstance(p, ev.StoneMoved):
        return sentence(f"{who} moved a {p.colour} stone from {place_words(p.source)} to {place_words(p.target)}")
    if isinstance(p, ev.CardFlipped):
        return sentence(f"{who} flipped the card at {p.at}: {p.card}")
    if isinstance(p, ev.CardsSwapped):
        first, second = p.positions
        return sentence(f"{who} swapped the face-down cards at {first} and {second}")
    if isinstance(p, ev.CardTaken):
        return sentence(f"{who} took {p.card} from {whose(voice, p.owner)} collection")
    if isinstance(p, ev.CardRecovered):
        return sentence(f"{who} took {p.card} back from the discard pile")
    if isinstance(p, ev.EffectStopped):
        return sentence(f"{who} used no more of the effect")
    if isinstance(p, ev.NextChosen):
        return sentence(f"{who} chose the card at {p.at} to be won next")
    if isinstance(p, ev.DeathGiven):
        return sentence(f"{who} gave Death to {voice.who(p.to)}")
    if isinstance(p, ev.CardDrawn):
        return sentence(f"{voice.who(p.seat)} drew {p.card} from the deck into {whose(voice, p.seat)} collection")
    if isinstance(p, ev.RandomDiscards):
        lost = listed([f"{voice.who(s)} {card}" if card else f"{voice.who(s)} none" for s, card in enumerate(p.cards)])
        return sentence(f"Each player discarded a card of their collection at random: {lost}")
    if isinstance(p, ev.CardWon):
        if p.winner is None:
            return sentence(f"Nobody won {p.card} at {p.at}; it was discarded")
        return sentence(f"{voice.who(p.winner)} won {p.card} at {p.at}")
    if isinstance(p, ev.SpreadRefilled):
        if voice.viewer is None or _known_at(after, p.at, voice.viewer):
            return sentence(f"The empty space {p.at} was refilled face down with {p.card}")
        return sentence(f"The empty space {p.at} was refilled face down")
    if isinstance(p, ev.FinalFlip):
        grid = grid_of(after)
        flipped = []
        for n, (card, winner) in enumerate(zip(p.cards, p.winners, strict=False)):
            if card is not None:
                to = f"to {voice.who(winner)}" if winner is not None else "discarded"
                flipped.append(f"{grid.position_name(n)} {card} {to}")
        return sentence(f"The deck is empty: every card left in the spread is turned up and won: {listed(flipped)}")
    return sentence(f"{who}: {p.TYPE}")


LEGEND = (
    "A spread card: its place (a1 top left), name and [points]; ▲ ▶ ▼ ◀ its top, right, bottom and left sides, each "
    "with its zone and the stones on that edge (black×2: two black stones; · none).",
    "▒▒ face down: a card you cannot see; (remembered) one you saw dealt or peeked at; FACE UP a flipped card waiting "
    "for its winner; ▶ before a seat: the seat to move; ★ a winner.",
)
"""What the symbols of the table mean (`logs replay --legend`)."""


PRESENTATION: Presentation[StonesState] = Presentation(render=render, public_move=public_move, tell=tell, legend=LEGEND)
