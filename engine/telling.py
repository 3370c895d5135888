"""A stored game told in words, one sentence per event, as one seat saw it at the table (or as the omniscient reader).

Each game words its own events (`tell` in its `render` module's `Presentation`); this module folds the events, hands
each game's `tell` the states around every event, and adds how the game ended to the sentence of the event that
ended it. The words are plain text, never markup: the terminal and the pages escape them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from loom.engine.presentation import Voice, listed, presentation
from loom.engine.protocol import AnyGame
from loom.engine.registry import get_game
from loom.events.base import Event, LoomError


def tell_game(game: str, events: Sequence[Event], players: Sequence[str], viewer: int | None) -> list[str]:
    """One sentence per event of `events` (a whole game's events from its first, in order) as seat `viewer` saw them
    (None: the omniscient reader, who sees every card and names every player)."""
    rules = get_game(game)
    tell = presentation(game).tell
    if viewer is not None and not 0 <= viewer < len(players):
        raise LoomError(f"seat {viewer} is out of range: the game has seats 0 to {len(players) - 1}")
    if events and events[0].seq != 1:
        raise LoomError(f"a game is told from its first event, not from event {events[0].seq}")
    voice = Voice(tuple(players), viewer)
    told = []
    state = rules.blank()
    for event in events:
        after = rules.apply(state, event.payload)
        words = tell(state, event, after, voice)
        if rules.to_move(after) is None and rules.to_move(state) is not None:
            words = f"{words} {ending(rules, after, voice)}"
        told.append(words)
        state = after
    return told


def ending(rules: AnyGame, final: Any, voice: Voice) -> str:
    """How a finished game ended: every seat's points and who won (the scores are public once the game is over)."""
    points = rules.scores(final)
    won = rules.winners(final)
    tally = listed([f"{voice.name(s)} {p}" for s, p in enumerate(points)])
    if not won:
        return f"The game is over: {tally}; nobody wins."
    who = listed([voice.who(s) for s in won])
    who = who[:1].upper() + who[1:] if who.startswith("you") else who
    if len(won) == 1:
        verb = "win" if won[0] == voice.viewer else "wins"
        return f"The game is over: {tally}. {who} {verb} with {points[won[0]]} points."
    return f"The game is over: {tally}. {who} share the victory with {points[won[0]]} points."
