"""Seeded random playouts of every game: the properties of tests/playouts.py, which every game's playouts must have.
Each game's own properties are in tests/unit/test_<game>_playouts.py, which describes its playouts as a `Suite`.
"""

from __future__ import annotations

from random import Random

import pytest
from hypothesis import Phase, given, settings
from hypothesis import strategies as st

from tests import playouts
from tests.playouts import Playout, Suite
from tests.unit.test_moirai_playouts import SUITE as MOIRAI
from tests.unit.test_moorea_playouts import SUITE as MOOREA
from tests.unit.test_motto_playouts import SUITE as MOTTO
from tests.unit.test_stones_of_fate_playouts import SUITE as STONES_OF_FATE

every_game = pytest.mark.parametrize("suite", [MOTTO, MOIRAI, MOOREA, STONES_OF_FATE], ids=lambda suite: suite.name)


def check_all(suite: Suite, game: Playout) -> None:
    """Every property, at full strength: this module's and the game's own."""
    playouts.check_replay(
        game, [*range(0, len(game.steps), suite.full_stride), len(game.steps)], snapshot_only=suite.snapshot_only
    )
    playouts.check_checked_replay(game)
    playouts.check_apply_is_pure(game, deep_every=suite.full_every)
    suite.check_moves(game, 1)
    playouts.check_snapshots(game, every=1)
    playouts.check_view_ignores_hidden_cards(
        game, suite.full_every, suite.redealt_hidden, first=suite.first, only=suite.hidden_only
    )
    playouts.check_bots(game)
    suite.check_own(game)


# --- The seeded games -------------------------------------------------------------------------------------------------


@every_game
def test_replaying_any_prefix_then_the_rest_equals_the_full_replay(suite: Suite) -> None:
    """Fold a prefix, then continue from it (or from its snapshot): the same state as the whole log and play_out."""
    for n, game in enumerate(playouts.seeded(suite)):
        last = len(game.steps)
        if n == 0 and suite.full_prefixes is not None:
            prefixes: set[int] | range = range(0, last + 1, suite.full_prefixes)
        else:
            prefixes = {0, suite.first, last, *Random(n).sample(range(last + 1), suite.sampled_prefixes)}
        playouts.check_replay(game, prefixes, snapshot_only=suite.snapshot_only)


@every_game
def test_a_checked_replay_accepts_every_event_and_rebuilds_the_same_steps(suite: Suite) -> None:
    """Every event play_out logged passes `check` again, with the same turn and actor."""
    for game in playouts.seeded(suite):
        playouts.check_checked_replay(game)


@every_game
def test_apply_never_mutates_its_input(suite: Suite) -> None:
    """The state given to `apply` is unchanged afterwards (compared with a deep copy every few events)."""
    for game in playouts.seeded(suite):
        playouts.check_apply_is_pure(game, deep_every=suite.deep_every)


@every_game
def test_legal_actions_are_non_empty_until_the_end(suite: Suite) -> None:
    """Whenever a seat is to move it has a legal action, the same from its own view; the game ends at its last
    event, and only there."""
    for game in playouts.seeded(suite):
        suite.check_moves(game, suite.view_every)


@every_game
def test_every_state_round_trips_through_a_snapshot(suite: Suite) -> None:
    """decode_state(encode_state(state)) == state after each event (every fifth event of most games)."""
    for n, game in enumerate(playouts.seeded(suite)):
        playouts.check_snapshots(game, every=1 if n % 8 == 0 else 5)


@every_game
def test_a_view_does_not_depend_on_the_cards_it_hides(suite: Suite) -> None:
    """Dealing again the cards a seat cannot see, and changing the seed of chance, leaves its view unchanged."""
    for game in playouts.seeded(suite):
        playouts.check_view_ignores_hidden_cards(
            game, suite.hidden_every, suite.redealt_hidden, first=suite.first, only=suite.hidden_only
        )


@every_game
def test_bots_only_choose_legal_actions(suite: Suite) -> None:
    """The random, greedy and test bots choose only among the legal actions of their view."""
    games = playouts.seeded(suite)
    assert {kind for game in games for kind, _, _ in game.choices} == set(suite.bots)
    for game in games:
        playouts.check_bots(game)


@every_game
def test_a_seeded_playout_is_reproducible(suite: Suite) -> None:
    """The same seed and bots give the same log."""
    kinds = ("greedy", "random", "random")
    assert suite.playout(7, kinds).steps == suite.playout(7, kinds).steps


@every_game
def test_greedy_beats_random_clearly(suite: Suite) -> None:
    """In three-player games, the greedy bot (in each seat in turn) wins far more than a random third."""
    games, least = suite.greedy
    wins = playouts.greedy_wins(suite.playout, games)
    assert wins >= least, f"greedy won {wins} of {games}"


# --- Games chosen by hypothesis --------------------------------------------------------------------------------------


@every_game
def test_every_property_holds_in_any_game(suite: Suite) -> None:
    """All of the above, at full strength, for games hypothesis picks: any seed, any number of players, any bots."""

    # Shrinking would replay whole games hundreds of times; a failing seed is as telling unshrunk.
    @settings(max_examples=suite.chosen_games, deadline=None, phases=[Phase.explicit, Phase.reuse, Phase.generate])
    @given(
        seed=st.integers(min_value=0, max_value=2**32 - 1),
        kinds=st.lists(st.sampled_from(suite.chosen_kinds), min_size=2, max_size=suite.most_players),
    )
    def holds(seed: int, kinds: list[str]) -> None:
        check_all(suite, suite.playout(seed, kinds))

    holds()


@every_game
def test_any_prefix_continues_to_the_same_end(suite: Suite) -> None:
    """Replaying the first k events (directly or from a snapshot) and then the rest gives the full replay."""

    @settings(max_examples=suite.chosen_prefixes, deadline=None)
    @given(
        data=st.data(),
        seed=st.integers(min_value=0, max_value=2**32 - 1),
        players=st.integers(2, suite.most_players),
    )
    def continues(data: st.DataObject, seed: int, players: int) -> None:
        game = suite.playout(seed, ["random"] * players)
        k = data.draw(st.integers(min_value=0, max_value=len(game.steps)), label="prefix")
        playouts.check_replay(game, [k], snapshot_only=suite.snapshot_only)

    continues()
