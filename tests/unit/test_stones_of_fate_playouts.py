"""Seeded random playouts of Stones of Fate: the properties of tests/playouts.py, and the turns of two actions
(S5-S7), cards and stones (S3), what each seat remembers (S3, S5) and the final flip (S10, S11).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from random import Random
from typing import Any

import pytest
from hypothesis import Phase, given, settings
from hypothesis import strategies as st

from engine.bots import RandomBot
from engine.play import MAX_TURNS
from engine.protocol import HIDDEN
from engine.stones_of_fate import GAME
from engine.stones_of_fate.bots import GreedyBot
from engine.stones_of_fate.cards import STONES
from engine.stones_of_fate.state import EMPTY, StonesState
from events.stones_of_fate import DeathGiven, FinalFlip
from tests import playouts
from tests.playouts import Lineup, Playout

BOTS: dict[str, Any] = {"random": RandomBot, "greedy": GreedyBot}


def playout(seed: int, kinds: Sequence[str]) -> Playout:
    """A game between these bots, the first player drawn at random, as the simulator plays it."""
    return playouts.playout(GAME, BOTS, seed, kinds)


def lineups() -> list[Lineup]:
    """(seed, bots) of the seeded games: 2-4 players, mostly random bots, some greedy and mixed."""
    return playouts.lineups(range(2, 5), random=14, greedy=3, mixed=3)


@pytest.fixture(scope="module")
def games() -> list[Playout]:
    """The seeded games, played once for the whole module."""
    return [playout(seed, kinds) for seed, kinds in lineups()]


# --- The properties, each for one game --------------------------------------------------------------------------------


def check_moves(game: Playout, view_every: int) -> None:
    """A seat to move has legal actions, the same from its own view; the game ends once, at its last event."""
    playouts.check_moves(game, view_every, ends_at_final=False)  # check_end sees the end (S10-S11)


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
    return replace(state, spread=tuple(spread), deck=deck, seed=rng.getrandbits(48))


def check_view_ignores_hidden_cards(game: Playout, every: int) -> None:
    """A seat's view is the same whatever the cards it cannot see are: nothing hidden leaks into it."""
    playouts.check_view_ignores_hidden_cards(game, every, redealt_hidden, only=lambda state: state.deck_ordered)


def check_all(game: Playout) -> None:
    """Every property, at full strength."""
    playouts.check_replay(game, [*range(0, len(game.steps), 7), len(game.steps)])
    playouts.check_checked_replay(game)
    playouts.check_apply_is_pure(game, deep_every=1)
    check_moves(game, view_every=1)
    check_turns(game)
    check_conservation(game)
    check_end(game)
    playouts.check_snapshots(game, every=1)
    check_views(game)
    check_view_ignores_hidden_cards(game, every=1)
    playouts.check_bots(game)


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
        playouts.check_replay(game, prefixes)


def test_a_checked_replay_accepts_every_event_and_rebuilds_the_same_steps(games: list[Playout]) -> None:
    """Every event play_out logged passes `check` again, with the same turn and actor."""
    for game in games:
        playouts.check_checked_replay(game)


def test_apply_never_mutates_its_input(games: list[Playout]) -> None:
    """The state given to `apply` is unchanged afterwards."""
    for game in games:
        playouts.check_apply_is_pure(game, deep_every=11)


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
        playouts.check_snapshots(game, every=1 if n % 8 == 0 else 5)


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
        playouts.check_bots(game)


def test_a_seeded_playout_is_reproducible() -> None:
    """The same seed and bots give the same log."""
    assert playout(7, ("greedy", "random", "random")).steps == playout(7, ("greedy", "random", "random")).steps


def test_greedy_beats_random_clearly() -> None:
    """Over 30 three-player games, the greedy bot (in each seat in turn) wins far more than a random third."""
    wins = playouts.greedy_wins(playout, 30)
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
