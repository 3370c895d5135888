"""Seeded random playouts of Moorea: properties that hold after every event of every game (OpenSpiel's
random-simulation tests), as for Motto. A module fixture plays the games once; each test checks one property over
all of them, and hypothesis checks every property on games it picks.
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
from engine.moorea import Moorea
from engine.moorea.bots import GreedyBot
from engine.moorea.cards import CARDS, FULL_DECK, PRODUCTS, TOOLS, in_game
from engine.moorea.state import DRAW, MooreaState, hand_limit, phase
from engine.play import Step, chance_rng, first_player, play_out, record, seated, start
from engine.protocol import CHANCE_TO_MOVE, HIDDEN
from events.base import Payload
from events.moorea import ProductBought, ProductLaidOut, ToolBought
from replay.snapshots import decode_state, encode_state

GAME = Moorea()
STATE_FIELDS = tuple(f.name for f in fields(MooreaState))


class ToolmakerBot:
    """Buys every tool it can as soon as it can, else acts at random: spears, carts, baskets and nets in play."""

    def choose(self, view: MooreaState, legal: Sequence[Any], rng: Random) -> Any:
        """A tool if one is legal, else any legal action."""
        from engine.moorea.state import BuyTool

        tools = [action for action in legal if isinstance(action, BuyTool)]
        pool = tools or list(legal)
        return pool[rng.randrange(len(pool))]


BOTS: dict[str, Any] = {"random": RandomBot, "greedy": GreedyBot, "toolmaker": ToolmakerBot}


class AuditedBot:
    """A bot whose every choice is kept with the legal actions it was offered."""

    def __init__(self, bot: Any) -> None:
        self.bot = bot
        self.choices: list[tuple[list[Any], Any]] = []

    def choose(self, view: MooreaState, legal: Sequence[Any], rng: Random) -> Any:
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
    final: MooreaState
    states: tuple[MooreaState, ...]  # states[i]: the unchecked fold of the first i payloads
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
    """A game between these bots, the first player drawn at random."""
    rng = Random(f"loom/test/moorea/{seed}")
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


def fold(payloads: Iterable[Payload], state: MooreaState | None = None) -> MooreaState:
    """The state after applying `payloads` (unchecked, like the replayer)."""
    return reduce(GAME.apply, payloads, GAME.blank() if state is None else state)


def lineups() -> list[tuple[int, tuple[str, ...]]]:
    """(seed, bots) of the seeded games: random, greedy, mixed, and tool buyers, 2 to 5 players."""
    games: list[tuple[int, tuple[str, ...]]] = []
    for players in range(2, 6):
        games += [(1000 * players + k, ("random",) * players) for k in range(4)]
        games += [(2000 * players + k, ("greedy",) * players) for k in range(2)]
        games += [(3000 * players + k, ("greedy",) + ("random",) * (players - 1)) for k in range(2)]
        games += [(4000 * players + k, ("toolmaker",) * (players - 1) + ("greedy",)) for k in range(2)]
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
        restored = decode_state(MooreaState, encode_state(prefix))
        assert restored == prefix and fold(payloads[k:], restored) == game.final, (game.name, k)


def check_checked_replay(game: Playout) -> None:
    """Recording the log again, each event checked, accepts every event with the same turns and actors."""
    state = GAME.blank()
    for i, step in enumerate(game.steps):
        state, again = record(GAME, state, step.payload)
        assert again == step, (game.name, i)
        assert state == game.states[i + 1], (game.name, i)


def check_apply_is_pure(game: Playout, deep_every: int) -> None:
    """`apply` returns a new state and leaves its input as it was."""
    for i, (state, payload) in enumerate(zip(game.states, game.payloads, strict=False)):
        before = tuple(getattr(state, name) for name in STATE_FIELDS)
        deep = copy.deepcopy(state) if i % deep_every == 0 else None
        after = GAME.apply(state, payload)
        assert after is not state
        assert all(getattr(state, name) is value for name, value in zip(STATE_FIELDS, before, strict=True))
        assert deep is None or deep == state, (game.name, i)


def check_moves(game: Playout, view_every: int) -> None:
    """A seat to move has legal actions, the same from its view; the game ends once, at its last event."""
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
    assert GAME.to_move(game.final) is None, game.name


def check_conservation(game: Playout) -> None:
    """R3, R8: the 75 commodities, the product cards in play and the 20 tools are all accounted for."""
    products = len(in_game(game.players))
    for i, state in enumerate(game.states[2:], start=2):
        laid = [code for row in state.laid for _, code in row]
        held = [c for hand in state.hands for c in hand]
        commodities = [*state.deck, *state.discard, *state.face_up, *(c for c in held + laid if c < 5)]
        assert sorted(commodities) == list(FULL_DECK), (game.name, i)
        intermediates = [c for c in held + laid if c >= 5] + list(state.removed)
        owned = [p for row in state.owned for p in row]
        assert len(state.pile) + len(state.layout) + len(owned) + len(intermediates) == products, (game.name, i)
        assert len(set(owned) | set(state.layout) | set(state.pile)) == len(owned) + len(state.layout) + len(state.pile)
        for kind, tool in enumerate(TOOLS):
            assert state.supply[kind] + sum(kind in t for t in state.tools) == tool.copies, (game.name, i)
        assert all(len(set(t)) == len(t) for t in state.tools), (game.name, i)  # R5: one of each kind


def check_table(game: Playout) -> None:
    """R4, R5: when a seat acts, three commodities lie face up and ten products are laid out while cards last;
    R9: every hand is within its limit when a turn begins."""
    for i, state in enumerate(game.states[2:], start=2):
        if GAME.to_move(state) in (None, CHANCE_TO_MOVE):
            continue
        assert len(state.face_up) == CARDS.face_up or not state.deck, (game.name, i)
        assert len(state.layout) == CARDS.layout or not state.pile, (game.name, i)
        assert state.deck or not state.discard, (game.name, i)
        if state.phase == DRAW:
            assert all(len(h) <= hand_limit(state, s) for s, h in enumerate(state.hands)), (game.name, i)


def check_views(game: Playout, every: int) -> None:
    """A seat sees its own hand, the table and everyone's owned cards; others' hands, the deck and the pile are
    HIDDEN; and re-dealing what it cannot see leaves its view unchanged."""
    rng = Random(game.name)
    for i, state in enumerate(game.states[2::every]):
        for seat in range(game.players):
            view = GAME.view(state, seat)
            assert view.hands[seat] == state.hands[seat]
            assert all(set(h) <= {HIDDEN} for s, h in enumerate(view.hands) if s != seat)
            assert [len(h) for h in view.hands] == [len(h) for h in state.hands]
            assert set(view.deck) <= {HIDDEN} and set(view.pile) <= {HIDDEN} and view.seed == HIDDEN
            public = ("face_up", "layout", "owned", "tools", "laid", "discard", "removed", "supply", "final_turns")
            assert all(getattr(view, name) == getattr(state, name) for name in public)
            assert GAME.view(redealt_hidden(state, seat, rng), seat) == view, (game.name, i, seat)


def redealt_hidden(state: MooreaState, seat: int, rng: Random) -> MooreaState:
    """`state` with the cards `seat` cannot see shuffled and dealt again: deck, others' hands, pile; another seed."""
    hidden = list(state.deck) + [c for s, hand in enumerate(state.hands) if s != seat for c in hand if c < 5]
    rng.shuffle(hidden)
    deck, rest = tuple(hidden[: len(state.deck)]), hidden[len(state.deck) :]
    hands = []
    for s, hand in enumerate(state.hands):
        if s == seat:
            hands.append(hand)
            continue
        keep = [c for c in hand if c >= 5]
        count = len(hand) - len(keep)
        hands.append(tuple(sorted(keep + rest[:count])))
        rest = rest[count:]
    pile = list(state.pile)
    rng.shuffle(pile)
    changes = {"deck": deck, "hands": tuple(hands), "pile": tuple(pile), "seed": rng.getrandbits(48)}
    return MooreaState(**{name: getattr(state, name) for name in STATE_FIELDS} | changes)


