"""Seeded random playouts of Stones of Fate: properties that hold after every event of every game (OpenSpiel's
random-simulation tests). A module fixture plays the games once; each test checks one property over all of them, and
a hypothesis test checks every property on games it picks.
"""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, fields
from functools import reduce
from itertools import accumulate
from random import Random
from typing import Any

import pytest
from hypothesis import Phase, given, settings
from hypothesis import strategies as st

from engine.bots import RandomBot
from engine.play import MAX_TURNS, Step, chance_rng, first_player, play_out, record, seated, start
from engine.protocol import CHANCE_TO_MOVE, HIDDEN
from engine.stones_of_fate import StonesOfFate
from engine.stones_of_fate.bots import GreedyBot
from engine.stones_of_fate.cards import STONES
from engine.stones_of_fate.state import EMPTY, StonesState
from events.base import Payload
from events.stones_of_fate import DeathGiven, FinalFlip
from replay.snapshots import decode_state, encode_state

GAME = StonesOfFate()
STATE_FIELDS = tuple(f.name for f in fields(StonesState))
BOTS: dict[str, Any] = {"random": RandomBot, "greedy": GreedyBot}


class AuditedBot:
    """A bot whose every choice is kept with the view and the legal actions it was offered."""

    def __init__(self, bot: Any) -> None:
        self.bot = bot
        self.choices: list[tuple[list[Any], Any]] = []

    def choose(self, view: StonesState, legal: Sequence[Any], rng: Random) -> Any:
        """The wrapped bot's choice, recorded."""
        action = self.bot.choose(view, legal, rng)
        self.choices.append((list(legal), action))
        return action


@dataclass(frozen=True)
class Playout:
    """One finished game: its steps as play_out recorded them and the state after each event."""

    name: str
    kinds: tuple[str, ...]
    steps: tuple[Step, ...]
    final: StonesState
    states: tuple[StonesState, ...]  # states[i]: the unchecked fold of the first i payloads
    choices: tuple[tuple[str, list[Any], Any], ...]

    @property
    def payloads(self) -> list[Payload]:
        """The events' payloads in order."""
        return [step.payload for step in self.steps]

    @property
    def players(self) -> int:
        """The number of seats."""
        return len(self.kinds)


def playout(seed: int, kinds: Sequence[str]) -> Playout:
    """A game between these bots, the first player drawn at random, as the simulator plays it."""
    rng = Random(f"loom/test/stones-of-fate/{seed}")
    order = seated(list(enumerate(kinds)), first_player(len(kinds), rng))
    state, steps = start(GAME, [f"{kind} {k + 1}" for k, kind in order], rng)
    seed_of_chance = steps[0].payload.seed  # type: ignore[attr-defined]
    bots = {seat: AuditedBot(BOTS[kind]()) for seat, (_, kind) in enumerate(order)}
    bot_rngs = {seat: Random(f"loom/test/bot/{seed}/{seat}") for seat in bots}
    final, more = play_out(GAME, state, bots, chance_rng(seed_of_chance, len(steps)), bot_rngs)
    steps += more
    states = tuple(accumulate((step.payload for step in steps), GAME.apply, initial=GAME.blank()))
    choices = tuple((order[seat][1], legal, action) for seat, bot in bots.items() for legal, action in bot.choices)
    seat_kinds = tuple(kind for _, kind in order)
    return Playout(f"seed {seed}, {'/'.join(seat_kinds)}", seat_kinds, tuple(steps), final, states, choices)


def fold(payloads: Iterable[Payload], state: StonesState | None = None) -> StonesState:
    """The state after applying `payloads` (unchecked, like the replayer)."""
    return reduce(GAME.apply, payloads, GAME.blank() if state is None else state)


def lineups() -> list[tuple[int, tuple[str, ...]]]:
    """(seed, bots) of the seeded games: 2-4 players, mostly random bots, some greedy and mixed."""
    games: list[tuple[int, tuple[str, ...]]] = []
    for players in range(2, 5):
        games += [(1000 * players + k, ("random",) * players) for k in range(14)]
        games += [(2000 * players + k, ("greedy",) * players) for k in range(3)]
        games += [(3000 * players + k, ("greedy",) + ("random",) * (players - 1)) for k in range(3)]
    return games


