"""Who records what at the table: each page's seat or the table, the parts of a deal that seats' own phones record,
and the game's facts the pages read on every tap."""

from __future__ import annotations

import asyncio
import json
import weakref
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from loom.engine.deals import owner
from loom.engine.protocol import CHANCE_TO_MOVE, AnyGame
from loom.events.base import IllegalAction, LoomError
from loom.replay.live import Filter, dealt_by_loom, find_games
from loom.replay.store import GameInfo, Store
from loom.service import writing
from loom.service.access import Forbidden, Grant, Unauthorized
from loom.service.context import Caller, Service
from loom.service.models import EventsBody
from loom.service.recorder.taps import chance_producer, merged_picks, resolution
from loom.service.views import OMNISCIENT, PUBLIC, Viewer


@dataclass(frozen=True, slots=True)
class Page:
    """One phone's page of one game: what it shows and what it records."""

    info: GameInfo
    grant: Grant
    phones: frozenset[int]
    """Seats recorded on their own phones (the table's page leaves them to those phones)."""

    @property
    def viewer(self) -> Viewer:
        """What the page shows: its seat's view; the table's whole game while it records alone (its owner sees
        everything), else, once a seat records on its own phone, the public view: what everyone at the table sees."""
        if self.grant.seat is not None and not self.grant.everything:
            return self.grant.seat
        return PUBLIC if self.phones else OMNISCIENT

    def records(self, mover: int | None) -> bool:
        """Whether this page records the next event (chance's are the table's)."""
        if mover is None:
            return False
        if self.grant.everything:
            return mover == CHANCE_TO_MOVE or mover not in self.phones
        return mover == self.grant.seat


Keep = Callable[[str], bool]


def split_of(page: Page, paths: dict[str, int]) -> tuple[int | str, Keep] | None:
    """The page's part of a deal that seats' own phones record apart (`dealt_paths`): its key among the parts ("table"
    or its seat) and the leaves it records; None when the page records chance's events whole (or none)."""
    if not paths:
        return None
    if page.grant.everything:
        apart = {seat for seat in paths.values() if seat in page.phones}
        if not apart:
            return None
        return "table", lambda path: owner(paths, path) not in apart
    seat = page.grant.seat
    if seat is None or seat not in paths.values():
        return None
    return seat, lambda path: owner(paths, path) == seat


@dataclass(frozen=True, slots=True)
class Part:
    """One phone's part of a deal, held by the service until every part is in: its picks (holes for the others')
    and, the table's, the seats recorded on their own phones. Never shown to another page nor told in an error."""

    picks: list[list[Any]]
    phones: frozenset[int]


PARTS: weakref.WeakKeyDictionary[Any, dict[tuple[int, int], dict[int | str, Part]]] = weakref.WeakKeyDictionary()


def deal_parts(service: Service, game_id: int, seq: int) -> dict[int | str, Part]:
    """The parts in so far of the deal after event `seq` of the game (in the running service's memory)."""
    return PARTS.setdefault(service.db, {}).setdefault((game_id, seq), {})


def parts_missing(parts: dict[int | str, Part], paths: dict[str, int]) -> set[int | str]:
    """The parts still to come: the table's, then those of the seats its part leaves to their own phones."""
    table = parts.get("table")
    if table is None:
        return {"table"}
    return {seat for seat in paths.values() if seat in table.phones and seat not in parts}


MIXED_DEAL = (
    "the deal's parts do not fit together (a card is dealt twice, or a place by two phones): nothing is written; "
    "check this phone's cards and tap its part again"
)


