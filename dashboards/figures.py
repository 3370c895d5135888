"""The figures every game's report has: seat advantage, scores, margins, lengths, the lead, balance, bots.

Each figure is a data step (`_x_data`: DataFrames of the SQL in `replay/queries.py` in, plain data out) and a plot
step (`_x_figure`: that data in, a plotly figure out); `plot_x` runs both. Text that came from logs (player and bot
names, card names) is escaped where plotly would read it as markup.
"""

from __future__ import annotations

import re
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


@dataclass(frozen=True)
class Sample:
    """How many games (and seats in them) a figure is drawn from: every figure says it."""

    games: int
    seats: int | None = None

    def text(self) -> str:
        games = f"n = {self.games:,} game{'' if self.games == 1 else 's'}"
        return games if self.seats is None else f"{games}, {self.seats:,} seats"


def _layout(
    fig: go.Figure, title: str, x: str, y: str, sample: Sample | str | None = None, method: str = ""
) -> go.Figure:
    """The figure's title, its sample as the subtitle, and its method (one line, shown under it by the page). Every
    figure of the report gives both; the replay page's figures of one game need neither."""
    fig.update_layout(title=title, xaxis_title=x, yaxis_title=y, height=380, margin={"t": 60, "b": 50})
    if sample is not None:
        subtitle = sample if isinstance(sample, str) else sample.text()
        fig.update_layout(title={"text": title, "subtitle": {"text": subtitle}}, height=400, margin={"t": 80})
    if method:
        fig.update_layout(meta={"method": method})
    return fig


def rate(wins: int, n: int) -> tuple[float, float, float]:
    """A win rate with its 95% Wilson interval: (rate, low, high); a rate of no trials is 0 in [0, 1]."""
    low, high = wilson(wins, n)
    return (wins / n if n else 0.0), low, high


def _error(rates: list[float], low: list[float], high: list[float]) -> dict[str, Any]:
    """Error bars from intervals around rates."""
    return {
        "type": "data",
        "array": [h - r for h, r in zip(high, rates)],
        "arrayminus": [r - lo for lo, r in zip(low, rates)],
    }