def check_bots(game: Playout) -> None:
    """Every bot chose one of the legal actions it was offered."""
    for kind, legal, action in game.choices:
        assert action in legal, (game.name, kind, action)


def check_end(game: Playout) -> None:
    """R10: the end is triggered by a product taken with the pile empty (or, beyond R10, by a stalled layout);
    then every seat, the trigger's included, begins exactly one more turn, from the next seat on."""
    trigger = next(i for i, state in enumerate(game.states) if state.final_turns is not None)
    event = game.steps[trigger - 1]
    if isinstance(event.payload, ProductBought):
        assert game.states[trigger - 1].pile == (), game.name
        assert game.states[trigger].final_turns in (game.players, game.players + 1)  # + 1: a discard is due
    else:
        assert game.states[trigger].final_turns == game.players
    last_turn = event.turn
    begun = [s.turn for s in game.steps[trigger:] if s.actor is not None]
    assert sorted(set(begun)) == list(range(last_turn + 1, last_turn + 1 + game.players)), game.name
    trigger_seat = game.states[trigger - 1].seat
    seats = {s.turn: s.actor for s in game.steps[trigger:] if s.actor is not None}
    assert [seats[t] for t in sorted(seats)] == [(trigger_seat + k) % game.players for k in range(1, game.players + 1)]


