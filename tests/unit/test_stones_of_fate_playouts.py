"""Seeded random playouts of Stones of Fate (`SUITE`, whose properties of tests/playouts.py
tests/unit/test_playouts.py checks), and its own: the turns of two actions (S5-S7), cards and stones (S3), what each
seat remembers (S3, S5) and the final flip (S10, S11).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from random import Random
from typing import Any

from loom.engine.bots import RandomBot
from loom.engine.play import MAX_TURNS
from loom.engine.protocol import HIDDEN
from loom.engine.stones_of_fate import GAME
from loom.engine.stones_of_fate.bots import GreedyBot
from loom.engine.stones_of_fate.cards import STONES
from loom.engine.stones_of_fate.state import EMPTY, StonesState
from loom.events.stones_of_fate import DeathGiven, FinalFlip
from tests import playouts
from tests.playouts import Playout

BOTS: dict[str, Any] = {"random": RandomBot, "greedy": GreedyBot}


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


def check_own(game: Playout) -> None:
    """Stones of Fate's own properties, at full strength."""
    check_turns(game)
    check_conservation(game)
    check_end(game)
    check_views(game)


SUITE = playouts.Suite(
    rules=GAME,
    bots=BOTS,
    # the seeded games: 2-4 players, mostly random bots, some greedy and mixed
    lineups=playouts.lineups(range(2, 5), random=14, greedy=3, mixed=3),
    redealt_hidden=redealt_hidden,
    check_own=check_own,
    check_moves=check_moves,
    most_players=4,
    hidden_only=lambda state: state.deck_ordered,
    deep_every=11,
    view_every=4,
    hidden_every=17,
    full_prefixes=4,
    sampled_prefixes=2,
    full_stride=7,
    greedy=(30, 24),
    chosen_prefixes=10,
)


# --- The seeded games -------------------------------------------------------------------------------------------------


def test_the_seeded_games_cover_every_player_count_and_the_rare_corners(games: list[Playout]) -> None:
    """2-4 players; random discards, draws, refills, chosen orders, effect decisions and final flips all happen."""
    assert Counter(game.players for game in games) == {2: 20, 3: 20, 4: 20}
    kinds = Counter(type(step.payload).__name__ for game in games for step in game.steps)
    for kind in ("RandomDiscards", "CardDrawn", "SpreadRefilled", "NextChosen", "FinalFlip", "CardsSwapped",
                 "CardTaken", "CardRecovered", "EffectStopped", "CardPeeked", "StoneMoved"):  # fmt: skip
        assert kinds[kind], kind


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


def test_a_view_shows_only_what_the_seat_knows(games: list[Playout]) -> None:
    """S3, S5: the setup spread and own peeks, never others' peeks, the deck or the seed."""
    for game in games[::2]:
        check_views(game)