@pytest.fixture(scope="module")
def games() -> list[Playout]:
    """The seeded games, played once for the whole module."""
    return [playout(seed, kinds) for seed, kinds in lineups()]


# --- The properties, each for one game --------------------------------------------------------------------------------


def check_replay(game: Playout, prefixes: Iterable[int]) -> None:
    """Folding a prefix and then the rest equals the full replay and the state play_out built; so does a snapshot."""
    payloads = game.payloads
    assert fold(payloads) == game.final == game.states[-1], game.name
    for k in prefixes:
        prefix = fold(payloads[:k])
        assert prefix == game.states[k], (game.name, k)
        assert fold(payloads[k:], prefix) == game.final, (game.name, k)
        restored = decode_state(StonesState, encode_state(prefix))
        assert fold(payloads[k:], restored) == game.final, (game.name, k)


def check_checked_replay(game: Playout) -> None:
    """Recording the log again, each event checked, accepts every event with the same turns and actors."""
    state = GAME.blank()
    for i, step in enumerate(game.steps):
        state, again = record(GAME, state, step.payload)
        assert again == step, (game.name, i)
        assert state == game.states[i + 1], (game.name, i)


def check_apply_is_pure(game: Playout, deep_every: int) -> None:
    """`apply` leaves its input as it was."""
    for i, (state, payload) in enumerate(zip(game.states, game.payloads, strict=False)):
        before = tuple(getattr(state, name) for name in STATE_FIELDS)
        deep = copy.deepcopy(state) if i % deep_every == 0 else None
        after = GAME.apply(state, payload)
        assert after is not state
        assert all(getattr(state, name) is value for name, value in zip(STATE_FIELDS, before, strict=True))
        assert deep is None or deep == state, (game.name, i)


def check_moves(game: Playout, view_every: int) -> None:
    """A seat to move has legal actions, the same from its own view; the game ends once, at its last event."""
    for i, state in enumerate(game.states[2:], start=2):
        mover = GAME.to_move(state)
        if mover is None:
            assert i == len(game.states) - 1, (game.name, i)
            assert GAME.legal_actions(state) == []
        elif mover != CHANCE_TO_MOVE:
            legal = GAME.legal_actions(state)
            assert legal, (game.name, i)
            if i % view_every == 0:
                assert GAME.legal_actions(GAME.view(state, mover)) == legal, (game.name, i)


def check_turns(game: Playout) -> None:
    """S5-S7: turns go round clockwise, two actions each; turns are numbered from 1 without gaps."""
    turns = [step.turn for step in game.steps]
    assert turns[:2] == [0, 0] and turns == sorted(turns) and set(turns) == set(range(max(turns) + 1)), game.name
    for state in game.states[2:]:
        assert 0 <= state.actions <= 2
        between = state.actions == 0  # a turn ended; the next seat's first action begins turn + 1
        assert state.seat == (state.turn if between else state.turn - 1) % game.players, game.name
    assert max(turns) < MAX_TURNS


def check_conservation(game: Playout) -> None:
    """S3: the cards in play (spread + deck at setup) stay in the spread, the deck, collections or the discard pile,
    each once; each seat has 5 stones between its supply and the edges."""
    in_play = sorted(c for c in (*game.states[2].spread, *game.states[2].deck) if c != EMPTY)
    for i, state in enumerate(game.states[2:], start=2):
        everywhere = [c for c in state.spread if c != EMPTY] + list(state.deck) + list(state.discard)
        everywhere += [c for held in state.collections for c in held]
        assert sorted(everywhere) == in_play, (game.name, i)
        assert state.deck_size == len(state.deck)
        for mine in state.stones:
            assert all(n >= 0 for n in mine) and sum(mine) <= STONES, (game.name, i)


