"""`logs replay ID --html FILE`: one game as an analysis board, the way a chess site shows a recorded game.

The board has a position after every event, each the game's own table (the one `logs replay` prints) as the reader
saw it right after that event; beside it the move list, one sentence per event (`engine.telling`), each a button to
the position right after it. Buttons, a slider and the arrow keys step a move at a time (Shift and the turn buttons:
a turn; Home and End); the current move is highlighted and scrolled into view; the score chart and the win-chance
chart (after `logs analyse`) carry a cursor at the turn being played, and a click on either jumps to that turn's
start. The key moments read as moves in words with the chance swing, and jump to the position right after their move.
The last position names the winner and the scores with their breakdown. With a seat, every table, move and key moment
is that seat's view, and no chance is shown (each was estimated from every hand).

The tables stay light: each distinct line of HTML is written once, and each table is runs of those lines' indices
(from one event to the next most lines stay as they were); their styles are classes named after the style, so no
span repeats a style rule.

Served by `logs serve`, the page also offers what-if in place, at the very position shown (in the middle of a turn
too): the legal actions of the seat to move there, a branch forked just after the position's event and played on with
a bot through the branch route (with the reader's own token), and both lines' chances side by side. A seat's what-if
is dealt from a seed, the reader's or a fresh one; "deal again" makes the same what-if from another seed.
"""

from __future__ import annotations

import copy
import hashlib
import io
import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from html import escape
from typing import Any, cast

import pandas as pd
import plotly.graph_objects as go
from rich.box import Box
from rich.console import Console, ConsoleOptions, Group
from rich.measure import Measurement
from rich.padding import Padding
from rich.segment import Segment
from rich.style import Style
from rich.table import Column, Row, Table, _Cell
from rich.terminal_theme import DEFAULT_TERMINAL_THEME
from rich.text import Text

from loom.dashboards.figures import COLOURS, _layout
from loom.dashboards.page import Section, page
from loom.engine.moves import advice_for, seen_move
from loom.engine.presentation import Reader, presentation
from loom.engine.protocol import Game
from loom.engine.registry import get_game
from loom.engine.telling import tell_game
from loom.events.base import Event, LoomError
from loom.replay.replay import fold
from loom.replay.store import Store

TABLE_THEME = DEFAULT_TERMINAL_THEME
"""The colours of the drawn tables, rich's own for its HTML export."""


@dataclass(frozen=True)
class Position:
    """The board right after one event, as the reader saw it: a stop of the board and a move of the move list."""

    seq: int
    turn: int  # the turn played from here on: the next event's (the end: the last turn's next); the charts' cursor
    scores: list[int]
    lines: tuple[str, ...]  # the table, a line of escaped HTML each

    @property
    def table(self) -> str:
        """The table as the page shows it."""
        return _pre(self.lines)


def _pre(lines: Sequence[str]) -> str:
    return '<pre class="table">' + "\n".join(lines) + "</pre>"


_RULES: dict[str, str] = {}
"""The style rule of each CSS class drawn so far; a class is named after its rule, the same in every page and
process, so the pages made at once in a server's threads share this without a lock."""


def _css_class(rule: str) -> str:
    name = "s" + hashlib.sha1(rule.encode()).hexdigest()[:8]
    if _RULES.setdefault(name, rule) != rule:  # two rules, one name: never seen, but a wrong colour would be silent
        raise RuntimeError(f"two table styles share the class {name}")
    return name


class _Uncached(Exception):
    """A renderable the cache cannot key by its content: it is drawn as it is."""


_PLAIN = (str, int, float, bool, type(None))


def _content(obj: Any) -> Any:
    """A hashable key of everything a drawing of `obj` depends on (rich's own classes and plain values only; anything
    else is _Uncached): two renderables with one key draw the same segments at the same options."""
    if isinstance(obj, _PLAIN):
        return (type(obj), obj)
    if isinstance(obj, (Style, Box)):  # immutable: a Style compares by value, a Box (a module constant) by itself
        return obj
    if isinstance(obj, (list, tuple)):
        return (type(obj), tuple(_content(item) for item in obj))
    if isinstance(obj, dict):
        return (dict, tuple((_content(k), _content(v)) for k, v in obj.items()))
    if type(obj) is Text:  # slots, no __dict__; a span's style is a str or a Style, both compared by value
        return (
            Text,
            obj.plain,
            tuple(obj.spans),
            obj.style,
            obj.justify,
            obj.overflow,
            obj.no_wrap,
            obj.end,
            obj.tab_size,
        )
    if type(obj) is _Drawn:
        return obj.key
    if type(obj) in (Column, Row):
        return (type(obj), _fields(vars(obj)))
    raise _Uncached(type(obj).__name__)


_PLAIN_TYPES = frozenset(_PLAIN)


def _fields(fields: dict[str, Any]) -> tuple[Any, ...]:
    """The key of an object's attributes: a plain value as itself with its type (most are), others by `_content`."""
    return tuple(
        (name, value.__class__, value) if value.__class__ in _PLAIN_TYPES else (name, _content(value))
        for name, value in fields.items()
    )


