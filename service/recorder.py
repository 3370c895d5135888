"""The recorder: pages for a phone at a real table, to record a game by tapping, never typing JSON.

The table's phone starts a game (the game and the players' names) and records chance's events (deals, refills); a
player may join from their own phone by the QR code of their seat's join link and record their own seat's events
(private draws and peeks), which the table's page does not show. One phone alone may record everything.

Every choice comes from the game's own rules, so nothing here knows one game from another: the seat to move's
legal actions (`legal_actions` of its view), then whatever chance leaves open in the events they become. Those are
found by running the rules' own `resolve`, `chance` or `setup` with a scripted generator (`Script`) whose every draw
(`choice`, `sample`, `shuffle`) takes the cards the person tapped, and the rest in a fixed order: when two fixed
orders give the same events, the taps decided everything and the events are written, through the service's own
writes and rights (a seat's token writes only that seat's events, the table's any). The table is drawn by the game's
render module, the moves told in words by its presentation.

Undo makes a branch before the last event (the log never changes) and the pages follow the newest branch of a game
they show. A spectator's page follows the public view live by the game's event stream.
"""

from __future__ import annotations

import asyncio
import html
import io
import json
import weakref
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields, replace
from functools import lru_cache
from random import Random
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from pydantic import Field
from rich.console import Console

from loom.engine.deals import dealt_to, owner
from loom.engine.presentation import Reader, Voice, presentation
from loom.engine.protocol import CHANCE_TO_MOVE, HIDDEN, AnyGame
from loom.engine.registry import get_game, playable
from loom.events.base import IllegalAction, LoomError, Payload
from loom.replay.live import Filter, find_games
from loom.replay.replay import position
from loom.replay.store import GameInfo, Store
from loom.service import writing
from loom.service.access import Forbidden, Grant, Unauthorized
from loom.service.context import Caller, Service, browser_caller_of, service_of
from loom.service.headers import html_page
from loom.service.models import Body, BranchBody, EventsBody, NewGameBody
from loom.service.views import OMNISCIENT, PUBLIC, Viewer, seen_by

router = APIRouter(tags=["recorder"])
Svc = Annotated[Service, Depends(service_of)]
Who = Annotated[Caller, Depends(browser_caller_of)]

ASCENDING, DESCENDING = -1, -2
"""The fixed orders a scripted generator gives the draws nobody tapped: ascending for every draw, or descending for
every draw; a draw's own number (0, 1, ...) flips only that one."""
HIDDEN_ORDERS = ("deck", "pile")
"""Fields of chance's events that record a shuffled order: a real table's game knows no order, so they stay empty."""
MOVES_SHOWN = 12


# --- Choices, from the rules ------------------------------------------------------------------------------------------


class StaleChoice(LoomError):
    """A tap that no longer fits the game (another phone recorded first): the page is read again."""


class Script(Random):
    """A generator whose draws take the tapped values first (`picks`, per draw by its number), then the rest of the
    cards in a fixed order (`flip`: ASCENDING, DESCENDING, or a draw's number to reverse that one alone). It records
    what each draw drew from, for the next tap's options: the recording page's own knowledge (`shown`, from
    `Knowledge.shown`), never a place it cannot see as it truly is. `elsewhere` tells a draw took a card that is not
    really there (the rules refuse such an event)."""

    def __init__(
        self, picks: dict[int, list[Any]], flip: int, shown: Callable[[Sequence[Any]], list[Any]] | None = None
    ) -> None:
        super().__init__(0)  # whatever else the rules draw (a seed, a first player) is the same on every run
        self.picks = picks
        self.flip = flip
        self.shown = shown
        self.draws: list[list[Any]] = []
        self.elsewhere = False

    def _drawn(self, population: Sequence[Any], k: int | None) -> list[Any]:
        number = len(self.draws)
        shown = self.shown(population) if self.shown is not None and k is not None else list(population)
        self.draws.append(shown)
        taken = self.picks.get(number, [])
        rest = left_after(shown, [t for t in taken if t is not None])
        rest.sort(reverse=self.flip in (DESCENDING, number))
        # a hole (None) is a card another phone records (a seat's hand): the fixed order fills it here
        filling = iter(rest)
        out = [next(filling, None) if t is None else t for t in taken]
        out = [*(t for t in out if t is not None), *filling]
        if k is not None and not _within(out[:k], population):
            self.elsewhere = True
        return out

    def choice(self, seq: Sequence[Any]) -> Any:  # type: ignore[override]
        """The tapped value, else the first of the fixed order."""
        return self._drawn(seq, 1)[0]

    def sample(self, population: Sequence[Any], k: int, *, counts: Any = None) -> list[Any]:  # type: ignore[override]
        """The tapped values, then the fixed order's."""
        return self._drawn(population, k)[:k]

    def shuffle(self, x: list[Any]) -> None:  # type: ignore[override]
        """The tapped values on top, then the fixed order (of the cards themselves: a shuffle keeps them)."""
        x[:] = self._drawn(x, None)


def _within(values: Sequence[Any], population: Sequence[Any]) -> bool:
    return not Counter(values) - Counter(population)


def left_after(population: Sequence[Any], taken: Sequence[Any]) -> list[Any]:
    """The values of `population` once each of `taken` is taken out once; StaleChoice if one is not there."""
    left = Counter(population)
    for value in taken:
        if left[value] <= 0:
            raise StaleChoice("that choice is no longer open: the game moved on")
        left[value] -= 1
    return sorted(left.elements())