def check_end(game: Playout) -> None:
    """S10-S11: the game ends with the final flip (then perhaps Death's gift): deck and spread empty."""
    last = [type(p) for p in game.payloads[-2:]]
    assert last[-1] is FinalFlip or last == [FinalFlip, DeathGiven], game.name
    assert game.final.deck_size == 0 and all(c == EMPTY for c in game.final.spread)
    assert GAME.winners(game.final)


def check_snapshots(game: Playout, every: int) -> None:
    """The state after an event survives encode_state/decode_state unchanged."""
    for i, state in enumerate(game.states[::every]):
        assert decode_state(StonesState, encode_state(state)) == state, (game.name, i * every)


def check_views(game: Playout) -> None:
    """S3, S5: a seat's memory is never wrong; its view shows face-up cards and what it remembers, the rest HIDDEN;
    the deck and the seed are hidden."""
    for i, state in enumerate(game.states[2:], start=2):
        for seat in range(game.players):
            view = GAME.view(state, seat)
            assert view.seed == HIDDEN and all(c == HIDDEN for c in view.deck)
            for p, c in enumerate(state.spread):
                seen = view.spread[p]
                assert seen in (c, HIDDEN), (game.name, i, seat, p)
                assert state.known[seat][p] in (c, HIDDEN), (game.name, i, seat, p)
                if c == EMPTY or p in state.face_up:
                    assert seen == c
            assert view.collections == state.collections and view.stones == state.stones


def redealt_hidden(state: StonesState, seat: int, rng: Random) -> StonesState:
    """`state` with the cards `seat` cannot see (face-down cards it does not remember, the deck but a top card it
    peeked at) shuffled among their places, and another seed."""
    mine = state.known[seat]
    slots = [p for p, c in enumerate(state.spread) if c != EMPTY and p not in state.face_up and mine[p] == HIDDEN]
    keep_top = 1 if state.known_top[seat] != HIDDEN else 0
    hidden = [state.spread[p] for p in slots] + list(state.deck[keep_top:])
    rng.shuffle(hidden)
    spread = list(state.spread)
    for p in slots:
        spread[p] = hidden.pop()
    deck = state.deck[:keep_top] + tuple(hidden)
    changes = {"spread": tuple(spread), "deck": deck, "seed": rng.getrandbits(48)}
    return StonesState(**{name: getattr(state, name) for name in STATE_FIELDS} | changes)


def check_view_ignores_hidden_cards(game: Playout, every: int) -> None:
    """A seat's view is the same whatever the cards it cannot see are: nothing hidden leaks into it."""
    rng = Random(game.name)
    for i, state in enumerate(game.states[2::every]):
        if not state.deck_ordered:
            continue
        for seat in range(game.players):
            assert GAME.view(redealt_hidden(state, seat, rng), seat) == GAME.view(state, seat), (game.name, i, seat)


def check_bots(game: Playout) -> None:
    """Every bot chose one of the legal actions it was offered."""
    for kind, legal, action in game.choices:
        assert action in legal, (game.name, kind, action)


def check_all(game: Playout) -> None:
    """Every property, at full strength."""
    check_replay(game, [*range(0, len(game.steps), 7), len(game.steps)])
    check_checked_replay(game)
    check_apply_is_pure(game, deep_every=1)
    check_moves(game, view_every=1)
    check_turns(game)
    check_conservation(game)
    check_end(game)
    check_snapshots(game, every=1)
    check_views(game)
    check_view_ignores_hidden_cards(game, every=1)
    check_bots(game)


# --- The seeded games -------------------------------------------------------------------------------------------------


def test_the_seeded_games_cover_every_player_count_and_the_rare_corners(games: list[Playout]) -> None:
    """2-4 players; random discards, draws, refills, chosen orders, effect decisions and final flips all happen."""
    assert Counter(game.players for game in games) == {2: 20, 3: 20, 4: 20}
    kinds = Counter(type(step.payload).__name__ for game in games for step in game.steps)
    for kind in ("RandomDiscards", "CardDrawn", "SpreadRefilled", "NextChosen", "FinalFlip", "CardsSwapped",
                 "CardTaken", "CardRecovered", "EffectStopped", "CardPeeked", "StoneMoved"):  # fmt: skip
        assert kinds[kind], kind


