"""The figures every game's report has: seat advantage, scores, margins, lengths, the lead, balance, bots.

Each figure is a data step (`_x_data`: DataFrames of the SQL in `replay/queries.py` in, plain data out) and a plot
step (`_x_figure`: that data in, a plotly figure out); `plot_x` runs both. Text that came from logs (player and bot
names, card names) is escaped where plotly would read it as markup.
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape
from typing import Any

import pandas as pd
import plotly.graph_objects as go
import plotly.io as pio

from loom.dashboards.stats import wilson

COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b")

# Plotly copies its (large) default template into every new figure, which cost more than all of a 100,000-game
# report's SQL; a template of only what the report changes is copied in no time.
pio.templates["loom"] = go.layout.Template(
    layout={
        "font": {"family": "system-ui, sans-serif", "color": "#2a3f5f"},
        "colorway": COLOURS,
        "plot_bgcolor": "white",
        "paper_bgcolor": "white",
        "xaxis": {"gridcolor": "#ebf0f8", "zerolinecolor": "#ebf0f8", "automargin": True},
        "yaxis": {"gridcolor": "#ebf0f8", "zerolinecolor": "#ebf0f8", "automargin": True},
        "hovermode": "closest",
    }
)
pio.templates.default = "loom"


def _layout(fig: go.Figure, title: str, x: str, y: str) -> go.Figure:
    fig.update_layout(title=title, xaxis_title=x, yaxis_title=y, height=380, margin={"t": 60, "b": 50})
    return fig


# --- Seat advantage ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SeatRates:
    """Win rate per seat, with its 95% interval, for one player count."""

    players: int
    seats: list[int]
    games: list[int]
    rates: list[float]
    low: list[float]
    high: list[float]


def _seat_advantage_data(seat_wins: pd.DataFrame) -> list[SeatRates]:
    out = []
    for players, rows in seat_wins.groupby("players", sort=True):
        intervals = [wilson(w, n) for w, n in zip(rows["wins"], rows["games"])]
        out.append(
            SeatRates(
                players=int(players),  # type: ignore[call-overload]
                seats=[int(s) for s in rows["seat"]],
                games=[int(n) for n in rows["games"]],
                rates=[w / n for w, n in zip(rows["wins"], rows["games"])],
                low=[lo for lo, _ in intervals],
                high=[hi for _, hi in intervals],
            )
        )
    return out


def _seat_advantage_figure(data: list[SeatRates]) -> go.Figure:
    fig = go.Figure()
    for k, rates in enumerate(data):
        fig.add_bar(
            name=f"{rates.players} players",
            x=[f"seat {s}" for s in rates.seats],
            y=rates.rates,
            error_y={
                "type": "data",
                "array": [hi - r for hi, r in zip(rates.high, rates.rates)],
                "arrayminus": [r - lo for lo, r in zip(rates.low, rates.rates)],
            },
            customdata=rates.games,
            hovertemplate="%{x}: %{y:.1%} of %{customdata} games<extra>%{fullData.name}</extra>",
            marker_color=COLOURS[k % len(COLOURS)],
        )
        fig.add_hline(y=1 / rates.players, line_dash="dot", line_color=COLOURS[k % len(COLOURS)], opacity=0.6)
    fig.update_layout(barmode="group", yaxis_tickformat=".0%")
    return _layout(fig, "Seat advantage: win rate per seat (95% interval; dotted: a fair share)", "seat", "win rate")


def plot_seat_advantage(seat_wins: pd.DataFrame) -> go.Figure:
    return _seat_advantage_figure(_seat_advantage_data(seat_wins))


# --- Scores ----------------------------------------------------------------------------------------------------------


def _score_boxes_data(scores: pd.DataFrame, label: str) -> list[dict[str, Any]]:
    """One box per (player count, seat or bot) from quantiles computed in SQL: whiskers at the 5th and 95th."""
    boxes = []
    for players, who, n, q, mean in scores[["players", "who", "n", "q", "mean"]].itertuples(index=False):
        name = f"{label} {who}" if label == "seat" else escape(str(who))
        boxes.append({"group": f"{players} players", "name": name, "n": int(n), "q": list(q), "mean": float(mean)})
    return boxes


def _score_boxes_figure(boxes: list[dict[str, Any]], title: str) -> go.Figure:
    fig = go.Figure()
    several = len({box["group"] for box in boxes}) > 1
    for box in boxes:
        low, q1, median, q3, high = box["q"]
        label = f"{box['name']}, {box['group']}" if several else box["name"]
        fig.add_box(
            x=[label],
            lowerfence=[low],
            q1=[q1],
            median=[median],
            q3=[q3],
            upperfence=[high],
            mean=[box["mean"]],
            name=label,
            showlegend=False,
        )
    return _layout(fig, title, "", "points")


def plot_scores(scores: pd.DataFrame, label: str) -> go.Figure:
    """Score distributions per seat (label "seat") or per bot (label "bot")."""
    title = "Scores per seat" if label == "seat" else "Scores per bot"
    return _score_boxes_figure(_score_boxes_data(scores, label), f"{title} (box: quartiles; whiskers: 5% to 95%)")


def _counts_data(frame: pd.DataFrame, value: str, count: str) -> dict[str, list[int]]:
    return {"x": [int(v) for v in frame[value]], "y": [int(n) for n in frame[count]]}


def plot_margins(margins: pd.DataFrame) -> go.Figure:
    data = _counts_data(margins, "margin", "games")
    fig = go.Figure(go.Bar(x=data["x"], y=data["y"], marker_color=COLOURS[0]))
    return _layout(fig, "Margin of victory (the winner's points over the runner-up's)", "points", "games")


def _histogram(values: pd.Series, bins: int = 40) -> dict[str, list[int]]:
    """Counts per whole-number bin: one bin per value when there are few, else `bins` bins of equal width."""
    if values.empty:
        return {"start": [], "count": []}
    low, high = int(values.min()), int(values.max())
    width = max(1, -(-(high - low + 1) // bins))
    counts = ((values - low) // width).value_counts().sort_index()
    return {"start": [low + int(b) * width for b in counts.index], "count": [int(n) for n in counts], "width": [width]}


def _lengths_data(lengths: pd.DataFrame) -> dict[str, dict[str, list[int]]]:
    return {"turns": _histogram(lengths["turns"]), "events": _histogram(lengths["events"])}


def _lengths_figure(data: dict[str, dict[str, list[int]]]) -> go.Figure:
    from plotly.subplots import make_subplots

    fig = make_subplots(rows=1, cols=2, subplot_titles=("turns", "events"))
    for col, key in enumerate(("turns", "events"), start=1):
        bars = data[key]
        width = bars.get("width", [1])[0]
        fig.add_bar(
            x=[start + (width - 1) / 2 for start in bars["start"]],
            y=bars["count"],
            width=width * 0.9,
            marker_color=COLOURS[col],
            showlegend=False,
            row=1,
            col=col,
        )
    return _layout(fig, "Game length", "", "games")


def plot_lengths(lengths: pd.DataFrame) -> go.Figure:
    return _lengths_figure(_lengths_data(lengths))


# --- Score over turns and the lead ------------------------------------------------------------------------------------


QUANTILES = {"p10": 0.1, "p25": 0.25, "p50": 0.5, "p75": 0.75, "p90": 0.9}


def _score_over_turns_data(counts: pd.DataFrame) -> dict[int, dict[str, list[float]]]:
    """Per seat: the turns, and the 10th, 25th, 50th, 75th and 90th percentiles of its score at each, from how many
    games had each score (a percentile is the lowest score that many games reach).

    Only turns that a fifth of the games reach: beyond, a handful of long games would stand for all."""
    ordered = counts.sort_values(["seat", "turn", "score"])
    groups = ordered.groupby(["seat", "turn"], sort=False)
    share = groups["games"].cumsum() / groups["games"].transform("sum")
    reached = groups["games"].transform("sum")
    ordered = ordered.assign(share=share, reached=reached)
    ordered = ordered[ordered["reached"] >= ordered["reached"].max() / 5]
    out: dict[int, dict[str, list[float]]] = {}
    for (seat, turn), rows in ordered.groupby(["seat", "turn"], sort=True):
        series = out.setdefault(int(seat), {"turn": [], **{name: [] for name in QUANTILES}})  # type: ignore[call-overload]
        series["turn"].append(int(turn))  # type: ignore[call-overload]
        for name, q in QUANTILES.items():
            series[name].append(float(rows["score"][rows["share"] >= q - 1e-9].iloc[0]))
    return out


def _score_over_turns_figure(data: dict[int, dict[str, list[float]]], players: int) -> go.Figure:
    fig = go.Figure()
    for seat, series in data.items():
        colour = COLOURS[seat % len(COLOURS)]
        fig.add_scatter(
            x=series["turn"] + series["turn"][::-1],
            y=series["p75"] + series["p25"][::-1],
            fill="toself",
            fillcolor=colour,
            opacity=0.15,
            line={"width": 0},
            hoverinfo="skip",
            showlegend=False,
        )
        fig.add_scatter(x=series["turn"], y=series["p50"], name=f"seat {seat}", line={"color": colour})
    title = f"Score over turns, {players}-player games: median, and the middle half of games shaded"
    return _layout(fig, title, "turn", "points")


def plot_score_over_turns(frame: pd.DataFrame, players: int) -> go.Figure:
    return _score_over_turns_figure(_score_over_turns_data(frame), players)


def plot_lead_changes(lead_changes: pd.DataFrame) -> go.Figure:
    data = _counts_data(lead_changes, "changes", "games")
    fig = go.Figure(go.Bar(x=data["x"], y=data["y"], marker_color=COLOURS[4]))
    return _layout(fig, "Lead changes per game (a new seat alone in the lead)", "lead changes", "games")


# --- Balance, in the manner of Ludii's metrics ------------------------------------------------------------------------


@dataclass(frozen=True)
class Balance:
    """The balance figures of one player count."""

    players: int
    games: int
    balance: float  # 1 - the largest gap between two seats' win rates
    decisiveness: float  # the share of a game still to play once its winner led for good, on average
    lead_changes: float  # per game, on average
    drama: float | None  # how often the seat alone in the lead at mid-game did not win (None: never a sole leader)
    branching: float | None  # legal actions per decision, on average


def _balance_data(
    seat_wins: pd.DataFrame,
    lead_changes: pd.DataFrame,
    midgame: pd.DataFrame,
    behind: pd.DataFrame,
    branching: pd.DataFrame,
) -> list[Balance]:
    """The figures per player count; lead changes and branching are over every chosen game."""
    total_games = int(lead_changes["games"].sum())
    changes = float((lead_changes["changes"] * lead_changes["games"]).sum() / total_games) if total_games else 0.0
    decisions = int(branching["decisions"].sum())
    factor = float(branching["choices"].sum() / decisions) if decisions else None
    out = []
    for players, rows in seat_wins.groupby("players", sort=True):
        rates = rows["wins"] / rows["games"]
        mid = midgame[midgame["players"] == players]
        late = behind[behind["players"] == players]
        decided = (1 - late["last_behind"] / late["turns"]).mean() if len(late) else 0.0
        out.append(
            Balance(
                players=int(players),  # type: ignore[call-overload]
                games=int(rows["games"].iloc[0]),
                balance=float(1 - (rates.max() - rates.min())),
                decisiveness=float(decided),
                lead_changes=changes,
                drama=float(1 - mid["leader_won"].mean()) if len(mid) else None,
                branching=factor,
            )
        )
    return out


def _balance_figure(data: list[Balance]) -> go.Figure:
    def show(value: float | None, form: str) -> str:
        return "n/a" if value is None else format(value, form)

    header = ["players", "games", "balance", "decisiveness", "lead changes / game", "drama", "branching factor"]
    cells = [
        [b.players for b in data],
        [b.games for b in data],
        [show(b.balance, ".1%") for b in data],
        [show(b.decisiveness, ".1%") for b in data],
        [show(b.lead_changes, ".2f") for b in data],
        [show(b.drama, ".1%") for b in data],
        [show(b.branching, ".1f") for b in data],
    ]
    fig = go.Figure(go.Table(header={"values": header, "align": "left"}, cells={"values": cells, "align": "left"}))
    fig.update_layout(title="Balance (after Ludii's metrics)", height=160 + 35 * len(data), margin={"t": 50, "b": 10})
    return fig


def plot_balance(
    seat_wins: pd.DataFrame,
    lead_changes: pd.DataFrame,
    midgame: pd.DataFrame,
    behind: pd.DataFrame,
    branching: pd.DataFrame,
) -> go.Figure:
    return _balance_figure(_balance_data(seat_wins, lead_changes, midgame, behind, branching))


def _branching_data(branching: pd.DataFrame) -> dict[str, list[float]]:
    return {
        "progress": [f"{10 * d}-{10 * d + 10}%" for d in branching["decile"]],
        "factor": [c / d for c, d in zip(branching["choices"], branching["decisions"])],
    }


def plot_branching(branching: pd.DataFrame) -> go.Figure:
    data = _branching_data(branching)
    fig = go.Figure(go.Scatter(x=data["progress"], y=data["factor"], mode="lines+markers", line={"color": COLOURS[2]}))
    return _layout(fig, "Branching factor over the game (legal actions per decision)", "share of the game", "actions")


# --- Bots against bots ------------------------------------------------------------------------------------------------


def _bot_table_data(pairs: pd.DataFrame) -> dict[str, Any]:
    """Rows: a bot; columns: the opponent it met; cells: its win rate in those games."""
    bots = sorted(set(pairs["bot"]) | set(pairs["opponent"]))
    rate = {
        (b, o): (float(r), int(n))
        for b, o, r, n in pairs[["bot", "opponent", "win_rate", "seats"]].itertuples(index=False)
    }
    return {
        "bots": [escape(b) for b in bots],
        "rates": [[rate.get((b, o), (None, 0))[0] for o in bots] for b in bots],
        "seats": [[rate.get((b, o), (None, 0))[1] for o in bots] for b in bots],
    }


def _bot_table_figure(data: dict[str, Any]) -> go.Figure:
    fig = go.Figure(
        go.Heatmap(
            z=data["rates"],
            x=[f"against {b}" for b in data["bots"]],
            y=data["bots"],
            customdata=data["seats"],
            text=[["" if r is None else f"{r:.0%}" for r in row] for row in data["rates"]],
            texttemplate="%{text}",
            hovertemplate="%{y} %{x}: %{z:.1%} over %{customdata} seats<extra></extra>",
            colorscale="RdBu",
            zmin=0,
            zmax=1,
        )
    )
    return _layout(fig, "Bot against bot: win rate of the row's bot in games with the column's", "", "")


def plot_bot_table(pairs: pd.DataFrame) -> go.Figure:
    return _bot_table_figure(_bot_table_data(pairs))


# --- Points by source -------------------------------------------------------------------------------------------------


def _sources_data(sources: pd.DataFrame) -> dict[str, list[Any]]:
    return {
        "source": [escape(str(s)) for s in sources["source"]],
        "mean": [float(m) for m in sources["mean"]],
        "winners": [None if pd.isna(w) else float(w) for w in sources["winners_mean"]],
    }


def plot_points_by_source(sources: pd.DataFrame, title: str = "Points by source") -> go.Figure:
    data = _sources_data(sources)
    fig = go.Figure()
    fig.add_bar(name="every seat", x=data["source"], y=data["mean"], marker_color=COLOURS[0])
    fig.add_bar(name="winners", x=data["source"], y=data["winners"], marker_color=COLOURS[1])
    fig.update_layout(barmode="group")
    return _layout(fig, f"{title}: mean per seat", "", "points")