def _places(state: Any) -> dict[str, tuple[Any, ...]]:
    """The state's rows of cards by path: its tuple fields and the rows of those that hold rows (hands, piles)."""
    found: dict[str, tuple[Any, ...]] = {}
    for f in fields(state):
        value = getattr(state, f.name)
        if isinstance(value, tuple):
            found[f.name] = value
            for i, row in enumerate(value):
                if isinstance(row, tuple):
                    found[f"{f.name}/{i}"] = row
    return found


def _hidden(view: Any, dealt: Any) -> list[Any]:
    """The cards `dealt` holds wherever `view` shows HIDDEN, at any depth (a hand, a loom's face-down card)."""
    if hasattr(view, "__dataclass_fields__"):  # a field that is no row (the seed) holds no card
        rows = [f.name for f in fields(view) if isinstance(getattr(view, f.name), tuple)]
        return [c for name in rows for c in _hidden(getattr(view, name), getattr(dealt, name))]
    if isinstance(view, tuple) and isinstance(dealt, tuple):
        return [c for v, d in zip(view, dealt, strict=False) for c in _hidden(v, d)]
    if view == HIDDEN and isinstance(dealt, int) and dealt != HIDDEN and not isinstance(view, bool):
        return [dealt]
    return []


def knowledge(game: AnyGame, state: Any, viewer: Viewer, seats: int) -> Callable[[Sequence[Any]], list[Any]] | None:
    """What a draw may draw from as the recording page knows it: a draw from a row the viewer cannot see as it is
    (the deck, a hidden hand) may give any card unseen from the viewer's view, so the options are the same whatever
    the hidden cards are (no elimination); a draw from a row it sees is listed as it is. None: it sees everything."""
    if viewer == OMNISCIENT:
        return None
    view = seen_by(game, state, viewer, seats)
    try:  # the hidden places dealt from the view alone: what they hold is exactly the cards the viewer has not seen
        dealt = game.determinize(view, viewer if isinstance(viewer, int) else 0, Random(0))
    except (LoomError, LookupError, ValueError):
        dealt = state  # a view the game cannot deal again: the places as they are, which is no worse than before
    truth, seen, full = _places(state), _places(view), _places(dealt)
    unseen = sorted(_hidden(view, dealt))

    def shown(population: Sequence[Any]) -> list[Any]:
        wanted = Counter(population)
        rows = [name for name, row in truth.items() if Counter(row) == wanted]
        if not population or not rows or any(seen.get(name) == truth[name] for name in rows):
            return list(population)
        # the row as dealt from the view (a deck the view lists as the cards it has not seen named), and every card
        # the view hides anywhere (a deck it hides, others' hands): a card may be in either
        known = Counter(c for name in rows for c in full.get(name, ()) if c != HIDDEN and not isinstance(c, tuple))
        return sorted((known | Counter(unseen)).elements())

    return shown


@dataclass(frozen=True, slots=True)
class Option:
    """One tap: its label and the choice it makes (the action's index, the picks so far and this one)."""

    label: str
    choice: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Resolution:
    """Where a choice stands: the events it makes, once complete; else the options of its next tap."""

    lines: list[dict[str, Any]] | None
    options: list[Option]
    asking: str
    """What the options are: "move" (the seat's actions) or the event the taps fill in."""
    elsewhere: bool = False
    """The events take a card that is not really where it is drawn from: the rules refuse them."""
    part: bool = False
    """The taps make this page's whole part of a deal, not yet the events (`lines` are the fixed order's)."""


Produce = Callable[[Random], list[Payload]]


def _log_line(payload: Payload, table: bool) -> dict[str, Any]:
    if table and payload.BY_CHANCE:
        cleared = {
            f.name: None
            for f in fields(payload)
            if f.name in HIDDEN_ORDERS and isinstance(getattr(payload, f.name), tuple)
        }
        payload = replace(payload, **cleared) if cleared else payload  # type: ignore[type-var]
    return {"type": payload.TYPE, **payload.to_json()}


def chance_producer(game: AnyGame, state: Any, players: Sequence[str]) -> Produce:
    """Chance's next event by the rules; before the deal, the deal of the game's own setup (its events after the
    started event, which is written already)."""
    try:
        first = game.chance(state, Script({}, ASCENDING))
        game.check(state, first)
    except (LoomError, LookupError, ValueError):
        return lambda rng: game.setup(list(players), rng)[1:]
    return lambda rng: [game.chance(state, rng)]


