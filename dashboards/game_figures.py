"""The figures only one game has: Moirai's objectives, Motto's token race, Moorea's products, Stones of Fate's cards.

Same shape as `figures.py`: a data step from the DataFrames of `replay/queries.py`, then a plot step; every figure
says its sample, and a figure of win rates draws each with its 95% interval and the rate of all seats beside it.
"""

from __future__ import annotations

from html import escape
from typing import Any

import pandas as pd
import plotly.graph_objects as go
from plotly.colors import sample_colorscale

from loom.dashboards.figures import COLOURS, Sample, _error, _layout, _natural, rate

# --- Moirai: points by objective card and by objective ----------------------------------------------------------------


def _objectives_data(sources: pd.DataFrame) -> dict[str, dict[str, float]]:
    """Moirai's breakdown keys are objective cards ("clotho 2"); an objective is the Moira of its cards. Cards in
    the order of their numbers within each objective (atropos 9, 10, 11, 12), not as text."""
    ordered = sorted(zip(sources["source"], sources["mean"]), key=lambda row: _natural(str(row[0])))
    by_card = {escape(str(s)): float(m) for s, m in ordered}
    weighted = sources.assign(objective=sources["source"].str.split().str[0], points=sources["mean"] * sources["seats"])
    grouped = weighted.groupby("objective")[["points", "seats"]].sum()
    by_objective = {escape(str(o)): float(row.points / row.seats) for o, row in grouped.iterrows()}
    return {"card": by_card, "objective": by_objective}


def _objectives_figure(data: dict[str, dict[str, float]], sample: Sample) -> go.Figure:
    from plotly.subplots import make_subplots

    fig = make_subplots(
        rows=1, cols=2, column_widths=[0.75, 0.25], subplot_titles=("by objective card", "by objective")
    )
    cards = data["card"]
    fig.add_bar(x=list(cards), y=list(cards.values()), marker_color=COLOURS[0], showlegend=False, row=1, col=1)
    objectives = data["objective"]
    fig.add_bar(
        x=list(objectives), y=list(objectives.values()), marker_color=COLOURS[1], showlegend=False, row=1, col=2
    )
    fig.update_xaxes(type="category", categoryorder="array", categoryarray=list(cards), row=1, col=1)
    fig.update_xaxes(type="category", row=1, col=2)
    return _layout(
        fig,
        "Moirai: points per seat, by objective card and by objective",
        "",
        "points",
        sample,
        "Each objective card's points averaged over every seat; an objective's, weighted by its cards' seats.",
    )


def plot_objectives(sources: pd.DataFrame, sample: Sample) -> go.Figure:
    return _objectives_figure(_objectives_data(sources), sample)


# --- Motto: the token race --------------------------------------------------------------------------------------------


def _token_race_data(race: pd.DataFrame, games: int) -> dict[str, Any]:
    """Per stack, the share of games in which it was the 1st, 2nd, ... to empty, and its median turn."""
    stacks = sorted(set(race["stack"]), key=lambda s: -race.loc[race["stack"] == s, "games"].sum())
    places = sorted(int(p) for p in set(race["place"]))
    share = {(s, int(p)): n / games for s, p, n in race[["stack", "place", "games"]].itertuples(index=False)}
    turn = race.assign(weight=race["turn"] * race["games"]).groupby("stack")[["weight", "games"]].sum()
    return {
        "stacks": [escape(str(s)) for s in stacks],
        "places": places,
        "share": [[share.get((s, p), 0.0) for s in stacks] for p in places],
        "turn": [float(turn.loc[s, "weight"] / turn.loc[s, "games"]) for s in stacks],
    }


def _ordinal(place: int) -> str:
    return f"{place}{'st' if place == 1 else 'nd' if place == 2 else 'rd' if place == 3 else 'th'}"


def _token_race_figure(data: dict[str, Any], sample: Sample) -> go.Figure:
    fig = go.Figure()
    colours = sample_colorscale("Viridis", [k / max(1, len(data["places"]) - 1) for k in range(len(data["places"]))])
    for place, shares, colour in zip(data["places"], data["share"], colours):
        fig.add_bar(
            name=f"emptied {_ordinal(place)}",
            marker_color=colour,
            x=data["stacks"],
            y=shares,
            customdata=data["turn"],
            hovertemplate="%{x}: %{y:.0%} of games (about turn %{customdata:.0f})<extra>%{fullData.name}</extra>",
        )
    # Stack names mix words and digits ("red", "3"): without a categorical axis plotly makes it numeric and drops
    # the words.
    fig.update_layout(
        barmode="stack",
        yaxis_tickformat=".0%",
        yaxis_range=[0, 1],
        xaxis={"type": "category", "categoryorder": "array", "categoryarray": data["stacks"]},
    )
    return _layout(
        fig,
        "Motto: the token race, which stacks empty first",
        "token stack",
        "share of games",
        sample,
        "Each stack's share of games in which it emptied 1st, 2nd, ...; the bar's height: the games in which it "
        "emptied at all.",
    )


def plot_token_race(race: pd.DataFrame, sample: Sample) -> go.Figure:
    return _token_race_figure(_token_race_data(race, sample.games), sample)


# --- Moorea: product popularity and the win rate of its buyers -------------------------------------------------------


