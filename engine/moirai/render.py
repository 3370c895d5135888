"""Moirai's table drawn for a terminal (rich) and described as JSON."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from loom.engine.moirai.cards import COLOURS, OBJECTIVES, OPEN, UP, colour
from loom.engine.moirai.rules import to_move
from loom.engine.moirai.score import breakdown, scores
from loom.engine.moirai.state import Life, MoiraiState
from loom.engine.moves import Move, only_type
from loom.engine.presentation import Presentation, Reader, Voice, listed, seen_as, sentence
from loom.engine.protocol import CHANCE_TO_MOVE, HIDDEN
from loom.events import moirai as ev
from loom.events.base import Event

STYLES = {"green": "bold green", "blue": "bold blue", "purple": "bold magenta", "red": "bold red"}
FACE_DOWN = "▒▒"


def card_text(card: int) -> Text:
    """A face-up card: its number in its colour, with the colour's initial where the terminal shows no colour."""
    name = COLOURS[colour(card)]
    return Text(f"{card}{name[0]}", style=STYLES[name])


def face_down_text(card: int) -> Text:
    """A face-down card: a grey box, or its number in brackets where the viewer may see it."""
    if card == HIDDEN:
        return Text(FACE_DOWN, style="dim")
    return Text(f"[{card}{COLOURS[colour(card)][0]}]", style="dim " + STYLES[COLOURS[colour(card)]])


def cards_text(cards: tuple[int, ...]) -> Text:
    """Face-up cards side by side."""
    return Text(" ").join(card_text(c) for c in cards) if cards else Text("—", style="dim")


def life_text(number: int, life: Life) -> Text:
    """One life as a row: its number, starting card, face-up cards, and its closing card if cut short."""
    start, cards, close = life
    row = Text.assemble(f"{number}: ", face_down_text(start), " │ ", cards_text(cards))
    if close is not None:
        row.append_text(Text.assemble(" ✂ ", face_down_text(close)))
    return row


def _status(state: MoiraiState) -> str:
    mover = to_move(state)
    if mover is None:
        return "game over"
    if mover == CHANCE_TO_MOVE:
        return "chance to act"
    return f"seat {mover} to move" + (" (keeping one of the drawn cards)" if state.drawn else "")


def render(state: MoiraiState, seat: Reader) -> RenderableType:
    """The objectives, the deck, the four piles and every seat's loom as rows of lives."""
    viewer = seen_as(seat)
    header = Text.assemble(("Moirai", "bold"), f" — after turn {state.turn}, {_status(state)} ({viewer})")
    objectives = Text(
        "Objectives: " + "; ".join(f"{OBJECTIVES[o].key}: {OBJECTIVES[o].summary}" for o in state.objectives)
    )
    piles = Text.assemble(f"Deck: {state.deck_left} cards   Piles: ")
    for c, name in enumerate(COLOURS):
        piles.append_text(Text.assemble(f"{name} ", cards_text(state.piles[c]), "   "))
    parts: list[RenderableType] = [header, objectives, piles]
    if state.drawn:
        drawn = Text(" ").join(card_text(c) if c != HIDDEN else face_down_text(c) for c in state.drawn)
        parts.append(Text.assemble(f"Drawn by seat {state.seat}: ", drawn))
    table = Table(show_lines=True)
    for column in ("seat", "player", "loom", "points"):
        table.add_column(column)
    mover = to_move(state)
    for s, (name, loom, points, parts_of) in enumerate(
        zip(state.players, state.looms, scores(state), breakdown(state))
    ):
        lives = Text("\n").join(life_text(n, life) for n, life in enumerate(loom, start=1)) if loom else Text("—")
        detail = "\n".join(f"{key} {value}" for key, value in parts_of.items())
        # A name comes from the log: a Text, so rich never reads it as markup (a link, a style, an emoji code).
        table.add_row(f"{'▶ ' if s == mover else '  '}{s}", Text(name), lives, f"{points}\n{detail}")
    parts.append(table)
    return Group(*parts)


def _life_json(life: Life) -> dict[str, Any]:
    start, cards, close = life
    return {
        "start": None if start == HIDDEN else start,
        "cards": list(cards),
        "cut_short": close is not None,
        "close": None if close is None or close == HIDDEN else close,
    }


