"""`logs dashboard`: the analytic report over recorded games, as one HTML file that opens offline."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from loom.cli.app import app
from loom.cli.common import Db, err, fails_cleanly, open_store, out, progress_bar, write_page
from loom.cli.exporting import Bot
from loom.events.base import LoomError
from loom.replay.projector import project
from loom.replay.store import Store, StoreError, default_db


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
    bot: Bot = None,
    self_play: Annotated[
        bool, typer.Option("--self-play", help="Only games in which one bot played every seat (seats exchangeable).")
    ] = False,
    output: Annotated[Path, typer.Option("--output", "-o", help="The HTML file to write.")] = Path("dashboard.html"),
    lake: Annotated[
        Path | None,
        typer.Option("--lake", help="Draw it from this Parquet lake (logs export --format parquet) instead of --db."),
    ] = None,
    db: Db = None,
) -> None:
    """Seat advantage, scores, the lead, balance and each game's own figures, for the chosen finished games."""
    from loom.dashboards.report import report_html  # plotly and pandas load only for the commands that draw

    when = since.astimezone() if since else None
    if lake is not None:
        if db is not None:
            raise LoomError("give --lake DIR or --db FILE, not both: the report is drawn from one of them")
        html, behind = _from_lake(lake, game, when, bot, self_play), 0
    else:
        catch_up(db)
        with open_store(db, read_only=True, threads=os.cpu_count()) as store, _steps() as progress:
            html = report_html(store, game, when, bot, self_play, progress)
            behind = store.report_behind(game)
    write_page(output, html)
    if behind:
        err.print(
            f"{behind} finished game{'s are' if behind != 1 else ' is'} not projected yet (the server's projector is "
            "behind) and left out of the dashboard; run it again in a moment",
            markup=False,
        )
    out.print(
        f"wrote the dashboard to {escape(str(output))} ({len(html) / 1e6:.1f} MB); open it in a browser", soft_wrap=True
    )


def _from_lake(lake: Path, game: str | None, since: datetime | None, bot: str | None, self_play: bool) -> str:
    """The report drawn by DuckDB straight from the lake's Parquet files (every lake game is projected)."""
    from loom.dashboards.report import report_html
    from loom.replay.lake import lake_store

    with lake_store(lake, threads=os.cpu_count()) as store, _steps() as progress:
        return report_html(store, game, since, bot, self_play, progress)


@contextmanager
def _steps() -> Iterator[Callable[[int, int], None]]:
    """A bar of the report's steps (each game's section, then the page), on a terminal only."""
    with progress_bar("drawing", None) as advance:
        yield lambda done, steps: advance(1)


def catch_up(db: Path | None) -> None:
    """Let the projector bring every game's facts up to its last event, when the file can be written: a file a
    server holds (its projector keeps up) or one that does not exist is left to the read that follows."""
    path = Path(db or default_db())
    if not path.exists():
        return
    try:
        store = Store.open(path)
    except StoreError:
        return  # locked by a running server, or not writable: the report reads what is projected
    with store:
        behind = store.games_behind()
        if behind:
            with progress_bar("projecting", behind) as progress:
                project(store, progress)