async def deal_if_whole(
    service: Service, game: AnyGame, info: GameInfo, state: Any, paths: dict[str, int], last: int | str
) -> None:
    """Write the deal with the table's rights once every part is in; if the parts do not fit together, refuse the
    last one (naming no card) and keep the others."""
    parts = deal_parts(service, info.id, info.last_seq)
    if parts_missing(parts, paths):
        return
    table = parts["table"]
    pieces = [table.picks, *(parts[s].picks for s in sorted({s for s in paths.values() if s in table.phones}))]
    kept = {key: part for key, part in parts.items() if key != last}
    PARTS.get(service.db, {}).pop((info.id, info.last_seq), None)
    try:
        picks = merged_picks(pieces)
        found = resolution(chance_producer(game, state, names(info)), picks, game_facts(service, info.id)[0])
        if found.lines is None or found.elsewhere:
            raise IllegalAction(MIXED_DEAL)
        events = EventsBody(expected_seq=info.last_seq, events=found.lines)
        writer = Caller(service.keys.token(info.id, "table"))
        await asyncio.wrap_future(writing.write_events(service, writer, info.id, events))
    except LoomError:
        # the rules' own refusal may name a card of another seat's hand: it is never passed on
        deal_parts(service, info.id, info.last_seq).update(kept)
        raise IllegalAction(MIXED_DEAL) from None


def grant_of(service: Service, caller: Caller, info: GameInfo) -> Grant:
    grant = caller.grant(service, info)
    if grant.anonymous:
        refused = Forbidden if caller.token is not None else Unauthorized
        raise refused("recording needs the game's table token or a seat's: open the link the table's page shows")
    return grant


def phones_of(raw: str | None, seats: int) -> frozenset[int]:
    try:
        return frozenset(int(s) for s in (raw or "").split(",") if s.strip() and 0 <= int(s) < seats)
    except ValueError:
        raise LoomError(f"phones={raw!r}: give seat numbers separated by commas") from None


def newest(store: Store, game_id: int) -> GameInfo:
    """The game recording goes on in: the game, or the newest branch an undo made of it (and of that, ...)."""
    info = store.game(game_id)
    while info.status == "open":
        children = find_games(store, Filter(parent=info.id, limit=1))
        if not children:
            break
        info = store.game(children[0].id)
    return info


def token_on(service: Service, caller: Caller, grant: Grant, info: GameInfo) -> str | None:
    """The caller's token, or its role's token on a branch of its game (the same seat, or the table)."""
    if caller.token is None or service.keys.is_admin(caller.token):
        return caller.token
    return service.keys.token(info.id, "table" if grant.everything else grant.seat)  # type: ignore[arg-type]


def address(game_id: int, token: str | None, phones: frozenset[int], choice: dict[str, Any] | None = None) -> str:
    from urllib.parse import urlencode

    query: dict[str, str] = {}
    if token is not None:
        query["token"] = token
    if phones:
        query["phones"] = ",".join(str(s) for s in sorted(phones))
    if choice:
        query["choice"] = json.dumps(choice, separators=(",", ":"))
    return f"/record/{game_id}" + (f"?{urlencode(query)}" if query else "")


def latest(service: Service, game_id: int) -> tuple[GameInfo, Any]:
    """The game's row, with its seats, and its state after its last event (kept in memory by the service)."""
    info, state = service.db.latest(game_id)
    if not info.seats:  # the row kept with the state may leave out the seats
        info = replace(info, seats=game_facts(service, game_id)[1])
    return info, state


FACTS: weakref.WeakKeyDictionary[Any, dict[int, tuple[bool, tuple[Any, ...]]]] = weakref.WeakKeyDictionary()
FACTS_KEPT = 4096


def game_facts(service: Service, game_id: int) -> tuple[bool, tuple[Any, ...]]:
    """Whether a real table deals the game (Loom recorded no hidden order), and its seats: neither ever changes, so
    each is read once per game (per running service), not on every tap."""
    kept = FACTS.setdefault(service.db, {})
    found = kept.get(game_id)
    if found is None:
        store = service.db.reader()
        found = (not dealt_by_loom(store, game_id), store.game(game_id).seats)
        if len(kept) >= FACTS_KEPT:
            kept.clear()
        kept[game_id] = found
    return found


def names(info: GameInfo) -> list[str]:
    return [seat.name for seat in info.seats]


def players(info: GameInfo) -> str:
    return ", ".join(names(info))