def _products_data(products: pd.DataFrame) -> dict[str, list[Any]]:
    """Per product, by the win rate of the seats that bought it (lowest first): popularity, and that rate with its
    interval."""
    rows = sorted(
        zip(products["product"], products["seats"], products["all_seats"], products["win_rate"]),
        key=lambda row: (float(row[3]), str(row[0])),
    )
    found = [rate(round(float(w) * int(s)), int(s)) for _, s, _, w in rows]
    return {
        "product": [escape(str(p)) for p, _, _, _ in rows],
        "popularity": [int(s) / int(a) for _, s, a, _ in rows],
        "win_rate": [r for r, _, _ in found],
        "low": [lo for _, lo, _ in found],
        "high": [hi for _, _, hi in found],
        "seats": [int(s) for _, s, _, _ in rows],
    }


def _products_figure(data: dict[str, list[Any]], sample: Sample, baseline: float) -> go.Figure:
    from plotly.subplots import make_subplots

    fig = make_subplots(
        rows=1,
        cols=2,
        shared_yaxes=True,
        horizontal_spacing=0.03,
        subplot_titles=("seats that bought it", "their win rate (95% interval)"),
    )
    labels = [f"{p} (n={n:,})" for p, n in zip(data["product"], data["seats"])]
    fig.add_bar(
        x=data["popularity"],
        y=labels,
        orientation="h",
        marker_color=COLOURS[2],
        showlegend=False,
        hovertemplate="%{y}: bought by %{x:.0%} of seats<extra></extra>",
        row=1,
        col=1,
    )
    fig.add_scatter(
        x=data["win_rate"],
        y=labels,
        mode="markers",
        error_x=_error(data["win_rate"], data["low"], data["high"]),
        marker={"size": 8, "color": COLOURS[3]},
        showlegend=False,
        hovertemplate="%{y}: its buyers won %{x:.0%}<extra></extra>",
        row=1,
        col=2,
    )
    fig.add_vline(
        x=baseline,
        line_dash="dot",
        annotation_text=f"all seats {baseline:.0%}",
        row=1,
        col=2,  # type: ignore[arg-type]
    )
    fig.update_xaxes(tickformat=".0%")
    fig.update_xaxes(range=[0, 1], row=1, col=2)
    fig.update_yaxes(type="category")
    fig = _layout(
        fig,
        "Moorea: product popularity and the win rate of its buyers",
        "",
        "",
        sample,
        "Left: the share of seats that bought each product (n: those seats); right: how often they won, 95% Wilson "
        "interval; dotted: the win rate of all seats.",
    )
    fig.update_layout(height=max(400, 22 * len(labels) + 140))
    return fig


def plot_products(products: pd.DataFrame, sample: Sample, baseline: float) -> go.Figure:
    """Moorea's products; `baseline`: the win rate of all seats."""
    return _products_figure(_products_data(products), sample, baseline)


# --- Stones of Fate: card win rates and the zones that decide cards ---------------------------------------------------


def _card_wins_data(cards: pd.DataFrame) -> dict[str, list[Any]]:
    ranked = cards[cards["won"] > 0].sort_values(["win_rate", "card"])
    found = [rate(round(float(w) * int(n)), int(n)) for w, n in zip(ranked["win_rate"], ranked["won"])]
    return {
        "card": [escape(str(c)) for c in ranked["card"]],
        "win_rate": [r for r, _, _ in found],
        "low": [lo for _, lo, _ in found],
        "high": [hi for _, _, hi in found],
        "won": [int(n) for n in ranked["won"]],
    }


def _card_wins_figure(data: dict[str, list[Any]], sample: Sample, baseline: float) -> go.Figure:
    labels = [f"{c} (n={n:,})" for c, n in zip(data["card"], data["won"])]
    fig = go.Figure(
        go.Bar(
            x=data["win_rate"],
            y=labels,
            orientation="h",
            error_x=_error(data["win_rate"], data["low"], data["high"]),
            marker_color=COLOURS[3],
            hovertemplate="%{y}: its winner won the game %{x:.0%} of the time<extra></extra>",
        )
    )
    fig.add_vline(x=baseline, line_dash="dot", annotation_text=f"all seats {baseline:.0%}")
    fig.update_layout(xaxis_tickformat=".0%", xaxis_range=[0, 1], yaxis_type="category")
    fig = _layout(
        fig,
        "Stones of Fate: how often the seat that won a card won the game",
        "game win rate",
        "",
        sample,
        "Per card: the share of the seats that won it (n) that won the game, 95% Wilson interval; dotted: the win "
        "rate of all seats.",
    )
    fig.update_layout(height=max(400, 14 * len(labels) + 140))
    return fig


def plot_card_wins(cards: pd.DataFrame, sample: Sample, baseline: float) -> go.Figure:
    """Stones of Fate's cards; `baseline`: the win rate of all seats."""
    return _card_wins_figure(_card_wins_data(cards), sample, baseline)


def _zones_data(zones: pd.DataFrame) -> dict[str, list[Any]]:
    total = int(zones["cards"].sum())
    return {
        "zone": [escape(str(z)) for z in zones["zone"]],
        "share": [int(n) / total for n in zones["cards"]] if total else [],
        "cards": [int(n) for n in zones["cards"]],
    }


def plot_zones(zones: pd.DataFrame, sample: Sample) -> go.Figure:
    data = _zones_data(zones)
    fig = go.Figure(
        go.Bar(
            x=data["zone"],
            y=data["share"],
            customdata=data["cards"],
            marker_color=COLOURS[5],
            hovertemplate="%{x}: %{y:.0%} of cards (%{customdata})<extra></extra>",
        )
    )
    fig.update_layout(yaxis_tickformat=".0%", xaxis_type="category")
    return _layout(
        fig,
        "Stones of Fate: the kind of zone that decided each card",
        "zone",
        "share of cards",
        f"{sample.text()}; {sum(data['cards']):,} cards",
        "The share of all cards decided by each kind of zone (hover: the count).",
    )
