"""Seeded random playouts of any game, and the properties every game's playouts must have (OpenSpiel's
random-simulation tests). Each tests/unit/test_<game>_playouts.py describes its game's playouts as a `Suite` and
checks its game's own properties (conservation laws, hidden information, the end); tests/unit/test_playouts.py
checks these properties for every suite.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, fields
from functools import reduce
from itertools import accumulate
from random import Random
from typing import Any

from loom.engine.play import Step, chance_rng, first_player, play_out, record, seated, start
from loom.engine.protocol import CHANCE_TO_MOVE, Game
from loom.events.base import Payload
from loom.replay.snapshots import decode_state, encode_state

Lineup = tuple[int, tuple[str, ...]]  # (seed, the bot of each player)


class AuditedBot:
    """A bot whose every choice is kept with the legal actions it was offered."""

    def __init__(self, bot: Any) -> None:
        self.bot = bot
        self.choices: list[tuple[list[Any], Any]] = []

    def choose(self, view: Any, legal: Sequence[Any], rng: Random) -> Any:
        """The wrapped bot's choice, recorded."""
        action = self.bot.choose(view, legal, rng)
        self.choices.append((list(legal), action))
        return action


@dataclass(frozen=True)
class Playout:
    """One finished game: its steps as play_out recorded them and the state after each event."""

    rules: Game  # the game played: the GAME of its engine package
    name: str
    kinds: tuple[str, ...]  # the bot of each seat
    steps: tuple[Step, ...]
    final: Any  # built step by step by start/play_out (checked events)
    states: tuple[Any, ...]  # states[i]: the unchecked fold of the first i payloads
    choices: tuple[tuple[str, list[Any], Any], ...]  # (bot kind, legal actions offered, action chosen)

    @property
    def payloads(self) -> list[Payload]:
        """The events' payloads in order."""
        return [step.payload for step in self.steps]

    @property
    def players(self) -> int:
        """The number of seats."""
        return len(self.kinds)


def playout(rules: Game, bots: Mapping[str, Callable[[], Any]], seed: int, kinds: Sequence[str]) -> Playout:
    """A game of `rules` between these bots (one per player in the line-up, by name in `bots`), the first player
    drawn at random, as the simulator plays it."""
    rng = Random(f"loom/test/{rules.name}/{seed}")
    order = seated(list(enumerate(kinds)), first_player(len(kinds), rng))
    state, steps = start(rules, [f"{kind} {k + 1}" for k, kind in order], rng)
    seed_of_chance = steps[0].payload.seed  # type: ignore[attr-defined]
    audited = {seat: AuditedBot(bots[kind]()) for seat, (_, kind) in enumerate(order)}
    bot_rngs = {seat: Random(f"loom/test/bot/{seed}/{seat}") for seat in audited}
    final, more = play_out(rules, state, audited, chance_rng(seed_of_chance, len(steps)), bot_rngs)
    steps += more
    states = tuple(accumulate((step.payload for step in steps), rules.apply, initial=rules.blank()))
    choices = tuple((order[seat][1], legal, action) for seat, bot in audited.items() for legal, action in bot.choices)
    seat_kinds = tuple(kind for _, kind in order)
    return Playout(rules, f"seed {seed}, {'/'.join(seat_kinds)}", seat_kinds, tuple(steps), final, states, choices)


def fold(rules: Game, payloads: Iterable[Payload], state: Any = None) -> Any:
    """The state after applying `payloads` (unchecked, like the replayer) from `state` or the blank state."""
    return reduce(rules.apply, payloads, rules.blank() if state is None else state)


