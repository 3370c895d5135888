"""`logs replay`, `logs branch`, `logs play`, `logs tree`: positions, what-ifs and the tree of branches."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import orjson
import typer
from rich.console import Group
from rich.markup import escape
from rich.text import Text
from rich.tree import Tree

from loom.cli.app import app
from loom.cli.common import AsJson, Db, fails_cleanly, open_store, out, print_json, write_page
from loom.engine.presentation import presentation, seen_as
from loom.engine.protocol import CHANCE_TO_MOVE
from loom.engine.registry import get_game
from loom.engine.telling import tell_game
from loom.events.base import Event, LoomError, started
from loom.replay.branches import (
    MAX_SEED,
    Node,
    WhatIf,
    branch,
    continue_game,
    plan_whatif,
    record_whatif,
    tree,
)
from loom.replay.replay import Position, position

Turn = Annotated[int | None, typer.Option("--turn", "-t", help="The start of this turn (turn 1 is the first).")]
Actions = Annotated[
    list[str] | None,
    typer.Option("--play", help='An action as JSON, e.g. \'{"type": "draw"}\'; repeat for several.'),
]
BotName = Annotated[str | None, typer.Option("--bot", help="Play the rest of the game with this bot.")]
Seq = Annotated[
    int | None,
    typer.Option(
        "--seq", help="Just after this event, in the middle of a turn too (its number in --moves and on the board)."
    ),
]


MAX_ACTION_DEPTH = 16
"""How deep an action's JSON may nest: an action is an object of a few fields and short lists (depth 2 or 3)."""


def _actions(texts: list[str] | None) -> list[Any]:
    """The --play actions, parsed; a LoomError naming the first one that is not JSON or nests too deep."""
    actions = []
    for number, text in enumerate(texts or [], start=1):
        too_deep = LoomError(f"--play {number} nests more than {MAX_ACTION_DEPTH} levels of lists and objects")
        try:
            action = orjson.loads(text)  # orjson stops at 1024 levels, where the json module would overflow the stack
        except orjson.JSONDecodeError as error:
            if error.msg.startswith("depth limit"):
                raise too_deep from None
            raise LoomError(f"--play {number} is not JSON: {error.msg} at column {error.colno}") from None
        if _deeper_than(action, MAX_ACTION_DEPTH):
            raise too_deep
        actions.append(action)
    return actions


def _deeper_than(value: Any, limit: int) -> bool:
    """Whether lists and objects nest more than `limit` levels in `value` (without recursion, whatever the depth)."""
    stack = [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict | list):
            if level > limit:
                return True
            stack.extend((child, level + 1) for child in (item.values() if isinstance(item, dict) else item))
    return False


@app.command("replay")
@fails_cleanly
def replay_command(
    game_id: Annotated[int, typer.Argument(help="The game's id.")],
    turn: Turn = None,
    seq: Seq = None,
    seat: Annotated[int | None, typer.Option("--as", help="Show only what this seat could know.")] = None,
    html: Annotated[
        Path | None, typer.Option("--html", help="Write the whole game as a page with a turn slider to this file.")
    ] = None,
    moves: Annotated[
        bool, typer.Option("--moves", help="The numbered moves in words, up to the position, as the seat saw them.")
    ] = False,
    legal: Annotated[
        bool,
        typer.Option(
            "--legal", help="The legal actions of the seat to move, one JSON line each, as --play takes them."
        ),
    ] = False,
    legend: Annotated[bool, typer.Option("--legend", help="What the table's symbols mean, under the table.")] = False,
    db: Db = None,
    as_json: AsJson = False,
) -> None:
    """The state of a game at the start of a turn, after an event, or at the end; or the whole game as a page."""
    if html is not None:
        _write_replay_page(game_id, seat, html, db)
        return
    with open_store(db, read_only=True) as store:
        at = position(store, game_id, turn=turn, seq=seq)
        events = store.load(game_id, upto=at.seq) if moves else []
    state = at.state
    if seat is not None:
        if not 0 <= seat < at.info.players:
            raise LoomError(f"seat {seat} is out of range: game {game_id} has seats 0 to {at.info.players - 1}")
        state = at.game.view(state, seat)
    if legal:
        _print_legal(at, seat, f"at turn {turn}" if turn is not None else f"after event {at.seq}", as_json)
        return
    if moves:
        _print_moves(at, events, seat, as_json)
        return
    if as_json:
        print_json(
            {
                "id": at.info.id,
                "game": at.info.game,
                "turn": at.turn,
                "seq": at.seq,
                "as": seat,
                "state": at.game.describe(state),
            }
        )
        return
    where = f"start of turn {turn}" if turn is not None else f"after event {at.seq}"
    out.print(f"[bold]Game {game_id}[/], {where} (event {at.seq} of {at.info.last_seq})")
    shown = presentation(at.game.name)
    out.print(shown.render(state, seat))
    if legend:
        _print_legend(shown.legend)