def check_all(game: Playout) -> None:
    """Every property, at full strength."""
    check_replay(game, [*range(0, len(game.steps), 25), len(game.steps)])
    check_checked_replay(game)
    check_apply_is_pure(game, deep_every=3)
    check_moves(game, view_every=1)
    check_conservation(game)
    check_table(game)
    check_views(game, every=7)
    check_bots(game)
    check_end(game)


# --- The seeded games -------------------------------------------------------------------------------------------------


def test_the_seeded_games_cover_every_player_count_and_every_kind_of_event(games: list[Playout]) -> None:
    """2-5 players; every event type, every tool and every kind of product is seen."""
    assert Counter(game.players for game in games) == {2: 10, 3: 10, 4: 10, 5: 10}
    kinds = Counter(type(step.payload).__name__ for game in games for step in game.steps)
    expected = {
        "GameStarted", "CardsDealt", "CardDrawn", "FaceUpDrawn", "TurnPassed", "CardsExchanged", "ProductBought",
        "ToolBought", "CardsLaid", "CardsDiscarded", "FaceUpRefilled", "ProductLaidOut", "DiscardReshuffled",
    }  # fmt: skip
    assert set(kinds) == expected
    tools = {step.payload.tool for game in games for step in game.steps if isinstance(step.payload, ToolBought)}
    assert len(tools) == 4
    bought = {
        PRODUCTS[GAME.parse_action({"type": "buy", "product": s.payload.product, "paid": []}).product].kind  # type: ignore[attr-defined]
        for game in games
        for s in game.steps
        if isinstance(s.payload, ProductBought)
    }
    assert bought == {"intermediate", "production site", "store", "seashell necklace", "product"}


def test_replaying_any_prefix_then_the_rest_equals_the_full_replay(games: list[Playout]) -> None:
    """Fold a prefix, then continue from it (or from its snapshot): the same state as the whole log and play_out."""
    for n, game in enumerate(games):
        last = len(game.steps)
        check_replay(game, {0, 2, last, *Random(n).sample(range(last + 1), 2)})


def test_a_checked_replay_accepts_every_event_and_rebuilds_the_same_steps(games: list[Playout]) -> None:
    """Every event play_out logged passes `check` again, with the same turn and actor."""
    for game in games:
        check_checked_replay(game)


def test_apply_never_mutates_its_input(games: list[Playout]) -> None:
    """The state given to `apply` is unchanged afterwards."""
    for game in games:
        check_apply_is_pure(game, deep_every=11)


