"""Seeded random playouts of Motto (`SUITE`, whose properties of tests/playouts.py tests/unit/test_playouts.py
checks), and Motto's own: tokens, points and cards (T1, T2), full pool (T4), hidden hands (T3, T4) and end (T7), after
every event of every game.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from random import Random
from typing import Any

from loom.engine.bots import RandomBot
from loom.engine.motto import GAME
from loom.engine.motto.actions import Draw, Pass, Play
from loom.engine.motto.bots import GreedyBot
from loom.engine.motto.cards import FULL_DECK, POOL_SIZE, TOKEN_POINTS, VALUES, card
from loom.engine.motto.state import MottoState
from loom.engine.protocol import CHANCE_TO_MOVE, HIDDEN
from loom.events.motto import CardsPlayed, PoolCardTaken
from tests import playouts
from tests.playouts import Playout

TOKENS = len(VALUES) * len(TOKEN_POINTS)  # 27
POINTS = len(VALUES) * sum(TOKEN_POINTS)  # 54


class HoarderBot:
    """Takes or draws while it can and plays only when it must: it empties deck and discard pile (T4, T6 corners)."""

    def choose(self, view: MottoState, legal: Sequence[Any], rng: Random) -> Any:
        """A random take or draw if there is one, else a random legal action."""
        grabs = [action for action in legal if not isinstance(action, Play)] or list(legal)
        return grabs[rng.randrange(len(grabs))]


BOTS: dict[str, Any] = {"random": RandomBot, "greedy": GreedyBot, "hoarder": HoarderBot}


# --- The properties, each for one game --------------------------------------------------------------------------------


def check_moves(game: Playout, view_every: int) -> None:
    """A seat to move has legal actions (and the same from its view); the game ends once, at its last event (T7)."""

    def at_end(state: MottoState) -> None:
        assert all(height <= 1 for height in state.stacks)

    def at_move(i: int, state: MottoState, legal: list[Any]) -> None:
        assert Pass() not in legal or legal == [Pass()], (game.name, i)  # T6: pass only with nothing else

    playouts.check_moves(game, view_every, at_end=at_end, at_move=at_move)


def check_conservation(game: Playout) -> None:
    """27 tokens and 54 points between seats and stacks, each stack given out top first; 54 cards in play (T1, T2)."""
    for i, state in enumerate(game.states[2:], start=2):
        held = [token for won in state.tokens for token in won]
        assert len(held) + sum(state.stacks) == TOKENS, (game.name, i)
        left = sum(sum(TOKEN_POINTS[len(TOKEN_POINTS) - height :]) for height in state.stacks)
        assert sum(GAME.scores(state)) + left == POINTS, (game.name, i)
        for value, height in enumerate(state.stacks):
            given = sorted((points for v, points in held if v == value), reverse=True)
            assert tuple(given) == TOKEN_POINTS[: len(TOKEN_POINTS) - height], (game.name, i, value)
        everywhere = [*state.pool, *state.deck, *state.discard, *(c for hand in state.hands for c in hand)]
        assert sorted(everywhere) == list(FULL_DECK), (game.name, i)


def check_pool(game: Playout) -> None:
    """T4: when a seat acts the pool holds four cards unless deck and discard are both empty; no deck, no draw."""
    for i, state in enumerate(game.states[2:], start=2):
        if GAME.to_move(state) in (None, CHANCE_TO_MOVE):
            continue
        assert len(state.pool) <= POOL_SIZE
        if state.deck or state.discard:
            assert len(state.pool) == POOL_SIZE and state.deck, (game.name, i)
        else:
            assert Draw() not in GAME.legal_actions(state), (game.name, i)


def check_views(game: Playout) -> None:
    """A seat sees its own hand, and of another seat's hand only the cards it took face up from the pool and still
    holds: cards drawn from the deck are HIDDEN, and so is the whole deck (T3, T4)."""
    public: list[Counter[int]] = [Counter() for _ in range(game.players)]
    for i, (step, state) in enumerate(zip(game.steps[1:], game.states[2:], strict=True), start=2):
        if isinstance(step.payload, PoolCardTaken):
            public[step.actor][card(step.payload.card)] += 1  # type: ignore[index]
        elif isinstance(step.payload, CardsPlayed):
            public[step.actor] -= Counter(card(name) for name in step.payload.cards)  # type: ignore[index]
        views = [GAME.view(state, seat) for seat in range(game.players)]
        for seat, view in enumerate(views):
            assert view.deck == (HIDDEN,) * len(state.deck), (game.name, i)
            assert (view.pool, view.discard, view.stacks, view.tokens) == (
                state.pool,
                state.discard,
                state.stacks,
                state.tokens,
            )
            assert view.hands[seat] == state.hands[seat]
            # Another seat's hand looks the same to every seat but its own: shown cards, the rest HIDDEN.
            other = (seat + 1) % game.players
            seen = Counter(c for c in view.hands[other] if c != HIDDEN)
            assert seen == public[other], (game.name, i, seat, other)
            assert len(view.hands[other]) == len(state.hands[other])
            assert all(views[s].hands[other] == view.hands[other] for s in range(game.players) if s != other)


def redealt_hidden(state: MottoState, seat: int, rng: Random) -> MottoState:
    """`state` with every card `seat` cannot see (deck, others' cards not taken face up) shuffled and dealt again,
    and another seed of chance."""
    hidden = list(state.deck)
    unseen: list[list[int]] = []
    for other, hand in enumerate(state.hands):
        rest = [] if other == seat else sorted((Counter(hand) - Counter(state.shown[other])).elements())
        hidden += rest
        unseen.append(rest)
    rng.shuffle(hidden)
    deck, hidden = tuple(hidden[: len(state.deck)]), hidden[len(state.deck) :]
    hands = []
    for other, hand in enumerate(state.hands):
        dealt, hidden = hidden[: len(unseen[other])], hidden[len(unseen[other]) :]
        hands.append(hand if other == seat else tuple(sorted([*state.shown[other], *dealt])))
    seed = rng.getrandbits(48)  # the seed of later chance fixes the order of every reshuffled deck
    return replace(state, deck=deck, hands=tuple(hands), seed=seed)


def check_end(game: Playout) -> None:
    """T7: the seat that took the last large-or-medium token plays no more; the others play once each, clockwise."""
    trigger = next((i for i, state in enumerate(game.states) if state.final_turns is not None), None)
    assert trigger is not None, f"{game.name} ended without T7's trigger"
    taker = game.steps[trigger - 1].actor
    assert isinstance(game.steps[trigger - 1].payload, CardsPlayed) and taker is not None
    assert max(game.states[trigger - 1].stacks) >= 2 and max(game.states[trigger].stacks) <= 1
    after = [step.actor for step in game.steps[trigger:] if step.actor is not None]
    assert after == [(taker + k) % game.players for k in range(1, game.players)], game.name


def check_own(game: Playout) -> None:
    """Motto's own properties, at full strength."""
    check_conservation(game)
    check_pool(game)
    check_views(game)
    check_end(game)


SUITE = playouts.Suite(
    rules=GAME,
    bots=BOTS,
    # the seeded games: mostly random bots, some greedy and mixed, a few hoarders
    lineups=playouts.lineups(range(2, 6), random=30, greedy=5, mixed=5, special=("hoarder", "random", 2)),
    redealt_hidden=redealt_hidden,
    check_own=check_own,
    check_moves=check_moves,
    greedy=(60, 45),
    chosen_games=10,
    chosen_prefixes=40,
)


# --- The seeded games -------------------------------------------------------------------------------------------------


def test_the_seeded_games_cover_every_player_count_and_the_rare_corners(games: list[Playout]) -> None:
    """The games reach what the properties must see: 2-5 players, reshuffles, passes, a short pool (T4, T6)."""
    assert Counter(game.players for game in games) == {2: 42, 3: 42, 4: 42, 5: 42}
    kinds = Counter(type(step.payload).__name__ for game in games for step in game.steps)
    assert kinds["DiscardReshuffled"] and kinds["TurnPassed"] and kinds["DeckCardDrawn"] and kinds["PoolRefilled"]
    short = sum(
        1
        for game in games
        for state in game.states[2:]
        if GAME.to_move(state) not in (None, CHANCE_TO_MOVE) and len(state.pool) < POOL_SIZE
    )
    assert short > 0


def test_tokens_points_and_cards_are_conserved(games: list[Playout]) -> None:
    """T1, T2: after every event, 27 tokens, 54 points and the 54 cards are all accounted for."""
    for game in games:
        check_conservation(game)


def test_the_pool_is_full_whenever_cards_are_left_to_fill_it(games: list[Playout]) -> None:
    """T4: a short pool, or a missing draw, only when deck and discard pile are both empty."""
    for game in games:
        check_pool(game)


def test_a_view_never_shows_another_seats_hidden_cards(games: list[Playout]) -> None:
    """T4: in a seat's view, others' deck draws and the deck are HIDDEN; cards taken face up stay visible."""
    for game in games:
        check_views(game)


def test_the_end_gives_each_other_seat_exactly_one_more_turn(games: list[Playout]) -> None:
    """T7, in every seeded game."""
    for game in games:
        check_end(game)
