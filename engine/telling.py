"""A game told move by move: one sentence per event, as a seat saw it (a placeholder: each event's actor and kind)."""

from __future__ import annotations

from collections.abc import Sequence

from loom.events.base import Event


def tell_game(game: str, events: Sequence[Event], players: Sequence[str], viewer: int | None) -> list[str]:
    """One sentence per event, as `viewer` (None: everyone) saw it; this version names only who did what kind of
    thing, which every seat saw, so it hides nothing."""
    prefix = f"{game}."

    def kind(event: Event) -> str:
        name = event.type.removeprefix(prefix)
        return name.replace("-", " ").replace("_", " ")

    def who(event: Event) -> str:
        if event.actor is None or not 0 <= event.actor < len(players):
            return "Chance"
        return "you" if event.actor == viewer else players[event.actor]

    return [f"{who(event)}: {kind(event)}" for event in events]