def _print_legend(lines: tuple[str, ...]) -> None:
    out.print(Text("Legend", style="bold"))
    for line in lines:
        out.print(Text(line))


def _print_moves(at: Position, events: list[Event], seat: int | None, as_json: bool) -> None:
    """The moves up to the position, numbered by event, each with its turn and player, as `seat` saw them."""
    players = started(events[0].payload).players if events else ()
    names = list(players) + [f"seat {s}" for s in range(len(players), at.info.players)]
    told = tell_game(at.game.name, events, names, seat)
    rows = [
        {
            "seq": event.seq,
            "turn": event.turn,
            "actor": event.actor,
            "player": None if event.actor is None else names[event.actor],
            "text": text,
        }
        for event, text in zip(events, told, strict=True)
    ]
    if as_json:
        print_json({"id": at.info.id, "game": at.info.game, "seq": at.seq, "as": seat, "moves": rows})
        return
    out.print(f"[bold]Game {at.info.id}[/], moves 1 to {at.seq} ({seen_as(seat)})")
    width = len(str(at.seq))
    for row in rows:
        # The player and the words come from the log: Text, never read as markup.
        player = "chance" if row["player"] is None else str(row["player"])
        line = Text(f"{row['seq']:>{width}}. turn {row['turn']:<3} ")
        line.append(player, style="bold" if row["actor"] is not None else "dim")
        line.append(f": {row['text']}")
        out.print(line, soft_wrap=True)


def _print_legal(at: Position, seat: int | None, where: str, as_json: bool) -> None:
    """The legal actions of the seat to move (`where`: at the start of a turn or after an event), from that seat's
    own view (so no other seat's hidden card appears), as the JSON that `logs branch --play` and `logs play --play`
    take."""
    mover = at.game.to_move(at.state)
    if mover is None:
        raise LoomError(f"game {at.info.id} is over at event {at.seq}: nobody is to move")
    if mover == CHANCE_TO_MOVE:
        raise LoomError(f"chance acts next at event {at.seq} of game {at.info.id}, not a seat")
    if seat is not None and seat != mover:
        raise LoomError(f"seat {seat} is not to move {where} of game {at.info.id}: seat {mover} is")
    actions = [at.game.action_json(a) for a in at.game.legal_actions(at.game.view(at.state, mover))]
    if as_json:
        print_json({"id": at.info.id, "turn": at.turn, "seq": at.seq, "seat": mover, "legal": actions})
        return
    for action in actions:
        typer.echo(orjson.dumps(action).decode())


def _write_replay_page(game_id: int, seat: int | None, path: Path, db: Path | None) -> None:
    from loom.dashboards.viewer import replay_html  # plotly loads only for the commands that draw

    with open_store(db, read_only=True) as store:
        page = replay_html(store, game_id, seat)
    write_page(path, page)
    out.print(f"wrote the replay of game {game_id} to {escape(str(path))}; open it in a browser", soft_wrap=True)


@app.command("branch")
@fails_cleanly
def branch_command(
    game_id: Annotated[int, typer.Argument(help="The game to branch from.")],
    turn: Annotated[int | None, typer.Option("--turn", "-t", help="Fork at the start of this turn.")] = None,
    seq: Seq = None,
    play: Actions = None,
    bot: BotName = None,
    seat: Annotated[
        int | None,
        typer.Option(
            "--as",
            help="Seat's what-if: the cards it could not see dealt anew from its view, kept as a recipe (logs tree).",
        ),
    ] = None,
    seed: Annotated[
        int | None,
        typer.Option(
            "--seed",
            min=0,
            max=MAX_SEED,
            help="The what-if's seed (with --as; default: a fresh one): the same seed deals the same cards.",
            show_default=False,
        ),
    ] = None,
    db: Db = None,
    as_json: AsJson = False,
) -> None:
    """A new game sharing the prefix before a turn (or up to an event), with other actions played there; with --as,
    that seat's what-if instead."""
    if seat is None and seed is not None:
        raise LoomError("--seed deals a seat's what-if: give --as SEAT too (a branch plays on with the recorded deal)")
    if seat is not None:
        _whatif(game_id, turn, seq, _actions(play), bot, seat, seed, db, as_json)
        return
    with open_store(db) as store:
        new_id = branch(store, game_id, turn, _actions(play), bot, seq=seq)
        info = store.game(new_id)
    if as_json:
        print_json({"ids": [new_id]})
    else:
        where = f"turn {turn}" if turn is not None else f"event {seq}"
        out.print(f"branch {new_id} of game {game_id} at {where}: {escape(info.status)}, {info.turns} turns")


