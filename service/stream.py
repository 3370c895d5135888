"""A game's new events as server-sent events, so a viewer follows a game as it is played.

Each message is one event as the viewer may know it (`service.views.tell_events`), its `id` the event's sequence
number, so a browser's EventSource that reconnects with `Last-Event-ID` picks up where it left off. When the game
is over and every event has been sent, an `end` message closes the stream.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

from starlette.concurrency import run_in_threadpool

from loom.replay.store import GameInfo
from loom.service.context import Service
from loom.service.reading import told_events
from loom.service.views import Viewer

KEEPALIVE = 15.0
"""Seconds between comments on a quiet stream, so proxies and clients keep it open."""
BATCH = 500
"""Events read at once while a stream catches up."""


def message(kind: str, data: Any, event_id: int | None = None) -> str:
    """One server-sent event."""
    head = f"id: {event_id}\n" if event_id is not None else ""
    return f"{head}event: {kind}\ndata: {json.dumps(data, ensure_ascii=False, separators=(',', ':'))}\n\n"


async def follow(service: Service, info: GameInfo, viewer: Viewer, after: int) -> AsyncIterator[str]:
    """Every event after `after` as it is appended, until the game is over or the server stops."""
    state = None  # the state after event `after`, kept so each new event costs one step of the fold
    with service.hub.subscribe(info.id) as bell:
        yield f": following game {info.id}\n\n"
        while not service.hub.closing:
            row = await run_in_threadpool(lambda: service.db.reader().game_row(info.id))
            if row.last_seq > after:
                upto = min(row.last_seq, after + BATCH)
                events, state = await run_in_threadpool(
                    lambda: told_events(service.db.reader(), info, viewer, after, upto, state)  # noqa: B023
                )
                for event in events:
                    yield message("event", event, event["seq"])
                after = upto
                continue
            if row.status == "finished":
                yield message("end", {"id": info.id, "seq": row.last_seq, "status": row.status})
                return
            if not await bell.wait(KEEPALIVE):
                yield ": keepalive\n\n"