def resolution(
    produce: Produce,
    picks: list[list[Any]],
    table: bool,
    shown: Callable[[Sequence[Any]], list[Any]] | None = None,
    keep: Callable[[str], bool] | None = None,
) -> Resolution:
    """The events `produce` makes with these picks ([draw number, value] each), or the next draw's options (each draw
    from what `shown` says the page knows it holds). With `keep`, the page records a part of the events (its leaves
    that `keep` keeps, by path): a draw that decides only others' leaves is a hole (None) another phone fills, and
    the part is whole once the fixed orders agree on its own leaves (`part`; its lines are not the events)."""
    picks = list(picks)
    by_draw: dict[int, list[Any]] = {}
    elsewhere = False

    def run(extra: dict[int, list[Any]], flip: int) -> tuple[list[dict[str, Any]] | None, list[list[Any]]]:
        nonlocal elsewhere
        script = Script({k: by_draw.get(k, []) + extra.get(k, []) for k in {*by_draw, *extra}}, flip, shown)
        try:
            lines = [_log_line(p, table) for p in produce(script)]
        except StaleChoice:
            raise
        except (LoomError, LookupError, ValueError):
            return None, script.draws
        elsewhere = elsewhere or script.elsewhere
        return lines, script.draws

    def mine(lines: list[dict[str, Any]] | None) -> Any:
        if lines is None or keep is None:
            return lines
        return sorted((path, str(leaf)) for path, leaf in _leaves(lines) if keep(path))

    while True:
        by_draw = {}
        for number, value in picks:
            by_draw.setdefault(int(number), []).append(value)
        low, draws = run({}, ASCENDING)
        high, _ = run({}, DESCENDING)
        if low is not None and high is not None and mine(low) == mine(high):
            return Resolution(low, [], "", elsewhere, part=keep is not None)
        number = next((n for n in range(len(draws)) if mine(run({}, n)[0]) != mine(low)), len(draws) - 1)
        if number < 0:
            raise IllegalAction("the rules give no event here")
        values = list(dict.fromkeys(left_after(draws[number], [v for v in by_draw.get(number, []) if v is not None])))
        if keep is None or len(values) < 2:
            break
        # what this draw's next card decides: the leaves it settles (tapping the first or the last card offered)
        known = _settled(low, high)
        decided = {
            path
            for value in (values[0], values[-1])
            for path, _ in _settled(run({number: [value]}, ASCENDING)[0], run({number: [value]}, DESCENDING)[0]) - known
        }
        if not decided or any(keep(path) for path in decided):
            break
        picks.append([number, None])  # another phone's card: left to it
    known = _settled(low, high)
    options = []
    for value in values:
        tapped = {number: [value]}
        named = _settled(run(tapped, ASCENDING)[0], run(tapped, DESCENDING)[0]) - known
        label = " ".join(str(leaf) for _, leaf in sorted(named.elements())) or str(value)
        options.append(Option(label, {"picks": [*picks, [number, value]]}))
    asking = low[0]["type"] if low else "chance"
    return Resolution(None, options, asking)


def merged_picks(parts: Sequence[Sequence[Sequence[Any]]]) -> list[list[Any]]:
    """The picks of a deal's parts as one: each draw's cards position by position, each part filling its own
    places (its holes are others'); IllegalAction, naming no card, if two parts fill one place."""
    by_draw: dict[int, list[Any]] = {}
    for picks in parts:
        counts: Counter[int] = Counter()
        for number, value in picks:
            n = int(number)
            row = by_draw.setdefault(n, [])
            place = counts[n]
            counts[n] += 1
            row.extend([None] * (place + 1 - len(row)))
            if value is not None:
                if row[place] is not None:
                    raise IllegalAction("two phones recorded the same place of the deal: tap this phone's part again")
                row[place] = value
    return [[n, v] for n in sorted(by_draw) for v in by_draw[n]]


def _leaves(data: Any, path: str = "") -> list[tuple[str, Any]]:
    if isinstance(data, dict):
        return [leaf for key, value in data.items() for leaf in _leaves(value, f"{path}/{key}")]
    if isinstance(data, list | tuple):
        return [leaf for i, value in enumerate(data) for leaf in _leaves(value, f"{path}/{i}")]
    return [(path, data)]


def _settled(low: Any, high: Any) -> Counter[tuple[str, Any]]:
    """The fields two fixed orders agree on: what the taps so far decided (and what no draw touches)."""
    if low is None or high is None:
        return Counter()
    return Counter(_leaves(low)) & Counter(_leaves(high))


def action_label(action: dict[str, Any]) -> str:
    """An action's JSON form as a button's words: its type, then its values."""
    words = [str(action.get("type", "")).rsplit(".", 1)[-1]]
    for key, value in action.items():
        if key != "type":
            words.append(" ".join(str(leaf) for _, leaf in _leaves(value)))
    return " ".join(words)


def choices(
    game: AnyGame,
    state: Any,
    players: Sequence[str],
    choice: dict[str, Any],
    table: bool,
    viewer: Viewer = OMNISCIENT,
    keep: Callable[[str], bool] | None = None,
) -> Resolution:
    """The next tap of the one recording now (the seat to move, or the table for chance) in the state, or the events
    its taps so far make; the cards a draw may give as `viewer`, the recording page, knows them. `keep`: the page
    records only these leaves of chance's events (its part of a deal)."""
    mover = game.to_move(state)
    if mover is None:
        return Resolution(None, [], "over")
    shown = knowledge(game, state, viewer, len(players))
    picks = list(choice.get("picks", []))
    if mover == CHANCE_TO_MOVE:
        return resolution(chance_producer(game, state, players), picks, table, shown, keep)
    legal = game.legal_actions(game.view(state, mover))
    index = choice.get("action")
    if index is None:
        forms = [game.action_json(action) for action in legal]
        return Resolution(None, [Option(action_label(f), {"action": i}) for i, f in enumerate(forms)], "move")
    if not isinstance(index, int) or not 0 <= index < len(legal):
        raise StaleChoice("that move is no longer open: the game moved on")
    action = legal[index]
    found = resolution(lambda rng: game.resolve(state, action, rng), picks, table, shown)
    return replace(found, options=[replace(o, choice={"action": index, **o.choice}) for o in found.options])


def dealt_paths(game: AnyGame, state: Any, players: Sequence[str]) -> dict[str, int]:
    """The rows of chance's next events that one seat alone is dealt (a hand), by path among the events' leaves
    (`/0/hands/1`), and that seat, as the game's rules tell them (`engine.deals`); empty when chance deals no
    seat a private row."""
    if game.to_move(state) != CHANCE_TO_MOVE:
        return {}
    return _dealt_paths(game.name, state, tuple(players))


