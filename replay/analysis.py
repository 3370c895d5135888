"""What-if analysis: who was likely to win, and which decisions changed it (`logs whatif`, `logs analyse`).

`whatif` compares the recorded decisions at the start of a turn with an alternative, each line's win chances
estimated at the start of the next turn (positions of one kind, as the curve's: never in the middle of a turn) by
rollouts on the same random numbers, and stores the alternative as a branch. `analyse` estimates every
seat's chance at the start of every turn (the curve), finds the turns in which the seat to move saw its chance move
most (key moments), asks the search bot for the best other action at each one's first real choice, and stores both
as projections.
Rollouts run with no database open: the store is read, closed, and opened again to write.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from random import Random
from typing import Any

from loom.engine.play import act, chance_rng
from loom.engine.protocol import CHANCE_TO_MOVE, Game
from loom.engine.registry import get_bot, get_game
from loom.engine.search import IsmctsBot
from loom.events.base import Event, LoomError, Payload
from loom.replay.branches import advance, branch
from loom.replay.chances import Chances, Mapper, win_chances_of
from loom.replay.replay import Position, position
from loom.replay.store import KeyMoment, Store, WinChance

# --- The actions behind recorded events ---------------------------------------------------------------------------


def recorded_action(game: Game, state: Any, payload: Payload) -> dict[str, Any]:
    """The JSON of the legal action whose event is `payload` in `state`; failing an exact match (a draw whose card
    the log names but the deck's order does not fix), the only legal action making that kind of event; failing
    that, the event itself."""
    same_kind = []
    for action in game.legal_actions(state):
        try:
            made = game.resolve(state, action, Random(0))
        except LoomError:
            continue
        if made and made[0] == payload:
            return game.action_json(action)
        if made and type(made[0]) is type(payload):
            same_kind.append(action)
    if len(same_kind) == 1:
        return game.action_json(same_kind[0])
    return {"event": payload.TYPE, **json.loads(json.dumps(payload.to_json()))}


@dataclass(frozen=True, slots=True)
class Choice:
    """The first decision of a turn with more than one legal action: the position before it, its event, the action
    recorded there, and the forced actions of the turn before it."""

    state: Any
    seq: int
    action: dict[str, Any]
    forced: tuple[dict[str, Any], ...]


@dataclass(frozen=True, slots=True)
class TurnStart:
    """A turn as recorded: the position at its start (after event `seq`), its seat, and its first real choice."""

    turn: int
    seq: int
    state: Any
    seat: int
    choice: Choice | None


def first_choice(game: Game, state: Any, events: Sequence[Event]) -> Choice | None:
    """The first real choice of the seat whose turn `events` begin (from `state`), if it had one before another
    seat decided (an effect carried out off turn) or the turn ended."""
    forced: list[dict[str, Any]] = []
    seat = next((event.actor for event in events if event.actor is not None), None)
    for event in events:
        if event.turn != events[0].turn or event.actor not in (None, seat):
            break
        if event.actor is not None:
            action = recorded_action(game, state, event.payload)
            if len(game.legal_actions(state)) > 1:
                return Choice(state, event.seq, action, tuple(forced))
            forced.append(action)
        state = game.apply(state, event.payload)
    return None


def turn_starts(game: Game, events: Sequence[Event]) -> tuple[list[TurnStart], Any, int]:
    """Every turn of a game as recorded (each begins with a seat's decision), the final state and its last seq."""
    state, seq = game.blank(), 0
    starts: list[TurnStart] = []
    for number, event in enumerate(events):
        if event.actor is not None and (not starts or event.turn != starts[-1].turn):
            starts.append(TurnStart(event.turn, seq, state, event.actor, first_choice(game, state, events[number:])))
        state, seq = game.apply(state, event.payload), event.seq
    return starts, state, seq


# --- logs whatif --------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Line:
    """One line of play from the start of the turn: its actions, the event at the start of the turn compared (or its
    end), its chances there, its branch."""

    actions: tuple[dict[str, Any], ...]
    seq: int
    chances: Chances
    branch: int | None = None


@dataclass(frozen=True, slots=True)
class WhatIf:
    """The recorded decisions at the start of a turn against an alternative."""

    game_id: int
    game: str
    players: tuple[str, ...]
    turn: int
    seat: int
    before: Chances
    recorded: Line
    alternative: Line
    compared: int
    """The turn at whose start (or the end, if a line ended first) both lines' chances are estimated."""


def _recorded_line(
    game: Game, start: Any, start_seq: int, events: Sequence[Event], decisions: int
) -> tuple[Any, int, list[Any]]:
    """The state after the first `decisions` recorded decisions from `start` (after event `start_seq`) and the chance
    that follows them, and the seq it is reached at."""
    state, seq = start, start_seq
    actions: list[dict[str, Any]] = []
    for event in events:
        if event.actor is not None:
            if len(actions) == decisions:
                break
            actions.append(recorded_action(game, state, event.payload))
        state, seq = game.apply(state, event.payload), event.seq
    if len(actions) < decisions:
        raise LoomError(f"the game records {len(actions)} decisions from there, fewer than the {decisions} compared")
    return state, seq, actions


def search_alternative(game: Game, state: Any, avoid: dict[str, Any], budget: int | None, seed: int) -> Any | None:
    """The search bot's best action for the seat to move other than the one given as JSON; None if it had none."""
    seat = game.to_move(state)
    if seat is None:
        return None  # the game is over: nobody has an alternative
    view = game.view(state, seat)
    others = [a for a in game.legal_actions(view) if game.action_json(a) != avoid]
    if not others:
        return None
    return IsmctsBot(game, budget).choose(view, others, Random(f"loom/alternative/{seed}"))


def whatif(
    store_path: str,
    game_id: int,
    turn: int,
    actions: Sequence[Any] | None,
    *,
    rollouts: int,
    bot: str,
    seed: int = 0,
    workers: int = 1,
    mapper: Mapper | None = None,
    budget: int | None = None,
) -> WhatIf:
    """Compare the recorded decisions at the start of `turn` with `actions` (JSON; none: the turn's forced decisions,
    then the search bot's best other action at its first real choice), storing the alternative as a branch of the
    game forked at the start of the turn, played on by `bot` to the start of the next turn; each line's win chances
    there (the start of the turn after the decisions on both lines) by `rollouts` rollouts."""
    with Store.open(store_path) as store:
        start = position(store, game_id, turn=turn)
        game, info = start.game, store.game(game_id)
        get_bot(game, bot)
        seat = game.to_move(start.state)
        if seat is None or seat == CHANCE_TO_MOVE:
            raise LoomError(f"no seat decides at the start of turn {turn} of game {game_id}")
        events = store.load(game_id, after=start.seq)
        if actions is None:
            choice = first_choice(game, start.state, events) if events else None
            found = None if choice is None else search_alternative(game, choice.state, choice.action, budget, seed)
            if choice is None or found is None:
                raise LoomError(f"seat {seat} had no choice to make in turn {turn}; give the alternative with --play")
            actions = [*choice.forced, game.action_json(found)]
        _, recorded_seq, recorded_actions = _recorded_line(game, start.state, start.seq, events, len(actions))
        # Both lines are compared at the start of the turn after their decisions (a position, as the curve's are,
        # never in the middle of a turn): the recorded turn as played, the alternative's played on by the bot.
        decided = [e.turn for e in events if e.actor is not None and e.seq <= recorded_seq]
        _, steps = advance(game, start.state, info.seed, start.seq, actions, None)
        compared = max([turn, *decided[-1:], *(one.turn for one in steps if one.actor is not None)]) + 1
        branch_id = branch(store, game_id, turn, actions, bot, until_turn=compared)
        recorded = _turn_start(store, game_id, compared)
        alternative = _turn_start(store, branch_id, compared)
    # paired: the same random numbers for both lines
    positions = [(turn, start.state), (compared, recorded.state), (compared, alternative.state)]
    before, after, other = win_chances_of(
        game, positions, rollouts=rollouts, bot=bot, seed=seed, workers=workers, mapper=mapper
    )
    return WhatIf(
        game_id,
        game.name,
        tuple(s.name for s in info.seats),
        turn,
        seat,
        before,
        Line(tuple(recorded_actions), recorded.seq, after),
        Line(tuple(actions), alternative.seq, other, branch_id),
        compared,
    )


def _turn_start(store: Store, game_id: int, turn: int) -> Position:
    """The game's position at the start of `turn`, or its end if it ended before."""
    return position(store, game_id, turn=turn) if turn <= store.game_row(game_id).turns else position(store, game_id)


# --- logs analyse -------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Point:
    """The win chances at the start of a turn (or at the end: `turn` is then the last turn + 1)."""

    seq: int
    turn: int
    chances: Chances


@dataclass(frozen=True, slots=True)
class Moment:
    """A turn in which its seat's chance moved most (from its start to the next turn's): the turn's first real
    choice (its event and the action played), and the search bot's best other action there with its chance."""

    seq: int
    turn: int
    seat: int
    before: float
    after: float
    action: dict[str, Any]
    best_action: dict[str, Any] | None
    best_chance: float | None


@dataclass(frozen=True, slots=True)
class Analysis:
    """A game's win-chance curve and key moments."""

    game_id: int
    game: str
    players: tuple[str, ...]
    curve: tuple[Point, ...]
    moments: tuple[Moment, ...]


def key_turns(starts: Sequence[TurnStart], curve: Sequence[Point], count: int) -> list[tuple[TurnStart, float, float]]:
    """The `count` turns with a real choice in which the seat's chance moved most (either way), in turn order."""
    swings = [
        (start, curve[k].chances.chance[start.seat], curve[k + 1].chances.chance[start.seat])
        for k, start in enumerate(starts)
        if start.choice is not None
    ]
    biggest = sorted(swings, key=lambda swing: -abs(swing[2] - swing[1]))[:count]
    return sorted(biggest, key=lambda swing: swing[0].turn)


def analyse(
    store_path: str,
    game_id: int,
    *,
    rollouts: int,
    bot: str,
    seed: int = 0,
    workers: int = 1,
    mapper: Mapper | None = None,
    moments: int = 5,
    budget: int | None = None,
) -> Analysis:
    """Every seat's win chances at the start of every turn and at the end, and the key moments; stored as the
    `win_chances` and `key_moments` projections of the game, replacing an earlier analysis."""
    with Store.open(store_path, read_only=True) as store:
        info = store.game(game_id)
        events = store.load(game_id)
    game = get_game(info.game)
    get_bot(game, bot)
    starts, final, last_seq = turn_starts(game, events)
    if not starts:
        raise LoomError(f"game {game_id} has no decision to analyse yet")
    positions = [(start.seq, start.state) for start in starts] + [(last_seq, final)]
    chances = win_chances_of(game, positions, rollouts=rollouts, bot=bot, seed=seed, workers=workers, mapper=mapper)
    turns = [start.turn for start in starts] + [starts[-1].turn + 1]
    curve = [Point(seq, turn, c) for (seq, _), turn, c in zip(positions, turns, chances)]
    found = []
    for start, before, after in key_turns(starts, curve, moments):
        choice = start.choice
        assert choice is not None  # key turns have a real choice
        best = search_alternative(game, choice.state, choice.action, budget, seed + choice.seq)
        state = None if best is None else act(game, choice.state, best, chance_rng(info.seed, choice.seq))[0]
        found.append((start, before, after, best, state))
    # Each alternative is played out on the random numbers of the recorded turn's end, for a paired comparison.
    ends = {start.seq: point.seq for start, point in zip(starts, curve[1:])}
    alternatives = [(ends[start.seq], state) for start, _, _, _, state in found if state is not None]
    best_chances = iter(
        win_chances_of(game, alternatives, rollouts=rollouts, bot=bot, seed=seed, workers=workers, mapper=mapper)
    )
    key = tuple(
        Moment(
            start.choice.seq,
            start.turn,
            start.seat,
            before,
            after,
            start.choice.action,
            None if best is None else game.action_json(best),
            None if best is None else next(best_chances).chance[start.seat],
        )
        for start, before, after, best, _ in found
        if start.choice is not None
    )
    analysis = Analysis(game_id, game.name, tuple(s.name for s in info.seats), tuple(curve), key)
    with Store.open(store_path) as store:
        store.replace_analysis(game_id, curve_rows(analysis), moment_rows(analysis))
    return analysis


def curve_rows(analysis: Analysis) -> list[WinChance]:
    """The `win_chances` rows of an analysis."""
    return [
        WinChance(point.seq, seat, point.turn, chance, margin, point.chances.rollouts, point.chances.bot)
        for point in analysis.curve
        for seat, (chance, margin) in enumerate(zip(point.chances.chance, point.chances.margin))
    ]


def moment_rows(analysis: Analysis) -> list[KeyMoment]:
    """The `key_moments` rows of an analysis, actions as JSON."""
    return [
        KeyMoment(
            m.seq,
            m.turn,
            m.seat,
            m.before,
            m.after,
            json.dumps(m.action),
            None if m.best_action is None else json.dumps(m.best_action),
            m.best_chance,
        )
        for m in analysis.moments
    ]
