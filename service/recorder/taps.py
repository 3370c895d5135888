"""What a tap on a recording page may choose, from the game's own rules: a scripted generator runs the rules' `resolve`,
`chance` or `setup`, and the options are what the tapped draws leave open, as the recording page knows the cards."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields, replace
from functools import lru_cache
from random import Random
from typing import Any

from loom.engine.deals import dealt_to
from loom.engine.protocol import CHANCE_TO_MOVE, HIDDEN, AnyGame
from loom.engine.registry import get_game
from loom.events.base import IllegalAction, LoomError, Payload
from loom.service.views import OMNISCIENT, Viewer, seen_by

ASCENDING, DESCENDING = -1, -2
"""The fixed orders a scripted generator gives the draws nobody tapped: ascending for every draw, or descending for
every draw; a draw's own number (0, 1, ...) flips only that one."""
HIDDEN_ORDERS = ("deck", "pile")
"""Fields of chance's events that record a shuffled order: a real table's game knows no order, so they stay empty."""


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