@lru_cache(maxsize=256)
def _dealt_paths(name: str, state: Any, players: tuple[str, ...]) -> dict[str, int]:
    game = get_game(name)
    try:
        payloads = chance_producer(game, state, players)(Script({}, ASCENDING))
    except (LoomError, LookupError, ValueError):
        return {}
    found: dict[str, int] = {}
    for i, payload in enumerate(payloads):
        found.update({f"/{i}{path}": seat for path, seat in dealt_to(game, state, payload, len(players)).items()})
        try:
            state = game.apply(state, payload)
        except (LoomError, LookupError, ValueError):
            break
    return found


# --- Who records what -------------------------------------------------------------------------------------------------


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


_PARTS: weakref.WeakKeyDictionary[Any, dict[tuple[int, int], dict[int | str, Part]]] = weakref.WeakKeyDictionary()


def _parts(service: Service, game_id: int, seq: int) -> dict[int | str, Part]:
    """The parts in so far of the deal after event `seq` of the game (in the running service's memory)."""
    return _PARTS.setdefault(service.db, {}).setdefault((game_id, seq), {})


def _missing(parts: dict[int | str, Part], paths: dict[str, int]) -> set[int | str]:
    """The parts still to come: the table's, then those of the seats its part leaves to their own phones."""
    table = parts.get("table")
    if table is None:
        return {"table"}
    return {seat for seat in paths.values() if seat in table.phones and seat not in parts}


MIXED_DEAL = (
    "the deal's parts do not fit together (a card is dealt twice, or a place by two phones): nothing is written; "
    "check this phone's cards and tap its part again"
)


async def _deal_if_whole(
    service: Service, game: AnyGame, info: GameInfo, state: Any, paths: dict[str, int], last: int | str
) -> None:
    """Write the deal with the table's rights once every part is in; if the parts do not fit together, refuse the
    last one (naming no card) and keep the others."""
    parts = _parts(service, info.id, info.last_seq)
    if _missing(parts, paths):
        return
    table = parts["table"]
    pieces = [table.picks, *(parts[s].picks for s in sorted({s for s in paths.values() if s in table.phones}))]
    kept = {key: part for key, part in parts.items() if key != last}
    _PARTS.get(service.db, {}).pop((info.id, info.last_seq), None)
    try:
        picks = merged_picks(pieces)
        found = resolution(chance_producer(game, state, _names(info)), picks, _facts(service, info.id)[0])
        if found.lines is None or found.elsewhere:
            raise IllegalAction(MIXED_DEAL)
        events = EventsBody(expected_seq=info.last_seq, events=found.lines)
        writer = Caller(service.keys.token(info.id, "table"))
        await asyncio.wrap_future(writing.write_events(service, writer, info.id, events))
    except LoomError:
        # the rules' own refusal may name a card of another seat's hand: it is never passed on
        _parts(service, info.id, info.last_seq).update(kept)
        raise IllegalAction(MIXED_DEAL) from None


def _grant(service: Service, caller: Caller, info: GameInfo) -> Grant:
    grant = caller.grant(service, info)
    if grant.anonymous:
        refused = Forbidden if caller.token is not None else Unauthorized
        raise refused("recording needs the game's table token or a seat's: open the link the table's page shows")
    return grant


def _phones(raw: str | None, seats: int) -> frozenset[int]:
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


def _token_on(service: Service, caller: Caller, grant: Grant, info: GameInfo) -> str | None:
    """The caller's token, or its role's token on a branch of its game (the same seat, or the table)."""
    if caller.token is None or service.keys.is_admin(caller.token):
        return caller.token
    return service.keys.token(info.id, "table" if grant.everything else grant.seat)  # type: ignore[arg-type]


def _address(game_id: int, token: str | None, phones: frozenset[int], choice: dict[str, Any] | None = None) -> str:
    from urllib.parse import urlencode

    query: dict[str, str] = {}
    if token is not None:
        query["token"] = token
    if phones:
        query["phones"] = ",".join(str(s) for s in sorted(phones))
    if choice:
        query["choice"] = json.dumps(choice, separators=(",", ":"))
    return f"/record/{game_id}" + (f"?{urlencode(query)}" if query else "")


# --- Routes -----------------------------------------------------------------------------------------------------------


class NewRecording(Body):
    """A game to record: which, and the players' names in turn order (seat 0 starts)."""

    game: str
    players: list[str] = Field(min_length=1, max_length=10)


class Tap(Body):
    """A tap on a recording page: the choice so far, at the game's event the page showed."""

    seq: int = Field(ge=0)
    choice: dict[str, Any]
    phones: list[int] = Field(default_factory=list, max_length=10)


class Undo(Body):
    """Undo the game's last event, if it is still the one the page showed."""

    seq: int = Field(ge=0)
    phones: list[int] = Field(default_factory=list, max_length=10)


@router.get("/record", response_class=HTMLResponse)
def start_page(caller: Who) -> HTMLResponse:
    """The first page: choose the game, type the players' names, start."""
    games = "".join(
        f'<label class="pick"><input type="radio" name="game" value="{html.escape(g.name)}"'
        f"{' checked' if i == 0 else ''}> {html.escape(g.title)} ({g.min_players}-{g.max_players})</label>"
        for i, g in enumerate(get_game(name) for name in playable())
    )
    names = "".join(
        f'<input class="name" type="text" autocomplete="off" placeholder="player {i + 1}"'
        f"{' required' if i < 2 else ''}>"
        for i in range(5)
    )
    body = (
        "<h1>Record a game</h1><form id=start><h2>Game</h2>"
        f"{games}<h2>Players, in turn order</h2>{names}"
        '<button type="submit" class="go">Start</button></form>'
    )
    return html_page(_document("Record a game", body, {"kind": "start"}))