def test_legal_actions_are_non_empty_until_the_end(games: list[Playout]) -> None:
    """Whenever a seat is to move it has a legal action, the same from its own view; the game ends only at its end."""
    for game in games:
        check_moves(game, view_every=4)


def test_cards_and_tools_are_conserved(games: list[Playout]) -> None:
    """R3, R5, R8: after every event, every card is somewhere, once; at most one tool of each kind per seat."""
    for game in games:
        check_conservation(game)


def test_the_table_is_full_and_hands_within_limits(games: list[Playout]) -> None:
    """R4, R5, R9."""
    for game in games:
        check_table(game)


def test_a_view_hides_what_it_must_and_nothing_hidden_leaks(games: list[Playout]) -> None:
    """Hands private, face-up commodities, layout and owned cards public; re-dealing hidden cards changes nothing."""
    for game in games:
        check_views(game, every=23)


def test_bots_only_choose_legal_actions(games: list[Playout]) -> None:
    """The random, greedy and test bots choose only among the legal actions of their view."""
    for game in games:
        check_bots(game)


def test_the_end_gives_every_seat_exactly_one_more_turn(games: list[Playout]) -> None:
    """R10, in every seeded game."""
    for game in games:
        check_end(game)


def test_a_seeded_playout_is_reproducible() -> None:
    """The same seed and bots give the same log."""
    assert playout(7, ("greedy", "random")).steps == playout(7, ("greedy", "random")).steps


def test_greedy_beats_random_clearly() -> None:
    """Over 30 three-player games, the greedy bot (in each seat in turn) wins far more than a random third."""
    wins = 0
    for n in range(30):
        kinds = ["random"] * 3
        kinds[n % 3] = "greedy"
        game = playout(5000 + n, kinds)
        wins += any(game.kinds[seat] == "greedy" for seat in GAME.winners(game.final))
    assert wins >= 25, f"greedy won {wins} of 30"


def test_the_layout_refill_follows_every_purchase_while_the_pile_lasts(games: list[Playout]) -> None:
    """R5: a product bought with cards left in the pile is followed at once by a card laid out."""
    for game in games:
        for i, step in enumerate(game.steps[:-1]):
            if isinstance(step.payload, ProductBought) and game.states[i].pile:
                following = [s.payload for s in game.steps[i + 1 : i + 4]]
                assert any(isinstance(p, ProductLaidOut) for p in following), (game.name, i)


# --- Games chosen by hypothesis --------------------------------------------------------------------------------------


@settings(max_examples=6, deadline=None, phases=[Phase.explicit, Phase.reuse, Phase.generate])
@given(
    seed=st.integers(min_value=0, max_value=2**32 - 1),
    kinds=st.lists(st.sampled_from(["random", "random", "greedy", "toolmaker"]), min_size=2, max_size=5),
)
def test_every_property_holds_in_any_game(seed: int, kinds: list[str]) -> None:
    """All of the above, at full strength, for games hypothesis picks: any seed, 2-5 players, any bots."""
    check_all(playout(seed, kinds))


@settings(max_examples=10, deadline=None)
@given(data=st.data(), seed=st.integers(min_value=0, max_value=2**32 - 1), players=st.integers(2, 5))
def test_any_prefix_continues_to_the_same_end(data: st.DataObject, seed: int, players: int) -> None:
    """Replaying the first k events (directly or from a snapshot) and then the rest gives the full replay."""
    game = playout(seed, ["random"] * players)
    k = data.draw(st.integers(min_value=0, max_value=len(game.steps)), label="prefix")
    check_replay(game, [k])


def test_phase_is_a_draw_only_at_the_start_of_a_turn(games: list[Playout]) -> None:
    """A turn's first event is its seat's, and every later event of it has the same turn number."""
    for game in games[:8]:
        for i, step in enumerate(game.steps[2:], start=2):
            if step.actor is not None and game.states[i].phase == DRAW:
                assert step.turn == game.states[i].turn + 1, (game.name, i)
            assert phase(game.states[i]) in range(4) or GAME.to_move(game.states[i]) != game.states[i].seat
