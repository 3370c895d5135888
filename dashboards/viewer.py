"""`logs replay ID --html FILE`: one game as a page that steps through it with a turn slider.

The table at every turn is the game's own rendering (the one `logs replay` prints), exported by rich as escaped
HTML; the score-over-turns chart is a plotly figure whose slider frames move a marker to the turn shown, and a few
lines of script swap the table in when the slider moves. With a seat, every table and score is that seat's view.
"""

from __future__ import annotations

import io
import json
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape
from typing import Any

import pandas as pd
import plotly.graph_objects as go
from rich.console import Console

from loom.dashboards.figures import COLOURS, _layout
from loom.dashboards.page import Section, page
from loom.engine.moves import advice_for, seen_move
from loom.engine.presentation import presentation
from loom.engine.protocol import Game
from loom.engine.registry import get_game
from loom.events.base import LoomError
from loom.replay.replay import fold
from loom.replay.store import Store


@dataclass(frozen=True)
class Frame:
    """One stop of the slider: the start of a turn, or the end of the game."""

    label: str
    turn: int
    seq: int
    scores: list[int]
    table: str  # escaped HTML


def _table_html(game: Game, state: Any, seat: int | None) -> str:
    # The games draw names as Text; no markup or emoji codes either way, so no string can become a link or a style.
    console = Console(
        record=True,
        width=120,
        file=io.StringIO(),
        color_system="truecolor",
        highlight=False,
        markup=False,
        emoji=False,
    )
    console.print(presentation(game.name).render(state, seat))
    return console.export_html(inline_styles=True, code_format='<pre class="table">{code}</pre>')


def frames(game: Game, events: Sequence[Any], seat: int | None) -> list[Frame]:
    """The position at the start of every turn from 1 on, then at the end, as `seat` (None: everyone) sees it."""
    out: list[Frame] = []
    state, seq = game.blank(), 0

    def stop(label: str, turn: int) -> None:
        shown = state if seat is None else game.view(state, seat)
        out.append(Frame(label, turn, seq, list(game.scores(shown)), _table_html(game, shown, seat)))

    for event in events:
        if event.turn > 0 and (not out or event.turn > out[-1].turn):
            stop(f"turn {event.turn}", event.turn)
        state = game.apply(state, event.payload)
        seq = event.seq
    stop("end", out[-1].turn + 1 if out else 1)
    return out


def _scores_figure(stops: list[Frame], names: list[str]) -> go.Figure:
    fig = go.Figure()
    turns = [f.turn for f in stops]
    for seat, name in enumerate(names):
        fig.add_scatter(
            x=turns,
            y=[f.scores[seat] for f in stops],
            name=escape(name),
            mode="lines",
            line={"shape": "hv", "color": COLOURS[seat % len(COLOURS)]},
        )
    first = stops[0].turn
    fig.update_layout(shapes=[_marker(first)])
    fig.frames = [go.Frame(name=str(k), layout={"shapes": [_marker(f.turn)]}) for k, f in enumerate(stops)]
    fig.update_layout(
        sliders=[
            {
                "active": 0,
                "currentvalue": {"prefix": "position: "},
                "pad": {"t": 50},
                "steps": [
                    {
                        "label": f.label,
                        "method": "animate",
                        "args": [[str(k)], {"mode": "immediate", "frame": {"duration": 0, "redraw": True}}],
                    }
                    for k, f in enumerate(stops)
                ],
            }
        ]
    )
    _layout(fig, "Score over turns", "turn", "points")
    fig.update_layout(height=460)
    return fig


def _marker(turn: int) -> dict[str, Any]:
    return {"type": "line", "x0": turn, "x1": turn, "yref": "paper", "y0": 0, "y1": 1, "line": {"dash": "dot"}}


def _chances_figure(chances: pd.DataFrame, names: list[str]) -> go.Figure | None:
    """The win-chance curves of `logs analyse`, if the game was analysed."""
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
    fig.update_layout(yaxis_tickformat=".0%")
    return _layout(fig, "Chance to win (logs analyse; bars: 95% margin)", "turn", "chance to win")


