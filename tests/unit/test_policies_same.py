"""The greedy policies and the rules they lean on were made cheaper (issue 16, piece `policies`) without changing a
choice: at every decision of seeded games, the engine's functions give what the references in tests/unit/reference/
(the code as it was) give: the same legal actions in the same order, the same scores, the same action chosen for the
same rng, from the whole legal list and from parts of it (the search offers its policy the untried actions only)."""

from __future__ import annotations

from collections.abc import Iterator
from random import Random
from typing import Any

from loom.engine.moirai import GAME as MOIRAI
from loom.engine.moirai.actions import Draw, Keep, Take
from loom.engine.moirai.bots import GreedyBot as MoiraiGreedy
from loom.engine.moirai.bots import Standing, evaluate, face_up
from loom.engine.moirai.rules import place
from loom.engine.moirai.score import score_table
from loom.engine.moorea import GAME as MOOREA
from loom.engine.moorea.actions import legal_actions as moorea_legal
from loom.engine.moorea.bots import GreedyBot as MooreaGreedy
from loom.engine.moorea.bots import _appraise, _demand
from loom.engine.moorea.cards import PRODUCTS
from loom.engine.moorea.state import counts, product_payments, sites_of
from loom.engine.motto import GAME as MOTTO
from loom.engine.motto.bots import GreedyBot as MottoGreedy
from loom.engine.motto.bots import best_play_points, best_play_points_with
from loom.engine.play import start
from loom.engine.protocol import AnyGame
from loom.engine.search import step
from loom.engine.stones_of_fate import GAME as STONES_OF_FATE
from loom.engine.stones_of_fate.actions import Move
from loom.engine.stones_of_fate.bots import GreedyBot as StonesGreedy
from loom.engine.stones_of_fate.bots import _Board
from loom.engine.stones_of_fate.cards import CARDS
from loom.engine.stones_of_fate.state import EMPTY, side_edges, winner
from tests.unit.reference import moirai as old_moirai
from tests.unit.reference import moorea as old_moorea
from tests.unit.reference import motto as old_motto
from tests.unit.reference import stones_of_fate as old_stones


def decisions(game: AnyGame, seed: int, seats: int) -> Iterator[tuple[Any, Any, list[Any]]]:
    """(state, the mover's view, its legal actions) at every decision of a seeded game in which each decision is the
    greedy bot's or a random one's, half and half."""
    rng = Random(f"loom/test/policies/{game.name}/{seed}")
    state, _ = start(game, [f"p{k}" for k in range(seats)], rng)
    greedy = game.bots["greedy"]()
    while (seat := game.to_move(state)) is not None:
        view = game.view(state, seat)
        legal = game.legal_actions(view)
        yield state, view, legal
        action = greedy.choose(view, legal, rng) if rng.random() < 0.5 else legal[rng.randrange(len(legal))]
        state = step(game, state, action, rng)


def parts(legal: list[Any], chosen: Any) -> list[list[Any]]:
    """Parts of a legal list as the search offers them: all of it, without the best so far, every other one."""
    return [legal, [a for a in legal if a != chosen], legal[::2], legal[1::2]]


def same_choices(new: Any, old: Any, view: Any, legal: list[Any], seed: int) -> None:
    """The two bots choose the same action from the list and from its parts, for the same rng."""
    first = old.choose(view, legal, Random(seed))
    for part in parts(legal, first):
        if part:
            assert new.choose(view, part, Random(seed)) == old.choose(view, part, Random(seed)), (view, part)


