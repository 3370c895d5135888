"""`logs whatif` and `logs analyse`: win chances by rollouts, a decision against its alternative, key moments."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

from loom.cli.app import app
from loom.cli.common import AsJson, Db, fails_cleanly, out, print_json
from loom.cli.replaying import Actions, _actions
from loom.replay.analysis import Analysis, Line, WhatIf, analyse, whatif
from loom.replay.chances import Chances
from loom.replay.store import Store, default_db

Rollouts = Annotated[int, typer.Option("--rollouts", "-k", min=1, max=100_000, help="Games played out per position.")]
RolloutBot = Annotated[str, typer.Option("--bot", help="The bot that plays the rollouts (greedy, random, mcts:N).")]
Seed = Annotated[int, typer.Option("--seed", help="Seed of the rollouts: the same seed gives the same chances.")]
Workers = Annotated[
    int | None,
    typer.Option("--workers", min=1, help="Processes for the rollouts (default: every core).", show_default=False),
]
Budget = Annotated[
    int | None,
    typer.Option(
        "--budget",
        min=1,
        max=1_000_000,
        help="Playouts per decision of the search bot (default: the game's).",
        show_default=False,
    ),
]


Cluster = Annotated[
    str | None,
    typer.Option(
        "--cluster",
        help="Play the rollouts on a Dask cluster: its scheduler (tcp://host:8786), or local (--workers processes).",
        show_default=False,
    ),
]


def _cores() -> int:
    return os.cpu_count() or 1


@contextmanager
def _rollouts_on(cluster: str | None, workers: int | None) -> Iterator[dict[str, Any]]:
    """The rollouts' workers (and, with --cluster, how to run them there): the same chances either way."""
    if cluster is None:
        yield {"workers": workers or _cores()}
        return
    from loom.replay.cluster import connect, mapper_of, worker_count

    with connect(cluster, workers) as client:
        yield {"workers": max(worker_count(client), 1), "mapper": mapper_of(client)}


def _percent(chances: Chances, seat: int) -> str:
    return f"{100 * chances.chance[seat]:.0f}% ± {100 * chances.margin[seat]:.0f}"


def _chances_json(chances: Chances) -> dict[str, Any]:
    return {"chances": list(chances.chance), "margins": list(chances.margin), "rollouts": chances.rollouts}


def _words(value: Any) -> str:
    if isinstance(value, list):
        return "[" + " ".join(_words(item) for item in value) + "]"
    return str(value)


def _action_text(action: dict[str, Any]) -> str:
    kind = action.get("type", action.get("event"))
    return " ".join([str(kind), *(_words(value) for key, value in action.items() if key not in ("type", "event"))])


def _actions_text(actions: Any) -> str:
    """Actions for a person: `take red-2-love`, `keep [29 up 2]` (escaped for rich); their JSON is in --json."""
    return escape("; ".join(_action_text(action) for action in actions))


def _path(db: Any) -> str:
    """The database path, which must already hold games."""
    path = str(db or default_db())
    Store.open(path, read_only=True).close()  # a clear error for a missing or foreign file, before any work
    return path


@app.command("whatif")
@fails_cleanly
def whatif_command(
    game_id: Annotated[int, typer.Argument(help="The game's id.")],
    turn: Annotated[int, typer.Option("--turn", "-t", help="The decision at the start of this turn.")],
    play: Actions = None,
    rollouts: Rollouts = 200,
    bot: RolloutBot = "greedy",
    seed: Seed = 0,
    workers: Workers = None,
    budget: Budget = None,
    cluster: Cluster = None,
    db: Db = None,
    as_json: AsJson = False,
) -> None:
    """The win chances of the recorded decisions against an alternative (--play, else the search bot's best other
    move), side by side; the alternative is stored as a branch of the game."""
    with _rollouts_on(cluster, workers) as running:
        result = whatif(
            _path(db),
            game_id,
            turn,
            _actions(play) or None,
            rollouts=rollouts,
            bot=bot,
            seed=seed,
            budget=budget,
            **running,
        )
    if as_json:
        print_json(_whatif_json(result))
        return
    _print_whatif(result)


def _line_json(line: Line) -> dict[str, Any]:
    return {"actions": list(line.actions), "seq": line.seq, **_chances_json(line.chances)}