def _number(memo: dict[Any, Any], key: Any) -> int:
    """`key` as a number, the same for every equal key in this memo: a key is hashed once, where it is made, and the
    keys made of it (a table's, of its cells' numbers) stay small."""
    numbers = memo.setdefault("numbers", {})
    return numbers.setdefault(key, len(numbers))  # type: ignore[no-any-return]


def _options_key(options: ConsoleOptions) -> tuple[Any, ...]:
    return tuple(vars(options).values())


class _Drawn:
    """A renderable drawn once per width: the same segments and measure as the renderable it wraps, kept in `memo`
    by its content and the options it is drawn with (one table after every event is mostly the one before)."""

    __slots__ = ("inner", "key", "memo")

    def __init__(self, inner: Any, key: Any, memo: dict[Any, Any]) -> None:
        self.inner = inner
        self.key = key
        self.memo = memo

    @property
    def vertical(self) -> Any:  # a table cell's vertical alignment, read by rich from the cell
        return getattr(self.inner, "vertical", None)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> list[Segment]:
        key = ("draw", self.key, _options_key(options))
        found = self.memo.get(key)
        if found is None:
            found = self.memo[key] = list(console.render(self.inner, options))
        return found  # type: ignore[no-any-return]

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        key = ("measure", self.key, _options_key(options))
        found = self.memo.get(key)
        if found is None:
            found = self.memo[key] = Measurement.get(console, options, self.inner)
        return found  # type: ignore[no-any-return]


class _MemoTable(Table):
    """A table whose cells, padded as rich pads them, are drawn through a memo (_Drawn): rich's own layout, with
    every cell it has drawn before at that width taken from the memo."""

    memo: dict[Any, Any]
    settings: Any  # the key of everything but the columns and rows
    column_keys: list[Any]

    def _measure_column(self, console: Console, options: ConsoleOptions, column: Column) -> Measurement:
        # A column's measure depends on its cells, its place (the edge columns are padded differently) and the table's
        # settings: most columns are the same from one event to the next.
        index = column._index
        key = ("column", self.settings, self.column_keys[index], index, len(self.columns), _options_key(options))
        found = self.memo.get(key)
        if found is None:
            found = self.memo[key] = super()._measure_column(console, options, column)
        return found  # type: ignore[no-any-return]

    def _get_cells(self, console: Console, column_index: int, column: Column) -> Iterable[_Cell]:
        for cell in super()._get_cells(console, column_index, column):
            inner = cell.renderable
            if type(inner) is Padding and isinstance(inner.renderable, _Drawn):
                key = (
                    "pad",
                    inner.renderable.key,
                    inner.top,
                    inner.right,
                    inner.bottom,
                    inner.left,
                    inner.style,
                    inner.expand,
                )
                cell = _Cell(cell.style, _Drawn(inner, key, self.memo), cell.vertical)
            yield cell


def _cached(renderable: Any, memo: dict[Any, Any]) -> Any:
    """`renderable` with every table and table cell in it drawn through `memo` (_Drawn); what the cache cannot key is
    left as it is."""
    if isinstance(renderable, Group):
        return Group(*(_cached(part, memo) for part in renderable.renderables), fit=renderable.fit)
    if type(renderable) not in (str, Text, Table):
        return renderable
    try:
        if type(renderable) is not Table:
            return _Drawn(renderable, _number(memo, _content(renderable)), memo)
        table = cast(_MemoTable, copy.copy(renderable))  # cells drawn through the memo, in a copy: not the caller's
        table.__class__ = _MemoTable
        table.memo = memo
        table.columns = [_cached_column(column, memo) for column in table.columns]
        # a table's key is made of its cells' keys, each made once
        settings = _fields({k: v for k, v in vars(renderable).items() if k not in ("columns", "rows")})
        table.settings = _number(memo, settings)
        table.column_keys = [_number(memo, _content(column)) for column in table.columns]
        key = (Table, table.settings, tuple(table.column_keys), _content(table.rows))
        return _Drawn(table, _number(memo, key), memo)
    except _Uncached:
        return renderable


def _cached_column(column: Column, memo: dict[Any, Any]) -> Column:
    column = copy.copy(column)
    column.header = _cached(column.header, memo)
    column.footer = _cached(column.footer, memo)
    column._cells = [_cached(cell, memo) for cell in column._cells]
    return column


class _MemoConsole(Console):
    """The tables' console: the lines of a _Drawn renderable, drawn once per options and style, kept in its memo."""

    def render_lines(
        self,
        renderable: Any,
        options: ConsoleOptions | None = None,
        *,
        style: Style | None = None,
        pad: bool = True,
        new_lines: bool = False,
    ) -> list[list[Segment]]:
        if not isinstance(renderable, _Drawn):
            return super().render_lines(renderable, options, style=style, pad=pad, new_lines=new_lines)
        key = ("lines", renderable.key, _options_key(options or self.options), style, pad, new_lines)
        found = renderable.memo.get(key)
        if found is None:
            found = renderable.memo[key] = super().render_lines(
                renderable, options, style=style, pad=pad, new_lines=new_lines
            )
        return [line[:] for line in found]  # rich's callers may reshape the lines they are given