def _whatif(
    game_id: int,
    turn: int | None,
    seq: int | None,
    actions: list[Any],
    bot: str | None,
    seat: int,
    seed: int | None,
    db: Path | None,
    as_json: bool,
) -> None:
    """Seat `seat`'s what-if, kept as a recipe under the game, and its outcome."""
    with open_store(db) as store:
        players = store.game_row(game_id).players
        if not 0 <= seat < players:
            raise LoomError(f"seat {seat} is out of range: game {game_id} has seats 0 to {players - 1}")
        planned, line = plan_whatif(store, game_id, turn, seat, actions, bot, seq=seq, seed=seed)
        made = record_whatif(store, planned)
    game = line.game
    over = game.to_move(line.end) is None
    status, winners = ("finished" if over else "open"), (list(game.winners(line.end)) if over else [])
    if as_json:
        outcome = {"seq": made.fork_seq + len(line.steps), "status": status, "scores": game.scores(line.end)}
        print_json(made.to_json() | outcome | {"winners": winners})
        return
    won = f", won by seat {', '.join(str(s) for s in winners)}" if winners else ""
    out.print(
        f"what-if {made.number} of game {game_id}: seat {seat} at turn {made.fork_turn}, after event "
        f"{made.fork_seq}, seed {made.seed} (a sampled deal): {status}{won}",
        soft_wrap=True,
    )


@app.command("play")
@fails_cleanly
def play_command(
    game_id: Annotated[int, typer.Argument(help="An open game (a branch left open, say).")],
    play: Actions = None,
    bot: BotName = None,
    db: Db = None,
    as_json: AsJson = False,
) -> None:
    """Play actions on an open game, and optionally the rest with a bot."""
    with open_store(db) as store:
        last = continue_game(store, game_id, _actions(play), bot)
        info = store.game(game_id)
    if as_json:
        print_json({"id": game_id, "seq": last, "status": info.status})
    else:
        out.print(f"game {game_id} is at event {last}: {escape(info.status)}")


def _fitted(*parts: str | tuple[str, str]) -> Text:
    """One line of the tree, as text (never markup): cut with an ellipsis where a deep branch leaves it too little
    room, never wrapped into the tree's guides."""
    line = Text.assemble(*parts, no_wrap=True, overflow="ellipsis")
    return line


def _label(node: Node, title: str = "") -> Text:
    info = node.info
    fork = f" fork at turn {node.fork_turn} after event {info.fork_seq} ·" if node.fork_turn is not None else ""
    won = ", ".join(str(s) for s in node.winners)
    outcome = f"won by seat {won}" if won else info.status
    return _fitted(title, (f"#{info.id}", "bold"), f"{fork} {info.turns} turns · {outcome}")


def _whatif_label(whatif: WhatIf) -> Group:
    """Two short lines, so that a what-if reads whole at 80 columns: where it forks, then how it was played."""
    played = f"{whatif.bot} · " if whatif.bot else ""
    return Group(
        _fitted(
            (f"what-if {whatif.number}", "italic"),
            f" · seat {whatif.seat} · fork at turn {whatif.fork_turn} after event {whatif.fork_seq}",
        ),
        _fitted(f"{played}sampled deal, seed {whatif.seed}"),
    )


@app.command("tree")
@fails_cleanly
def tree_command(
    game_id: Annotated[int, typer.Argument(help="The game's id.")], db: Db = None, as_json: AsJson = False
) -> None:
    """The game, its branches and theirs, with fork turns and outcomes, and its seats' what-ifs."""
    with open_store(db, read_only=True) as store:
        root = tree(store, game_id)
    if as_json:
        print_json(root.to_json())
        return
    shown = Tree(_label(root, f"{get_game(root.info.game).title} · "))

    def grow(parent: Tree, node: Node) -> None:
        for child in node.children:
            grow(parent.add(_label(child)), child)
        for whatif in node.whatifs:
            parent.add(_whatif_label(whatif))

    grow(shown, root)
    out.print(shown)
