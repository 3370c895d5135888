"""The leak walk's shared parts: a recorded game of each game with its states and tokens, what each reader may
not see at each position, the findings of a walk, and the check of an error's text."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field, fields, is_dataclass
from functools import reduce
from itertools import accumulate
from pathlib import Path
from random import Random
from typing import Any

from plotly.offline import get_plotlyjs

from loom.engine.protocol import HIDDEN, Game
from loom.engine.registry import get_game
from loom.events.base import Event, LoomError
from loom.events.registry import decode_payload
from loom.replay.live import service_secret
from loom.replay.simulate import simulate
from loom.replay.store import Store
from loom.service.access import Keys
from loom.service.views import OMNISCIENT, PUBLIC, Viewer, public_view
from tests.security.common import card_names, logs, named_in, one_line_error
from tests.security.conftest import TALLY
from tests.service.client import Api

NAMED_CARDS = {"motto", "moorea", "stones-of-fate"}
"""Games whose cards are distinctive strings, so text and pages can be searched for them (Moirai's are numbers)."""


PLOTLY = get_plotlyjs()


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
    memos: dict[int, dict[Any, Any]] = field(default_factory=dict)  # per seat, the drawings those tables reuse
    hidden_names: dict[tuple[int, Viewer], frozenset[str]] = field(default_factory=dict)  # `hidden_at`

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
    found = walk.hidden_names.get((seq, viewer))
    if found is None:
        found = walk.hidden_names[seq, viewer] = frozenset(
            card_names(walk.told(seq, OMNISCIENT)) - card_names(walk.told(seq, viewer))
        )
    return set(found)


def check_error(found: Findings, walk: Recorded, where: str, response: Any, sent: Any, hidden: set[Any]) -> None:
    """An error answer: JSON with one line, naming no card hidden from its writer (but those it sent; the pieces of
    the game's messages that never change, `static_texts`, are not searched). For Moirai, `hidden` holds card
    numbers: a number in the message that is a hidden card (and neither sent nor an event, seat, life or game number) is
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
        not_cards = r"\b(event|line|seat|life|turn|game) \d+|/games/\d+/|\b\d+ (lives|life|cards|card)\b"
        counted = re.sub(not_cards, "", message)
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