TABLE_WIDTH = 120
"""The columns a page's table is drawn in (a phone's recording page draws fewer)."""
TABLE_CONSOLE = {"color_system": "truecolor", "highlight": False, "markup": False, "emoji": False}
"""The console the tables are drawn on (a memo of drawings holds for this console, at one width, only)."""


def drawn_lines(
    game: Game, state: Any, seat: Reader, memo: dict[Any, Any] | None = None, width: int = TABLE_WIDTH
) -> tuple[str, ...]:
    """The game's own rendering of `state` (the one `logs replay` prints), `width` columns wide, a line of escaped
    HTML each, every style a class: text is escaped and no link is drawn, so no string from a log can become markup,
    a link or a style. With a `memo` (one per page, of one width), the tables, cells and lines drawn before are not
    drawn again."""
    renderable = presentation(game.name).render(state, seat)
    settings = {**TABLE_CONSOLE, "width": width}
    if memo is None:
        alone = Console(file=io.StringIO(), **settings)  # type: ignore[arg-type]
        return tuple(_html_line(line) for line in alone.render_lines(renderable, alone.options, pad=False))
    console: Console | None = memo.get("console")
    if console is None:
        console = memo["console"] = _MemoConsole(file=io.StringIO(), **settings)  # type: ignore[arg-type]
    renderable = _cached(renderable, memo)
    parts = renderable.renderables if isinstance(renderable, Group) else [renderable]
    options = console.options.reset_height()  # as a group draws its parts
    out: list[str] = []
    for k, part in enumerate(parts):
        drawn = _part_lines(console, options, part, last=k == len(parts) - 1)
        if drawn is None:  # a part that is not whole lines: the renderable drawn as one
            out = [_html_line(line) for line in console.render_lines(renderable, console.options, pad=False)]
            break
        out += drawn
    return tuple(out)


def _part_lines(console: Console, options: ConsoleOptions, part: Any, last: bool) -> tuple[str, ...] | None:
    """The HTML lines of one part of a drawn table, kept in the memo; None if it is not kept there, or (but for the
    last part) does not end its last line, so the next part's first line would continue it."""
    if not isinstance(part, _Drawn):
        return None
    key = ("html", part.key, _options_key(options), last)
    found = part.memo.get(key)
    if found is None:
        segments = part.__rich_console__(console, options)
        if not last and segments and (segments[-1].control or not segments[-1].text.endswith("\n")):
            return None
        lines = Segment.split_and_crop_lines(segments, options.max_width, pad=False, include_new_lines=False)
        html = part.memo.setdefault("lines", {})  # most lines of a table drawn again are lines drawn before
        found = part.memo[key] = tuple(
            html.get(row) or html.setdefault(row, _html_line(line)) for line in lines for row in [tuple(line)]
        )
    return found  # type: ignore[no-any-return]


def _html_line(line: list[Segment]) -> str:
    parts = []
    for text, style, _ in Segment.filter_control(Segment.simplify(line)):
        rule = style.get_html_style(TABLE_THEME) if style else ""
        parts.append(f'<span class="{_css_class(rule)}">{escape(text)}</span>' if rule else escape(text))
    return "".join(parts)


def _table_html(game: Game, state: Any, seat: int | None, memo: dict[Any, Any] | None = None) -> str:
    """The table of `state` as the page shows it (`state` already the seat's view); `memo` as `drawn_lines`'s."""
    return _pre(drawn_lines(game, state, seat, memo))


def table_styles(lines: Iterable[str]) -> str:
    """The style rules of the classes these drawn lines use, as a style element."""
    used = set().union(*(re.findall(r'class="(s[0-9a-f]{8})"', line) for line in lines))
    rules = sorted(f"pre.table .{name} {{ {_RULES[name]} }}" for name in used)
    return "<style>\n" + "\n".join(rules) + "\n</style>"


def positions(game: Game, events: Sequence[Any], seat: int | None) -> list[Position]:
    """The board right after every event, as `seat` (None: everyone) sees it there."""
    out: list[Position] = []
    memo: dict[Any, Any] = {}
    state = game.blank()
    for k, event in enumerate(events):
        state = game.apply(state, event.payload)
        shown = state if seat is None else game.view(state, seat)
        turn = events[k + 1].turn if k + 1 < len(events) else event.turn + 1
        out.append(Position(event.seq, turn, list(game.scores(shown)), drawn_lines(game, shown, seat, memo)))
    return out


def turn_starts(stops: Sequence[Position]) -> list[int]:
    """The positions where a turn starts (the turn's player decides there), the first of them turn 1's, and the end."""
    starts = [k for k in range(1, len(stops)) if stops[k].turn != stops[k - 1].turn]
    return [k for k in starts if stops[k].turn > 0] or [len(stops) - 1]


def encode_tables(stops: Sequence[Position]) -> tuple[list[str], list[list[int]]]:
    """The tables of `stops`, compactly: each distinct line once, and each table as runs of those lines' indices
    (start, count, start, count...). Most lines stay as they were from one event to the next."""
    index: dict[str, int] = {}
    runs = []
    for stop in stops:
        ids = [index.setdefault(line, len(index)) for line in stop.lines]
        flat: list[int] = []
        for i in ids:
            if flat and flat[-2] + flat[-1] == i:
                flat[-1] += 1
            else:
                flat += [i, 1]
        runs.append(flat)
    return list(index), runs


