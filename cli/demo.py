"""`logs demo`: simulate, replay at a middle turn, branch, show the tree, and draw the dashboards, in one go."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape
from rich.rule import Rule

from loom.cli.app import app
from loom.cli.common import Db, fails_cleanly, open_store, out, write_page
from loom.cli.replaying import tree_command
from loom.engine.presentation import presentation
from loom.engine.registry import get_game
from loom.replay.branches import branch
from loom.replay.replay import position
from loom.replay.simulate import simulate


@app.command("demo")
@fails_cleanly
def demo_command(
    game: Annotated[str, typer.Option("--game", help="The game to show.")] = "motto",
    games: Annotated[int, typer.Option("--games", "-n", min=1, max=1000, help="How many games to simulate.")] = 20,
    seed: Annotated[int, typer.Option("--seed")] = 7,
    pages: Annotated[Path, typer.Option("--pages", help="Where to write the dashboard and replay pages.")] = Path("."),
    db: Db = None,
) -> None:
    """A tour: simulate games, replay one at a middle turn, branch it twice, show its tree, draw the dashboards."""
    rules = get_game(game)
    bots = ["greedy", "random", "random"]  # three players: every game allows them
    with open_store(db) as store:
        out.print(Rule(f"1. Simulate {games} {escape(rules.title)} games: greedy against random"))
        ids = simulate(store, rules, games, bots, seed)
        wins = sum(
            1
            for game_id in ids
            for r in store.results(game_id)
            if r.winner and store.game(game_id).seats[r.seat].bot == "greedy"
        )
        out.print(f"recorded games {ids[0]} to {ids[-1]} in {escape(store.path)}; greedy won {wins} of {len(ids)}")

        game_id = ids[0]
        middle = max(1, store.game(game_id).turns // 2)
        out.print(
            Rule(f"2. Replay game {game_id} at the start of turn {middle} (logs replay {game_id} --turn {middle})")
        )
        out.print(presentation(rules.name).render(position(store, game_id, turn=middle).state, None))

        out.print(Rule(f"3. Branch it there: what if every seat played greedy, or random, from turn {middle}?"))
        for bot in ("greedy", "random"):
            new_id = branch(store, game_id, middle, [], bot)
            out.print(f"logs branch {game_id} --turn {middle} --bot {bot}  ->  game {new_id}")

    out.print(Rule(f"4. The tree of game {game_id} (logs tree {game_id})"))
    tree_command(game_id, db=db, as_json=False)

    out.print(Rule(f"5. Draw the dashboard (logs dashboard) and a replay page (logs replay {game_id} --html)"))
    from loom.cli.dashboard import catch_up
    from loom.dashboards.report import report_html  # plotly and pandas load only to draw
    from loom.dashboards.viewer import replay_html

    dashboard, replay_page = pages / "dashboard.html", pages / f"replay-{game_id}.html"
    catch_up(db)  # as `logs dashboard` does: the projector brings the games' facts up to date
    with open_store(db, read_only=True) as store:
        write_page(dashboard, report_html(store, rules.name))
        write_page(replay_page, replay_html(store, game_id))
    out.print(f"wrote {escape(str(dashboard))} and {escape(str(replay_page))}: open them in a browser", soft_wrap=True)
    out.print(
        f"\nNext: [bold]logs show {game_id}[/], [bold]logs replay {game_id} --turn 5 --as 0[/], "
        f"[bold]logs export {game_id}[/], [bold]logs dashboard --game {escape(rules.name)}[/]"
    )