@router.post("/record/games")
async def start(body: NewRecording, service: Svc, caller: Who) -> dict[str, Any]:
    """Create a game a real table deals; the address of the table's page."""
    game = get_game(body.game)
    players = [name.strip() for name in body.players if name.strip()]
    started = {"type": f"{game.name}.started", "players": players}
    created = await asyncio.wrap_future(writing.create(service, caller, NewGameBody(game=game.name, events=[started])))
    return {"id": created["id"], "url": _address(created["id"], created["tokens"]["table"], frozenset())}


Phones = Annotated[str | None, Query(description="seats recorded on their own phones")]
Choice = Annotated[str | None, Query(description="the taps so far of the next event")]


@router.get("/record/{game_id}", response_class=HTMLResponse)
def record_page(
    game_id: int,
    request: Request,
    service: Svc,
    caller: Who,
    phones: Phones = None,
    choice: Choice = None,
) -> Response:
    """A game's recording page, for the table's token or a seat's."""
    found = _recording(game_id, request, service, caller, phones, choice)
    if isinstance(found, str):
        return RedirectResponse(found, status_code=303)
    body, data = found
    return html_page(_document(f"{get_game(_game_of(service, data)).title}: recording", body, data))


@router.get("/record/{game_id}/part")
def record_part(
    game_id: int,
    request: Request,
    service: Svc,
    caller: Who,
    phones: Phones = None,
    choice: Choice = None,
) -> dict[str, Any]:
    """The recording page's content as it is now, for the page to show without loading itself again (after another
    phone's event, by the live stream); `url` alone when recording went on in a branch (an undo)."""
    found = _recording(game_id, request, service, caller, phones, choice)
    if isinstance(found, str):
        return {"url": found}
    body, data = found
    return {"url": data["url"], "html": body, "data": data}


def _recording(
    game_id: int, request: Request, service: Svc, caller: Caller, phones: str | None, choice: str | None
) -> tuple[str, dict[str, Any]] | str:
    """The page's content and data; or the address to go to instead (the branch an undo made, or the page without
    a choice that no longer fits the game)."""
    store = service.db.reader()
    asked = store.game(game_id)
    grant = _grant(service, caller, asked)
    info = newest(store, game_id)
    delegated = _phones(phones, info.players)
    if info.id != game_id:
        return _address(info.id, _token_on(service, caller, grant, info), delegated)
    try:
        tapped = json.loads(choice) if choice else {}
    except ValueError:
        tapped = {}
    tapped = tapped if isinstance(tapped, dict) else {}
    try:
        return _recording_part(service, info.id, grant, delegated, caller.token, tapped, str(request.base_url))
    except StaleChoice:
        return _address(info.id, caller.token, delegated)


def _game_of(service: Service, data: dict[str, Any]) -> str:
    return service.db.latest(int(data["game"]))[0].game


@router.post("/record/{game_id}/tap")
async def tap(game_id: int, body: Tap, request: Request, service: Svc, caller: Who) -> dict[str, Any]:
    """A tap: the next tap's page, or, once the taps make whole events, those written and the page after; either
    as its address and its content (`html`, `data`), which the page shows without loading itself again."""
    info, state = _latest(service, game_id)
    grant = _grant(service, caller, info)
    phones = _phones(",".join(str(s) for s in body.phones), info.players)
    page = Page(info, grant, phones)
    if info.last_seq != body.seq:
        raise StaleChoice(f"game {game_id} is at event {info.last_seq}, not {body.seq}: the page is read again")
    game = get_game(info.game)
    mover = game.to_move(state)
    paths = dealt_paths(game, state, _names(page.info))
    split = split_of(page, paths)
    if not page.records(mover) and split is None:
        raise Forbidden("this page does not record the next event: another phone does")
    if split is not None and split[0] in _parts(service, game_id, info.last_seq):
        raise IllegalAction("this phone's part of the deal is in already: the other phones record theirs")
    keep = split[1] if split is not None else None
    found = choices(game, state, _names(page.info), body.choice, _facts(service, game_id)[0], page.viewer, keep)
    tapped = body.choice
    if found.lines is not None:
        if found.elsewhere:  # a card the page could not rule out, but not really there: say so naming no card
            raise IllegalAction(
                "that card cannot come from there: it is elsewhere at the table; check it and tap again"
            )
        if found.part and split is not None:  # held until every part is in, then written as one event
            picks = [list(p) for p in body.choice.get("picks", [])]
            _parts(service, game_id, info.last_seq)[split[0]] = Part(picks, phones)
            await _deal_if_whole(service, game, info, state, paths, split[0])
        else:
            events = EventsBody(expected_seq=body.seq, events=found.lines)
            await asyncio.wrap_future(writing.write_events(service, caller, game_id, events))
        tapped = {}
    html_part, data = _recording_part(service, game_id, grant, phones, caller.token, tapped, str(request.base_url))
    return {"url": data["url"], "seq": data["seq"], "html": html_part, "data": data}