def _marker(turn: int) -> dict[str, Any]:
    return {"type": "line", "x0": turn, "x1": turn, "yref": "paper", "y0": 0, "y1": 1, "line": {"dash": "dot"}}


def _scores_figure(stops: list[Position], names: list[str]) -> go.Figure:
    """The scores at the start of every turn, and at the end."""
    fig = go.Figure()
    starts = [stops[k] for k in turn_starts(stops)]
    for seat, name in enumerate(names):
        fig.add_scatter(
            x=[p.turn for p in starts],
            y=[p.scores[seat] for p in starts],
            name=escape(name),
            mode="lines+markers",
            marker={"size": 4},
            line={"shape": "hv", "color": COLOURS[seat % len(COLOURS)]},
        )
    fig.update_layout(shapes=[_marker(starts[0].turn)])
    _layout(fig, "Score over turns", "turn", "points")
    return _narrow_legend(fig)


def _narrow_legend(fig: go.Figure) -> go.Figure:
    # Below the plot, so that on a phone the legend takes height, not width.
    fig.update_layout(legend={"orientation": "h", "y": -0.25}, margin={"l": 40, "r": 10})
    return fig


def _chances_figure(chances: pd.DataFrame, names: list[str], first_turn: int) -> go.Figure | None:
    """The win-chance curves of `logs analyse`, if the game was analysed, with the board's cursor."""
    if chances.empty:
        return None
    fig = go.Figure()
    for seat, rows in chances.groupby("seat", sort=True):
        colour = COLOURS[int(seat) % len(COLOURS)]  # type: ignore[call-overload]
        fig.add_scatter(
            x=rows["turn"],
            y=rows["chance"],
            error_y={"type": "data", "array": rows["margin"], "visible": True, "thickness": 0.8},
            name=escape(names[int(seat)]),  # type: ignore[call-overload]
            line={"color": colour},
        )
    fig.update_layout(yaxis_tickformat=".0%", shapes=[_marker(first_turn)])
    _layout(fig, "Chance to win (logs analyse; bars: 95% margin)", "turn", "chance to win")
    return _narrow_legend(fig)


def _moves_html(events: Sequence[Event], told: Sequence[str]) -> str:
    """The move list: a sentence per event, each a button that shows the table right after it (position k is the
    one after the k-th event)."""
    items = []
    for k, (event, sentence) in enumerate(zip(events, told)):
        turn = f'<span class="turn">{event.turn}</span> ' if event.turn else '<span class="turn">·</span> '
        items.append(
            f'<li><button type="button" class="move" data-stop="{k}" '
            f'data-seq="{event.seq}">{turn}{escape(sentence)}</button></li>'
        )
    return f'<ol id="moves" class="moves" aria-label="moves">{"".join(items)}</ol>'


def _moments_html(
    game: Game,
    moments: pd.DataFrame,
    names: list[str],
    seat: int | None,
    told: Sequence[str],
    stops: Sequence[Position],
) -> str:
    """The key moments, each the move in words with the chance swing, a row that jumps to the position right after
    that move; for a seat, each move as that seat saw it, the best action only for its own moves, and no chance
    (the chances were estimated from every seat's cards)."""
    if moments.empty:
        return ""

    def played(m: Any) -> str:
        return escape(json.dumps(seen_move(game.name, json.loads(m.action), int(m.seat), seat)))

    def words(m: Any) -> str:
        return escape(told[int(m.seq) - 1]) if 0 < int(m.seq) <= len(told) else ""

    def best(m: Any) -> str:
        action = advice_for(None if m.best_action is None else json.loads(m.best_action), int(m.seat), seat)
        if action is None:
            return ""
        chance = f" ({m.best_chance:.0%})" if seat is None and m.best_chance is not None else ""
        return f"<code>{escape(json.dumps(action))}</code>{chance}"

    def swing(m: Any) -> str:
        if seat is not None:
            return ""
        points = round((m.after - m.before) * 100)
        return f'<td class="swing">{m.before:.0%} → {m.after:.0%} ({points:+d})</td>'

    after = {p.seq: k for k, p in enumerate(stops)}
    rows = "".join(
        f'<tr class="moment" tabindex="0" data-stop="{after.get(int(m.seq), len(stops) - 1)}" data-seq="{int(m.seq)}">'
        f"<td>{int(m.turn)}</td><td>{escape(names[int(m.seat)])}</td>{swing(m)}<td>{words(m)}</td>"
        f"<td><code>{played(m)}</code></td><td>{best(m)}</td></tr>"
        for m in moments.itertuples()
    )
    heading = "<th>chance to win</th>" if seat is None else ""
    note = "" if seat is None else f'<p class="note">Each move as seat {seat} saw it; the best found for its own.</p>'
    return (
        f'<h3>Key moments</h3>{note}<p class="note">A click on a row shows the table right after that move.</p>'
        f'<table class="plain moments" id="moments"><tr><th>turn</th><th>seat</th>{heading}<th>move</th>'
        f"<th>played</th><th>best found</th></tr>{rows}</table>"
    )