def describe(state: MoiraiState) -> dict[str, Any]:
    """The state as readable JSON; hidden cards are null."""
    mover = to_move(state)
    return {
        "players": list(state.players),
        "turn": state.turn,
        "to_move": "chance" if mover == CHANCE_TO_MOVE else mover,
        "over": mover is None,
        "objectives": [OBJECTIVES[o].key for o in state.objectives],
        "deck_left": state.deck_left,
        "piles": {name: list(state.piles[c]) for c, name in enumerate(COLOURS)},
        "drawn": [None if c == HIDDEN else c for c in state.drawn],
        "looms": [[_life_json(life) for life in loom] for loom in state.looms],
        "scores": scores(state),
        "breakdown": breakdown(state),
    }


def public_move(move: Move) -> Move:
    """A Moirai move as the other seats saw it: a kept card placed face down (a new life's start, or a life's close)
    is null, since the drawn cards are the drawer's alone (M7); a draw is public, and so is a pile taken, face-down
    cards included (M9: everyone saw the pile)."""
    kind = move.get("type")
    if kind == "keep":
        place = move.get("place")
        if not (isinstance(place, list) and len(place) == 3):
            return only_type(move)
        card, how, life = place
        return {"type": "keep", "place": [card if how == UP else None, how, life]}
    return dict(move) if kind in ("draw", "take") else only_type(move)


def card_words(card: int) -> str:
    """A life card in words: its colour and number, "red 23" (M1)."""
    return f"{COLOURS[colour(card)]} {card}"


def placed_words(placement: Sequence[Any], shown: bool) -> str:
    """Where one card went on its player's loom, naming the card only if `shown`: "red 23 face up on life 2"."""
    card, how, life = placement
    named = card_words(card) if shown else "a card"
    if how == UP:
        return f"{named} face up on life {life}"
    return f"{named} face down to {'open' if how == OPEN else 'close'} life {life}"


def tell(before: MoiraiState, event: Event, after: MoiraiState, voice: Voice) -> str:
    """A Moirai event in words as the voice's reader saw it: drawn cards are named to their drawer only, a kept card
    placed face down to its owner only (M7, M9), the setup starting cards to nobody until scoring (M3); the piles and
    everything placed face up are public (M4)."""
    p = event.payload
    actor = event.actor
    who = voice.who(actor) if actor is not None else "chance"
    if isinstance(p, ev.GameStarted):
        return sentence(f"{voice.seating()} sat down to play Moirai; {voice.who(0)} to play first")
    if isinstance(p, ev.ObjectivesDrawn):
        drawn = listed([f"{OBJECTIVES[o].key} ({OBJECTIVES[o].summary})" for o in p.objectives])
        return sentence(f"The objectives in play are {drawn}")
    if isinstance(p, ev.StartsDealt):
        said = "Each player was dealt a face-down starting card, unseen by anyone until scoring"
        if voice.viewer is None and p.starts is not None:
            said += f" ({listed([f'{voice.name(s)} {card_words(c)}' for s, c in enumerate(p.starts)])})"
        return sentence(said)
    if isinstance(p, ev.CardsDrawn):
        if voice.sees(actor):
            return sentence(f"{who} drew {len(p.cards)} cards: {listed([card_words(c) for c in p.cards])}")
        return sentence(f"{who} drew {len(p.cards)} cards from the deck")
    if isinstance(p, ev.CardKept):
        placement = p.placed[0]
        card, how, _ = placement
        shown = how == UP or voice.sees(actor)
        kept = f"{who} kept {placed_words(placement, shown)}"
        # M7: the cards not kept go face up to the piles of their colours, in everyone's sight.
        rest = [c for c in before.drawn if c != card]
        if rest:
            kept += f"; {listed([card_words(c) for c in rest])} went to the piles"
        return sentence(kept)
    if isinstance(p, ev.PileTaken):
        taken = listed([placed_words(placement, True) for placement in p.placed])
        return sentence(f"{who} took the {p.pile} pile and placed {taken}")
    if isinstance(p, ev.StartsRevealed):
        starts = listed([f"{voice.name(s)}'s {card_words(c)}" for s, c in enumerate(p.starts)])
        return sentence(f"The deck is spent and the starting cards are turned up: {starts}")
    return sentence(f"{who}: {p.TYPE}")


LEGEND = (
    "A life card: its number and its colour's initial (g green, b blue, p purple, r red): 23r is red 23.",
    "A life: its face-down starting card, │, its face-up cards in order, and ✂ with its closing card if cut short; "
    "[23r] a face-down card you may see, ▒▒ one you cannot; ▶ the seat to move.",
)
"""What the symbols of the table mean (`logs replay --legend`)."""


PRESENTATION: Presentation[MoiraiState] = Presentation(render=render, public_move=public_move, tell=tell, legend=LEGEND)
