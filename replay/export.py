"""Bulk export: the games a selection chooses (lichess-like filters), streamed as JSON Lines a page at a time.

A page of games costs two queries, its games and every one of their events (parents' prefix included), whatever the
number of games; only a page is ever in memory. A page's log lines are those `replay.logfile.export_lines` writes
for each of its games, byte for byte: `logs export 17` is the export of a one-game selection.
The same reads serve a lake (replay/lake.py), whose views carry the store's table names.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import orjson

from loom.events.base import HEADER_TAGS, LoomError
from loom.events.registry import decode_payload_text, load_events_of, payload_class
from loom.replay import queries
from loom.replay.connection import Connection
from loom.replay.logfile import FORMAT, VERSION

PAGE_GAMES = 500
"""Games read per page: two queries a page, and a page's events (about 100,000 for Motto) in memory at most."""
LAST_ID = 2**31 - 1
"""The largest game id a store holds (an INTEGER column): an open range stops there."""
_ENCODER = json.JSONEncoder(ensure_ascii=False)
"""json.dumps(..., ensure_ascii=False) without making an encoder per line."""
_KINDS: dict[str, tuple[str, int]] = {}
"""Each event type's name as JSON and its current schema version."""
_RANGE = re.compile(r"(\d+)(?:-(\d*))?")


class BadSelection(LoomError):
    """A game id or range that cannot be read, or a filter out of bounds."""


@dataclass(frozen=True, slots=True)
class Selection:
    """Which games an export takes: every filter that is set must hold (ids: any of the ranges, inclusive)."""

    game: str | None = None
    since: datetime | None = None
    until: datetime | None = None
    bot: str | None = None
    players: int | None = None
    finished: bool = False
    branches: bool = True
    ranges: tuple[tuple[int, int], ...] = ()

    def params(self) -> dict[str, Any]:
        """The named parameters of queries.choose_export."""
        return {
            "game": self.game,
            "since": self.since,
            "until": self.until,
            "bot": self.bot,
            "players": self.players,
            "finished": self.finished,
            "branches": self.branches,
            "ranges": [list(r) for r in self.ranges] or None,
        }


def parse_ranges(texts: Sequence[str]) -> tuple[tuple[int, int], ...]:
    """Game ids and ranges as typed (`17`, `10-20`, `30-` for 30 onwards) as inclusive (first, last) pairs."""
    ranges = []
    for text in texts:
        found = _RANGE.fullmatch(text.strip())
        if found is None:
            raise BadSelection(f"{text!r} is neither a game id nor a range of ids such as 10-20")
        first = int(found.group(1))
        last = first if found.group(2) is None else int(found.group(2) or LAST_ID)
        if first > last:
            raise BadSelection(f"the range {text!r} is empty: its first id is past its last")
        ranges.append((min(first, LAST_ID + 1), min(last, LAST_ID)))
    return tuple(ranges)


def choose(db: Connection, selection: Selection, *, with_ancestors: bool = False) -> int:
    """Choose the selection's games (with the games they branch from, if asked) for `pages`; how many."""
    db.all(queries.choose_export(with_ancestors=with_ancestors), selection.params())
    return int(db.one(queries.EXPORT_COUNT)[0])


def pages(db: Connection, size: int = PAGE_GAMES) -> Iterator[list[tuple[int, list[str]]]]:
    """The chosen games by id, a page at a time: each game's id and its log lines (header first)."""
    after = 0
    try:
        while True:
            games = db.all(queries.EXPORT_PAGE, {"after": after, "limit": size})
            if not games:
                return
            rows = db.all(queries.EXPORT_EVENTS, {"ids": [row[0] for row in games]})
            yield list(_page(games, rows))
            after = games[-1][0]
    finally:
        db.all(queries.DROP_EXPORT_CHOSEN)


def _page(games: list[Any], rows: list[Any]) -> Iterator[tuple[int, list[str]]]:
    """Each game of a page with its lines; `rows` are the page's events by game, then seq."""
    at = 0
    for game_id, game, parent_id, fork_seq, bots, *tags in games:
        lines = [_header(game_id, game, parent_id, fork_seq, bots, tags)]
        load_events_of(game)
        while at < len(rows) and rows[at][0] == game_id:
            lines.append(_line(rows[at]))
            at += 1
        yield game_id, lines


def _header(
    game_id: int,
    game: str,
    parent_id: int | None,
    fork_seq: int | None,
    bots: list[str | None],
    tags: Sequence[str | None] = (),
) -> str:
    """The header line, as export_lines writes it (`tags`: the games table's played, place, event, round, notes)."""
    header: dict[str, Any] = {"format": FORMAT, "version": VERSION, "game": game, "id": game_id}
    if any(bots):
        header["bots"] = bots
    if parent_id is not None:
        header |= {"parent": parent_id, "fork_seq": fork_seq}
    header |= {key: value for key, value in zip(HEADER_TAGS, tags) if value is not None}
    return json.dumps(header, ensure_ascii=False)


def _line(row: tuple[Any, ...]) -> str:
    """An event's line, as export_lines writes it: the envelope, then the stored JSON's fields."""
    _, seq, turn, actor, kind, version, payload = row
    known = _KINDS.get(kind)
    if known is None:
        known = _KINDS[kind] = (_ENCODER.encode(kind), payload_class(kind).VERSION)
    kind_json, current = known
    # The stored fields are the payload's, in its order: no need to build the event, unless an older schema wrote
    # them and they must be upcast as a replay would.
    fields = orjson.loads(payload) if version == current else decode_payload_text(kind, payload, version).to_json()
    body = _ENCODER.encode(fields)
    # json.dumps(envelope | fields) written out: the envelope's numbers need no encoder, and one encode is the cost.
    envelope = f'{{"seq": {seq}, "turn": {turn}, "actor": {"null" if actor is None else actor}, "type": {kind_json}'
    return f'{envelope}, "v": {current}' + (", " + body[1:] if len(body) > 2 else "}")