def _final_html(game: Game, state: Any, names: list[str]) -> str:
    """The last position in words: who won and every score with its breakdown (public once the game is over)."""
    if game.to_move(state) is not None:
        return '<p class="final">The game is not over.</p>'
    winners = [escape(names[seat]) for seat in game.winners(state)]
    scores = game.scores(state)
    won = " and ".join(winners) + (" won" if len(winners) == 1 else " shared the win")
    rows = "".join(
        f"<li>{escape(names[seat])}: {scores[seat]} points"
        + (f" ({escape(', '.join(f'{part} {points}' for part, points in parts.items()))})" if parts else "")
        + "</li>"
        for seat, parts in enumerate(game.breakdown(state))
    )
    return f'<p class="final"><strong>{won}.</strong></p><ul class="scores">{rows}</ul>'


BOARD_STYLE = """
<style>
.board { display: flex; flex-wrap: wrap; gap: 1em; align-items: flex-start; }
.board .main { flex: 1 1 36em; min-width: 0; max-width: 100%; }
.board .side { flex: 0 1 22em; min-width: 0; max-width: 100%; }
.controls { display: flex; flex-wrap: wrap; gap: 0.3em; align-items: center; margin: 0.5em 0; }
.controls input[type=range] { flex: 1 1 8em; min-width: 6em; }
.controls button { font: inherit; cursor: pointer; }
pre.table { overflow-x: auto; max-width: 100%; font-size: 12px; }
ol.moves { list-style: none; padding: 0; margin: 0; max-height: 34em; overflow-y: auto; border: 1px solid #ddd; }
ol.moves button { all: unset; display: block; cursor: pointer; padding: 0.15em 0.4em;
  overflow-wrap: anywhere; }
ol.moves li.current button { background: #ffe98a; }
ol.moves .turn { display: inline-block; min-width: 2.2em; color: #777; }
tr.moment { cursor: pointer; } tr.moment:hover, tr.moment:focus, ol.moves button:hover { background: #eef; }
table.moments code { overflow-wrap: anywhere; }
#final { border-left: 4px solid #4a4; padding-left: 0.6em; }
.whatif ul { padding-left: 1.2em; } .whatif li { margin: 0.2em 0; overflow-wrap: anywhere; }
.whatif .compare { display: flex; flex-wrap: wrap; gap: 1em; } .whatif .compare > div { flex: 1 1 14em; min-width: 0; }
/* On a phone the move list goes under the table, and a table wider than the screen scrolls sideways in its own box:
   wrapping the lines of a box drawing would break it. */
@media (max-width: 700px) { pre.table { font-size: 10px; } ol.moves { max-height: 14em; } }
</style>
"""

CONTROLS = (
    '<div class="controls">'
    '<button type="button" id="first" title="first (Home)">« first</button>'
    '<button type="button" id="prev-turn" title="start of this turn, or of the one before (Shift+←)">‹‹ turn</button>'
    '<button type="button" id="prev" title="back a move (←)">‹ back</button>'
    '<input type="range" id="slider" min="0" value="0" aria-label="position">'
    '<button type="button" id="next" title="next move (→)">next ›</button>'
    '<button type="button" id="next-turn" title="start of the next turn (Shift+→)">turn ››</button>'
    '<button type="button" id="last" title="last (End)">last »</button>'
    "</div>"
)

WHATIF = """
<section class="whatif" id="whatif"><h2>What if?</h2>
<p class="note">Another move at the position shown (just after its event, in the middle of a turn too), played on to
the end by a bot as a branch of this game; branching uses this page's own token, with its rights and no more. With a
seat's token it is that seat's what-if: the cards it could not see there are dealt at random (from a seed) from those
it has not seen, and both lines' chances are over such sampled deals, never the real ones.</p>
<p><label>Bot for the rest: <select id="whatif-bot"></select></label>
<label>Seed of a what-if's deal: <input id="whatif-seed" inputmode="numeric" size="12" placeholder="any"></label></p>
<p id="whatif-status" role="status"></p>
<ul id="legal"></ul>
<div id="compare" class="compare"></div>
<p><button type="button" id="deal-again" hidden>deal again (another seed)</button></p>
<h3>Branches of this game</h3><ul id="tree"></ul>
</section>
"""