def test_replaying_any_prefix_then_the_rest_equals_the_full_replay(games: list[Playout]) -> None:
    """Fold a prefix, then continue from it (or from its snapshot): the same state as the whole log and play_out."""
    for n, game in enumerate(games):
        last = len(game.steps)
        prefixes = range(0, last + 1, 4) if n == 0 else {0, last, *Random(n).sample(range(last + 1), 2)}
        check_replay(game, prefixes)


def test_a_checked_replay_accepts_every_event_and_rebuilds_the_same_steps(games: list[Playout]) -> None:
    """Every event play_out logged passes `check` again, with the same turn and actor."""
    for game in games:
        check_checked_replay(game)


def test_apply_never_mutates_its_input(games: list[Playout]) -> None:
    """The state given to `apply` is unchanged afterwards."""
    for game in games:
        check_apply_is_pure(game, deep_every=11)


def test_legal_actions_are_non_empty_until_the_end(games: list[Playout]) -> None:
    """Whenever a seat is to move it has a legal action; the game ends at its last event, and only there."""
    for game in games:
        check_moves(game, view_every=4)


def test_turns_go_round_with_two_actions_each(games: list[Playout]) -> None:
    """S5-S7 and the end: every game ends well within MAX_TURNS."""
    for game in games:
        check_turns(game)


def test_cards_and_stones_are_conserved(games: list[Playout]) -> None:
    """S3: no card appears twice or vanishes; five stones per seat."""
    for game in games:
        check_conservation(game)


def test_every_game_ends_with_the_final_flip(games: list[Playout]) -> None:
    """S10: every seeded game ends, with the deck and the spread empty."""
    for game in games:
        check_end(game)


def test_every_state_round_trips_through_a_snapshot(games: list[Playout]) -> None:
    """decode_state(encode_state(state)) == state."""
    for n, game in enumerate(games):
        check_snapshots(game, every=1 if n % 8 == 0 else 5)


def test_a_view_shows_only_what_the_seat_knows(games: list[Playout]) -> None:
    """S3, S5: the setup spread and own peeks, never others' peeks, the deck or the seed."""
    for game in games[::2]:
        check_views(game)


def test_a_view_does_not_depend_on_the_cards_it_hides(games: list[Playout]) -> None:
    """Re-dealing the cards a seat cannot see leaves its view unchanged."""
    for game in games:
        check_view_ignores_hidden_cards(game, every=17)


def test_bots_only_choose_legal_actions(games: list[Playout]) -> None:
    """The random and greedy bots choose only among the legal actions of their view."""
    assert {kind for game in games for kind, _, _ in game.choices} == {"random", "greedy"}
    for game in games:
        check_bots(game)


def test_a_seeded_playout_is_reproducible() -> None:
    """The same seed and bots give the same log."""
    assert playout(7, ("greedy", "random", "random")).steps == playout(7, ("greedy", "random", "random")).steps


def test_greedy_beats_random_clearly() -> None:
    """Over 30 three-player games, the greedy bot (in each seat in turn) wins far more than a random third."""
    wins = 0
    for n in range(30):
        kinds = ["random"] * 3
        kinds[n % 3] = "greedy"
        game = playout(5000 + n, kinds)
        wins += any(game.kinds[seat] == "greedy" for seat in GAME.winners(game.final))
    assert wins >= 24, f"greedy won {wins} of 30"


# --- Games chosen by hypothesis --------------------------------------------------------------------------------------


@settings(max_examples=8, deadline=None, phases=[Phase.explicit, Phase.reuse, Phase.generate])
@given(
    seed=st.integers(min_value=0, max_value=2**32 - 1),
    kinds=st.lists(st.sampled_from(["random", "random", "greedy"]), min_size=2, max_size=4),
)
def test_every_property_holds_in_any_game(seed: int, kinds: list[str]) -> None:
    """All of the above, at full strength, for games hypothesis picks: any seed, 2-4 players, any bots."""
    check_all(playout(seed, kinds))
