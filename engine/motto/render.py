"""Motto's table drawn for a terminal (rich) and described as JSON."""

from __future__ import annotations

from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from loom.engine.motto.cards import CARD_NAMES, CARD_VALUES, COLOURS, NUMBERS, SYMBOLS, TOKEN_POINTS, VALUES
from loom.engine.motto.rules import to_move
from loom.engine.motto.score import scores
from loom.engine.motto.state import MottoState
from loom.engine.moves import Move, only_type
from loom.engine.presentation import Presentation, Reader, Voice, listed, reshuffled, seen_as, sentence
from loom.engine.protocol import CHANCE_TO_MOVE, HIDDEN
from loom.events import motto as ev
from loom.events.base import Event

GLYPHS = {"love": "♥", "passion": "✷", "money": "$"}
STYLES = {"purple": "bold magenta", "red": "bold red", "blue": "bold blue"}
SIZES = {3: "L", 2: "M", 1: "S"}


def card_text(card: int) -> Text:
    """A card as its number and symbol glyphs in its colour; a hidden card as a grey box."""
    if card == HIDDEN:
        return Text("▒▒", style="dim")
    symbol, number, colour = CARD_VALUES[card]
    glyph = GLYPHS[SYMBOLS[symbol]]
    count = int(NUMBERS[number - len(SYMBOLS)])
    colour_name = COLOURS[colour - len(SYMBOLS) - len(NUMBERS)]
    # The colour's initial keeps cards apart where the terminal shows no colour.
    return Text(glyph * count + colour_name[0], style=STYLES[colour_name])


def cards_text(cards: tuple[int, ...]) -> Text:
    """Cards side by side."""
    return Text(" ").join(card_text(c) for c in cards) if cards else Text("—", style="dim")


def _stacks(state: MottoState) -> Table:
    table = Table(title="Token stacks (top token)", show_header=False, box=None, padding=(0, 1))
    row = []
    for value, height in enumerate(state.stacks):
        top = SIZES[TOKEN_POINTS[len(TOKEN_POINTS) - height]] if height else "·"
        row.append(Text(f"{VALUES[value]}:{top}"))
    table.add_row(*row)
    return table


def _tokens(won: tuple[tuple[int, int], ...]) -> str:
    return " ".join(f"{VALUES[value]}{SIZES[points]}" for value, points in won) or "—"


def render(state: MottoState, seat: Reader) -> RenderableType:
    """The pool, deck, discard pile, token stacks and every seat's hand and tokens."""
    mover = to_move(state)
    status = "game over" if mover is None else "chance to act" if mover == CHANCE_TO_MOVE else f"seat {mover} to move"
    viewer = seen_as(seat)
    header = Text.assemble(("Motto", "bold"), f" — after turn {state.turn}, {status} ({viewer})")
    table = Table(show_lines=False)
    for column in ("seat", "player", "hand", "tokens", "points"):
        table.add_column(column)
    for s, (name, hand, won, points) in enumerate(zip(state.players, state.hands, state.tokens, scores(state))):
        marker = "▶ " if s == mover else "  "
        # A name comes from the log: a Text, so rich never reads it as markup (a link, a style, an emoji code).
        table.add_row(f"{marker}{s}", Text(name), cards_text(hand), _tokens(won), str(points))
    table_info = Text.assemble(
        "Pool: ", cards_text(state.pool), f"   Deck: {len(state.deck)} cards   Discard: {len(state.discard)} cards"
    )
    return Group(header, table_info, _stacks(state), table)


_NAMED = (*CARD_NAMES, None)
"""A card's name by its number, and None for HIDDEN (-1): the last entry."""
assert HIDDEN == -1 and len(_NAMED) - 1 == len(CARD_NAMES)
_TOPS: dict[int, tuple[int, ...]] = {}
"""A stack's tokens (top first) by how many it has left."""


def _names(cards: tuple[int, ...]) -> list[str | None]:
    """The cards' names; a hidden card's None."""
    return [_NAMED[c] for c in cards]


def _stack(height: int) -> list[int]:
    """The tokens of a stack with `height` left, top first."""
    top = _TOPS.get(height)
    if top is None:
        top = _TOPS[height] = TOKEN_POINTS[len(TOKEN_POINTS) - height :]
    return list(top)