def lineups(
    players: Iterable[int], random: int, greedy: int, mixed: int, special: tuple[str, str, int] | None = None
) -> list[Lineup]:
    """(seed, bots) of seeded games, for each player count: `random` games of random bots, `greedy` of greedy bots,
    `mixed` of one greedy bot against random ones and, for `special` = (kind, last, count), `count` games of that
    kind of bot in every seat but the last, which has a `last` bot."""
    games: list[Lineup] = []
    for n in players:
        games += [(1000 * n + k, ("random",) * n) for k in range(random)]
        games += [(2000 * n + k, ("greedy",) * n) for k in range(greedy)]
        games += [(3000 * n + k, ("greedy",) + ("random",) * (n - 1)) for k in range(mixed)]
        if special is not None:
            kind, last, count = special
            games += [(4000 * n + k, (kind,) * (n - 1) + (last,)) for k in range(count)]
    return games


def greedy_wins(play: Callable[[int, Sequence[str]], Playout], games: int) -> int:
    """Of `games` three-player games (seeds from 5000), with the greedy bot in each seat in turn against two random
    bots, how many the greedy bot won (alone or shared)."""
    wins = 0
    for n in range(games):
        kinds = ["random"] * 3
        kinds[n % 3] = "greedy"
        game = play(5000 + n, kinds)
        wins += any(game.kinds[seat] == "greedy" for seat in game.rules.winners(game.final))
    return wins


# --- The properties every game has, each for one game ----------------------------------------------------------------


def check_replay(game: Playout, prefixes: Iterable[int], *, snapshot_only: bool = False) -> None:
    """Folding a prefix of the log and then the rest equals the full replay and the state play_out built; so does
    continuing from the prefix's snapshot. With `snapshot_only` (as Moorea's check asks), the snapshot is checked to
    equal the prefix and only it is continued."""
    rules, payloads = game.rules, game.payloads
    assert fold(rules, payloads) == game.final == game.states[-1], game.name
    for k in prefixes:
        prefix = fold(rules, payloads[:k])
        assert prefix == game.states[k], (game.name, k)
        if not snapshot_only:
            assert fold(rules, payloads[k:], prefix) == game.final, (game.name, k)
        restored = decode_state(rules.state_type, encode_state(prefix))
        if snapshot_only:
            assert restored == prefix, (game.name, k)
        assert fold(rules, payloads[k:], restored) == game.final, (game.name, k)


def check_checked_replay(game: Playout) -> None:
    """Recording the log again, each event checked, accepts every event and gives the same turns and actors."""
    state = game.rules.blank()
    for i, step in enumerate(game.steps):
        state, again = record(game.rules, state, step.payload)
        assert again == step, (game.name, i)
        assert state == game.states[i + 1], (game.name, i)


def check_apply_is_pure(game: Playout, deep_every: int) -> None:
    """`apply` returns a new state and leaves its input as it was: the same field objects, equal to a deep copy
    (every `deep_every` events)."""
    names = tuple(f.name for f in fields(game.rules.state_type))
    for i, (state, payload) in enumerate(zip(game.states, game.payloads, strict=False)):
        before = tuple(getattr(state, name) for name in names)
        deep = copy.deepcopy(state) if i % deep_every == 0 else None
        after = game.rules.apply(state, payload)
        assert after is not state
        assert all(getattr(state, name) is value for name, value in zip(names, before, strict=True))
        assert deep is None or deep == state, (game.name, i)


def check_moves(
    game: Playout,
    view_every: int,
    *,
    first: int = 2,
    at_end: Callable[[Any], None] | None = None,
    at_move: Callable[[int, Any, list[Any]], None] | None = None,
    ends_at_final: bool = True,
) -> None:
    """From states[first] on, a seat to move has legal actions (and the same from its view, every `view_every`
    events); the game ends once, at its last event, and (with `ends_at_final`) the final state has no one to move.
    A game's own checks run at the end (`at_end(state)`) and where a seat moves (`at_move(i, state, legal)`)."""
    rules = game.rules
    for i, state in enumerate(game.states[first:], start=first):
        mover = rules.to_move(state)
        if mover is None:
            assert i == len(game.states) - 1, (game.name, i)
            assert rules.legal_actions(state) == []
            if at_end is not None:
                at_end(state)
        elif mover != CHANCE_TO_MOVE:
            legal = rules.legal_actions(state)
            assert legal, (game.name, i)
            if i % view_every == 0:
                assert rules.legal_actions(rules.view(state, mover)) == legal, (game.name, i)
            if at_move is not None:
                at_move(i, state, legal)
    if ends_at_final:
        assert rules.to_move(game.final) is None, game.name


