"""Seeded random playouts of Moirai (`SUITE`, whose properties of tests/playouts.py tests/unit/test_playouts.py
checks), and Moirai's own: cards and lives (M1, M5, M6), the draw first (M7), what each seat may see (M3, M9) and the
end on the emptied deck (M10, M11).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from random import Random
from typing import Any

from loom.engine.bots import RandomBot
from loom.engine.moirai import GAME
from loom.engine.moirai.actions import Draw, Keep, Take
from loom.engine.moirai.bots import GreedyBot
from loom.engine.moirai.cards import FULL_DECK
from loom.engine.moirai.state import MoiraiState
from loom.engine.protocol import HIDDEN
from loom.events.moirai import CardKept, CardsDrawn, PileTaken, StartsRevealed
from tests import playouts
from tests.playouts import Playout


class TakerBot:
    """Takes a pile whenever it can, in a random legal arrangement: big piles and many face-down cards (M8)."""

    def choose(self, view: MoiraiState, legal: Sequence[Any], rng: Random) -> Any:
        """A random take if there is one, else a random legal action."""
        takes = [action for action in legal if isinstance(action, Take)] or list(legal)
        return takes[rng.randrange(len(takes))]


BOTS: dict[str, Any] = {"random": RandomBot, "greedy": GreedyBot, "taker": TakerBot}


# --- The properties, each for one game --------------------------------------------------------------------------------


def check_moves(game: Playout, view_every: int) -> None:
    """A seat to move has legal actions, the same from its own view; the game ends once, at its last event."""

    def at_move(i: int, state: MoiraiState, legal: list[Any]) -> None:
        if state.drawn:
            assert all(isinstance(a, Keep) for a in legal)
        else:
            assert legal[0] == Draw(), (game.name, i)  # M7: option 1 while the deck lasts

    playouts.check_moves(game, view_every, first=3, at_move=at_move)


def check_cards(game: Playout) -> None:
    """M1, M5, M6: the 80 cards are all somewhere exactly once; lives rise strictly and close only over a card."""
    for i, state in enumerate(game.states[3:], start=3):
        everywhere = [*state.deck, *state.drawn, *(c for p in state.piles for c in p)]
        for loom in state.looms:
            for start_card, cards, close in loom:
                everywhere += [start_card, *cards] + ([] if close is None else [close])
                assert all(a < b for a, b in zip(cards, cards[1:])), (game.name, i)
                assert close is None or cards, (game.name, i)
        assert sorted(everywhere) == list(FULL_DECK), (game.name, i)
        assert len(state.deck) == state.deck_left, (game.name, i)


def check_views(game: Playout) -> None:
    """M3, M9: setup starting cards are hidden from everyone until the reveal; option 1 face-down cards from all
    but their owner; pile cards from no one; drawn cards from all but the drawer; the deck and the seed always."""
    public: set[int] = set()
    private: dict[int, int] = {}  # option 1 face-down card -> its owner
    for i, (step, state) in enumerate(zip(game.steps[2:], game.states[3:], strict=True), start=3):
        payload = step.payload
        if isinstance(payload, PileTaken):
            public |= {c for c, how, _ in payload.placed if how != "up"}
        elif isinstance(payload, CardKept) and payload.placed[0][1] != "up":
            private[payload.placed[0][0]] = step.actor  # type: ignore[assignment]
        for seat in range(game.players):
            view = GAME.view(state, seat)
            assert view.deck == (HIDDEN,) * len(state.deck) and view.seed == HIDDEN
            assert (view.piles, view.objectives, view.deck_left) == (state.piles, state.objectives, state.deck_left)
            assert view.drawn == (state.drawn if seat == state.seat else (HIDDEN,) * len(state.drawn))
            for seen, loom in zip(view.looms, state.looms, strict=True):
                for n, ((start_seen, up_seen, close_seen), (start_card, cards, close)) in enumerate(zip(seen, loom)):
                    assert up_seen == cards
                    if n == 0:
                        assert start_seen == (start_card if state.revealed else HIDDEN), (game.name, i)
                    else:
                        known = state.revealed or start_card in public or private.get(start_card) == seat
                        assert start_seen == (start_card if known else HIDDEN), (game.name, i)
                    if close is not None:
                        known = close in public or private.get(close) == seat
                        assert close_seen == (close if known else HIDDEN), (game.name, i)
                    else:
                        assert close_seen is None


def redealt_hidden(state: MoiraiState, seat: int, rng: Random) -> MoiraiState:
    """`state` with every card `seat` cannot see given another value, and another seed of chance."""
    view = GAME.view(state, seat)
    slots: list[int] = [*state.deck]
    drawn_hidden = seat != state.seat
    slots += list(state.drawn) if drawn_hidden else []
    for seen, loom in zip(view.looms, state.looms):
        for (start_seen, _, close_seen), (start_card, _, close) in zip(seen, loom):
            slots += [start_card] if start_seen == HIDDEN else []
            slots += [close] if close_seen == HIDDEN and close is not None else []  # type: ignore[list-item]
    values = slots[:]
    rng.shuffle(values)
    swap = dict(zip(slots, values))
    looms = tuple(
        tuple(
            (swap.get(s, s) if ss == HIDDEN else s, cards, swap.get(c, c) if cs == HIDDEN and c is not None else c)
            for (ss, _, cs), (s, cards, c) in zip(seen, loom)
        )
        for seen, loom in zip(view.looms, state.looms)
    )
    return replace(
        state,
        deck=tuple(swap[c] for c in state.deck),
        drawn=tuple(swap[c] for c in state.drawn) if drawn_hidden else state.drawn,
        looms=looms,
        seed=rng.getrandbits(48),
    )


def check_end(game: Playout) -> None:
    """M10, M11: the draw that empties the deck is the last draw; its turn ends with a keep; the reveal follows."""
    payloads = game.payloads
    assert isinstance(payloads[-1], StartsRevealed)
    assert isinstance(payloads[-2], CardKept) and isinstance(payloads[-3], CardsDrawn), game.name
    assert game.states[-3].deck_left == 0 and game.states[-4].deck_left > 0
    assert len(payloads[-3].cards) == min(3, game.states[-4].deck_left)  # type: ignore[attr-defined]
    assert all(state.deck_left > 0 for state in game.states[3:-3])


def check_own(game: Playout) -> None:
    """Moirai's own properties, at full strength."""
    check_cards(game)
    check_views(game)
    check_end(game)


