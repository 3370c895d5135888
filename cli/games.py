"""`logs simulate`, `logs list`, `logs show`: recording games and looking them up."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from loom.cli.app import app
from loom.cli.common import AsJson, Db, fails_cleanly, open_store, out, print_json, progress_bar
from loom.engine.registry import get_game, with_budget
from loom.replay.game_json import game_json
from loom.replay.live import Filter, find_games
from loom.replay.simulate import BATCH, fresh_seed, lineup, simulate

TAG_LABELS = {"date": "Played", "place": "Place", "event": "Event", "round": "Round", "notes": "Notes"}
"""How `logs show` names the log header's tags."""
MAX_GAMES = 1_000_000
"""The most games one command simulates or lists (a larger --limit lists them all)."""


@app.command("simulate")
@fails_cleanly
def simulate_command(
    game: Annotated[str, typer.Argument(help="motto, moirai, moorea or stones-of-fate")],
    games: Annotated[int, typer.Option("--games", "-n", min=1, max=MAX_GAMES, help="How many games to play.")] = 10,
    players: Annotated[int, typer.Option("--players", "-p", help="Players per game.")] = 3,
    bot: Annotated[list[str] | None, typer.Option("--bot", help="A bot for every seat, or one per seat.")] = None,
    seed: Annotated[
        int | None,
        typer.Option("--seed", min=0, help="Seed of the whole simulation (default: a fresh one, printed)."),
    ] = None,
    workers: Annotated[
        int | None,
        typer.Option(
            "--workers", "-w", min=1, help="Processes playing games (default: 1; --cluster local: the cores)."
        ),
    ] = None,
    budget: Annotated[int | None, typer.Option("--budget", help="Playouts per decision of the mcts bot.")] = None,
    cluster: Annotated[
        str | None,
        typer.Option(
            "--cluster", help="Play on a Dask cluster: its scheduler (tcp://host:8786), or local. Needs --lake."
        ),
    ] = None,
    lake: Annotated[
        Path | None, typer.Option("--lake", help="Write the games into this Parquet lake (docs/lake.md), not --db.")
    ] = None,
    chunk: Annotated[int, typer.Option("--chunk", min=1, help="Games per task with --lake.")] = BATCH,
    db: Db = None,
    as_json: AsJson = False,
) -> None:
    """Play games between bots and record them (into the store, or into a Parquet lake, on a Dask cluster)."""
    rules = get_game(game)
    bots = lineup(rules, players, with_budget(bot or [], budget))
    seed = fresh_seed() if seed is None else seed
    if cluster is not None or lake is not None:
        from loom.cli.simulating import simulate_lake

        simulate_lake(rules, games, bots, seed, cluster, lake, workers, chunk, as_json)
        return
    from loom.replay.columns import pyarrow_without_pandas

    pyarrow_without_pandas()  # bench/profiles/simulate.md: 0.2 s of CPU a command, for nothing it does
    with open_store(db) as store, progress_bar("simulating", games) as progress:
        ids = simulate(store, rules, games, bots, seed, progress, workers or 1)
    if as_json:
        print_json({"ids": ids, "seed": seed})
    else:
        out.print(f"recorded {len(ids)} {escape(rules.title)} games: ids {ids[0]} to {ids[-1]} (--seed {seed})")


@app.command("list")
@fails_cleanly
def list_command(
    game: Annotated[str | None, typer.Option("--game", help="Only games of this kind.")] = None,
    limit: Annotated[int, typer.Option("--limit", min=1, help="How many, newest first.")] = 20,
    db: Db = None,
    as_json: AsJson = False,
) -> None:
    """The newest recorded games."""
    if game is not None:
        get_game(game)
    with open_store(db, read_only=True) as store:
        infos = find_games(store, Filter(game, limit=min(limit, MAX_GAMES)))  # a larger limit than DuckDB takes: all
        winners = store.winners([info.id for info in infos])
    rows = [game_json(info, winners.get(info.id)) for info in infos]
    if as_json:
        print_json(rows)
        return
    table = Table("id", "game", "players", "turns", "status", "winners", "parent")
    for row in rows:
        table.add_row(
            str(row["id"]),
            escape(row["game"]),
            escape(", ".join(row["players"])),
            str(row["turns"]),
            escape(row["status"]),
            ", ".join(str(seat) for seat in row["winners"] or []),
            "" if row["parent"] is None else str(row["parent"]),
        )
    out.print(table)


@app.command("show")
@fails_cleanly
def show_command(
    game_id: Annotated[int, typer.Argument(help="The game's id.")], db: Db = None, as_json: AsJson = False
) -> None:
    """One game: players, scores, winners, turns, events, parent and fork."""
    with open_store(db, read_only=True) as store:
        info = store.game(game_id)
        results = store.results(game_id)
    data = game_json(info, results=results, seed=True)
    if as_json:
        print_json(data)
        return
    fork = f", branched from game {info.parent_id} after event {info.fork_seq}" if info.parent_id else ""
    out.print(
        f"[bold]Game {info.id}[/] — {escape(get_game(info.game).title)}, {escape(info.status)}, {info.turns} turns, "
        f"{info.last_seq} events, {escape(info.source)}{fork}"
    )
    for key, value in info.tags().items():
        out.print(f"{TAG_LABELS[key]}: {escape(value)}", soft_wrap=True)
    table = Table("seat", "player", "bot", "score", "rank", "breakdown")
    for seat, s in enumerate(info.seats):
        result = next((r for r in results if r.seat == seat), None)
        table.add_row(
            f"{'★ ' if result and result.winner else ''}{seat}",
            escape(s.name),
            escape(s.bot or "—"),
            str(result.score) if result else "",
            str(result.rank) if result else "",
            escape(", ".join(f"{k} {v}" for k, v in json.loads(result.breakdown).items())) if result else "",
        )
    out.print(table)
