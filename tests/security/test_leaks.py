"""The leak walk: a recorded game of each of the four games, read through every route of a real server and every view
of the command line, as each seat and as nobody. Structured answers must be that reader's view of the same position
(`describe(view(state, seat))`, or the public view); text and pages must name no card hidden from that reader at the
position they show (a page's table of each turn at that turn; what shows no position, at any); errors must name no
card hidden from their writer. Moirai's cards are numbers, so Moirai's views are checked through structured answers,
its key moments by their placements, and its errors by the card numbers in them.
"""

from __future__ import annotations

import html
import io
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, fields, is_dataclass
from functools import reduce
from itertools import accumulate
from pathlib import Path
from random import Random
from typing import Any

import pytest
from plotly.offline import get_plotlyjs
from rich.console import Console

from engine.protocol import CHANCE_TO_MOVE, HIDDEN, Game
from dashboards.viewer import _table_html  # the page's own drawing of a table, to compare with
from engine.registry import get_game
from events.base import Event, LoomError
from events.registry import decode_payload
from replay.live import service_secret
from replay.simulate import simulate
from replay.store import Store
from service.access import Keys
from service.server import free_port, running
from service.settings import Settings
from service.views import OMNISCIENT, PUBLIC, Viewer, public_view, whole
from tests.security.common import GAMES, card_names, logs, named_in, one_line_error, one_line_refusal
from tests.security.conftest import TALLY
from tests.service.client import Api, sse_messages

NAMED_CARDS = {"motto", "moorea", "stones-of-fate"}
"""Games whose cards are distinctive strings, so text and pages can be searched for them (Moirai's are numbers)."""
PLOTLY = get_plotlyjs()
FORKS = 4
"""Positions of each game at which a branch is opened for the error walk."""


@dataclass
class Recorded:
    """One recorded three-player game: its events, the state after each, its tokens, and the cards hidden from each
    reader."""

    name: str
    game: Game
    db: Path  # the command line's copy
    events: list[Event]
    states: list[Any]  # states[k]: after the first k events
    tokens: dict[str, Any]
    hidden: dict[Viewer, set[str]] = field(default_factory=dict)  # names hidden from that reader somewhere
    ended: dict[Viewer, set[str]] = field(default_factory=dict)  # names hidden from that reader at the end
    api: Api | None = None
    cache: dict[tuple[int, Viewer], dict[str, Any]] = field(default_factory=dict)  # `told`
    tables: dict[tuple[int, int], str] = field(default_factory=dict)  # a seat's view drawn as a page's table

    @property
    def seats(self) -> int:
        """The number of seats."""
        return len(self.tokens["seats"])

    @property
    def turns(self) -> list[int]:
        """Every turn from 1 on."""
        return sorted({event.turn for event in self.events if event.turn > 0})

    def seen(self, seq: int, viewer: Viewer) -> Any:
        """The state after event `seq` as `viewer` may know it."""
        state = self.states[seq]
        if viewer == OMNISCIENT:
            return state
        if viewer == PUBLIC:
            return public_view(self.game, state, self.seats)
        return self.game.view(state, int(viewer))

    def told(self, seq: int, viewer: Viewer) -> dict[str, Any]:
        """`describe` of `seen`: what a structured answer must hold."""
        if (seq, viewer) not in self.cache:
            self.cache[seq, viewer] = json.loads(json.dumps(self.game.describe(self.seen(seq, viewer))))
        return self.cache[seq, viewer]

    def token(self, viewer: Viewer) -> str | None:
        """The token a reader uses: a seat's, the table's for OMNISCIENT, none for PUBLIC."""
        if viewer == PUBLIC:
            return None
        return self.tokens["table"] if viewer == OMNISCIENT else self.tokens["seats"][int(viewer)]


def in_text(walk: Recorded, names: set[str]) -> set[str]:
    """The names a text can be searched for: all of them, but Moorea's goods (`clay`, `hut`), which its tables also
    use as plain words (a building's cost); its buildings (`hut-1`) are searched for."""
    return {name for name in names if walk.name != "moorea" or "-" in name}


def readers(recorded: Recorded) -> list[Viewer]:
    """Each seat, and nobody."""
    return [*range(recorded.seats), PUBLIC]


def hidden_somewhere(recorded: Recorded, viewer: Viewer) -> set[str]:
    """The card names hidden from `viewer` at some position: the table holds them, its view there does not. (Every
    card of these games is seen by every seat at some time, so "hidden all game long" would be empty; answers about
    one position are checked against `hidden_at` that position, answers that show no cards against this.)"""
    return set().union(*(hidden_at(recorded, k, viewer) for k in range(1, len(recorded.states))))


def record(folder: Path, name: str) -> Recorded:
    """A game of `name` simulated into a file (Moirai's analysed too), and the tokens of its seats."""
    path = folder / "cli.duckdb"
    with Store.open(path) as store:
        (game_id,) = simulate(store, get_game(name), 1, ["greedy", "random", "random"], seed=21)
        assert game_id == 1
        events = store.load(1)
        secret = service_secret(store)
    if name == "moirai":
        code, _, stderr = logs(
            "analyse", "1", "--rollouts", "2", "--budget", "2", "--workers", "1", "--moments", "15", "--db", path
        )
        assert code == 0, stderr
    game = get_game(name)
    states = list(accumulate((event.payload for event in events), game.apply, initial=game.blank()))
    tokens = Keys(secret, None).tokens(1, len(states[-1].players))
    recorded = Recorded(name, game, path, events, states, tokens)
    recorded.hidden = {viewer: hidden_somewhere(recorded, viewer) for viewer in readers(recorded)}
    recorded.ended = {viewer: hidden_at(recorded, len(events), viewer) for viewer in readers(recorded)}
    return recorded


