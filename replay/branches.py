"""Branches: a new game that shares a prefix of another, plays other actions there, and goes on its own way; and a
seat's what-if, a line played from that seat's view with every card it could not see dealt anew.

A branch (the table's) plays on with the recorded deal: it is a stored game that shares its parent's events up to
the fork (DESIGN.md contract 6). A seat may not see that deal, so its what-if is not stored as a game. It is kept as
its recipe (parent, fork event and its turn, seat, seed, actions, bot: `WhatIf`, in the store's meta table under
`whatif/<game>/<number>`), and its line is played again from the recipe whenever it is read:

A branch or a what-if forks at the start of a turn or just after any event (`fork_at`): in the middle of a turn too,
where the seat to move may have more to do, or chance may act next. The fork's turn is the turn played there, the
one its next event belongs to.

- its start is `game.determinize(game.view(position, seat), seat, rng)`: the seat's own view of the parent's real
  position (its prefix, read as that seat sees it), with each card hidden from the seat dealt at random from the cards
  it has not seen; the rng comes from the what-if's own seed, and so do chance and the bots after it (never the
  parent's seed, which fixes the real deal). The line is therefore a function of the seat's view alone: it names no
  card of the parent that the seat could not see, only sampled ones.
- it has no game id, no events, no tokens and no facts: `logs replay`, `logs export`, `logs analyse`, the games list,
  the live stream and the parent's pages never show it (there is nothing of it to show), and the parent's log is
  unchanged. It is read through the what-if routes (service/board.py), by that seat's token of the parent, the table's
  or the admin's: it shows the seat's own cards at the fork, so no other seat reads it.
- the tree lists it under its parent with what is public only (number, seat, fork event and turn, bot, seed), not
  the action (which may name a card of the seat's hand) nor the outcome.
- its seed is the client's if it chose one (`check_seed`), else a fresh one: the same recipe always gives the same
  line, and dealing again is the same recipe with another seed.
- its chances, and a seat's chances of the real line, are estimated over sampled deals: each rollout deals the
  cards hidden from the seat anew (`sampled_chances`).
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from random import Random
from typing import Any

from loom.engine.play import Step, act, chance_rng, play_out
from loom.engine.protocol import CHANCE_TO_MOVE, Game
from loom.engine.registry import get_bot
from loom.engine.search import shares
from loom.events.base import IllegalAction, LoomError
from loom.replay.chances import Chances, estimate, rollout
from loom.replay.game_json import game_json
from loom.replay.projections import result_rows
from loom.replay.recorder import event_rows, snapshot_rows, status_of
from loom.replay.replay import OutOfRange, Position, position
from loom.replay.store import GameInfo, NewGame, Seat, Store


def advance(
    game: Game,
    state: Any,
    seed: int,
    after_seq: int,
    actions: Sequence[Any],
    bot: str | None,
    *,
    until_turn: int | None = None,
) -> tuple[Any, list[Step]]:
    """Play `actions` (JSON) from `state`, then, with a bot, the rest of the game (or, with `until_turn`, only until
    a seat would decide in that turn: its start); chance comes from the seed.

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
        if until_turn is None:
            state, more = play_out(game, state, agents, rng, bot_rngs)
            steps += more
        else:
            # Each seat's bot decides from its own view until the next decision would be the turn's (act lets
            # chance follow each move, as play_out does).
            while (seat := game.to_move(state)) not in (None, CHANCE_TO_MOVE) and game.next_turn(
                state, False
            ) < until_turn:
                view = game.view(state, seat)
                chosen = agents[seat].choose(view, game.legal_actions(view), bot_rngs[seat])
                state, more = act(game, state, chosen, rng)
                steps += more
    return state, steps


MAX_SEED = 2**63 - 1
"""The largest seed a what-if takes (a game's own seed has the same range)."""


class BadSeed(LoomError):
    """A what-if's seed that is not an integer from 0 to MAX_SEED (the API's models refuse one first, with 422)."""


def check_seed(seed: Any) -> int:
    """The seed if it is an integer from 0 to MAX_SEED; BadSeed otherwise."""
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
        raise BadSeed(f"seed {seed!r} is out of range: a what-if's seed is an integer from 0 to {MAX_SEED}")
    return seed


@dataclass(frozen=True, slots=True)
class Fork:
    """Where a branch or a what-if forks: the position just after event `at.seq`, the turn played there (its next
    event's) and the turns begun before it."""

    at: Position
    turn: int
    begun: int