def _whatif_json(result: WhatIf) -> dict[str, Any]:
    return {
        "id": result.game_id,
        "game": result.game,
        "turn": result.turn,
        "compared_turn": result.compared,
        "seat": result.seat,
        "players": list(result.players),
        "bot": result.before.bot,
        "before": _chances_json(result.before),
        "recorded": _line_json(result.recorded),
        "alternative": {"branch": result.alternative.branch, **_line_json(result.alternative)},
    }


def _print_whatif(result: WhatIf) -> None:
    table = Table(
        "", "decisions", *(f"{s} {escape(name)}" for s, name in enumerate(result.players)), title_justify="left"
    )
    table.title = (
        f"Game {result.game_id}, turn {result.turn}: seat {result.seat} decides (chances to win at the start of "
        f"turn {result.compared} on each line, by {result.before.rollouts} {escape(result.before.bot)} rollouts, "
        "95% margin)"
    )
    rows = (
        ("before", "", result.before),
        ("recorded", _actions_text(result.recorded.actions), result.recorded.chances),
        ("alternative", _actions_text(result.alternative.actions), result.alternative.chances),
    )
    for label, actions, chances in rows:
        marks = [_percent(chances, s) for s in range(len(result.players))]
        marks[result.seat] = f"[bold]{marks[result.seat]}[/]"
        table.add_row(label, actions, *marks, end_section=label == "before")
    out.print(table)
    change = result.alternative.chances.chance[result.seat] - result.recorded.chances.chance[result.seat]
    out.print(
        f"the alternative is stored as branch {result.alternative.branch} of game {result.game_id}, forked at the "
        f"start of turn {result.turn}; it changes seat {result.seat}'s chance to win by {100 * change:+.0f} points"
    )


@app.command("analyse")
@fails_cleanly
def analyse_command(
    game_id: Annotated[int, typer.Argument(help="The game's id.")],
    rollouts: Rollouts = 100,
    bot: RolloutBot = "greedy",
    moments: Annotated[int, typer.Option("--moments", min=0, help="How many key moments to find.")] = 5,
    seed: Seed = 0,
    workers: Workers = None,
    budget: Budget = None,
    cluster: Cluster = None,
    db: Db = None,
    as_json: AsJson = False,
) -> None:
    """Every seat's chance to win at the start of every turn, and the key moments: the decisions where a seat's
    chance moved most, with the search bot's best alternative. Stored for the dashboards."""
    with _rollouts_on(cluster, workers) as running:
        result = analyse(
            _path(db), game_id, rollouts=rollouts, bot=bot, seed=seed, moments=moments, budget=budget, **running
        )
    if as_json:
        print_json(_analysis_json(result))
        return
    _print_analysis(result)


def _analysis_json(result: Analysis) -> dict[str, Any]:
    return {
        "id": result.game_id,
        "game": result.game,
        "players": list(result.players),
        "curve": [{"seq": p.seq, "turn": p.turn, **_chances_json(p.chances)} for p in result.curve],
        "moments": [
            {
                "seq": m.seq,
                "turn": m.turn,
                "seat": m.seat,
                "before": m.before,
                "after": m.after,
                "action": m.action,
                "best_action": m.best_action,
                "best_chance": m.best_chance,
            }
            for m in result.moments
        ],
    }


def _print_analysis(result: Analysis) -> None:
    seats = range(len(result.players))
    last = result.curve[-1]
    curve = Table("turn", *(f"{s} {escape(name)}" for s, name in zip(seats, result.players)), title_justify="left")
    curve.title = (
        f"Game {result.game_id}: chances to win at the start of each turn "
        f"({last.chances.rollouts or result.curve[0].chances.rollouts} {escape(last.chances.bot)} rollouts each, "
        "95% margin)"
    )
    for point in result.curve:
        label = "end" if point is last else str(point.turn)
        curve.add_row(label, *(_percent(point.chances, s) for s in seats))
    out.print(curve)
    moments = Table("turn", "seat", "chance", "played", "search bot's best other move", "its chance")
    moments.title, moments.title_justify = "Key moments: where the chance of the seat to move changed most", "left"
    for m in result.moments:
        moments.add_row(
            str(m.turn),
            f"{m.seat} {escape(result.players[m.seat])}",
            f"{100 * m.before:.0f}% → {100 * m.after:.0f}%",
            _actions_text([m.action]),
            "" if m.best_action is None else _actions_text([m.best_action]),
            "" if m.best_chance is None else f"{100 * m.best_chance:.0f}%",
        )
    out.print(moments)