@pytest.fixture(scope="module", params=GAMES)
def walk(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Recorded]:
    """A recorded game, and a default server (loopback, no admin token) on a copy of its file."""
    folder = tmp_path_factory.mktemp(request.param)
    recorded = record(folder, request.param)
    served = folder / "served.duckdb"
    served.write_bytes(recorded.db.read_bytes())
    with running(Settings(str(served), port=free_port())) as base:
        recorded.api = Api(base)
        yield recorded
        recorded.api.close()


class Findings:
    """What a walk found: each leak or wrong answer, counted, then asserted to be none."""

    def __init__(self, what: str) -> None:
        self.what = what
        self.problems: list[str] = []
        self.count = 0
        self.face_down_moves = 0  # Moirai: other seats' face-down placements seen in key moments
        self.looked_for = 0  # hidden names searched for, summed over the texts: a walk that looked for none failed

    def tried(self, count: int = 1) -> None:
        """Count cases tried."""
        self.count += count
        TALLY[f"{self.what} tried"] += count

    def leak(self, where: str, detail: Any) -> None:
        """A hidden card shown to a reader who may not see it."""
        TALLY["leaks found"] += 1
        self.problems.append(f"LEAK {where}: {detail}"[:400])

    def wrong(self, where: str, detail: Any) -> None:
        """An answer that is not what the issue asks (a wrong status, a traceback, a view that differs)."""
        TALLY[f"{self.what} wrong answers"] += 1
        self.problems.append(f"{where}: {detail}"[:400])

    def check_text(self, where: str, text: str, hidden: set[str]) -> None:
        """Count a text read, and a leak if it names a hidden card."""
        self.tried()
        self.looked_for += len(hidden)
        shown = named_in(text.replace(PLOTLY, ""), hidden)
        if shown:
            self.leak(where, sorted(shown)[:5])

    def done(self, *, searched: bool = False) -> None:
        """Fail with the first findings, if any; with `searched`, also if no text was searched for a hidden name."""
        assert self.looked_for or not searched, f"{self.what}: no hidden card to look for"
        leaks = sum(problem.startswith("LEAK") for problem in self.problems)
        first = sorted(self.problems, key=lambda problem: not problem.startswith("LEAK"))[:12]
        assert not self.problems, f"{len(self.problems)} found ({leaks} leaks):\n" + "\n".join(first)


def api_of(recorded: Recorded) -> Api:
    """The walk's client."""
    assert recorded.api is not None
    return recorded.api


def as_values(viewer: Viewer) -> list[str | None]:
    """The `?as=` values a reader may ask for: none, its own seat, and the public view."""
    return [None, PUBLIC] if viewer == PUBLIC else [None, str(viewer), PUBLIC]


def with_as(path: str, asked: str | None, sep: str = "?") -> str:
    """`path` with `as=asked` (nothing for None)."""
    return path if asked is None else f"{path}{sep}as={asked}"


def compare_state(found: Findings, recorded: Recorded, where: str, answer: dict[str, Any], viewer: Viewer) -> None:
    """A structured state answer must be `viewer`'s view at the answer's own position."""
    found.tried()
    TALLY["views compared"] += 1
    if answer.get("as") != viewer:
        found.wrong(where, f"as={answer.get('as')!r}, expected {viewer!r}")
    if answer["state"] != recorded.told(answer["seq"], viewer):
        found.leak(where, f"the state at seq {answer['seq']} is not {viewer!r}'s view of it")


# --- The JSON routes --------------------------------------------------------------------------------------------------


def test_every_turn_read_by_a_seat_or_by_nobody_is_their_view_of_it(walk: Recorded) -> None:
    api, found = api_of(walk), Findings("API reads")
    for turn in [*walk.turns, None]:
        path = "/games/1/state" if turn is None else f"/games/1/state?turn={turn}"
        for viewer in readers(walk):
            for asked in as_values(viewer):
                where = f"{walk.name} GET {with_as(path, asked, '&' if turn else '?')} as {viewer}"
                response = api.call("GET", with_as(path, asked, "&" if turn else "?"), walk.token(viewer))
                if response.status_code != 200:
                    found.wrong(where, f"{response.status_code} {response.text}")
                    continue
                compare_state(found, walk, where, response.json(), PUBLIC if asked == PUBLIC else viewer)
    found.done()


def test_a_view_a_reader_may_not_have_is_refused_in_one_line_naming_no_card(walk: Recorded) -> None:
    api, found = api_of(walk), Findings("API refusals")
    for viewer in readers(walk):
        others = [str(s) for s in range(walk.seats) if s != viewer] + [OMNISCIENT]
        for asked in others:
            for path in (f"/games/1/state?as={asked}", f"/games/1/events?as={asked}", f"/games/1/replay?as={asked}"):
                response = api.call("GET", path, walk.token(viewer))
                found.tried()
                expected = 401 if viewer == PUBLIC else 403
                if response.status_code != expected or not one_line_error(response.json().get("error", "")):
                    found.wrong(f"{walk.name} GET {path} as {viewer}", f"{response.status_code} {response.text[:200]}")
                if walk.name in NAMED_CARDS:
                    hidden = in_text(walk, walk.hidden[viewer])
                    found.check_text(f"{walk.name} GET {path} as {viewer}", response.text, hidden)
    found.done(searched=walk.name in NAMED_CARDS)