def describe(state: MottoState) -> dict[str, Any]:
    """The state as readable JSON; hidden cards are null."""
    # Written for speed: every append's answer describes the table (one call, no comprehension in a comprehension).
    mover = to_move(state)
    return {
        "players": list(state.players),
        "turn": state.turn,
        "to_move": "chance" if mover == CHANCE_TO_MOVE else mover,
        "over": mover is None,
        "hands": list(map(_names, state.hands)),
        "pool": _names(state.pool),
        "deck": _names(state.deck),
        "deck_ordered": state.deck_ordered,
        "discard": _names(state.discard),
        "stacks": dict(zip(VALUES, map(_stack, state.stacks))),
        "tokens": [[[VALUES[v], p] for v, p in won] for won in state.tokens],
        "scores": scores(state),
        "final_turns": state.final_turns,
    }


PUBLIC_MOVES = ("take", "draw", "play", "pass")


def public_move(move: Move) -> Move:
    """A Motto move as the other seats saw it: the whole of it (T4: a pool card is face up and a deck draw names no
    card; T5: a play goes to the public discard pile)."""
    return dict(move) if move.get("type") in PUBLIC_MOVES else only_type(move)


TOKEN_SIZES = {3: "large", 2: "medium", 1: "small"}


def token_words(value: str, points: int) -> str:
    """A token as the rulebook names it: "the large red token"."""
    return f"the {TOKEN_SIZES.get(points, f'{points}-point')} {value} token"


def tell(before: MottoState, event: Event, after: MottoState, voice: Voice) -> str:
    """A Motto event in words as the voice's reader saw it: a card drawn from the deck is named to its drawer only
    (T4), a hand dealt to its holder only (T3); pool cards, plays and tokens are public (T4, T5)."""
    p = event.payload
    actor = event.actor
    who = voice.who(actor) if actor is not None else "chance"
    if isinstance(p, ev.GameStarted):
        return sentence(f"{voice.seating()} sat down to play Motto; {voice.who(0)} to play first")
    if isinstance(p, ev.CardsDealt):
        pool = listed(list(p.pool))
        if voice.viewer is None:
            hands = "; ".join(f"{voice.name(s)} {listed(list(h))}" for s, h in enumerate(p.hands))
            return sentence(f"Each player was dealt {len(p.hands[0])} cards ({hands}) and the pool is {pool}")
        mine = p.hands[voice.viewer] if voice.viewer < len(p.hands) else ()
        return sentence(f"Each player was dealt {len(mine)} cards, you got {listed(list(mine))}; the pool is {pool}")
    if isinstance(p, ev.PoolCardTaken):
        return sentence(f"{who} took {p.card} from the pool")
    if isinstance(p, ev.DeckCardDrawn):
        if voice.sees(actor):
            return sentence(f"{who} drew {p.card} from the deck")
        return sentence(f"{who} drew a card from the deck")
    if isinstance(p, ev.CardsPlayed):
        took = listed([token_words(value, points) for value, points in p.tokens]) if p.tokens else "no token"
        return sentence(f"{who} played {listed(list(p.cards))} and took {took}")
    if isinstance(p, ev.TurnPassed):
        return sentence(f"{who} passed, with no legal action")
    if isinstance(p, ev.PoolRefilled):
        return sentence(f"The pool was refilled from the deck with {p.card}")
    if isinstance(p, ev.DiscardReshuffled):
        return reshuffled(len(before.discard))
    return sentence(f"{who}: {p.TYPE}")


LEGEND = (
    "A card: its symbol drawn once per symbol on it (♥ love, ✷ passion, $ money) and its colour's initial "
    "(p purple = youth, r red = adulthood, b blue = old age): ✷✷r is red-2-passion.",
    "▒▒ a card you cannot see; — none; tokens are value and size (L large 3, M medium 2, S small 1), · an empty stack; "
    "▶ the seat to move.",
)
"""What the symbols of the table mean (`logs replay --legend`)."""


PRESENTATION: Presentation[MottoState] = Presentation(render=render, public_move=public_move, tell=tell, legend=LEGEND)