SCRIPT = """
<script>
(function () {
  const data = JSON.parse(document.getElementById("board-data").textContent);
  const drawn = JSON.parse(document.getElementById("tables").textContent);
  const lines = drawn.lines, runs = drawn.runs, last = runs.length - 1;
  const slider = document.getElementById("slider");
  const moves = [...document.querySelectorAll("#moves button.move")];
  const figures = [...document.querySelectorAll(".js-plotly-plot")];
  const starts = data.turns.map(function (t, k) { return k > 0 && t !== data.turns[k - 1] ? k : -1; })
    .filter(function (k) { return k > 0; });
  let current = -1;
  slider.max = last;
  function table(k) {  // the table after event k + 1: runs of distinct lines, (start, count) pairs
    const out = [], run = runs[k];
    for (let i = 0; i < run.length; i += 2) for (let j = 0; j < run[i + 1]; j++) out.push(lines[run[i] + j]);
    return '<pre class="table">' + out.join("\\n") + "</pre>";
  }
  function turnAt(k) { return Math.max(1, data.turns[k]); }  // the setup is shown at turn 1's cursor
  function label(k) {  // the turn of the event just played, and the next turn where this position starts one
    const played = k > 0 ? data.turns[k - 1] : 0, next = data.turns[k];
    const where = played === 0 ? "setting up" : "turn " + played;
    const then = k === last ? ", the last" : next !== played ? "; turn " + next + " starts" : "";
    return data.title + ": " + where + ", after event " + data.seqs[k] + then;
  }
  function cursor(turn) {
    const shape = {type: "line", x0: turn, x1: turn, yref: "paper", y0: 0, y1: 1, line: {dash: "dot"}};
    figures.forEach(function (fig) { Plotly.relayout(fig, {shapes: [shape]}); });
  }
  function show(k) {
    k = Math.max(0, Math.min(last, k));
    if (k === current) return;
    const before = current;
    current = k;
    document.getElementById("table").innerHTML = table(k);
    document.getElementById("turn-label").textContent = label(k);
    document.getElementById("final").hidden = k !== last;
    slider.value = k;
    if (moves[before]) moves[before].parentElement.classList.remove("current");
    if (moves[k]) {
      moves[k].parentElement.classList.add("current");
      const list = document.getElementById("moves");
      list.scrollTop = moves[k].offsetTop - list.offsetTop - list.clientHeight / 2;
    }
    document.body.dataset.position = k;
    document.body.dataset.turn = turnAt(k);
    if (before < 0 || turnAt(before) !== turnAt(k)) cursor(turnAt(k));
    document.dispatchEvent(new CustomEvent("board:position", {detail: {stop: k, turn: turnAt(k)}}));
  }
  function jumpTo(turn) {  // the start of turn `turn`, where its player decides
    const k = data.turns.findIndex(function (t) { return t >= turn; });
    show(k < 0 ? last : k);
  }
  function nextTurn() { const k = starts.find(function (s) { return s > current; }); show(k === undefined ? last : k); }
  function prevTurn() {
    const before = starts.filter(function (s) { return s < current; });
    show(before.length ? before[before.length - 1] : 0);
  }
  document.getElementById("first").onclick = function () { show(0); };
  document.getElementById("prev-turn").onclick = prevTurn;
  document.getElementById("prev").onclick = function () { show(current - 1); };
  document.getElementById("next").onclick = function () { show(current + 1); };
  document.getElementById("next-turn").onclick = nextTurn;
  document.getElementById("last").onclick = function () { show(last); };
  slider.addEventListener("input", function () { show(Number(slider.value)); });
  document.querySelectorAll("[data-stop]").forEach(function (b) {
    b.addEventListener("click", function () { show(Number(b.dataset.stop)); });
    b.addEventListener("keydown", function (e) { if (e.key === "Enter") show(Number(b.dataset.stop)); });
  });
  document.addEventListener("keydown", function (e) {
    const tag = (e.target && e.target.tagName) || "";
    if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA" || e.altKey || e.ctrlKey || e.metaKey) return;
    const keys = e.shiftKey ? {ArrowLeft: prevTurn, ArrowRight: nextTurn} : {
      ArrowLeft: function () { show(current - 1); }, ArrowRight: function () { show(current + 1); },
      Home: function () { show(0); }, End: function () { show(last); }};
    if (!keys[e.key]) return;
    e.preventDefault();
    keys[e.key]();
  });
  figures.forEach(function (fig) {
    fig.on("plotly_click", function (e) { if (e.points.length) jumpTo(Math.round(e.points[0].x)); });
  });
  window.loomBoard = {show: show, turns: data.turns};
  show(data.start);
})();
</script>
"""