def check_told_events(found: Findings, walk: Recorded, where: str, told: list[dict[str, Any]], viewer: Viewer) -> None:
    """Events told to a reader: each the envelope of the recorded event and the reader's view after it."""
    if [event["seq"] for event in told] != [event.seq for event in walk.events]:
        found.wrong(where, f"told {len(told)} events of {len(walk.events)}")
    for event in told:
        found.tried()
        TALLY["views compared"] += 1
        extra = set(event) - {"seq", "turn", "actor", "type", "state"}
        if extra:
            found.leak(where, f"event {event['seq']} has fields {sorted(extra)}")
        elif event.get("state") != walk.told(event["seq"], viewer):
            found.leak(where, f"the state after event {event['seq']} is not {viewer!r}'s view")


def test_the_events_told_to_a_reader_carry_only_their_view(walk: Recorded) -> None:
    api, found = api_of(walk), Findings("API reads")
    for viewer in readers(walk):
        for asked in as_values(viewer):
            path = with_as("/games/1/events", asked)
            response = api.call("GET", path, walk.token(viewer))
            where = f"{walk.name} GET {path} as {viewer}"
            if response.status_code != 200:
                found.wrong(where, f"{response.status_code} {response.text[:200]}")
                continue
            check_told_events(found, walk, where, response.json()["events"], PUBLIC if asked == PUBLIC else viewer)
    table = api.call("GET", "/games/1/events", walk.tokens["table"]).json()["events"]
    assert table == [json.loads(json.dumps(whole(event))) for event in walk.events]
    found.done()


def whole_stream(api: Api, path: str, token: str | None) -> str:
    """The text of a finished game's stream, read until its `end` message (whole messages only)."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    text = ""
    with api.http.stream("GET", path, headers=headers, timeout=30) as stream:
        assert stream.status_code == 200, stream.read()
        for chunk in stream.iter_text():
            text += chunk
            if "event: end\n" in text and text.endswith("\n\n"):
                break
    return text


def test_the_live_stream_tells_a_reader_only_their_view(walk: Recorded) -> None:
    api, found = api_of(walk), Findings("API reads")
    for viewer in readers(walk):
        text = whole_stream(api, "/games/1/stream?after=0", walk.token(viewer))
        told = [data for kind, data in sse_messages(text) if kind == "event"]
        check_told_events(found, walk, f"{walk.name} stream as {viewer}", told, viewer)
    found.done()


def test_the_games_list_summary_and_tree_name_no_hidden_card(walk: Recorded) -> None:
    api, found = api_of(walk), Findings("API reads")
    for viewer in readers(walk):
        for path in ("/games", f"/games?game={walk.name}", "/games/1", "/games/1/tree"):
            response = api.call("GET", path, walk.token(viewer))
            assert response.status_code == 200, response.text
            found.check_text(f"{walk.name} GET {path} as {viewer}", response.text, in_text(walk, walk.hidden[viewer]))
            if walk.name not in NAMED_CARDS:
                found.tried()
    found.done(searched=walk.name in NAMED_CARDS)


# --- Pages ------------------------------------------------------------------------------------------------------------


def test_a_seats_served_replay_names_no_card_hidden_from_it(walk: Recorded) -> None:
    api, found = api_of(walk), Findings("pages")
    for seat in range(walk.seats):
        paths = [f"/games/1/replay?token={walk.tokens['seats'][seat]}"]
        paths += ["/games/1/replay?as=0"] if seat == 0 else []  # the header's token, once
        for path in paths:
            response = api.call("GET", path, None if "token" in path else walk.token(seat))
            assert response.status_code == 200, response.text
            check_page(found, walk, f"{walk.name} served replay as {seat}", response.text, seat)
            if walk.name == "moirai":
                check_key_moments(found, walk, f"{walk.name} served replay as {seat}", response.text, seat)
    assert walk.name in NAMED_CARDS or found.face_down_moves, "no key moment placed a card face down"
    response = api.call("GET", "/games/1/replay")
    found.tried()
    if response.status_code != 401:
        found.wrong(f"{walk.name} replay without a token", response.status_code)
    found.done(searched=walk.name in NAMED_CARDS)


def test_the_served_dashboard_names_no_hidden_card(walk: Recorded) -> None:
    api, found = api_of(walk), Findings("pages")
    for path in ("/dashboard", f"/dashboard?game={walk.name}"):
        response = api.call("GET", path)
        assert response.status_code == 200, response.text
        if walk.name in NAMED_CARDS:
            found.check_text(f"{walk.name} GET {path}", response.text, in_text(walk, walk.ended[PUBLIC]))
    found.done()


def test_pages_forbid_scripts_from_elsewhere_and_sniffing(walk: Recorded) -> None:
    api = api_of(walk)
    for path in ("/dashboard", f"/games/1/replay?token={walk.tokens['seats'][0]}"):
        headers = api.call("GET", path).headers
        assert "content-security-policy" in headers, path
        assert headers.get("x-content-type-options") == "nosniff", path


PAGE_DATA = re.compile(r'<script type="application/json" id="(tables|labels)">(.*?)</script>', re.S)


def check_page(found: Findings, walk: Recorded, where: str, page: str, seat: int) -> None:
    """A replay page for `seat`: each turn's table names no card hidden from the seat at that position, and the rest
    of the page (summary, charts, key moments) names no card hidden from it anywhere."""
    data = {name: json.loads(text) for name, text in PAGE_DATA.findall(page)}
    assert len(data["tables"]) == len(data["labels"]) > 1, where
    for table, label in zip(data["tables"], data["labels"]):
        seq = int(re.search(r"after event (\d+)", label).group(1))  # type: ignore[union-attr]
        found.check_text(f"{where}, {label}", table, in_text(walk, hidden_at(walk, seq, seat)))
        # Motto draws its cards as glyphs, so each table is also compared with the drawing of the seat's view.
        TALLY["tables compared"] += 1
        if (seq, seat) not in walk.tables:
            walk.tables[seq, seat] = _table_html(walk.game, walk.seen(seq, seat), seat)
        if table != walk.tables[seq, seat]:
            whole_table = table == _table_html(walk.game, walk.states[seq], None)
            (found.leak if whole_table else found.wrong)(f"{where}, {label}", "not the drawing of the seat's view")
    found.check_text(f"{where}, outside the tables", PAGE_DATA.sub("", page), in_text(walk, walk.hidden[seat]))


def drawn(renderable: Any) -> str:
    """A rendering as `logs` prints it under typer's runner: 80 columns, no colour."""
    console = Console(width=80, file=io.StringIO(), highlight=False, color_system=None)
    console.print(renderable)
    return console.file.getvalue()  # type: ignore[attr-defined,no-any-return]