@router.post("/record/{game_id}/undo")
async def undo(game_id: int, body: Undo, service: Svc, caller: Who) -> dict[str, Any]:
    """Undo the last event: a branch before it (the table's token), where recording goes on."""
    store = service.db.reader()
    info = store.game(game_id)
    grant = _grant(service, caller, info)
    if not grant.everything:
        raise Forbidden("only the table's page undoes: an undo branches the game, which needs the table's token")
    if info.status != "open":
        raise IllegalAction(f"game {game_id} is over: its replay shows it, and a branch plays another ending")
    if info.last_seq != body.seq:
        raise StaleChoice(f"game {game_id} is at event {info.last_seq}, not {body.seq}: the page is read again")
    events = store.load(game_id)
    last = events[-1]
    if last.turn < 1:
        raise IllegalAction("nothing to undo before the first turn: start the game again")
    kept = [e for e in events[:-1] if e.turn >= last.turn]
    made = await asyncio.wrap_future(writing.fork(service, caller, game_id, BranchBody(turn=last.turn)))
    table = made["tokens"]["table"]
    if kept:
        lines = [{"type": e.type, **e.payload.to_json()} for e in kept]
        again = EventsBody(expected_seq=made["seq"], events=lines)
        await asyncio.wrap_future(writing.write_events(service, Caller(table), made["id"], again))
    token = caller.token if service.keys.is_admin(caller.token) else table
    return {"url": _address(made["id"], token, _phones(",".join(map(str, body.phones)), info.players))}


@router.get("/record/{game_id}/now")
def now(game_id: int, service: Svc) -> dict[str, Any]:
    """The game recording goes on in (after undos) and its last event, for the pages to notice a change."""
    info = newest(service.db.reader(), game_id)
    return {"id": info.id, "seq": info.last_seq, "status": info.status}


@router.get("/record/{game_id}/watch", response_class=HTMLResponse)
def watch(game_id: int, service: Svc) -> Response:
    """A spectator's page: the public view, following the game live."""
    info = newest(service.db.reader(), game_id)
    if info.id != game_id:
        return RedirectResponse(f"/record/{info.id}/watch", status_code=303)
    body, data = _watch_part(service, info.id)
    return html_page(_document(f"{get_game(info.game).title}: watching", body, data))


@router.get("/record/{game_id}/watch/part")
def watch_part(game_id: int, service: Svc) -> dict[str, Any]:
    """The spectator's page's content as it is now (`url` alone once recording went on in a branch)."""
    info = newest(service.db.reader(), game_id)
    if info.id != game_id:
        return {"url": f"/record/{info.id}/watch"}
    body, data = _watch_part(service, info.id)
    return {"url": data["url"], "html": body, "data": data}


# --- Pages ------------------------------------------------------------------------------------------------------------


def _latest(service: Service, game_id: int) -> tuple[GameInfo, Any]:
    """The game's row, with its seats, and its state after its last event (kept in memory by the service)."""
    info, state = service.db.latest(game_id)
    if not info.seats:  # the row kept with the state may leave out the seats
        info = replace(info, seats=_facts(service, game_id)[1])
    return info, state


_FACTS: weakref.WeakKeyDictionary[Any, dict[int, tuple[bool, tuple[Any, ...]]]] = weakref.WeakKeyDictionary()
FACTS_KEPT = 4096


def _facts(service: Service, game_id: int) -> tuple[bool, tuple[Any, ...]]:
    """Whether a real table deals the game (Loom recorded no hidden order), and its seats: neither ever changes, so
    each is read once per game (per running service), not on every tap."""
    kept = _FACTS.setdefault(service.db, {})
    found = kept.get(game_id)
    if found is None:
        store = service.db.reader()
        found = (not writing.dealt_by_loom(store, game_id), store.game(game_id).seats)
        if len(kept) >= FACTS_KEPT:
            kept.clear()
        kept[game_id] = found
    return found


def _names(info: GameInfo) -> list[str]:
    return [seat.name for seat in info.seats]


def _players(info: GameInfo) -> str:
    return ", ".join(_names(info))


def _status(game: AnyGame, info: GameInfo, state: Any) -> str:
    mover = game.to_move(state)
    if mover is None:
        scores = game.scores(state)
        return "Over: " + ", ".join(f"{name} {points}" for name, points in zip(_names(info), scores))
    who = "chance (the table)" if mover == CHANCE_TO_MOVE else _names(info)[mover]
    return f"Event {info.last_seq}, turn {info.turns}: {who} to record next"


@lru_cache(maxsize=64)
def _table_html(name: str, state: Any, viewer: Viewer, seats: int) -> str:
    """The table drawn by the game's render module, as `viewer` may see it (text, escaped by rich); kept for the
    other pages showing the same position (each phone's page after each event)."""
    game = get_game(name)
    console = Console(
        record=True, width=72, file=io.StringIO(), color_system="truecolor", highlight=False, markup=False, emoji=False
    )
    reader: Reader = viewer if isinstance(viewer, int) else PUBLIC if viewer == PUBLIC else None
    console.print(presentation(game.name).render(seen_by(game, state, viewer, seats), reader))
    return console.export_html(inline_styles=True, code_format='<pre class="table" id="table">{code}</pre>')


def _moves_html(service: Service, game: AnyGame, info: GameInfo, viewer: Viewer) -> str:
    """The last moves in words, newest first, as `viewer` saw them at the table."""
    store = service.db.reader()
    start = max(0, info.last_seq - MOVES_SHOWN)
    events = store.load(info.id, after=start)
    told = []
    if viewer == PUBLIC:  # no seat's voice: who did what, never which card
        for event in events:
            actor = "chance" if event.actor is None else _names(info)[event.actor]
            told.append(f"{actor}: {event.type.split('.', 1)[-1]}")
    else:
        tell = presentation(game.name).tell
        voice = Voice(tuple(_names(info)), None if viewer == OMNISCIENT else int(viewer))
        state = position(store, info.id, seq=start).state if start else game.blank()
        for event in events:
            after = game.apply(state, event.payload)
            told.append(tell(state, event, after, voice))
            state = after
    items = "".join(f"<li>{html.escape(line)}</li>" for line in reversed(told))
    return f'<h2>Moves</h2><ol class="moves" id="moves" reversed>{items}</ol>'


