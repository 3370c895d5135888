"""Branches: a new game that shares a prefix of another, plays other actions there, and goes on its own way."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from random import Random
from typing import Any

from loom.engine.play import Step, act, chance_rng, play_out
from loom.engine.protocol import Game
from loom.engine.registry import get_bot
from loom.events.base import IllegalAction
from loom.replay.game_json import game_json
from loom.replay.projections import result_rows
from loom.replay.recorder import event_rows, snapshot_rows, status_of
from loom.replay.replay import Position, position
from loom.replay.store import GameInfo, NewGame, Seat, Store


def advance(
    game: Game, state: Any, seed: int, after_seq: int, actions: Sequence[Any], bot: str | None
) -> tuple[Any, list[Step]]:
    """Play `actions` (JSON) from `state`, then, with a bot, the rest of the game; chance comes from the seed.

    The facts of the new events are left to the projector (replay/projector.py), as for every append."""
    rng = chance_rng(seed, after_seq)
    steps: list[Step] = []
    for number, data in enumerate(actions, start=1):
        try:
            action = game.parse_action(data)
            state, more = act(game, state, action, rng)
        except IllegalAction as error:
            raise IllegalAction(f"action {number} ({data}): {error}") from None
        steps += more
    if bot is not None:
        seats = range(len(game.scores(state)))
        agents = {seat: get_bot(game, bot) for seat in seats}
        bot_rngs = {seat: Random(f"loom/bot/{seed}/{after_seq}/{seat}") for seat in seats}
        state, more = play_out(game, state, agents, rng, bot_rngs)
        steps += more
    return state, steps


def branch(store: Store, game_id: int, turn: int, actions: Sequence[Any], bot: str | None) -> int:
    """A new game forked at the start of `turn` of game `game_id`; its id. Nothing is written if an action fails."""
    start: Position = position(store, game_id, turn=turn)
    game, info = start.game, store.game(game_id)  # with its seats: the position's row has none
    if bot is not None:
        get_bot(game, bot)
    state, steps = advance(game, start.state, info.seed, start.seq, actions, bot)
    new = NewGame(
        game=game.name,
        seats=[Seat(seat.name, seat.bot if bot is None else bot) for seat in info.seats],  # the parent's players
        source="branch",
        seed=info.seed,
        rules_version=game.rules_version,
        events=event_rows(steps, start.seq),
        status=status_of(game, state),
        turns=steps[-1].turn if steps else turn - 1,
        parent_id=game_id,
        fork_seq=start.seq,
        snapshots=snapshot_rows(game, start.state, steps, start.seq),
        results=result_rows(game, state) if status_of(game, state) == "finished" else [],
    )
    return store.add_games([new])[0]


def continue_game(store: Store, game_id: int, actions: Sequence[Any], bot: str | None) -> int:
    """Play on an open game: the actions, then the bot to the end if given. The new last seq."""
    end: Position = position(store, game_id)
    game, info = end.game, end.info
    state, steps = advance(game, end.state, info.seed, end.seq, actions, bot)
    if not steps:
        return end.seq
    status = status_of(game, state)
    return store.append(
        game_id,
        event_rows(steps, end.seq),
        expected_seq=end.seq,
        turns=steps[-1].turn,
        status=status,
        snapshots=snapshot_rows(game, end.state, steps, end.seq),
        results=result_rows(game, state) if status == "finished" else [],
    )


@dataclass
class Node:
    """A game in a branch tree, with its fork turn and its own branches."""

    info: GameInfo
    fork_turn: int | None
    winners: list[int]
    children: list[Node] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """The tree as JSON, for `logs tree --json` and the service: each game as in a list (`game_json`), with
        the turn it forks at and its branches."""
        return game_json(self.info, self.winners) | {
            "fork_turn": self.fork_turn,
            "branches": [child.to_json() for child in self.children],
        }


def tree(store: Store, game_id: int) -> Node:
    """The game and, recursively, every branch forked from it."""

    def node(info: GameInfo, fork_turn: int | None) -> Node:
        winners = [r.seat for r in store.results(info.id) if r.winner]
        here = Node(store.game(info.id), fork_turn, winners)
        for child in store.children(info.id):
            fork_event = store.load(info.id, after=child.fork_seq - 1, upto=child.fork_seq) if child.fork_seq else []
            here.children.append(node(child, fork_event[0].turn + 1 if fork_event else 1))
        return here

    return node(store.game(game_id), None)
