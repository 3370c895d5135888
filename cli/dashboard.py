"""`logs dashboard`: the analytic report over recorded games, as one HTML file that opens offline."""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from loom.cli.app import app
from loom.cli.common import Db, fails_cleanly, open_store, out, write_page


@app.command("dashboard")
@fails_cleanly
def dashboard_command(
    game: Annotated[str | None, typer.Option("--game", "-g", help="Only this game (default: every game).")] = None,
    since: Annotated[
        datetime | None,
        typer.Option(
            "--since",
            help="Only games recorded on or after this date (2026-12-01 or 2026-12-01T18:00).",
            formats=["%Y-%m-%d", "%Y-%m-%dT%H:%M", "%Y-%m-%d %H:%M"],
        ),
    ] = None,
    bot: Annotated[str | None, typer.Option("--bot", help="Only games in which this bot played a seat.")] = None,
    output: Annotated[Path, typer.Option("--output", "-o", help="The HTML file to write.")] = Path("dashboard.html"),
    db: Db = None,
) -> None:
    """Seat advantage, scores, the lead, balance and each game's own figures, for the chosen finished games."""
    from loom.dashboards.report import report_html  # plotly and pandas load only for the commands that draw

    with open_store(db, read_only=True, threads=os.cpu_count()) as store:
        html = report_html(store, game, since.astimezone() if since else None, bot)
    write_page(output, html)
    out.print(f"wrote the dashboard to {escape(str(output))} ({len(html) / 1e6:.1f} MB); open it in a browser")
