"""The recording and spectator pages' content: the options to tap, the table drawn by the game's render module, the
moves in words, the table's tools, and the one script the pages run."""

from __future__ import annotations

import html
import json
import threading
from functools import lru_cache
from typing import Any

from loom.dashboards.viewer import drawn_lines, table_styles
from loom.engine.presentation import Reader, Voice, presentation
from loom.engine.protocol import CHANCE_TO_MOVE, AnyGame
from loom.engine.registry import get_game
from loom.replay.replay import position
from loom.replay.store import GameInfo
from loom.service.access import Grant
from loom.service.context import Service
from loom.service.recorder.table import (
    Page,
    address,
    deal_parts,
    game_facts,
    latest,
    names,
    parts_missing,
    players,
    split_of,
)
from loom.service.recorder.taps import Option, action_label, choices, dealt_paths
from loom.service.views import OMNISCIENT, PUBLIC, Viewer, seen_by

MOVES_SHOWN = 12
"""The last moves a page tells in words."""


def _status(game: AnyGame, info: GameInfo, state: Any) -> str:
    mover = game.to_move(state)
    if mover is None:
        scores = game.scores(state)
        return "Over: " + ", ".join(f"{name} {points}" for name, points in zip(names(info), scores))
    who = "chance (the table)" if mover == CHANCE_TO_MOVE else names(info)[mover]
    return f"Event {info.last_seq}, turn {info.turns}: {who} to record next"


PHONE_WIDTH = 72
"""The columns a phone's table is drawn in."""
MEMO_MAX = 50_000
"""Drawings a memo keeps (of tables, cells and lines, most of a position's drawn before at the one before it)
before it starts afresh."""


class _Memos:
    """A memo of drawings per kind of game and reader (as the replay page keeps one per page; its keys are what is
    drawn, so the games of one kind share it), each used by one thread at a time: phones ask for pages at once."""

    def __init__(self) -> None:
        self._memos: dict[tuple[str, Reader], tuple[threading.Lock, dict[Any, Any]]] = {}
        self._lock = threading.Lock()

    def draw(self, game: AnyGame, state: Any, reader: Reader) -> tuple[str, ...]:
        with self._lock:
            lock, memo = self._memos.setdefault((game.name, reader), (threading.Lock(), {}))
        with lock:
            if len(memo) > MEMO_MAX:
                memo.clear()
            return drawn_lines(game, state, reader, memo, PHONE_WIDTH)


_MEMOS = _Memos()


@lru_cache(maxsize=64)
def _table_html(name: str, state: Any, viewer: Viewer, seats: int) -> str:
    """The table drawn by the game's render module, as `viewer` may see it (text escaped, each style a class, as on
    the replay page); kept for the other pages showing the same position (each phone's page after each event)."""
    game = get_game(name)
    reader: Reader = viewer if isinstance(viewer, int) else PUBLIC if viewer == PUBLIC else None
    lines = _MEMOS.draw(game, seen_by(game, state, viewer, seats), reader)
    return table_styles(lines) + '<pre class="table" id="table">' + "\n".join(lines) + "</pre>"


def _moves_html(service: Service, game: AnyGame, info: GameInfo, viewer: Viewer) -> str:
    """The last moves in words, newest first, as `viewer` saw them at the table."""
    store = service.db.reader()
    start = max(0, info.last_seq - MOVES_SHOWN)
    events = store.load(info.id, after=start)
    told = []
    if viewer == PUBLIC:  # no seat's voice: who did what, never which card
        for event in events:
            actor = "chance" if event.actor is None else names(info)[event.actor]
            told.append(f"{actor}: {event.type.split('.', 1)[-1]}")
    else:
        tell = presentation(game.name).tell
        voice = Voice(tuple(names(info)), None if viewer == OMNISCIENT else int(viewer))
        state = position(store, info.id, seq=start).state if start else game.blank()
        for event in events:
            after = game.apply(state, event.payload)
            told.append(tell(state, event, after, voice))
            state = after
    items = "".join(f"<li>{html.escape(line)}</li>" for line in reversed(told))
    return f'<h2>Moves</h2><ol class="moves" id="moves" reversed>{items}</ol>'


def recording_content(
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
    info, state = latest(service, game_id)
    page = Page(info, grant, phones)
    game = get_game(info.game)
    mover = game.to_move(state)
    viewer = page.viewer
    whose = "the table" if grant.everything else names(info)[grant.seat or 0]
    parts = [f"<h1>{html.escape(game.title)} <small>({html.escape(whose)})</small></h1>"]
    parts.append(f'<p class="status" id="status">{html.escape(_status(game, info, state))}</p>')
    if mover is None:
        replay = f"/games/{info.id}/replay" + (f"?token={html.escape(token)}" if token else "")
        parts.append(
            f'<p class="over"><a class="go" id="replay" href="{replay}">The replay</a> '
            '<a class="go" href="/dashboard">The dashboard</a></p>'
        )
    elif (split := split_of(page, dealt_paths(game, state, names(info)))) is not None and split[0] in (
        held := deal_parts(service, info.id, info.last_seq)
    ):
        missing = parts_missing(held, dealt_paths(game, state, names(info)))
        others = ", ".join(
            "the table's phone" if m == "table" else f"{names(info)[int(m)]}'s phone" for m in sorted(missing, key=str)
        )
        waiting = f"This phone's part of the deal is in: waiting for {others or 'the other phones'}."
        parts.append(f'<p class="waiting" id="waiting">{html.escape(waiting)}</p>')
    elif page.records(mover) or split is not None:
        found = choices(
            game, state, names(info), tapped, game_facts(service, info.id)[0], viewer, split[1] if split else None
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
        waiting = "the table's phone" if mover == CHANCE_TO_MOVE else f"{names(info)[mover]}'s phone"
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
        "url": address(info.id, token, phones, tapped),
        "part": address(info.id, token, phones).replace(f"/record/{info.id}", f"/record/{info.id}/part", 1),
        # the page needs only to know that an event came: the public stream tells it, naming no card
        "stream": f"/games/{info.id}/stream?as=public&after={info.last_seq}",
        "over": mover is None,
    }
    return "".join(parts), data


def watch_content(service: Service, game_id: int) -> tuple[str, dict[str, Any]]:
    """A spectator's page's content and data: the public view and who did what."""
    info, state = latest(service, game_id)
    game = get_game(info.game)
    body = (
        f"<h1>{html.escape(game.title)}: {html.escape(players(info))}</h1>"
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
    for seat, name in enumerate(names(info)):
        join = f"{base.rstrip('/')}/record/{info.id}?token={service.keys.token(info.id, seat)}"
        if seat in page.phones:
            parts.append(
                f'<details class="seat" open><summary>{html.escape(name)} records on their phone: scan</summary>'
                f'{_qr(join)}<p><a class="join" id="join-{seat}" href="{html.escape(join)}">'
                f"{html.escape(name)}'s link</a></p>"
                "</details>"
            )
        else:
            hand = address(info.id, token, page.phones | {seat})
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


def document(title: str, body: str, data: dict[str, Any]) -> str:
    """A page for a phone: its viewport, big buttons, the page's data as a JSON block and the one script."""
    blob = json.dumps(data).replace("<", "\\u003c")
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{html.escape(title)}</title><style>{STYLE}</style></head><body>"
        f'<main id="page">{body}</main><p id="error" role="alert"></p>'
        f'<script type="application/json" id="page-data">{blob}</script><script>{SCRIPT}</script></body></html>'
    )