def placed_cards(action: Any) -> list[Any]:
    """The cards of a Moirai action's placements (`[card, how, life]`), in order."""
    if isinstance(action, list) and len(action) == 3 and action[1] in ("up", "open", "close"):
        return [action[0]]
    if isinstance(action, list):
        return [card for item in action for card in placed_cards(item)]
    if isinstance(action, dict):
        return [card for value in action.values() for card in placed_cards(value)]
    return []


def hidden_cards(state: Any, view: Any) -> set[Any]:
    """The values of `state` where `view` shows HIDDEN (its seed aside): the cards the viewer cannot see."""
    if is_dataclass(state) and not isinstance(state, type):
        return set().union(
            *(hidden_cards(getattr(state, f.name), getattr(view, f.name)) for f in fields(state) if f.name != "seed")
        )
    if isinstance(state, tuple) and isinstance(view, tuple) and len(state) == len(view):
        return set().union(*(hidden_cards(s, v) for s, v in zip(state, view)), set())
    if isinstance(state, tuple) and isinstance(view, tuple):
        return set(state) - {HIDDEN}
    return {state} if view == HIDDEN and state != HIDDEN and not isinstance(state, tuple) else set()


def moment_rows(page: str) -> list[list[str]]:
    """The cells (as text) of each row of the page's key moments table: turn, seat, chance, played, best found."""
    section = page.partition("Key moments")[2].partition("</table>")[0]
    rows = [re.findall(r"<td[^>]*>(.*?)</td>", row, re.S) for row in re.findall(r"<tr[^>]*>(.*?)</tr>", section, re.S)]
    return [[html.unescape(re.sub(r"<[^>]+>", "", cell)).strip() for cell in row] for row in rows if len(row) >= 5]


def shown_cards(cell: str, moment_action: Any) -> set[Any]:
    """The cards a cell of a key moment shows: those of its placements if it is an action's JSON, else every number
    in it but the stored action's life numbers."""
    try:
        return set(placed_cards(json.loads(cell)))
    except json.JSONDecodeError:
        lives = {place[2] for place in _placements(moment_action)}
        return {int(n) for n in re.findall(r"\b\d+\b", cell)} - lives


def _placements(action: Any) -> list[list[Any]]:
    if isinstance(action, list) and len(action) == 3 and action[1] in ("up", "open", "close"):
        return [action]
    if isinstance(action, list):
        return [place for item in action for place in _placements(item)]
    if isinstance(action, dict):
        return [place for value in action.values() for place in _placements(value)]
    return []


def check_key_moments(found: Findings, walk: Recorded, where: str, page: str, seat: int) -> None:
    """Moirai's key moments on a seat's page: another seat's move, and the search bot's alternative to it, show no
    card the seat cannot see once the move is made (a drawn card placed face down; the others go to the piles)."""
    moments = {moment["turn"]: moment for moment in walk_moments(walk)}
    players = list(walk.states[-1].players)
    for turn, name, _, played, best, *_ in moment_rows(page):
        found.tried()
        TALLY["key moments checked"] += 1
        moment, mover = moments[int(turn)], players.index(name)
        if mover == seat:
            continue
        after = walk.states[moment["seq"]]
        secret = hidden_cards(after, walk.game.view(after, seat))
        found.face_down_moves += any(card in secret for card in placed_cards(moment["action"]))
        shown = (shown_cards(played, moment["action"]) | shown_cards(best.rpartition(" (")[0] or best, {})) & secret
        if shown:
            found.leak(f"{where}, key moment of turn {turn} (seat {mover})", f"shows {sorted(shown)}, face down")


_MOMENTS: dict[Path, list[dict[str, Any]]] = {}


