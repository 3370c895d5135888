"""Plotly dashboards over recorded games (issue: analytic dashboards)."""