def check_snapshots(game: Playout, every: int) -> None:
    """The state after an event survives encode_state/decode_state unchanged."""
    for i, state in enumerate(game.states[::every]):
        assert decode_state(game.rules.state_type, encode_state(state)) == state, (game.name, i * every)


def check_view_ignores_hidden_cards(
    game: Playout,
    every: int,
    redealt_hidden: Callable[[Any, int, Random], Any],
    *,
    first: int = 2,
    only: Callable[[Any], bool] | None = None,
) -> None:
    """A seat's view is the same whatever the cards it cannot see and the seed of chance are: `redealt_hidden(state,
    seat, rng)` deals them again, in every `every`th state from states[first] (those for which `only` holds)."""
    rng = Random(game.name)
    for i, state in enumerate(game.states[first::every]):
        if only is not None and not only(state):
            continue
        for seat in range(game.players):
            again = game.rules.view(redealt_hidden(state, seat, rng), seat)
            assert again == game.rules.view(state, seat), (game.name, i, seat)


def check_bots(game: Playout) -> None:
    """Every bot chose one of the legal actions it was offered."""
    for kind, legal, action in game.choices:
        assert action in legal, (game.name, kind, action)


# --- One game's playouts, as tests/unit/test_playouts.py checks them ------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class Suite:
    """A game's seeded playouts and how hard each property of this module is checked on them (the `*_every` are
    strides over events); `check_moves` and `check_own` bring the game's own checks."""

    rules: Game
    bots: Mapping[str, Callable[[], Any]]  # by kind; every kind plays in the seeded games
    lineups: Sequence[Lineup]
    redealt_hidden: Callable[[Any, int, Random], Any]  # the state with the cards a seat cannot see dealt again
    check_own: Callable[[Playout], None]  # the game's own properties, at full strength
    check_moves: Callable[[Playout, int], None] = check_moves  # with the game's own checks where a seat moves
    first: int = 2  # the first state after the setup events
    most_players: int = 5
    hidden_only: Callable[[Any], bool] | None = None  # the states whose hidden cards can be dealt again
    snapshot_only: bool = False  # `check_replay` continues only from the snapshot (see there)
    deep_every: int = 9
    view_every: int = 3
    hidden_every: int = 15
    full_prefixes: int | None = 1  # the first game replays from every this many events; None: sampled like the rest
    sampled_prefixes: int = 3  # prefixes sampled at random in the other games (with 0, `first` and the end)
    full_stride: int = 5  # at full strength: the prefixes replayed
    full_every: int = 1  # at full strength: `apply` compared with a deep copy, hidden cards dealt again
    greedy: tuple[int, int]  # (games, wins at least) of the greedy bot against two random ones
    chosen_kinds: tuple[str, ...] = ("random", "random", "greedy")  # the bots hypothesis picks from, with repeats
    chosen_games: int = 8  # games hypothesis picks for every property
    chosen_prefixes: int = 30  # games hypothesis picks for a prefix

    @property
    def name(self) -> str:
        """The game's name."""
        return self.rules.name

    def playout(self, seed: int, kinds: Sequence[str]) -> Playout:
        """A game between these bots, the first player drawn at random, as the simulator plays it."""
        return playout(self.rules, self.bots, seed, kinds)


_SEEDED: dict[str, list[Playout]] = {}


def seeded(suite: Suite) -> list[Playout]:
    """The suite's seeded games, played once per test session (its own checks and the generic ones share them)."""
    if suite.name not in _SEEDED:
        _SEEDED[suite.name] = [suite.playout(seed, kinds) for seed, kinds in suite.lineups]
    return _SEEDED[suite.name]