def _recording_part(
    service: Service,
    game_id: int,
    grant: Grant,
    phones: frozenset[int],
    token: str | None,
    tapped: dict[str, Any],
    base: str,
) -> tuple[str, dict[str, Any]]:
    """A recording page's content (its heading, the options of its next tap, the table, the moves, the table's
    tools) and its data, for the game as it is now."""
    info, state = _latest(service, game_id)
    page = Page(info, grant, phones)
    game = get_game(info.game)
    mover = game.to_move(state)
    viewer = page.viewer
    whose = "the table" if grant.everything else _names(info)[grant.seat or 0]
    parts = [f"<h1>{html.escape(game.title)} <small>({html.escape(whose)})</small></h1>"]
    parts.append(f'<p class="status" id="status">{html.escape(_status(game, info, state))}</p>')
    if mover is None:
        replay = f"/games/{info.id}/replay" + (f"?token={html.escape(token)}" if token else "")
        parts.append(
            f'<p class="over"><a class="go" id="replay" href="{replay}">The replay</a> '
            '<a class="go" href="/dashboard">The dashboard</a></p>'
        )
    elif (split := split_of(page, dealt_paths(game, state, _names(info)))) is not None and split[0] in (
        held := _parts(service, info.id, info.last_seq)
    ):
        missing = _missing(held, dealt_paths(game, state, _names(info)))
        others = ", ".join(
            "the table's phone" if m == "table" else f"{_names(info)[int(m)]}'s phone" for m in sorted(missing, key=str)
        )
        waiting = f"This phone's part of the deal is in: waiting for {others or 'the other phones'}."
        parts.append(f'<p class="waiting" id="waiting">{html.escape(waiting)}</p>')
    elif page.records(mover) or split is not None:
        found = choices(
            game, state, _names(info), tapped, _facts(service, info.id)[0], viewer, split[1] if split else None
        )
        heading = "Your move" if found.asking == "move" else f"Which card? ({found.asking.rsplit('.', 1)[-1]})"
        options = found.options
        if found.lines is not None:  # nothing left open: one tap records it
            heading = "Record"
            label = "; ".join(action_label(line) for line in found.lines)
            if found.part:  # the other parts are the fixed order's stand-ins: never shown
                label = "This phone's part of the deal"
            options = [Option(label, tapped)]
        if tapped:
            heading += ' <button class="back" data-choice="{}">start again</button>'
        buttons = "".join(
            f'<button class="option" data-choice="{html.escape(json.dumps(o.choice, separators=(",", ":")))}">'
            f"{html.escape(o.label)}</button>"
            for o in options
        )
        parts.append(f'<h2>{heading}</h2><div class="options" id="options">{buttons}</div>')
    else:
        waiting = "the table's phone" if mover == CHANCE_TO_MOVE else f"{_names(info)[mover]}'s phone"
        parts.append(f'<p class="waiting" id="waiting">Waiting for {html.escape(waiting)}.</p>')
    parts.append(_table_html(game.name, state, viewer, info.players))
    parts.append(_moves_html(service, game, info, viewer))
    if grant.everything:
        parts.append(_table_tools(service, page, token, base, mover is not None))
    data = {
        "kind": "record",
        "game": info.id,
        "seq": info.last_seq,
        "phones": sorted(phones),
        "url": _address(info.id, token, phones, tapped),
        "part": _address(info.id, token, phones).replace(f"/record/{info.id}", f"/record/{info.id}/part", 1),
        # the page needs only to know that an event came: the public stream tells it, naming no card
        "stream": f"/games/{info.id}/stream?as=public&after={info.last_seq}",
        "over": mover is None,
    }
    return "".join(parts), data


def _watch_part(service: Service, game_id: int) -> tuple[str, dict[str, Any]]:
    """A spectator's page's content and data: the public view and who did what."""
    info, state = _latest(service, game_id)
    game = get_game(info.game)
    body = (
        f"<h1>{html.escape(game.title)}: {html.escape(_players(info))}</h1>"
        f'<p class="status" id="status">{html.escape(_status(game, info, state))}</p>'
        f"{_table_html(game.name, state, PUBLIC, info.players)}{_moves_html(service, game, info, PUBLIC)}"
    )
    data = {
        "kind": "watch",
        "game": info.id,
        "seq": info.last_seq,
        "url": f"/record/{info.id}/watch",
        "part": f"/record/{info.id}/watch/part",
        "stream": f"/games/{info.id}/stream?as=public&after={info.last_seq}",
        "over": game.to_move(state) is None,
    }
    return body, data


@lru_cache(maxsize=256)
def _qr(link: str) -> str:
    """A link's QR code as inline SVG (the same on every render of the table's page: made once)."""
    import segno

    return str(segno.make(link, error="m").svg_inline(scale=4, dark="#000", light="#fff"))


def _table_tools(service: Service, page: Page, token: str | None, base: str, open_game: bool) -> str:
    """The table's own tools: undo, each seat's QR code for its player's phone, the spectators' link."""
    info = page.info
    parts = ['<h2>Table</h2><p><button class="undo" id="undo">Undo the last event</button></p>' if open_game else ""]
    for seat, name in enumerate(_names(info)):
        join = f"{base.rstrip('/')}/record/{info.id}?token={service.keys.token(info.id, seat)}"
        if seat in page.phones:
            parts.append(
                f'<details class="seat" open><summary>{html.escape(name)} records on their phone: scan</summary>'
                f'{_qr(join)}<p><a class="join" id="join-{seat}" href="{html.escape(join)}">'
                f"{html.escape(name)}'s link</a></p>"
                "</details>"
            )
        else:
            hand = _address(info.id, token, page.phones | {seat})
            parts.append(
                f'<p><a class="go" id="phone-{seat}" href="{html.escape(hand)}">'
                f"{html.escape(name)} joins on a phone</a></p>"
            )
    parts.append(f'<p><a id="watch" href="/record/{info.id}/watch">Spectators\' link</a></p>')
    return "".join(parts)