def _moments_html(game: Game, moments: pd.DataFrame, names: list[str], seat: int | None) -> str:
    """The key moments; for a seat, each move as that seat saw it, the best action only for its own moves, and no
    chance (the chances were estimated from every seat's cards)."""
    if moments.empty:
        return ""

    def played(m: Any) -> str:
        return escape(json.dumps(seen_move(game.name, json.loads(m.action), int(m.seat), seat)))

    def best(m: Any) -> str:
        action = advice_for(None if m.best_action is None else json.loads(m.best_action), int(m.seat), seat)
        if action is None:
            return ""
        chance = f" ({m.best_chance:.0%})" if seat is None else ""
        return f"<code>{escape(json.dumps(action))}</code>{chance}"

    def chance(m: Any) -> str:
        return f"<td>{m.before:.0%} → {m.after:.0%}</td>" if seat is None else ""

    rows = "".join(
        f"<tr><td>{m.turn}</td><td>{escape(names[m.seat])}</td>{chance(m)}"
        f"<td><code>{played(m)}</code></td><td>{best(m)}</td></tr>"
        for m in moments.itertuples()
    )
    heading = "<th>chance to win</th>" if seat is None else ""
    note = "" if seat is None else f'<p class="note">Each move as seat {seat} saw it; the best found for its own.</p>'
    return (
        f'<h3>Key moments</h3>{note}<table class="plain"><tr><th>turn</th><th>seat</th>{heading}'
        f"<th>played</th><th>best found</th></tr>{rows}</table>"
    )


SCRIPT = """
<script>
(function () {
  const tables = JSON.parse(document.getElementById("tables").textContent);
  const labels = JSON.parse(document.getElementById("labels").textContent);
  const graph = document.getElementById("figure-1");
  function show(k) {
    document.getElementById("table").innerHTML = tables[k];
    document.getElementById("turn-label").textContent = labels[k];
    document.body.dataset.position = k;
  }
  graph.on("plotly_sliderchange", function (e) { show(e.step._index); });
  show(0);
})();
</script>
"""


def _json_script(element_id: str, data: Any) -> str:
    # "<" escaped so that no text from a log can close the script element
    text = json.dumps(data, ensure_ascii=False).replace("<", "\\u003c")
    return f'<script type="application/json" id="{element_id}">{text}</script>'


def replay_html(store: Store, game_id: int, seat: int | None = None) -> str:
    """The replay page of game `game_id`, as `seat` sees it (None: every card shown)."""
    info = store.game_row(game_id)
    game = get_game(info.game)
    if seat is not None and not 0 <= seat < info.players:
        raise LoomError(f"seat {seat} is out of range: game {game_id} has seats 0 to {info.players - 1}")
    events = store.load(game_id)
    names = list(fold(game, events[:1]).players)
    stops = frames(game, events, seat)
    chances = store.win_chance_frame(game_id)
    moments = store.key_moment_frame(game_id)
    whose = "every card shown" if seat is None else f"as seat {seat} ({names[seat]}) saw it"
    lineage = f", a branch of game {info.parent_id}" if info.parent_id else ""
    summary = (
        f"{game.title}, game {game_id}{lineage}: {info.players} players ({', '.join(names)}), "
        f"{info.turns} turns, {info.last_seq} events, {info.status}; {whose}. Move the slider to step through it."
    )
    figures = [_scores_figure(stops, names)]
    paragraphs = [summary]
    curve = _chances_figure(chances, names)
    if curve is not None and seat is None:
        figures.append(curve)
    elif curve is not None:
        # Each rollout starts from the whole position (every hand), so a chance tells a seat about cards it never saw.
        paragraphs.append(
            "This game was analysed (logs analyse), but its chances to win were estimated with every seat's cards "
            "known: only the page with every card shows them."
        )
    board = (
        '<h3 id="turn-label"></h3><div id="table"></div>'
        + _json_script("tables", [f.table for f in stops])
        + _json_script("labels", [f"{game.title}, game {game_id}: {f.label} (after event {f.seq})" for f in stops])
    )
    moments_html = _moments_html(game, moments, names, seat)
    sections = [Section(f"{game.title}, game {game_id}", paragraphs, figures, board + moments_html)]
    return page(f"Loom replay: {game.title}, game {game_id}", sections, tail=SCRIPT)
