"""The figures only one game has: Moirai's objectives, Motto's token race, Moorea's products, Stones of Fate's cards.

Same shape as `figures.py`: a data step from the DataFrames of `replay/queries.py`, then a plot step.
"""

from __future__ import annotations

from html import escape
from typing import Any

import pandas as pd
import plotly.graph_objects as go

from loom.dashboards.figures import COLOURS, _layout

# --- Moirai: points by objective card and by objective ----------------------------------------------------------------


def _objectives_data(sources: pd.DataFrame) -> dict[str, dict[str, float]]:
    """Moirai's breakdown keys are objective cards ("clotho 2"); an objective is the Moira of its cards."""
    by_card = {escape(str(s)): float(m) for s, m in zip(sources["source"], sources["mean"])}
    weighted = sources.assign(objective=sources["source"].str.split().str[0], points=sources["mean"] * sources["seats"])
    grouped = weighted.groupby("objective")[["points", "seats"]].sum()
    by_objective = {escape(str(o)): float(row.points / row.seats) for o, row in grouped.iterrows()}
    return {"card": by_card, "objective": by_objective}


def _objectives_figure(data: dict[str, dict[str, float]]) -> go.Figure:
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
    return _layout(fig, "Moirai: points per seat, by objective card and by objective", "", "points")


def plot_objectives(sources: pd.DataFrame) -> go.Figure:
    return _objectives_figure(_objectives_data(sources))


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


def _token_race_figure(data: dict[str, Any]) -> go.Figure:
    fig = go.Figure()
    for place, shares in zip(data["places"], data["share"]):
        fig.add_bar(
            name=f"empty {place}{'st' if place == 1 else 'nd' if place == 2 else 'rd' if place == 3 else 'th'}",
            x=data["stacks"],
            y=shares,
            customdata=data["turn"],
            hovertemplate="%{x}: %{y:.0%} of games (about turn %{customdata:.0f})<extra>%{fullData.name}</extra>",
        )
    fig.update_layout(barmode="stack", yaxis_tickformat=".0%")
    return _layout(fig, "Motto: the token race, which stacks empty first", "token stack", "share of games")


def plot_token_race(race: pd.DataFrame, games: int) -> go.Figure:
    return _token_race_figure(_token_race_data(race, games))


# --- Moorea: product popularity against win rate ----------------------------------------------------------------------


def _products_data(products: pd.DataFrame) -> dict[str, list[Any]]:
    return {
        "product": [escape(str(p)) for p in products["product"]],
        "popularity": [s / a for s, a in zip(products["seats"], products["all_seats"])],
        "win_rate": [float(w) for w in products["win_rate"]],
        "seats": [int(s) for s in products["seats"]],
    }


def _products_figure(data: dict[str, list[Any]]) -> go.Figure:
    fig = go.Figure(
        go.Scatter(
            x=data["popularity"],
            y=data["win_rate"],
            text=data["product"],
            customdata=data["seats"],
            mode="markers+text",
            textposition="top center",
            marker={"size": 10, "color": COLOURS[2]},
            hovertemplate="%{text}: bought by %{x:.0%} of seats (%{customdata}), who won %{y:.0%}<extra></extra>",
        )
    )
    fig.update_layout(xaxis_tickformat=".0%", yaxis_tickformat=".0%")
    return _layout(fig, "Moorea: product popularity against win rate", "seats that bought it", "their win rate")


def plot_products(products: pd.DataFrame) -> go.Figure:
    return _products_figure(_products_data(products))


# --- Stones of Fate: card win rates and the zones that decide cards ---------------------------------------------------


def _card_wins_data(cards: pd.DataFrame) -> dict[str, list[Any]]:
    ranked = cards[cards["won"] > 0].sort_values("win_rate")
    return {
        "card": [escape(str(c)) for c in ranked["card"]],
        "win_rate": [float(w) for w in ranked["win_rate"]],
        "won": [int(n) for n in ranked["won"]],
    }


def _card_wins_figure(data: dict[str, list[Any]]) -> go.Figure:
    fig = go.Figure(
        go.Bar(
            x=data["win_rate"],
            y=data["card"],
            orientation="h",
            customdata=data["won"],
            marker_color=COLOURS[3],
            hovertemplate="%{y}: its winner won the game %{x:.0%} of %{customdata} times<extra></extra>",
        )
    )
    fig.update_layout(xaxis_tickformat=".0%")
    fig = _layout(fig, "Stones of Fate: how often the seat that won a card won the game", "game win rate", "")
    fig.update_layout(height=max(380, 14 * len(data["card"]) + 120))
    return fig


def plot_card_wins(cards: pd.DataFrame) -> go.Figure:
    return _card_wins_figure(_card_wins_data(cards))


def _zones_data(zones: pd.DataFrame) -> dict[str, list[Any]]:
    total = int(zones["cards"].sum())
    return {
        "zone": [str(z) for z in zones["zone"]],
        "share": [int(n) / total for n in zones["cards"]] if total else [],
        "cards": [int(n) for n in zones["cards"]],
    }


def plot_zones(zones: pd.DataFrame) -> go.Figure:
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
    fig.update_layout(yaxis_tickformat=".0%")
    return _layout(fig, "Stones of Fate: the kind of zone that decided each card", "zone", "share of cards")
