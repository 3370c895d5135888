"""A recorded move as a seat saw it at the table, for the pages that show moves to a seat (the replay's key moments).

A move is an action's JSON form (`Game.action_json`), or, where no legal action made the recorded event, the event's
own JSON with its type under "event" (`replay.analysis.recorded_action`). The mover, and a reader who sees every card
(no seat), see it whole; any other seat sees what the game's `public_move` (its `Presentation`, since what a seat
saw of a move is how the game presents its hidden information) keeps of it.
"""

from __future__ import annotations

from typing import Any

from loom.engine.presentation import presentation

Move = dict[str, Any]


def only_type(move: Move) -> Move:
    """A move with nothing but its kind: what a seat sees of a move whose every detail may be hidden."""
    key = "event" if "event" in move else "type"
    return {key: move.get(key)}


def public_move(game: str, move: Move) -> Move:
    """What every seat saw of a move, by `game`'s own `public_move`."""
    shown = presentation(game)  # a game Loom does not know is refused here, not by an import error
    if "event" in move:
        # An event's fields name cards, and which of them were public depends on the position it was made in.
        return only_type(move)
    return shown.public_move(move)


def seen_move(game: str, move: Move, mover: int, viewer: int | None) -> Move:
    """`move` of seat `mover` as `viewer` saw it: whole for the mover and for everyone (None), else its public part."""
    if viewer is None or viewer == mover:
        return move
    return public_move(game, move)


def advice_for(best: Move | None, mover: int, viewer: int | None) -> Move | None:
    """The engine's best action for the mover, shown to the mover and to everyone only: it is computed from the
    mover's view, so it can tell another seat what the mover holds."""
    return best if viewer is None or viewer == mover else None