WHATIF_SCRIPT = """
<script>
(function () {
  const data = JSON.parse(document.getElementById("board-data").textContent);
  data.players = [...document.querySelectorAll("#players li")].map(function (li) { return li.textContent; });
  const token = new URLSearchParams(location.search).get("token");
  const status = document.getElementById("whatif-status");
  const legal = document.getElementById("legal");
  const compare = document.getElementById("compare");
  const bots = document.getElementById("whatif-bot");
  data.bots.forEach(function (name) {
    const option = document.createElement("option");
    option.value = option.textContent = name;
    option.selected = name === data.bot;
    bots.appendChild(option);
  });
  function call(method, path, body, key) {
    const headers = {"Content-Type": "application/json"};
    if (key) headers["Authorization"] = "Bearer " + key;
    const sent = typeof body === "string" ? body : body ? JSON.stringify(body) : undefined;
    return fetch(path, {method: method, headers: headers, body: sent})
      .then(function (r) {
        return r.json().then(function (json) {
          if (!r.ok) throw new Error(json.error || r.statusText);
          return json;
        });
      });
  }
  function say(text) { status.textContent = text; }
  function item(text) { const li = document.createElement("li"); li.textContent = text; return li; }
  function tree() {
    call("GET", "/games/" + data.game + "/tree").then(function (root) {
      const list = document.getElementById("tree");
      list.replaceChildren();
      (function walk(node, into) {
        node.branches.forEach(function (b) {
          const li = item("game " + b.id + ": a branch at turn " + b.fork_turn + ", after event " + b.fork_seq +
            ", " + b.status +
            (b.winners && b.winners.length ? ", won by " + b.winners.map(function (s) {
              return data.players[s]; }).join(" and ") : ""));
          li.className = "branch";
          li.dataset.game = b.id;
          if (b.branches.length || b.whatifs.length) {
            const sub = document.createElement("ul"); walk(b, sub); li.appendChild(sub);
          }
          into.appendChild(li);
        });
        node.whatifs.forEach(function (w) {
          const li = item("what-if " + w.whatif + " of " + data.players[w.seat] + " at turn " + w.fork_turn +
                          ", after event " + w.fork_seq + ", on a sampled deal (seed " + w.seed + ")");
          li.className = "whatif";
          li.dataset.whatif = w.whatif;
          into.appendChild(li);
        });
      })(root, list);
      if (!list.children.length) list.appendChild(item("none yet"));
    }).catch(function (e) { say("the tree: " + e.message); });
  }
  function chances(game, turn, key) {
    return call("GET", "/games/" + game + "/chances?turn=" + turn + "&bot=" + encodeURIComponent(bots.value),
                null, key);
  }
  function column(title, settled) {
    const div = document.createElement("div");
    const h = document.createElement("h4");
    h.textContent = title;
    div.appendChild(h);
    if (settled.status !== "fulfilled") {
      div.appendChild(item("no chances: " + settled.reason.message));
      return div;
    }
    const answer = settled.value;
    const ul = document.createElement("ul");
    answer.chance.forEach(function (c, seat) {
      ul.appendChild(item(data.players[seat] + ": " + Math.round(c * 100) + "% ± " +
        Math.round(answer.margin[seat] * 100)));
    });
    div.appendChild(ul);
    return div;
  }
  const seedBox = document.getElementById("whatif-seed");
  const again = document.getElementById("deal-again");
  function branchBody(seq, action, seed) {
    // A seed is written into the JSON as typed: a number past 2^53 would lose digits in JavaScript.
    const body = JSON.stringify({seq: seq, actions: action ? [action] : [], bot: bots.value});
    return seed === "" ? body : body.slice(0, -1) + ',"seed":' + seed + "}";
  }
  function button(text, onclick) {
    const li = document.createElement("li"), b = document.createElement("button");
    b.type = "button";
    b.className = "legal";
    b.textContent = text;
    b.addEventListener("click", onclick);
    li.appendChild(b);
    legal.appendChild(li);
    return b;
  }
  function play(k, action, seed) {  // action null: no move of the reader's, the bot plays on from the position
    const seq = data.seqs[k], turn = data.turns[k];  // the fork: just after event seq, in turn `turn`
    if (seed !== "" && !/^[0-9]{1,19}$/.test(seed)) {
      say("refused: a seed is a whole number from 0 to 9223372036854775807");
      return;
    }
    say("branching after event " + seq + " (turn " + turn + ")…");
    again.hidden = true;
    legal.querySelectorAll("button").forEach(function (b) { b.disabled = true; });
    call("POST", "/games/" + data.game + "/branches", branchBody(seq, action, seed), token)
      .then(function (made) {
        // A seat's what-if (made.whatif) is no game: it is read, and its chances asked, under its parent.
        const name = made.whatif ? "what-if " + made.whatif : "game " + made.id;
        const dealt = made.whatif ? " (seed " + (seed !== "" ? seed : made.seed) + ")" : "";
        say(name + dealt + " made; estimating both lines' chances at the start of turn " + (turn + 1) + "…");
        tree();
        const other = made.whatif ? call("GET", "/games/" + data.game + "/whatifs/" + made.whatif + "/chances?turn=" +
                                         (turn + 1) + "&bot=" + encodeURIComponent(bots.value), null, token)
                                  : chances(made.id, turn + 1, made.tokens.table);
        return Promise.allSettled([chances(data.game, turn + 1, token), other]).then(function (both) {
          compare.replaceChildren(column("as played (game " + data.game + ")", both[0]),
                                  column("what if (" + name + ")" + dealt, both[1]));
          delete compare.dataset.whatif;
          delete compare.dataset.branch;
          if (made.whatif) compare.dataset.whatif = made.whatif; else compare.dataset.branch = made.id;
          compare.dataset.forkSeq = seq;
          const done = both.find(function (one) { return one.status === "fulfilled"; });
          say(name + dealt + ": " + made.status + "; chances to win at the start of turn " + (turn + 1) +
              " on each line" + (done ? ", by " + done.value.rollouts + " rollouts with " + done.value.bot : "") +
              (made.whatif ? ", each over deals sampled from your view (the real hidden cards are never used)" : ""));
          if (made.whatif) {
            again.hidden = false;
            again.onclick = function () { play(k, action, ""); };  // the same what-if, from a fresh seed
          }
        });
      })
      .catch(function (e) { say("refused: " + e.message); })
      .finally(function () { legal.querySelectorAll("button").forEach(function (b) { b.disabled = false; }); });
  }
  let asked = 0;
  document.addEventListener("board:position", function (e) {
    const k = e.detail.stop, seq = data.seqs[k], mine = ++asked;
    const where = "after event " + seq + " (turn " + e.detail.turn + ")";
    legal.replaceChildren();
    if (k === data.turns.length - 1) {
      say("the game is over here: step back to try another move");
      return;
    }
    call("GET", "/games/" + data.game + "/state?seq=" + seq, null, token).then(function (at) {
      if (mine !== asked) return;
      if (!at.legal) {
        say(where + ": " + (at.to_move === "chance" ? "chance" : data.players[at.to_move]) +
            " to move; only that seat's token or the table's lists its actions, but the bot may play on from here");
        button("play on from here with the bot", function () { play(k, null, seedBox.value.trim()); })
          .classList.add("play-on");
        return;
      }
      say(where + ": " + data.players[at.to_move] + " to move, " + at.legal.length + " legal actions");
      at.legal.forEach(function (action) {
        button(JSON.stringify(action), function () { play(k, action, seedBox.value.trim()); });
      });
    }).catch(function (e) { if (mine === asked) say(where + ": " + e.message); });
  });
  tree();
  if (window.loomBoard) {
    const k = Number(document.body.dataset.position || 0);
    const turn = Number(document.body.dataset.turn);
    document.dispatchEvent(new CustomEvent("board:position", {detail: {stop: k, turn: turn}}));
  }
})();
</script>
"""


