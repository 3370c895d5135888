"""The greedy policies and the rules they lean on were made cheaper (issue 16, piece `policies`) without changing a
choice: at every decision of seeded games, the engine's functions give what the code as it was gave: the same legal
actions in the same order, the same scores and values, the same action chosen for the same rng, from the whole legal
list and from parts of it (the search offers its policy the untried actions only).

What the code as it was gave is kept as a digest of every value, in order (`RECORDED`), computed by the copies of the
old functions that commit e511b91 kept in tests/unit/reference/ (and checked the new ones against, value by value).
A change of any choice or value changes the digest; a change of the policy on purpose records a new one, saying why."""

from __future__ import annotations

import hashlib
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
from loom.engine.stones_of_fate.cards import CARDS, FORBIDDEN_SIDES, KEYSTONE_SIDES
from loom.engine.stones_of_fate.state import EMPTY, side_edges, winner

RECORDED = {
    "moirai": "89c5b7a44e5f79a5a53fbc9d6bd47da049621cdf0731fe83ee1fce9b6c1b7ecd",
    "stones_of_fate": "819d5b98310faddb9d149c0726542176fdc9ccfd46ffa89d7c2fe7ad9bf90cbc",
    "moorea": "06a907270fd10affacc103939f4f021582bde39c8b0e0607cc00016192f5ad03",
    "motto": "b615f75e51e00c8c395eb75982a8432a7084384c33256a90ffa9ae5fb10730fc",
}
"""Each game's digest of every value the test takes, as the code before the piece `policies` gave them."""


class Record:
    """Every value taken, in order, as one digest."""

    def __init__(self) -> None:
        self.digest = hashlib.sha256()
        self.values = 0

    def __call__(self, value: Any) -> None:
        self.digest.update(repr(value).encode() + b"\0")
        self.values += 1

    def check(self, name: str, at_least: int) -> None:
        assert self.values >= at_least
        assert self.digest.hexdigest() == RECORDED[name], f"{name}: a choice or a value differs from the code as it was"


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


def choices(record: Record, bot: Any, view: Any, legal: list[Any], seed: int) -> None:
    """The bot's choice for the same rng from the list and from parts of it as the search offers them: all of it,
    without the best, every other one."""
    first = bot.choose(view, legal, Random(seed))
    for part in (legal, [a for a in legal if a != first], legal[::2], legal[1::2]):
        if part:
            record(bot.choose(view, part, Random(seed)))


def test_moirai_greedy_values_and_scores_are_as_recorded() -> None:
    record, bot = Record(), MoiraiGreedy()
    for seed in range(8):
        for k, (state, view, legal) in enumerate(decisions(MOIRAI, seed, 2 + seed % 4)):
            record(score_table(state.objectives, state.looms))
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
                value = evaluate(view, seat, after)
                assert standing.value(after, face_up(after), hows) == value
                record(value)
            choices(record, bot, view, legal, k)
    record.check("moirai", at_least=3000)


def test_stones_of_fate_greedy_gains_and_the_winner_of_a_card_are_as_recorded() -> None:
    record, bot = Record(), StonesGreedy()
    rng = Random(7)
    for seed in range(5):
        for k, (state, view, legal) in enumerate(decisions(STONES_OF_FATE, seed, 2 + seed % 3)):
            board = _Board(view, STONES_OF_FATE.to_move(view))
            for action in legal:
                if isinstance(action, Move):
                    record(board.move_gain(action))
            choices(record, bot, view, legal, k)
            for at, flipped in enumerate(state.spread):  # S8 on this table, and with a stone more or less anywhere
                if flipped == EMPTY:
                    continue
                edges = side_edges(state, at)
                stones = [list(row) for row in state.stones]
                stones[rng.randrange(len(stones))][rng.choice(edges)] += rng.choice((1, 2))
                for table in (state.stones, tuple(map(tuple, stones))):
                    record(winner(table, edges, flipped))
                    zones = rng.randrange(len(CARDS))  # another card's zones, as the rules ask of a zone
                    record(
                        winner(table, edges, flipped, forbidden=FORBIDDEN_SIDES[zones], keystones=KEYSTONE_SIDES[zones])
                    )
    record.check("stones_of_fate", at_least=3000)


def test_moorea_legal_actions_payments_and_greedy_choices_are_as_recorded() -> None:
    record, bot = Record(), MooreaGreedy()
    for seed in range(4):
        for k, (state, view, legal) in enumerate(decisions(MOOREA, seed, 2 + seed % 3)):
            record(legal)
            record(moorea_legal(state))
            seat = view.seat
            hand, sites = counts(view.hands[seat]), sites_of(view.owned[seat])
            for product in PRODUCTS[k % 7 :: 7]:  # every product now and then, with and without a net
                for net in (False, True):
                    record(product_payments(product, hand, sites, net))
            worth = _appraise(view)
            record(worth)
            record(_demand(view, worth))
            choices(record, bot, view, legal, k)
    record.check("moorea", at_least=3000)


def test_motto_greedy_points_and_choices_are_as_recorded() -> None:
    record, bot = Record(), MottoGreedy()
    for seed in range(12):
        for k, (_, view, legal) in enumerate(decisions(MOTTO, seed, 2 + seed % 4)):
            hand = [c for c in view.hands[view.seat] if c >= 0]
            now = best_play_points(view.stacks, hand)
            record(now)
            for card in view.pool:
                record(best_play_points_with(view.stacks, hand, card, now))
            choices(record, bot, view, legal, k)
    record.check("motto", at_least=3000)