def test_moirai_greedy_values_and_scores_are_the_references() -> None:
    new, old = MoiraiGreedy(), old_moirai.GreedyBot()
    checked = 0
    for seed in range(8):
        for k, (state, view, legal) in enumerate(decisions(MOIRAI, seed, 2 + seed % 4)):
            assert score_table(state.objectives, state.looms) == old_moirai.score_table(state.objectives, state.looms)
            seat, loom = view.seat, view.looms[view.seat]
            standing = Standing(view, seat)
            for action in legal:  # each action's loom valued from the placements made, as the bot does
                match action:
                    case Keep(placement=placed):
                        after, hows = place(loom, [placed]), [placed[1]]
                    case Take(placed=placed):
                        after, hows = place(loom, placed), [how for _, how, _ in placed]
                    case Draw():
                        after, hows = loom, []
                expected = old_moirai.evaluate(view, seat, after)
                assert standing.value(after, face_up(after), hows) == expected
                assert evaluate(view, seat, after) == expected
            same_choices(new, old, view, legal, k)
            checked += 1
    assert checked > 300


def test_stones_of_fate_greedy_gains_and_the_winner_of_a_card_are_the_references() -> None:
    new, old = StonesGreedy(), old_stones.GreedyBot()
    rng = Random(7)
    checked = 0
    for seed in range(5):
        for k, (state, view, legal) in enumerate(decisions(STONES_OF_FATE, seed, 2 + seed % 3)):
            seat = STONES_OF_FATE.to_move(view)
            board, reference = _Board(view, seat), old_stones._Board(view, seat)
            for action in legal:
                if isinstance(action, Move):
                    assert board.move_gain(action) == reference.move_gain(action), action
            same_choices(new, old, view, legal, k)
            for at, flipped in enumerate(state.spread):  # S8 on this table, and with a stone more or less anywhere
                if flipped == EMPTY:
                    continue
                edges = side_edges(state, at)
                stones = [list(row) for row in state.stones]
                stones[rng.randrange(len(stones))][rng.choice(edges)] += rng.choice((1, 2))
                for table in (state.stones, tuple(map(tuple, stones))):
                    assert winner(table, edges, flipped) == old_stones.winner(table, edges, flipped)
                    zones = rng.randrange(len(CARDS))  # another card's zones, as the rules ask of a zone
                    forbidden, keystones = old_stones.FORBIDDEN_SIDES[zones], old_stones.KEYSTONE_SIDES[zones]
                    assert winner(table, edges, flipped, forbidden=forbidden, keystones=keystones) == old_stones.winner(
                        table, edges, flipped, forbidden=forbidden, keystones=keystones
                    )
            checked += 1
    assert checked > 300


def test_moorea_legal_actions_payments_and_greedy_choices_are_the_references() -> None:
    new, old = MooreaGreedy(), old_moorea.GreedyBot()
    checked = 0
    for seed in range(4):
        for k, (state, view, legal) in enumerate(decisions(MOOREA, seed, 2 + seed % 3)):
            assert legal == old_moorea.legal_actions(view)
            assert moorea_legal(state) == old_moorea.legal_actions(state)
            seat = view.seat
            hand, sites = counts(view.hands[seat]), sites_of(view.owned[seat])
            for product in PRODUCTS[k % 7 :: 7]:  # every product now and then, with and without a net
                for net in (False, True):
                    assert product_payments(product, hand, sites, net) == old_moorea.product_payments(
                        product, hand, sites, net
                    )
            worth = _appraise(view)
            assert worth == old_moorea._appraise(view)
            assert _demand(view, worth) == old_moorea._demand(view, worth)
            same_choices(new, old, view, legal, k)
            checked += 1
    assert checked > 500


def test_motto_greedy_points_and_choices_are_the_references() -> None:
    new, old = MottoGreedy(), old_motto.GreedyBot()
    checked = 0
    for seed in range(12):
        for k, (_, view, legal) in enumerate(decisions(MOTTO, seed, 2 + seed % 4)):
            hand = [c for c in view.hands[view.seat] if c >= 0]
            now = best_play_points(view.stacks, hand)
            assert now == old_motto.best_play_points(view.stacks, hand)
            for card in view.pool:
                assert best_play_points_with(view.stacks, hand, card, now) == old_motto.best_play_points_with(
                    view.stacks, hand, card, now
                )
            same_choices(new, old, view, legal, k)
            checked += 1
    assert checked > 500
