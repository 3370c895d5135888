"""What the dashboard reads: the games it covers, chosen into a temporary table, and its figures' data over them."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from loom.replay import queries
from loom.replay.connection import Connection
from loom.replay.queries import ReportQuery

if TYPE_CHECKING:
    import pandas as pd


class ChosenGames:
    """The finished root games of one kind chosen for a report (since a date, with a bot at any budget, self-play
    only), and queries over them."""

    def __init__(
        self, db: Connection, game: str, since: datetime | None, bot: str | None, self_play: bool = False
    ) -> None:
        self._db = db
        db.all(queries.CHOOSE_GAMES, {"game": game, "since": since, "bot": bot, "self_play": self_play})

    def frame(self, query: ReportQuery, **params: Any) -> pd.DataFrame:
        """The rows of one of the report's queries (replay/queries.py) over the chosen games."""
        if not isinstance(query, ReportQuery):
            raise TypeError(f"a report reads its named queries only, not {query!r}")
        return self._db.frame(query, params)


def recorded_kinds(db: Connection) -> list[str]:
    """The kinds of game with a finished root game recorded, by name."""
    return [name for (name,) in db.all(queries.RECORDED_GAMES)]