def _json_script(element_id: str, data: Any) -> str:
    # "<" escaped so that no text from a log can close the script element
    text = json.dumps(data, ensure_ascii=False).replace("<", "\\u003c")
    return f'<script type="application/json" id="{element_id}">{text}</script>'


def replay_html(
    store: Store, game_id: int, seat: int | None = None, *, plotly: str | None = None, whatif: bool = False
) -> str:
    """The replay page of game `game_id`, as `seat` sees it (None: every card shown). `plotly` is the address to
    load plotly.js from (None: embedded, for a file); `whatif` adds the what-if panel of a served page."""
    info = store.game_row(game_id)
    game = get_game(info.game)
    if seat is not None and not 0 <= seat < info.players:
        raise LoomError(f"seat {seat} is out of range: game {game_id} has seats 0 to {info.players - 1}")
    events = store.load(game_id)
    names = list(fold(game, events[:1]).players)
    final = fold(game, events)
    stops = positions(game, events, seat)
    told = tell_game(game.name, events, names, seat)
    chances = store.win_chance_frame(game_id)
    moments = store.key_moment_frame(game_id)
    whose = "every card shown" if seat is None else f"as seat {seat} ({names[seat]}) saw it"
    lineage = f", a branch of game {info.parent_id}" if info.parent_id else ""
    summary = (
        f"{game.title}, game {game_id}{lineage}: {info.players} players ({', '.join(names)}), "
        f"{info.turns} turns, {info.last_seq} events, {info.status}; {whose}. Step with the buttons, the slider or "
        "the arrow keys, a move at a time (Shift: a turn; Home, End); a click on a move, a key moment or a chart jumps "
        "there."
    )
    paragraphs = [summary]
    figures = [_scores_figure(stops, names)]
    start = turn_starts(stops)[0]  # the board opens at the start of turn 1, once the cards are dealt
    curve = _chances_figure(chances, names, stops[start].turn)
    if curve is not None and seat is None:
        figures.append(curve)
    elif curve is not None:
        # Each rollout starts from the whole position (every hand), so a chance tells a seat about cards it never saw.
        paragraphs.append(
            "This game was analysed (logs analyse), but its chances to win were estimated with every seat's cards "
            "known: only the page with every card shows them."
        )
    lines, runs = encode_tables(stops)
    board = (
        '<div class="board"><div class="main">'
        f'{CONTROLS}<h3 id="turn-label"></h3><div id="table"></div>'
        f'<div id="final" hidden>{_final_html(game, final, names)}</div></div>'
        f'<div class="side"><h3>Moves</h3>{_moves_html(events, told)}</div></div>'
        # The names as the page's text, for its script to read as text: no name from a log is in its JSON data.
        + f'<ol id="players" hidden>{"".join(f"<li>{escape(name)}</li>" for name in names)}</ol>'
        + table_styles(lines)
        + _json_script("tables", {"lines": lines, "runs": runs})
        + _json_script(
            "board-data",
            {
                "game": game_id,
                "title": f"{game.title}, game {game_id}",
                "start": start,
                "seqs": [p.seq for p in stops],
                "turns": [p.turn for p in stops],
                "bots": sorted(game.bots),
                "bot": "greedy" if "greedy" in game.bots else sorted(game.bots)[0],
            },
        )
    )
    moments_html = _moments_html(game, moments, names, seat, told, stops)
    sections = [
        Section(f"{game.title}, game {game_id}", paragraphs, [], board),
        Section("Charts and key moments", [], figures, moments_html),
    ]
    tail = SCRIPT + (WHATIF + WHATIF_SCRIPT if whatif else "")
    return page(f"Loom replay: {game.title}, game {game_id}", sections, head=BOARD_STYLE, tail=tail, plotly=plotly)