SUITE = playouts.Suite(
    rules=GAME,
    bots=BOTS,
    # the seeded games: mostly random bots, some greedy and mixed, a few takers
    lineups=playouts.lineups(range(2, 6), random=12, greedy=2, mixed=3, special=("taker", "random", 3)),
    redealt_hidden=redealt_hidden,
    check_own=check_own,
    check_moves=check_moves,
    first=3,
    hidden_every=11,
    greedy=(45, 27),
    chosen_kinds=("random", "random", "greedy", "taker"),
)


# --- The seeded games -------------------------------------------------------------------------------------------------


def test_the_seeded_games_cover_every_player_count_and_both_options(games: list[Playout]) -> None:
    """The games reach what the properties must see: 2-5 players, both options, face-down cards of both kinds."""
    assert Counter(game.players for game in games) == {2: 20, 3: 20, 4: 20, 5: 20}
    kinds = Counter(type(step.payload).__name__ for game in games for step in game.steps)
    assert kinds["CardsDrawn"] and kinds["CardKept"] and kinds["PileTaken"] and kinds["StartsRevealed"] == len(games)
    hows = Counter(how for game in games for step in game.steps for _, how, _ in getattr(step.payload, "placed", ()))
    assert hows["up"] and hows["open"] and hows["close"]
    short = sum(len(game.payloads[-3].cards) < 3 for game in games)  # type: ignore[attr-defined]
    assert short > 0  # M10: some games end on a draw of fewer than three cards


def test_every_card_is_somewhere_once_and_lives_rise(games: list[Playout]) -> None:
    """M1, M5, M6, after every event."""
    for game in games:
        check_cards(game)


def test_a_view_shows_exactly_what_its_seat_may_know(games: list[Playout]) -> None:
    """M3, M9 in every seeded game."""
    for game in games:
        check_views(game)


def test_the_game_ends_with_the_draw_that_empties_the_deck(games: list[Playout]) -> None:
    """M10, M11, in every seeded game."""
    for game in games:
        check_end(game)
