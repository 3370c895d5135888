"""The recorder's routes: start a recording, its pages and their content, a tap, an undo, a spectator's page."""

from __future__ import annotations

import asyncio
import html
import json
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from pydantic import Field

from loom.engine.registry import get_game, playable
from loom.events.base import IllegalAction
from loom.service import writing
from loom.service.access import Forbidden
from loom.service.context import Caller, Service, browser_caller_of, service_of
from loom.service.headers import html_page
from loom.service.models import Body, BranchBody, EventsBody, NewGameBody
from loom.service.recorder.pages import document, recording_content, watch_content
from loom.service.recorder.table import (
    Page,
    Part,
    address,
    deal_if_whole,
    deal_parts,
    game_facts,
    grant_of,
    latest,
    names,
    newest,
    phones_of,
    split_of,
    token_on,
)
from loom.service.recorder.taps import StaleChoice, choices, dealt_paths

router = APIRouter(tags=["recorder"])
Svc = Annotated[Service, Depends(service_of)]
Who = Annotated[Caller, Depends(browser_caller_of)]


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
    return html_page(document("Record a game", body, {"kind": "start"}))


@router.post("/record/games")
async def start(body: NewRecording, service: Svc, caller: Who) -> dict[str, Any]:
    """Create a game a real table deals; the address of the table's page."""
    game = get_game(body.game)
    players = [name.strip() for name in body.players if name.strip()]
    started = {"type": f"{game.name}.started", "players": players}
    created = await asyncio.wrap_future(writing.create(service, caller, NewGameBody(game=game.name, events=[started])))
    return {"id": created["id"], "url": address(created["id"], created["tokens"]["table"], frozenset())}


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
    return html_page(document(f"{get_game(_game_of(service, data)).title}: recording", body, data))


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
    grant = grant_of(service, caller, asked)
    info = newest(store, game_id)
    delegated = phones_of(phones, info.players)
    if info.id != game_id:
        return address(info.id, token_on(service, caller, grant, info), delegated)
    try:
        tapped = json.loads(choice) if choice else {}
    except ValueError:
        tapped = {}
    tapped = tapped if isinstance(tapped, dict) else {}
    try:
        return recording_content(service, info.id, grant, delegated, caller.token, tapped, str(request.base_url))
    except StaleChoice:
        return address(info.id, caller.token, delegated)


def _game_of(service: Service, data: dict[str, Any]) -> str:
    return service.db.latest(int(data["game"]))[0].game


@router.post("/record/{game_id}/tap")
async def tap(game_id: int, body: Tap, request: Request, service: Svc, caller: Who) -> dict[str, Any]:
    """A tap: the next tap's page, or, once the taps make whole events, those written and the page after; either
    as its address and its content (`html`, `data`), which the page shows without loading itself again."""
    info, state = latest(service, game_id)
    grant = grant_of(service, caller, info)
    phones = phones_of(",".join(str(s) for s in body.phones), info.players)
    page = Page(info, grant, phones)
    if info.last_seq != body.seq:
        raise StaleChoice(f"game {game_id} is at event {info.last_seq}, not {body.seq}: the page is read again")
    game = get_game(info.game)
    mover = game.to_move(state)
    paths = dealt_paths(game, state, names(page.info))
    split = split_of(page, paths)
    if not page.records(mover) and split is None:
        raise Forbidden("this page does not record the next event: another phone does")
    if split is not None and split[0] in deal_parts(service, game_id, info.last_seq):
        raise IllegalAction("this phone's part of the deal is in already: the other phones record theirs")
    keep = split[1] if split is not None else None
    found = choices(game, state, names(page.info), body.choice, game_facts(service, game_id)[0], page.viewer, keep)
    tapped = body.choice
    if found.lines is not None:
        if found.elsewhere:  # a card the page could not rule out, but not really there: say so naming no card
            raise IllegalAction(
                "that card cannot come from there: it is elsewhere at the table; check it and tap again"
            )
        if found.part and split is not None:  # held until every part is in, then written as one event
            picks = [list(p) for p in body.choice.get("picks", [])]
            deal_parts(service, game_id, info.last_seq)[split[0]] = Part(picks, phones)
            await deal_if_whole(service, game, info, state, paths, split[0])
        else:
            events = EventsBody(expected_seq=body.seq, events=found.lines)
            await asyncio.wrap_future(writing.write_events(service, caller, game_id, events))
        tapped = {}
    html_part, data = recording_content(service, game_id, grant, phones, caller.token, tapped, str(request.base_url))
    return {"url": data["url"], "seq": data["seq"], "html": html_part, "data": data}


@router.post("/record/{game_id}/undo")
async def undo(game_id: int, body: Undo, service: Svc, caller: Who) -> dict[str, Any]:
    """Undo the last event: a branch before it (the table's token), where recording goes on."""
    store = service.db.reader()
    info = store.game(game_id)
    grant = grant_of(service, caller, info)
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
    return {"url": address(made["id"], token, phones_of(",".join(map(str, body.phones)), info.players))}


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
    body, data = watch_content(service, info.id)
    return html_page(document(f"{get_game(info.game).title}: watching", body, data))


@router.get("/record/{game_id}/watch/part")
def watch_part(game_id: int, service: Svc) -> dict[str, Any]:
    """The spectator's page's content as it is now (`url` alone once recording went on in a branch)."""
    info = newest(service.db.reader(), game_id)
    if info.id != game_id:
        return {"url": f"/record/{info.id}/watch"}
    body, data = watch_content(service, info.id)
    return {"url": data["url"], "html": body, "data": data}