STYLE = """
body{font-family:system-ui,sans-serif;margin:0;padding:12px;max-width:40rem}
h1{font-size:1.3rem} h2{font-size:1.1rem;margin:1rem 0 .4rem}
button,.go,.pick,input.name{display:block;width:100%;box-sizing:border-box;min-height:48px;font-size:1.05rem;
margin:6px 0;padding:10px;border-radius:8px;border:1px solid #888;background:#f4f4f4;text-align:left}
.go{background:#1b5e20;color:#fff;text-decoration:none;text-align:center}
button.option{background:#e3f2fd;margin:0}
.options{display:grid;grid-template-columns:1fr 1fr;gap:6px}
button.undo{background:#fff3e0} button.back{display:inline;width:auto;min-height:0}
pre.table{overflow-x:auto;font-size:.72rem;background:#fafafa;padding:6px}
#error{color:#b00020;font-weight:bold} .moves{font-size:.9rem;padding-left:1.6rem}
"""

SCRIPT = """
(() => {
  const block = document.getElementById('page-data');
  let data = JSON.parse(block.textContent);
  const token = new URLSearchParams(location.search).get('token');
  const headers = {'Content-Type': 'application/json'};
  if (token) headers['Authorization'] = 'Bearer ' + token;
  const error = document.getElementById('error');
  let leaving = false;
  const go = (url) => { if (!leaving) { leaving = true; location.assign(url); } };
  if (data.kind === 'start') {
    document.getElementById('start').addEventListener('submit', async (event) => {
      event.preventDefault();
      const game = document.querySelector('input[name=game]:checked').value;
      const players = [...document.querySelectorAll('input.name')].map(i => i.value.trim()).filter(Boolean);
      const answer = await fetch('/record/games', {method: 'POST', headers, body: JSON.stringify({game, players})});
      const json = await answer.json();
      if (answer.ok) go(json.url); else error.textContent = json.error || answer.statusText;
    });
    return;
  }
  // The page changes in place: a tap's answer, or another phone's event (the live stream), brings its new content;
  // only an undo (recording goes on in a branch) loads another page.
  const main = document.getElementById('page');
  window.renders = 0;
  let newest = data.seq, posting = false, fetching = false, timer = null;
  function show(json) {
    if (!json.html || json.data.game !== data.game) { go(json.url); return; }
    main.innerHTML = json.html;
    data = json.data;
    block.textContent = JSON.stringify(data);
    history.replaceState(null, '', data.url);
    window.renders += 1;
  }
  function later() {
    if (!posting && !leaving && !timer && newest > data.seq) timer = setTimeout(refresh, 20);
  }
  async function refresh() {
    timer = null;
    if (fetching || posting || leaving) return;
    fetching = true;
    try {
      const answer = await fetch(data.part, {headers});
      if (answer.ok) show(await answer.json());  // a refusal's words stay until the next tap
    } catch (e) { /* the server may be restarting: the next event or look tries again */ }
    fetching = false;
    later();
  }
  async function post(path, body) {
    if (leaving || posting) return;
    posting = true;
    document.querySelectorAll('button').forEach(b => { b.disabled = true; });
    let stale = false;
    try {
      const answer = await fetch(path, {method: 'POST', headers, body: JSON.stringify(body)});
      const json = await answer.json();
      if (answer.ok) { error.textContent = ''; show(json); }
      else { error.textContent = json.error || answer.statusText; stale = true; }
    } catch (e) { error.textContent = String(e); stale = true; }
    posting = false;
    if (stale) { newest = Math.max(newest, data.seq + 1); data.seq = -1; }  // read the page again, as it is now
    later();
  }
  document.addEventListener('click', (event) => {
    const button = event.target.closest('button');
    if (!button || button.disabled) return;
    if (button.id === 'undo') post('/record/' + data.game + '/undo', {seq: data.seq, phones: data.phones});
    else if (button.dataset.choice !== undefined) {
      const choice = JSON.parse(button.dataset.choice);
      post('/record/' + data.game + '/tap', {seq: data.seq, choice, phones: data.phones});
    }
  });
  const stream = new EventSource(data.stream);
  stream.addEventListener('event', (message) => {
    newest = Math.max(newest, JSON.parse(message.data).seq);
    later();
  });
  stream.addEventListener('end', () => stream.close());
  async function look() {  // an undo makes a branch, which no stream of this game tells
    if (leaving) return;
    try {
      const answer = await fetch('/record/' + data.game + '/now');
      const json = await answer.json();
      if (json.id !== data.game) refresh();
      else if (json.seq > data.seq) { newest = Math.max(newest, json.seq); later(); }
    } catch (e) { /* look again */ }
    setTimeout(look, 1500);
  }
  setTimeout(look, 1500);
})();
"""


def _document(title: str, body: str, data: dict[str, Any]) -> str:
    """A page for a phone: its viewport, big buttons, the page's data as a JSON block and the one script."""
    blob = json.dumps(data).replace("<", "\\u003c")
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{html.escape(title)}</title><style>{STYLE}</style></head><body>"
        f'<main id="page">{body}</main><p id="error" role="alert"></p>'
        f'<script type="application/json" id="page-data">{blob}</script><script>{SCRIPT}</script></body></html>'
    )