def _natural(text: str) -> tuple[Any, ...]:
    """A sort key that orders the numbers in names as numbers: atropos 9 before atropos 10."""
    return tuple((0, int(part), "") if part.isdigit() else (1, 0, part) for part in re.split(r"(\d+)", text) if part)


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
    """Per player count, each seat's win rate in self-play games: only there are the seats exchangeable (every seat
    the same bot), so a difference between seats is the game's, not the bots'."""
    out = []
    own = seat_wins[seat_wins["self_play"].astype(bool)]
    for players, rows in own.groupby("players", sort=True):
        rows = rows.groupby("seat", sort=True)[["games", "wins"]].sum().reset_index()
        found = [rate(int(w), int(n)) for w, n in zip(rows["wins"], rows["games"])]
        out.append(
            SeatRates(
                players=int(players),  # type: ignore[call-overload]
                seats=[int(s) for s in rows["seat"]],
                games=[int(n) for n in rows["games"]],
                rates=[r for r, _, _ in found],
                low=[lo for _, lo, _ in found],
                high=[hi for _, _, hi in found],
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
            error_y=_error(rates.rates, rates.low, rates.high),
            customdata=rates.games,
            hovertemplate="%{x}: %{y:.1%} of %{customdata} games<extra>%{fullData.name}</extra>",
            marker_color=COLOURS[k % len(COLOURS)],
        )
        fig.add_hline(
            y=1 / rates.players,
            line_dash="dot",
            line_color=COLOURS[k % len(COLOURS)],
            opacity=0.8,
            annotation_text=f"fair share 1/{rates.players}",
            annotation_position="top right",
        )
    fig.update_layout(barmode="group", yaxis_tickformat=".0%", yaxis_range=[0, 1])
    games = sum(r.games[0] for r in data)
    return _layout(
        fig,
        "Seat advantage in self-play games: win rate per seat",
        "seat",
        "win rate",
        Sample(games, sum(sum(r.games) for r in data)),
        "Self-play games only (every seat the same bot, so seats are exchangeable): each seat's share of wins, "
        "95% Wilson interval; dotted: the fair share, 1 / players.",
    )


def plot_seat_advantage(seat_wins: pd.DataFrame) -> go.Figure | None:
    """Seat advantage measured in the self-play games (None: there are none)."""
    data = _seat_advantage_data(seat_wins)
    return _seat_advantage_figure(data) if data else None


@dataclass(frozen=True)
class BotSeats:
    """One bot's win rate at each seat of one player count, in games with other bots, and over all its seats."""

    players: int
    bot: str
    seats: list[int]
    games: list[int]
    rates: list[float]
    low: list[float]
    high: list[float]
    overall: float
    rotated: bool  # it played every seat: its seats met the same opponents, so they differ by the seat alone


def _bot_seats_data(bot_seat_wins: pd.DataFrame) -> list[BotSeats]:
    out = []
    mixed = bot_seat_wins[~bot_seat_wins["self_play"].astype(bool)]
    for (players, bot), rows in mixed.groupby(["players", "bot"], sort=True):
        found = [rate(int(w), int(n)) for w, n in zip(rows["wins"], rows["games"])]
        seats = [int(s) for s in rows["seat"]]
        out.append(
            BotSeats(
                players=int(players),  # type: ignore[call-overload]
                bot=escape(str(bot)),
                seats=seats,
                games=[int(n) for n in rows["games"]],
                rates=[r for r, _, _ in found],
                low=[lo for _, lo, _ in found],
                high=[hi for _, _, hi in found],
                overall=float(rows["wins"].sum() / rows["games"].sum()),
                rotated=seats == list(range(int(players))),  # type: ignore[call-overload]
            )
        )
    return out


def _bot_seats_figure(data: list[BotSeats]) -> go.Figure:
    several = len({b.players for b in data}) > 1
    bots = sorted({b.bot for b in data})
    fig = go.Figure()
    for b in data:
        colour = COLOURS[bots.index(b.bot) % len(COLOURS)]
        x = [f"seat {s} of {b.players}" if several else f"seat {s}" for s in b.seats]
        fig.add_bar(
            name=b.bot,
            legendgroup=b.bot,
            showlegend=b.players == min(o.players for o in data if o.bot == b.bot),
            x=x,
            y=b.rates,
            error_y=_error(b.rates, b.low, b.high),
            customdata=b.games,
            hovertemplate="%{x}: %{y:.1%} of %{customdata} seats<extra>%{fullData.name}</extra>",
            marker_color=colour,
            offsetgroup=b.bot,
        )
        fig.add_scatter(
            name=f"{b.bot}: all its seats",
            legendgroup=b.bot,
            showlegend=False,
            x=x,
            y=[b.overall] * len(x),
            mode="lines",
            line={"color": colour, "dash": "dot"},
            hovertemplate=f"{b.bot} over all its seats: %{{y:.1%}}<extra></extra>",
        )
    fig.update_layout(barmode="group", yaxis_tickformat=".0%", yaxis_range=[0, 1])
    games = sum(n for b in data for s, n in zip(b.seats, b.games) if s == 0)
    rotated = all(b.rotated for b in data)
    title = (
        "Seat advantage per bot, bots rotated over every seat: win rate per bot and seat"
        if rotated
        else "Win rate per bot and seat (no seat advantage: not every bot played every seat)"
    )
    return _layout(
        fig,
        title,
        "seat",
        "win rate",
        Sample(games, sum(sum(b.games) for b in data)),
        "Games with more than one bot: each bot's share of wins at each seat, 95% Wilson interval; dotted: its rate "
        "over all its seats. A bot that played every seat met the same opponents at each, so its seats differ by "
        "the seat alone.",
    )


def plot_bot_seats(bot_seat_wins: pd.DataFrame) -> go.Figure | None:
    """Win rate per bot and seat in the games with more than one bot (None: there are none)."""
    data = _bot_seats_data(bot_seat_wins)
    return _bot_seats_figure(data) if data else None


# --- Scores ----------------------------------------------------------------------------------------------------------


def _score_boxes_data(scores: pd.DataFrame, label: str) -> list[dict[str, Any]]:
    """One box per (player count, seat or bot) from quantiles computed in SQL: whiskers at the 5th and 95th."""
    boxes = []
    for players, who, n, q, mean in scores[["players", "who", "n", "q", "mean"]].itertuples(index=False):
        name = f"{label} {who}" if label == "seat" else escape(str(who))
        boxes.append({"group": f"{players} players", "name": name, "n": int(n), "q": list(q), "mean": float(mean)})
    return boxes


def _score_boxes_figure(boxes: list[dict[str, Any]], title: str, sample: Sample) -> go.Figure:
    fig = go.Figure()
    several = len({box["group"] for box in boxes}) > 1
    for box in boxes:
        low, q1, median, q3, high = box["q"]
        label = f"{box['name']}, {box['group']}" if several else box["name"]
        label = f"{label} (n={box['n']:,})"
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
    return _layout(
        fig,
        title,
        "",
        "points",
        sample,
        "Final scores of every seat (n: its seats): box from the 25th to the 75th percentile, line at the median, "
        "whiskers at the 5th and 95th.",
    )


def plot_scores(scores: pd.DataFrame, label: str, sample: Sample) -> go.Figure:
    """Score distributions per seat (label "seat") or per bot (label "bot")."""
    title = "Scores per seat" if label == "seat" else "Scores per bot"
    return _score_boxes_figure(_score_boxes_data(scores, label), title, sample)


def _counts_data(frame: pd.DataFrame, value: str, count: str) -> dict[str, list[int]]:
    return {"x": [int(v) for v in frame[value]], "y": [int(n) for n in frame[count]]}


def plot_margins(margins: pd.DataFrame) -> go.Figure:
    data = _counts_data(margins, "margin", "games")
    fig = go.Figure(go.Bar(x=data["x"], y=data["y"], marker_color=COLOURS[0]))
    return _layout(
        fig,
        "Margin of victory",
        "points",
        "games",
        Sample(sum(data["y"])),
        "Games by the winner's points over the best seat that did not win (a shared victory: 0).",
    )


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
    return _layout(
        fig,
        "Game length",
        "",
        "games",
        Sample(sum(data["turns"]["count"])),
        "Games by their number of turns and of events (bars of equal width when the values are many).",
    )


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


def _score_over_turns_figure(data: dict[int, dict[str, list[float]]], players: int, sample: Sample) -> go.Figure:
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
    return _layout(
        fig,
        f"Score over turns, {players}-player games",
        "turn",
        "points",
        sample,
        "Each seat's score at the end of each turn: the median, and the middle half of games shaded; only turns that a "
        "fifth of the games reach.",
    )


def plot_score_over_turns(frame: pd.DataFrame, players: int, sample: Sample) -> go.Figure:
    """Scores over turns in the games of `players` players (`sample`: those games)."""
    return _score_over_turns_figure(_score_over_turns_data(frame), players, sample)


def plot_lead_changes(lead_changes: pd.DataFrame) -> go.Figure:
    data = _counts_data(lead_changes, "changes", "games")
    fig = go.Figure(go.Bar(x=data["x"], y=data["y"], marker_color=COLOURS[4]))
    return _layout(
        fig,
        "Lead changes per game",
        "lead changes",
        "games",
        Sample(sum(data["y"])),
        "Games by how often a new seat was alone in the lead at the end of a turn.",
    )


# --- Balance, in the manner of Ludii's metrics ------------------------------------------------------------------------


@dataclass(frozen=True)
class Balance:
    """The balance figures of one player count."""

    players: int
    games: int
    self_play: int  # games, the sample of `balance`
    balance: float | None  # 1 - the largest gap between two seats' win rates in self-play games (None: none)
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
        own = rows[rows["self_play"].astype(bool)].groupby("seat")[["games", "wins"]].sum()
        rates = own["wins"] / own["games"]
        mid = midgame[midgame["players"] == players]
        late = behind[behind["players"] == players]
        decided = (1 - late["last_behind"] / late["turns"]).mean() if len(late) else 0.0
        out.append(
            Balance(
                players=int(players),  # type: ignore[call-overload]
                games=int(rows.loc[rows["seat"] == 0, "games"].sum()),
                self_play=int(own["games"].iloc[0]) if len(own) else 0,
                balance=float(1 - (rates.max() - rates.min())) if len(own) else None,
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

    header = ["players", "games", "self-play games", "balance", "decisiveness", "lead changes / game", "drama",
              "branching factor"]  # fmt: skip
    cells = [
        [b.players for b in data],
        [b.games for b in data],
        [b.self_play for b in data],
        [show(b.balance, ".1%") for b in data],
        [show(b.decisiveness, ".1%") for b in data],
        [show(b.lead_changes, ".2f") for b in data],
        [show(b.drama, ".1%") for b in data],
        [show(b.branching, ".1f") for b in data],
    ]
    fig = go.Figure(go.Table(header={"values": header, "align": "left"}, cells={"values": cells, "align": "left"}))
    fig = _layout(
        fig,
        "Balance (after Ludii's metrics)",
        "",
        "",
        Sample(sum(b.games for b in data)),
        "Balance: 1 - the widest gap between two seats' win rates, in self-play games only (n/a without them); "
        "decisiveness: the share of a game left once its winner led for good; drama: how often the mid-game leader "
        "lost; branching: legal actions per decision.",
    )
    fig.update_layout(height=150 + 30 * len(data), margin={"t": 80, "b": 10})
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


def plot_branching(branching: pd.DataFrame, sample: Sample) -> go.Figure:
    data = _branching_data(branching)
    fig = go.Figure(go.Scatter(x=data["progress"], y=data["factor"], mode="lines+markers", line={"color": COLOURS[2]}))
    return _layout(
        fig,
        "Branching factor over the game",
        "share of the game",
        "actions",
        sample,
        "Legal actions per decision, on average, in each tenth of the game's turns.",
    )


# --- Bots against bots ------------------------------------------------------------------------------------------------


def _bot_table_data(pairs: pd.DataFrame) -> dict[str, Any]:
    """Rows: a bot; columns: the opponent it met; cells: its win rate in those games, its seats and 95% interval."""
    bots = sorted(set(pairs["bot"]) | set(pairs["opponent"]))
    found = {
        (b, o): (*rate(round(r * n), int(n)), int(n))
        for b, o, r, n in pairs[["bot", "opponent", "win_rate", "seats"]].itertuples(index=False)
    }
    empty = (None, None, None, 0)
    return {
        "bots": [escape(b) for b in bots],
        "rates": [[found.get((b, o), empty)[0] for o in bots] for b in bots],
        "intervals": [[found.get((b, o), empty)[1:3] for o in bots] for b in bots],
        "seats": [[found.get((b, o), empty)[3] for o in bots] for b in bots],
    }


def _bot_table_figure(data: dict[str, Any], sample: Sample, baseline: float) -> go.Figure:
    def cell(r: float | None, n: int) -> str:
        return "" if r is None else f"{r:.0%}<br>n={n:,}"

    def interval(low: float | None, high: float | None) -> str:
        return "" if low is None or high is None else f"{low:.0%} to {high:.0%}"

    fig = go.Figure(
        go.Heatmap(
            z=data["rates"],
            x=[f"against {b}" for b in data["bots"]],
            y=data["bots"],
            customdata=[
                [[n, interval(*i)] for n, i in zip(seats, intervals)]
                for seats, intervals in zip(data["seats"], data["intervals"])
            ],
            text=[[cell(r, n) for r, n in zip(rates, seats)] for rates, seats in zip(data["rates"], data["seats"])],
            texttemplate="%{text}",
            hovertemplate="%{y} %{x}: %{z:.1%} over %{customdata[0]} seats (95%: %{customdata[1]})<extra></extra>",
            colorscale="RdBu",
            zmin=0,
            zmax=1,
            zmid=baseline,
        )
    )
    return _layout(
        fig,
        "Bot against bot: win rate of the row's bot in games with the column's",
        "",
        "",
        sample,
        f"Each cell: the row's bot's share of wins over its seats in games with the column's bot (n seats; hover: 95% "
        f"Wilson interval); white is the rate of all seats, {baseline:.0%}: redder is worse, bluer better.",
    )


def plot_bot_table(pairs: pd.DataFrame, sample: Sample, baseline: float) -> go.Figure:
    """Bot against bot; `baseline`: the win rate of all seats, the colour scale's middle."""
    return _bot_table_figure(_bot_table_data(pairs), sample, baseline)


# --- Points by source -------------------------------------------------------------------------------------------------


def _sources_data(sources: pd.DataFrame) -> dict[str, list[Any]]:
    return {
        "source": [escape(str(s)) for s in sources["source"]],
        "mean": [float(m) for m in sources["mean"]],
        "winners": [None if pd.isna(w) else float(w) for w in sources["winners_mean"]],
    }


def plot_points_by_source(sources: pd.DataFrame, sample: Sample) -> go.Figure:
    data = _sources_data(sources)
    fig = go.Figure()
    fig.add_bar(name="every seat", x=data["source"], y=data["mean"], marker_color=COLOURS[0])
    fig.add_bar(name="winners", x=data["source"], y=data["winners"], marker_color=COLOURS[1])
    fig.update_layout(barmode="group", xaxis_type="category")
    return _layout(
        fig,
        "Points by source: mean per seat",
        "",
        "points",
        sample,
        "Each source's points (the score's breakdown) averaged over every seat, and over the winning seats.",
    )