def fork_at(store: Store, game_id: int, *, turn: int | None = None, seq: int | None = None) -> Fork:
    """The fork at the start of `turn` or just after event `seq` (exactly one of them): in the middle of a turn too."""
    if (turn is None) == (seq is None):
        raise LoomError("fork at the start of a turn or just after an event (seq): give exactly one of them")
    at = position(store, game_id, turn=turn, seq=seq)
    if turn is not None:
        return Fork(at, turn, turn - 1)
    mover = at.game.to_move(at.state)
    playing = at.turn + 1 if mover is None else at.game.next_turn(at.state, mover == CHANCE_TO_MOVE)
    if playing < 1:
        raise LoomError(f"event {at.seq} of game {game_id} is in the setup: a fork is from the start of turn 1 on")
    return Fork(at, playing, at.turn)


def branch(
    store: Store,
    game_id: int,
    turn: int | None,
    actions: Sequence[Any],
    bot: str | None,
    *,
    seq: int | None = None,
    until_turn: int | None = None,
) -> int:
    """A new game forked at the start of `turn` of game `game_id`, or just after its event `seq`; its id. With
    `until_turn`, the bot plays on only to the start of that turn, and the seats keep their players. Nothing is
    written if an action fails."""
    fork = fork_at(store, game_id, turn=turn, seq=seq)
    start = fork.at
    game, info = start.game, store.game(game_id)  # with its seats: the position's row has none
    if bot is not None:
        get_bot(game, bot)
    state, steps = advance(game, start.state, info.seed, start.seq, actions, bot, until_turn=until_turn)
    played_by = None if until_turn is not None else bot  # the bot that plays the branch to its end names its seats
    new = NewGame(
        game=game.name,
        seats=[Seat(seat.name, seat.bot if played_by is None else played_by) for seat in info.seats],  # its players
        source="branch",
        seed=info.seed,
        rules_version=game.rules_version,
        events=event_rows(steps, start.seq),
        status=status_of(game, state),
        turns=steps[-1].turn if steps else fork.begun,
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
    """A game in a branch tree, with its fork turn (the turn played at its fork) and its own branches."""

    info: GameInfo
    fork_turn: int | None
    winners: list[int]
    children: list[Node] = field(default_factory=list)
    whatifs: list[WhatIf] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """The tree as JSON, for `logs tree --json` and the service: each game as in a list (`game_json`), with
        the turn it forks at, its branches and its seats' what-ifs (their public part)."""
        return game_json(self.info, self.winners) | {
            "fork_turn": self.fork_turn,
            "branches": [child.to_json() for child in self.children],
            "whatifs": [whatif.public_json() for whatif in self.whatifs],
        }


def tree(store: Store, game_id: int) -> Node:
    """The game and, recursively, every branch forked from it."""

    def node(info: GameInfo, fork_turn: int | None) -> Node:
        winners = [r.seat for r in store.results(info.id) if r.winner]
        here = Node(store.game(info.id), fork_turn, winners, whatifs=whatifs(store, info.id))
        for child in store.children(info.id):
            # The turn played at the fork is its next event's (the same turn in the middle of one).
            around = store.load(info.id, after=child.fork_seq - 1, upto=child.fork_seq + 1) if child.fork_seq else []
            fork_turn = around[1].turn if len(around) > 1 else around[0].turn + 1 if around else 1
            here.children.append(node(child, fork_turn))
        return here

    return node(store.game(game_id), None)


# --- A seat's what-if ----------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class WhatIf:
    """A seat's what-if of a game: its recipe, from which its line is played again whenever it is read."""

    parent: int
    number: int
    seat: int
    fork_turn: int
    fork_seq: int
    seed: int
    actions: tuple[Any, ...]
    bot: str | None

    def public_json(self) -> dict[str, Any]:
        """What anyone may know of it (the tree): not its actions, which may name a card of the seat's hand."""
        return {
            "whatif": self.number,
            "seat": self.seat,
            "fork_turn": self.fork_turn,
            "fork_seq": self.fork_seq,
            "bot": self.bot,
            "seed": self.seed,
            "sampled": True,
        }

    def to_json(self) -> dict[str, Any]:
        """The whole recipe, for the seat that made it (and the table)."""
        return self.public_json() | {"parent": self.parent, "actions": list(self.actions)}


@dataclass(frozen=True, slots=True)
class Line:
    """A what-if's line: its sampled start, the steps played from it, the state after them, and the turns begun at
    its start (a fork in the middle of a turn has begun that turn)."""

    game: Game
    start: Any
    steps: list[Step]
    end: Any
    begun: int

    @property
    def turns(self) -> int:
        """The turns begun at the line's end."""
        return self.steps[-1].turn if self.steps else self.begun

    def at_turn(self, turn: int) -> Any:
        """The line's state at the start of `turn` (its start before the first step's turn, its end past the last)."""
        state = self.start
        for one in self.steps:
            if one.turn >= turn:
                break
            state = self.game.apply(state, one.payload)
        return state


def _key(game_id: int, number: int) -> str:
    return f"whatif/{game_id}/{number}"


def sampled_start(game: Game, state: Any, seat: int, seed: int) -> Any:
    """The position as `seat` sees it, each card hidden from it dealt at random (from `seed`) from the cards it has
    not seen: it depends on the seat's view alone, never on the real hidden cards."""
    return game.determinize(game.view(state, seat), seat, Random(f"loom/whatif/{seed}"))


def sampled_line(
    game: Game,
    state: Any,
    seat: int,
    seed: int,
    fork_seq: int,
    actions: Sequence[Any],
    bot: str | None,
    *,
    begun: int,
) -> Line:
    """The line of a what-if of `seat` from the real position `state` (after event `fork_seq`): its start sampled
    from the seat's view, the seat's `actions` played there, then the bot to the end; chance and the bots take
    their random numbers from the what-if's seed only."""
    start = sampled_start(game, state, seat, seed)
    mover = game.to_move(start)
    if actions and mover != seat:
        whose = (
            "chance" if mover == CHANCE_TO_MOVE else "nobody (the game is over)" if mover is None else f"seat {mover}"
        )
        raise IllegalAction(f"{whose} moves at this position: seat {seat}'s what-if plays only seat {seat}'s moves")
    end, steps = advance(game, start, seed, fork_seq, actions, bot)
    return Line(game, start, steps, end, begun)


def line_of(store: Store, whatif: WhatIf) -> Line:
    """A what-if's line, played again from its recipe and its parent's position at the fork (just after its event
    `fork_seq`, at the start of its turn or in the middle of it)."""
    at = position(store, whatif.parent, seq=whatif.fork_seq or None, turn=None if whatif.fork_seq else whatif.fork_turn)
    return sampled_line(at.game, at.state, whatif.seat, whatif.seed, at.seq, whatif.actions, whatif.bot, begun=at.turn)


def plan_whatif(
    store: Store,
    game_id: int,
    turn: int | None,
    seat: int,
    actions: Sequence[Any],
    bot: str | None,
    *,
    seq: int | None = None,
    seed: int | None = None,
) -> tuple[WhatIf, Line]:
    """A new what-if of `seat` at the start of `turn` or just after event `seq` (its number still 0: `record_whatif`
    gives it one) and its line, from `seed` (None: a fresh one); IllegalAction (nothing recorded) if an action
    fails, BadSeed if the seed is out of range."""
    seed = secrets.randbits(48) if seed is None else check_seed(seed)
    fork = fork_at(store, game_id, turn=turn, seq=seq)
    at = fork.at
    if bot is not None:
        get_bot(at.game, bot)
    whatif = WhatIf(game_id, 0, seat, fork.turn, at.seq, seed, tuple(actions), bot)
    return whatif, sampled_line(at.game, at.state, seat, whatif.seed, at.seq, actions, bot, begun=fork.begun)


def record_whatif(store: Store, whatif: WhatIf) -> WhatIf:
    """Keep the recipe under the game's next what-if number; the what-if with its number."""
    numbered = WhatIf(**{**asdict(whatif), "number": len(whatifs(store, whatif.parent)) + 1})
    store.set_meta(_key(whatif.parent, numbered.number), json.dumps(numbered.to_json()))
    return numbered


def _recipe(game_id: int, number: int, text: str) -> WhatIf:
    data = json.loads(text)
    return WhatIf(
        game_id,
        number,
        data["seat"],
        data["fork_turn"],
        data["fork_seq"],
        data["seed"],
        tuple(data["actions"]),
        data["bot"],
    )


def whatifs(store: Store, game_id: int) -> list[WhatIf]:
    """The game's what-ifs, oldest first."""
    found: list[WhatIf] = []
    while (text := store.meta(_key(game_id, len(found) + 1))) is not None:
        found.append(_recipe(game_id, len(found) + 1, text))
    return found


def whatif_of(store: Store, game_id: int, number: int) -> WhatIf:
    """What-if `number` of the game; OutOfRange if it has none of that number."""
    text = store.meta(_key(game_id, number)) if number >= 1 else None
    if text is None:
        raise OutOfRange(f"game {game_id} has no what-if {number}")
    return _recipe(game_id, number, text)


def sampled_chances(game: Game, state: Any, seat: int, *, rollouts: int, bot: str) -> Chances:
    """Each seat's chance to win from `state` as `seat` knows it: every rollout deals the cards hidden from the seat
    anew, so the estimate tells the seat nothing it could not see. Rollout i of any position uses the same random
    numbers, so two lines compare fairly."""
    get_bot(game, bot)
    if game.to_move(state) is None:
        won = shares(game, state)
        return Chances(tuple(won), (0.0,) * len(won), 0, bot)
    view = game.view(state, seat)
    outcomes = []
    for index in range(rollouts):
        key = f"loom/sampled-chances/{index}"
        outcomes.append(rollout(game, game.determinize(view, seat, Random(key)), bot, key))
    return estimate(game, state, outcomes, bot)
