"""The report's data steps on four hand-made games whose answers are worked out by hand.

Three players each. Scores at the end of each turn, seat 0, 1, 2 (a star marks the seat alone in the lead):
    A: (1*,0,0) (1,2*,0) (3*,2,0) (3,2,5*)   seat 2 wins: lead changes 0->1->0->2, three; mid-game (turn 2) leader 1
    B: (2*,0,0) (4*,1,1)                     seat 0 wins, leading throughout; mid-game (turn 1) leader 0
    C: (1,1,0)  (2*,1,1)                     seat 0 wins; nobody alone in the lead at mid-game
    D: (1*,0,0) (2,2,0)                      seats 0 and 1 share the victory; mid-game leader 0
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pandas as pd
import pytest

from loom.dashboards import figures, game_figures
from loom.dashboards.report import Reader, Selection, report_html
from loom.dashboards.stats import wilson
from loom.events.base import LoomError
from loom.replay import queries
from loom.replay.facts import Facts
from loom.replay.store import MEMORY, NewGame, Seat, Store

GAMES = {
    "A": ([(1, 0, 0), (1, 2, 0), (3, 2, 0), (3, 2, 5)], {2}),
    "B": ([(2, 0, 0), (4, 1, 1)], {0}),
    "C": ([(1, 1, 0), (2, 1, 1)], {0}),
    "D": ([(1, 0, 0), (2, 2, 0)], {0, 1}),
}
BOTS = ("greedy", "random", "random")


def hand_made(turn_scores: list[tuple[int, ...]], winners: set[int]) -> NewGame:
    turns = []
    for turn, scores in enumerate(turn_scores, start=1):
        top = max(scores)
        for seat, score in enumerate(scores):
            alone = scores.count(top) == 1 and score == top
            turns.append((turn, seat, score, alone, 1, 10 * turn))  # 10 legal actions a decision in turn 1, 20 in 2...
    final = turn_scores[-1]
    results = [(seat, score, 1 if seat in winners else 2, seat in winners, json.dumps({"tokens": score}))
               for seat, score in enumerate(final)]  # fmt: skip
    return NewGame(
        game="motto",
        seats=[Seat(f"{bot} {k + 1}", bot) for k, bot in enumerate(BOTS)],
        source="imported",
        seed=0,
        rules_version=1,
        status="finished",
        turns=len(turn_scores),
        results=results,
        facts=Facts(turns=turns),
    )


@pytest.fixture
def read() -> Iterator[Reader]:
    with Store.open(MEMORY) as store:
        store.add_games([hand_made(*GAMES[name]) for name in "ABCD"])
        yield Reader(store, "motto", Selection())


def test_win_rate_per_seat_counts_a_shared_victory_for_each_winner(read: Reader) -> None:
    (rates,) = figures._seat_advantage_data(read.frame(queries.SEAT_WINS))
    assert rates.players == 3
    assert rates.rates == [0.75, 0.25, 0.25]
    assert rates.games == [4, 4, 4]


def test_the_win_rate_interval_is_wilsons() -> None:
    low, high = wilson(3, 4)
    assert (round(low, 3), round(high, 3)) == (0.301, 0.954)
    assert wilson(0, 10)[0] == 0.0
    assert wilson(10, 10)[1] == pytest.approx(1.0)


def test_seat_intervals_hold_the_rate(read: Reader) -> None:
    (rates,) = figures._seat_advantage_data(read.frame(queries.SEAT_WINS))
    assert all(lo < r < hi for lo, r, hi in zip(rates.low, rates.rates, rates.high))


def test_lead_changes_count_each_new_seat_alone_in_the_lead(read: Reader) -> None:
    changes = read.frame(queries.LEAD_CHANGES)
    assert dict(zip(changes["changes"], changes["games"])) == {0: 3, 3: 1}


def test_margin_of_victory_is_over_the_best_seat_that_did_not_win(read: Reader) -> None:
    margins = read.frame(queries.MARGINS)
    assert dict(zip(margins["margin"], margins["games"])) == {1: 1, 2: 2, 3: 1}


def test_balance_figures(read: Reader) -> None:
    (balance,) = figures._balance_data(
        read.frame(queries.SEAT_WINS),
        read.frame(queries.LEAD_CHANGES),
        read.frame(queries.MIDGAME_LEADERS),
        read.frame(queries.WINNER_BEHIND),
        read.frame(queries.BRANCHING),
    )
    assert balance.balance == pytest.approx(1 - (0.75 - 0.25))
    assert balance.lead_changes == pytest.approx(3 / 4)
    assert balance.drama == pytest.approx(1 / 3)  # A's mid-game leader lost; B's and D's won; C had none
    assert balance.decisiveness == pytest.approx((1 / 4 + 1 + 1 / 2) / 3)  # single-winner games A, B, C
    assert balance.branching == pytest.approx((3 * 10 + 3 * 20 + 3 * 30 + 3 * 40 + 9 * (10 + 20)) / 30)


def test_score_over_turns_gives_each_seat_its_median_and_spread(read: Reader) -> None:
    series = figures._score_over_turns_data(read.frame(queries.SCORE_COUNTS, players=3))
    assert series[0]["turn"] == [1, 2, 3, 4]  # turns 3 and 4: only game A, a quarter of the games, reaches them
    assert series[0]["p50"][:2] == [1, 2]  # turn 1: 1, 2, 1, 1; turn 2: 1, 4, 2, 2
    assert series[0]["p90"][:2] == [2, 4]
    assert series[1]["p10"][1] == 1  # seat 1 at turn 2: 2, 1, 1, 2


def test_bot_table_gives_each_bot_its_win_rate_against_the_others(read: Reader) -> None:
    table = figures._bot_table_data(read.frame(queries.BOT_AGAINST_BOT))
    assert table["bots"] == ["greedy", "random"]
    greedy, random = table["rates"]
    assert greedy == [None, 0.75] and random == [0.25, 0.25]


def test_a_bot_filter_that_matches_nothing_is_an_error() -> None:
    with Store.open(MEMORY) as store:
        store.add_games([hand_made(*GAMES["A"])])
        with pytest.raises(LoomError, match="no finished motto games to report on with bot minimax"):
            report_html(store, "motto", bot="minimax")


def test_token_race_shares_the_games_by_the_place_each_stack_emptied() -> None:
    race = pd.DataFrame({"stack": ["red", "red", "love"], "place": [1, 2, 1], "games": [3, 1, 1], "turn": [10, 20, 30]})
    data = game_figures._token_race_data(race, games=4)
    assert data["stacks"] == ["red", "love"]
    assert data["share"] == [[0.75, 0.25], [0.25, 0.0]]
    assert data["turn"] == [12.5, 30.0]


def test_product_popularity_is_the_share_of_seats_that_bought_it() -> None:
    products = pd.DataFrame({"product": ["canoe"], "seats": [3], "win_rate": [2 / 3], "all_seats": [12]})
    assert game_figures._products_data(products)["popularity"] == [0.25]


def test_moirai_objective_points_weigh_each_card_by_its_seats() -> None:
    sources = pd.DataFrame(
        {"source": ["clotho 2", "clotho 5", "atropos 9"], "mean": [4.0, 1.0, -3.0], "seats": [3, 6, 9]}
    )
    data = game_figures._objectives_data(sources)
    assert data["objective"] == {"atropos": -3.0, "clotho": 2.0}


def test_card_names_from_logs_are_escaped() -> None:
    cards = pd.DataFrame({"card": ["<b>x</b>"], "won": [1], "discarded": [0], "win_rate": [1.0]})
    assert game_figures._card_wins_data(cards)["card"] == ["&lt;b&gt;x&lt;/b&gt;"]