def walk_moments(walk: Recorded) -> list[dict[str, Any]]:
    """The key moments `logs analyse` stored for the game (the table's own, every card named)."""
    if walk.db not in _MOMENTS:
        with Store.open(walk.db, read_only=True) as store:
            rows = store.key_moments(1)
        _MOMENTS[walk.db] = [{"seq": row[0], "turn": row[1], "action": json.loads(row[5])} for row in rows]
    assert _MOMENTS[walk.db], "the analysis found no key moment"
    return _MOMENTS[walk.db]


# --- Errors and branches ----------------------------------------------------------------------------------------------


def forks(walk: Recorded) -> list[int]:
    """The turns at which the error walk opens a branch, spread over the game."""
    turns = walk.turns[:-1]
    return sorted({turns[len(turns) * k // FORKS] for k in range(FORKS)})


def branch_at(walk: Recorded, turn: int) -> dict[str, Any]:
    """A branch of the game at the start of `turn`, opened with the table's token."""
    response = api_of(walk).call("POST", "/games/1/branches", walk.tokens["table"], json={"turn": turn})
    assert response.status_code == 201, response.text
    return response.json()  # type: ignore[no-any-return]


def universe(walk: Recorded) -> list[Any]:
    """Every card of the game, as JSON values (names, or Moirai's numbers)."""
    if walk.name == "moirai":
        return list(range(80))
    if walk.db not in _UNIVERSE:  # strings hidden from some reader somewhere: the cards, not the token values
        _UNIVERSE[walk.db] = sorted(
            set().union(*(hidden_at(walk, k, v) for k in range(1, len(walk.states)) for v in readers(walk)))
        )
    return _UNIVERSE[walk.db]


_UNIVERSE: dict[Path, list[Any]] = {}


def card_spots(value: Any, cards: list[Any]) -> list[tuple[Any, ...]]:
    """Where `value` (an event's or action's JSON) holds a card: the key path of each."""
    spots: list[tuple[Any, ...]] = []

    def find(item: Any, path: tuple[Any, ...]) -> None:
        if isinstance(item, dict):
            for key, inner in item.items():
                if key not in ("type", "seq", "turn", "actor", "v", "seed"):
                    find(inner, (*path, key))
        elif isinstance(item, list) and len(item) == 3 and item[1] in ("up", "open", "close"):
            find(item[0], (*path, 0))  # a Moirai placement [card, how, life]: only its card
        elif isinstance(item, list):
            for index, inner in enumerate(item):
                find(inner, (*path, index))
        elif item in cards and not isinstance(item, bool):
            spots.append(path)

    find(value, ())
    return spots


def variants(value: Any, cards: list[Any], rng: Random) -> list[Any]:
    """`value` (an event's or action's JSON) with one card replaced by another, once per card it holds (at most 4)."""
    spots = card_spots(value, cards)
    out = []
    for path in rng.sample(spots, min(4, len(spots))):
        copy = json.loads(json.dumps(value))
        holder = reduce(lambda item, key: item[key], path[:-1], copy)
        was = holder[path[-1]]
        alike = [card for card in cards if card != was and _kind(card) == _kind(was)]  # a good for a good...
        holder[path[-1]] = rng.choice(alike or [card for card in cards if card != was])
        out.append(copy)
    return out


def _kind(card: Any) -> Any:
    """What sort of card a value names: Moorea's goods (`clay`) and products (`hut-1`) differ by their hyphens."""
    return (type(card), card.count("-") if isinstance(card, str) else 0)


def hidden_at(walk: Recorded, seq: int, viewer: Viewer) -> set[str]:
    """The card names at the table after event `seq` that `viewer` cannot see there."""
    return card_names(walk.told(seq, OMNISCIENT)) - card_names(walk.told(seq, viewer))


def check_error(found: Findings, walk: Recorded, where: str, response: Any, sent: Any, hidden: set[Any]) -> None:
    """An error answer: JSON with one line, naming no card hidden from its writer (but those it sent; the pieces of
    the game's messages that never change, `static_texts`, are not searched). For Moirai, `hidden` holds card
    numbers: a number in the message that is a hidden card (and neither sent nor an event, seat or life number) is
    a leak."""
    found.tried()
    TALLY["errors read"] += 1
    try:
        message = response.json()["error"]
    except (ValueError, KeyError, TypeError):
        found.wrong(where, f"{response.status_code} not a JSON error: {response.text[:200]}")
        return
    if not isinstance(message, str) or not one_line_error(message):
        found.wrong(where, f"not one line: {str(message)[:200]}")
        return
    for piece in sorted(static_texts(walk), key=len, reverse=True):
        message = message.replace(piece, " … ")
    if walk.name in NAMED_CARDS:
        named = card_names(sent)
        named |= {re.sub(r"-\d+$", "", name) for name in named}  # "stoneware-4" is a stoneware
        shown = named_in(message, hidden - named)
    else:
        sent_numbers = {int(n) for n in re.findall(r"\d+", json.dumps(sent))}
        counted = re.sub(r"\b(event|line|seat|life|turn) \d+|\b\d+ (lives|life|cards|card)\b", "", message)
        numbers = {int(n) for n in re.findall(r"\b\d+\b", counted)}
        shown = (numbers & hidden) - sent_numbers
    if shown:
        found.leak(where, f"{response.status_code} {message} (hidden: {sorted(shown)[:5]})")


_STATIC: dict[str, set[str]] = {}


def static_texts(walk: Recorded) -> set[str]:
    """Pieces of the game's messages that are the same whatever the position, such as "is not a Moorea hand card;
    they are seashells, wood, ..." or "(ids look like 'canoe-3')": the refusals of a card that is nonsense, split at
    it, from `parse_action` (it sees no state, so it can leak nothing) and from the rules' checks of an event, kept
    only if the same at three positions (a hidden card in a message changes from one position to the next)."""
    if walk.name not in _STATIC:
        _STATIC[walk.name] = _action_examples(walk) | _event_examples(walk)
    return _STATIC[walk.name]


def _refusal_pieces(attempt: Callable[[], Any]) -> set[str]:
    try:
        attempt()
    except LoomError as error:
        return {piece for piece in re.split(r"event \d+: |'?zz-nonsense'?", str(error)) if len(piece) >= 12}
    return set()


def _with_nonsense(walk: Recorded, value: Any) -> Any:
    copy = json.loads(json.dumps(value))
    for path in card_spots(copy, universe(walk)):
        holder = reduce(lambda item, key: item[key], path[:-1], copy)
        holder[path[-1]] = "zz-nonsense"
    return copy


def _action_examples(walk: Recorded) -> set[str]:
    pieces: set[str] = set()
    for state in walk.states[1::7]:
        if walk.game.to_move(state) in range(walk.seats):
            for action in walk.game.legal_actions(state)[:20]:
                nonsense = _with_nonsense(walk, walk.game.action_json(action))
                pieces |= _refusal_pieces(lambda: walk.game.parse_action(nonsense))  # noqa: B023
    return pieces


def _event_examples(walk: Recorded) -> set[str]:
    by_type: dict[str, list[set[str]]] = {}
    for event in walk.events:
        line = json.loads(json.dumps(event.payload.to_json()))
        if len(by_type.setdefault(event.type, [])) < 3 and card_spots(line, universe(walk)):
            state, data = walk.states[event.seq - 1], _with_nonsense(walk, line)
            by_type[event.type].append(
                _refusal_pieces(lambda: walk.game.check(state, decode_payload(event.type, data)))  # noqa: B023
            )
    return set().union(*(set.intersection(*seen) for seen in by_type.values() if len(seen) == 3))


@dataclass
class Live:
    """An open game on the server at a position of the recorded game: its id and tokens, and the position."""

    api: Api
    body: dict[str, Any]  # what created it: the recorded game's events up to the position
    seq: int
    state: Any
    id: int = 0
    tokens: dict[str, Any] = field(default_factory=dict)

    def reopen(self) -> None:
        """A new game at the same position (after a write went through and moved this one on)."""
        created = self.api.ok("POST", "/games", None, json=self.body)
        self.id, self.tokens = created["id"], created["tokens"]


def live_positions(walk: Recorded, wanted: Callable[[int], bool], stops: int = 6) -> Iterator[Live]:
    """Open games at `stops` positions spread over the recorded game (those after event k for which `wanted(k)`):
    each a game a table recorded, sent whole to the server (its first event holds the deck, so Loom dealt it)."""
    candidates = [k for k in range(2, len(walk.events)) if wanted(k)]
    assert candidates, f"{walk.name}: no position to walk"
    for k in sorted({candidates[len(candidates) * i // stops] for i in range(stops)}):
        body = {"game": walk.name, "events": [whole(event) for event in walk.events[:k]]}
        live = Live(api_of(walk), body, k, walk.states[k])
        live.reopen()
        yield live


def next_events(walk: Recorded, seq: int) -> list[dict[str, Any]]:
    """Events that could come after event `seq`, as log lines without their envelope: the two the game recorded,
    those of the first legal action of each kind, or chance's."""
    game, rng, state = walk.game, Random(0), walk.states[seq]
    mover = game.to_move(state)
    if mover is None:
        return []
    payloads = [event.payload for event in walk.events[seq : seq + 2]]
    payloads += [game.chance(state, rng)] if mover == CHANCE_TO_MOVE else []
    for action in one_of_each_kind(walk, state) if mover != CHANCE_TO_MOVE else []:
        payloads += game.resolve(state, action, rng)[:2]
    return [{"type": payload.TYPE, **json.loads(json.dumps(payload.to_json()))} for payload in payloads]


def one_of_each_kind(walk: Recorded, state: Any) -> list[Any]:
    """The first legal action of each type (take, draw, play...) in `state`."""
    kinds: dict[str, Any] = {}
    for action in walk.game.legal_actions(state):
        kinds.setdefault(walk.game.action_json(action)["type"], action)
    return list(kinds.values())


def live_hidden(walk: Recorded, state: Any, viewer: Viewer) -> set[Any]:
    """The card names at the table that `viewer` cannot see there (Moirai: the card numbers)."""
    seen = public_view(walk.game, state, 3) if viewer == PUBLIC else walk.game.view(state, int(viewer))
    if walk.name not in NAMED_CARDS:
        return hidden_cards(state, seen)
    return card_names(walk.game.describe(state)) - card_names(json.loads(json.dumps(walk.game.describe(seen))))


def live_token(live: Live, viewer: Viewer) -> str | None:
    """A reader's token of the live game."""
    return None if viewer == PUBLIC else live.tokens["seats"][int(viewer)]


def write_wrong_events(walk: Recorded, found: Findings, live: Live, rng: Random) -> None:
    """Each reader writes events that could come next, a card changed: refused (401 or 403), naming no hidden card.
    A write that goes through is a finding; the walk goes on in a new game at the same position."""
    api = api_of(walk)
    for line in next_events(walk, live.seq):
        for event in variants(line, universe(walk), rng):
            for viewer in readers(walk):
                body = {"expected_seq": live.seq, "events": [event]}
                response = api.call("POST", f"/games/{live.id}/events", live_token(live, viewer), json=body)
                where = f"{walk.name} at event {live.seq}: {event} as {viewer}"
                expected = 401 if viewer == PUBLIC else 403
                if response.status_code != expected:
                    found.wrong(where, f"{response.status_code}, not {expected}: {response.text[:200]}")
                if response.status_code < 400:
                    live.reopen()
                    continue
                check_error(found, walk, where, response, event, live_hidden(walk, live.state, viewer))


def test_a_seat_may_not_write_events_in_a_game_loom_dealt_and_learns_nothing_trying(walk: Recorded) -> None:
    found, rng = Findings("error walk"), Random(walk.name)

    def holds_a_card(k: int) -> bool:
        return bool(card_spots(json.loads(json.dumps(whole(walk.events[k]))), universe(walk)))

    for live in live_positions(walk, holds_a_card):
        write_wrong_events(walk, found, live, rng)
    assert found.count > 20, f"{walk.name}: only {found.count} wrong events tried"
    found.done()


def action_values(walk: Recorded) -> list[Any]:
    """The strings the game's actions hold besides cards (Stones of Fate's places, Moirai's piles): more to change."""
    values: set[str] = set()
    for state in walk.states[2::5]:
        if walk.game.to_move(state) in range(walk.seats):
            for action in walk.game.legal_actions(state):
                data = json.loads(json.dumps(walk.game.action_json(action)))
                values |= card_names({key: value for key, value in data.items() if key != "type"})
    return sorted(values - set(universe(walk)))


def play_wrong_actions(walk: Recorded, found: Findings, live: Live, rng: Random) -> None:
    """Each reader plays the mover's legal actions, a card changed: refused (401 or 403 but for the mover), naming
    no card hidden from the reader."""
    api, mover = api_of(walk), walk.game.to_move(live.state)
    if mover is None or mover == CHANCE_TO_MOVE:
        return
    legal = [json.loads(json.dumps(walk.game.action_json(a))) for a in walk.game.legal_actions(live.state)]
    for action in [json.loads(json.dumps(walk.game.action_json(a))) for a in one_of_each_kind(walk, live.state)]:
        for wrong in variants(action, universe(walk) + action_values(walk), rng):
            if wrong in legal:
                continue
            for viewer in readers(walk):
                body = {"expected_seq": live.seq, "action": wrong}
                response = api.call("POST", f"/games/{live.id}/actions", live_token(live, viewer), json=body)
                where = f"{walk.name} at event {live.seq}: action {wrong} as {viewer}"
                if response.status_code < 400:  # the mover's: a legal action after all (a payment in another order)
                    if viewer != mover:
                        found.wrong(where, f"played ({response.status_code}) by a seat not to move")
                    live.reopen()
                    continue
                if viewer != mover and response.status_code != (401 if viewer == PUBLIC else 403):
                    found.wrong(where, f"{response.status_code} for a seat not to move")
                check_error(found, walk, where, response, wrong, live_hidden(walk, live.state, viewer))


def test_a_refused_action_names_no_card_hidden_from_its_writer(walk: Recorded) -> None:
    found, rng = Findings("error walk"), Random(walk.name)
    for live in live_positions(walk, lambda k: walk.game.to_move(walk.states[k]) in range(walk.seats)):
        play_wrong_actions(walk, found, live, rng)
    assert found.count > 20, f"{walk.name}: only {found.count} wrong actions tried"
    found.done()


def test_a_seat_or_nobody_may_not_branch_and_the_table_gets_the_branchs_tokens(walk: Recorded) -> None:
    api, found = api_of(walk), Findings("branches")
    turn = forks(walk)[-1]
    for viewer in readers(walk):
        response = api.call("POST", "/games/1/branches", walk.token(viewer), json={"turn": turn})
        found.tried()
        expected = 401 if viewer == PUBLIC else 403
        if response.status_code != expected:
            found.wrong(f"{walk.name} branch by {viewer}", f"{response.status_code}, not {expected}")
        if response.status_code == 201:
            tokens = response.json()["tokens"]
            whole_game = api.call("GET", f"/games/{response.json()['id']}/state?as=all", tokens.get("table"))
            if whole_game.status_code == 200:
                found.leak(f"{walk.name} branch by {viewer}", "got the branch's table token: as=all shows every card")
        else:
            check_error(found, walk, f"{walk.name} branch by {viewer}", response, {}, walk.hidden[viewer])
    found.done()


def test_a_branch_has_its_parents_seats_and_each_reads_its_own_view(walk: Recorded) -> None:
    api, found = api_of(walk), Findings("branches")
    branch = branch_at(walk, forks(walk)[1])
    seats = branch["tokens"]["seats"]
    assert len(seats) == walk.seats
    summary = api.ok("GET", f"/games/{branch['id']}")
    assert summary["players"] == list(walk.states[-1].players)
    for seat, token in enumerate(seats):
        for asked in (None, str(seat), PUBLIC):
            response = api.call("GET", with_as(f"/games/{branch['id']}/state", asked), token)
            where = f"{walk.name} branch state as {seat} ({asked})"
            if response.status_code != 200:
                found.wrong(where, f"{response.status_code} {response.text[:200]}")
                continue
            compare_state(found, walk, where, response.json(), PUBLIC if asked == PUBLIC else seat)
        refused = api.call("GET", f"/games/{branch['id']}/state?as=all", token)
        found.tried()
        if refused.status_code != 403:
            found.leak(f"{walk.name} branch as=all by seat {seat}", refused.status_code)
    found.done()


# --- The command line -------------------------------------------------------------------------------------------------


def cli_turns(walk: Recorded) -> list[int | None]:
    """About six turns spread over the game, and the end."""
    turns = walk.turns
    return [*turns[:: max(1, len(turns) // 6)], None]


def test_logs_replay_as_a_seat_shows_its_view_at_every_turn(walk: Recorded) -> None:
    found = Findings("CLI views")
    for seat in range(walk.seats):
        for turn in cli_turns(walk):
            at = () if turn is None else ("--turn", str(turn))
            code, stdout, stderr = logs("replay", "1", *at, "--as", str(seat), "--json", "--db", walk.db)
            assert code == 0, stderr
            answer = json.loads(stdout)
            compare_state(found, walk, f"{walk.name} logs replay --turn {turn} --as {seat} --json", answer, seat)
            code, stdout, stderr = logs("replay", "1", *at, "--as", str(seat), "--db", walk.db)
            assert code == 0, stderr
            if walk.name in NAMED_CARDS:
                hidden = hidden_at(walk, answer["seq"], seat)
                found.check_text(f"{walk.name} logs replay --turn {turn} --as {seat}", stdout, in_text(walk, hidden))
            if drawn(walk.game.render(walk.seen(answer["seq"], seat), seat)) not in stdout:
                whole_table = drawn(walk.game.render(walk.states[answer["seq"]], None)) in stdout
                where = f"{walk.name} logs replay --turn {turn} --as {seat}"
                (found.leak if whole_table else found.wrong)(where, "not the drawing of the seat's view")
    found.done(searched=walk.name in NAMED_CARDS)


def test_logs_replay_html_as_a_seat_names_no_card_hidden_from_it(walk: Recorded, tmp_path: Path) -> None:
    found = Findings("CLI pages")
    for seat in range(walk.seats):
        page = tmp_path / f"seat-{seat}.html"
        code, _, stderr = logs("replay", "1", "--html", page, "--as", str(seat), "--db", walk.db)
        assert code == 0, stderr
        text = page.read_text(encoding="utf-8")
        check_page(found, walk, f"{walk.name} logs replay --html --as {seat}", text, seat)
        if walk.name == "moirai":
            check_key_moments(found, walk, f"{walk.name} logs replay --html --as {seat}", text, seat)
    assert walk.name in NAMED_CARDS or found.face_down_moves, "no key moment placed a card face down"
    found.done(searched=walk.name in NAMED_CARDS)


def test_the_public_commands_name_no_hidden_card(walk: Recorded) -> None:
    found = Findings("CLI views")
    for args in (("show", "1"), ("show", "1", "--json"), ("list",), ("list", "--json"), ("tree", "1")):
        code, stdout, stderr = logs(*args, "--db", walk.db)
        assert code == 0, stderr
        if walk.name in NAMED_CARDS:
            found.check_text(f"{walk.name} logs {' '.join(args)}", stdout, in_text(walk, walk.hidden[PUBLIC]))
        else:
            found.tried()
    found.done(searched=walk.name in NAMED_CARDS)


def test_a_branch_made_by_the_command_line_keeps_its_seats(walk: Recorded, tmp_path: Path) -> None:
    db = tmp_path / "branching.duckdb"
    db.write_bytes(walk.db.read_bytes())
    turn = forks(walk)[1]
    code, stdout, stderr = logs("branch", "1", "--turn", str(turn), "--json", "--db", db)
    assert code == 0, stderr
    (branch,) = json.loads(stdout)["ids"]
    code, stdout, stderr = logs("show", str(branch), "--json", "--db", db)
    assert json.loads(stdout)["players"] == list(walk.states[-1].players)
    found = Findings("CLI views")
    for seat in range(walk.seats):
        code, stdout, stderr = logs("replay", str(branch), "--as", str(seat), "--json", "--db", db)
        if code != 0:
            found.wrong(f"{walk.name} logs replay BRANCH --as {seat}", stderr)
            continue
        compare_state(found, walk, f"{walk.name} logs replay BRANCH --as {seat}", json.loads(stdout), seat)
    found.done()


def test_a_seat_out_of_range_is_refused_in_one_line(walk: Recorded) -> None:
    for args in (("replay", "1", "--as", "3"), ("replay", "1", "--as", "-1"), ("replay", "1", "--as", "99")):
        code, _, stderr = logs(*args, "--db", walk.db)
        assert code == 2 and one_line_refusal(stderr), stderr


def test_a_token_in_the_query_opens_only_pages_and_streams(walk: Recorded) -> None:
    api, seat = api_of(walk), walk.tokens["seats"][0]
    for path in (f"/games/1/state?as=0&token={seat}", f"/games/1/events?as=0&token={seat}"):
        response = api.call("GET", path)
        assert response.status_code in (400, 401), (path, response.status_code)
        assert one_line_error(response.json()["error"])
    assert api.call("GET", f"/games/1/replay?token={seat}").status_code == 200
    with api.http.stream("GET", f"/games/1/stream?after=0&as=0&token={seat}", timeout=30) as stream:
        assert stream.status_code == 200
