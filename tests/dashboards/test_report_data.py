"""The report's data steps on four hand-made games whose answers are worked out by hand.

Three players each. Scores at the end of each turn, seat 0, 1, 2 (a star marks the seat alone in the lead):
    A: (1*,0,0) (1,2*,0) (3*,2,0) (3,2,5*)   seat 2 wins: lead changes 0->1->0->2, three; mid-game (turn 2) leader 1
    B: (2*,0,0) (4*,1,1)                     seat 0 wins, leading throughout; mid-game (turn 1) leader 0
    C: (1,1,0)  (2*,1,1)                     seat 0 wins; nobody alone in the lead at mid-game
    D: (1*,0,0) (2,2,0)                      seats 0 and 1 share the victory; mid-game leader 0
Played by greedy at seat 0 and random at seats 1 and 2 (mixed bots), or by greedy at every seat (self-play).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pandas as pd
import pytest

from loom.dashboards import figures, game_figures
from loom.dashboards.figures import Sample
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


def hand_made(turn_scores: list[tuple[int, ...]], winners: set[int], bots: tuple[str, ...] = BOTS) -> NewGame:
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
        seats=[Seat(f"{bot} {k + 1}", bot) for k, bot in enumerate(bots)],
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
    """The four games, greedy at seat 0 and random at seats 1 and 2."""
    with Store.open(MEMORY) as store:
        store.add_games([hand_made(*GAMES[name]) for name in "ABCD"])
        yield Reader(store, "motto", Selection())


@pytest.fixture
def self_play() -> Iterator[Reader]:
    """The four games, greedy at every seat."""
    with Store.open(MEMORY) as store:
        store.add_games([hand_made(*GAMES[name], bots=("greedy",) * 3) for name in "ABCD"])
        yield Reader(store, "motto", Selection())


def test_win_rate_per_seat_counts_a_shared_victory_for_each_winner(self_play: Reader) -> None:
    (rates,) = figures._seat_advantage_data(self_play.frame(queries.SEAT_WINS))
    assert rates.players == 3
    assert rates.rates == [0.75, 0.25, 0.25]
    assert rates.games == [4, 4, 4]


def test_seat_advantage_is_measured_in_self_play_games_only(read: Reader) -> None:
    assert figures._seat_advantage_data(read.frame(queries.SEAT_WINS)) == []
    assert figures.plot_seat_advantage(read.frame(queries.SEAT_WINS)) is None


def test_the_seat_advantage_figure_says_its_sample_and_draws_the_fair_share(self_play: Reader) -> None:
    figure = figures.plot_seat_advantage(self_play.frame(queries.SEAT_WINS))
    assert figure is not None
    assert figure.layout.title.text.startswith("Seat advantage in self-play games")
    assert figure.layout.title.subtitle.text == "n = 4 games, 12 seats"
    assert [shape.y0 for shape in figure.layout.shapes] == [pytest.approx(1 / 3)]
    (bars,) = figure.data
    assert list(bars.customdata) == [4, 4, 4] and bars.error_y.array is not None


def test_games_of_mixed_bots_give_each_bot_its_win_rate_per_seat(read: Reader) -> None:
    greedy, random = figures._bot_seats_data(read.frame(queries.BOT_SEAT_WINS))
    assert (greedy.bot, greedy.seats, greedy.games, greedy.rates) == ("greedy", [0], [4], [0.75])
    assert (random.bot, random.seats, random.games, random.rates) == ("random", [1, 2], [4, 4], [0.25, 0.25])
    assert random.overall == 0.25
    assert not greedy.rotated and not random.rotated


def test_bots_not_rotated_over_every_seat_measure_no_seat_advantage(read: Reader) -> None:
    figure = figures.plot_bot_seats(read.frame(queries.BOT_SEAT_WINS))
    assert figure is not None
    assert figure.layout.title.text.startswith("Win rate per bot and seat (no seat advantage")
    assert figure.layout.title.subtitle.text == "n = 4 games, 12 seats"
    baselines = [trace for trace in figure.data if trace.type == "scatter"]
    assert [(t.name, list(t.y)) for t in baselines] == [("greedy: all its seats", [0.75]),
                                                         ("random: all its seats", [0.25, 0.25])]  # fmt: skip


def test_bots_rotated_over_every_seat_give_a_seat_advantage_per_bot() -> None:
    rows = pd.DataFrame(
        {
            "players": [2] * 4,
            "self_play": [False] * 4,
            "bot": ["greedy", "greedy", "random", "random"],
            "seat": [0, 1, 0, 1],
            "games": [30, 20, 20, 30],
            "wins": [24, 14, 6, 6],
        }
    )
    figure = figures.plot_bot_seats(rows)
    assert figure is not None
    assert figure.layout.title.text.startswith("Seat advantage per bot, bots rotated over every seat")
    assert figure.layout.title.subtitle.text == "n = 50 games, 100 seats"
    greedy = figure.data[0]
    assert list(greedy.x) == ["seat 0", "seat 1"] and list(greedy.customdata) == [30, 20]


def test_a_bot_seen_in_few_games_has_a_wider_interval() -> None:
    rows = pd.DataFrame(
        {"players": [2, 2], "self_play": [False] * 2, "bot": ["rare", "common"], "seat": [0, 1], "games": [22, 1000],
         "wins": [11, 500]}
    )  # fmt: skip
    common, rare = figures._bot_seats_data(rows)
    assert rare.rates == common.rates == [0.5]
    assert rare.high[0] - rare.low[0] > 5 * (common.high[0] - common.low[0])


def test_the_win_rate_interval_is_wilsons() -> None:
    low, high = wilson(3, 4)
    assert (round(low, 3), round(high, 3)) == (0.301, 0.954)
    assert wilson(0, 10)[0] == 0.0
    assert wilson(10, 10)[1] == pytest.approx(1.0)


def test_seat_intervals_hold_the_rate(self_play: Reader) -> None:
    (rates,) = figures._seat_advantage_data(self_play.frame(queries.SEAT_WINS))
    assert all(lo < r < hi for lo, r, hi in zip(rates.low, rates.rates, rates.high))


def test_lead_changes_count_each_new_seat_alone_in_the_lead(read: Reader) -> None:
    changes = read.frame(queries.LEAD_CHANGES)
    assert dict(zip(changes["changes"], changes["games"])) == {0: 3, 3: 1}


def test_margin_of_victory_is_over_the_best_seat_that_did_not_win(read: Reader) -> None:
    margins = read.frame(queries.MARGINS)
    assert dict(zip(margins["margin"], margins["games"])) == {1: 1, 2: 2, 3: 1}


def test_balance_between_seats_is_measured_in_self_play_games(self_play: Reader, read: Reader) -> None:
    def balance_of(reader: Reader) -> figures.Balance:
        (balance,) = figures._balance_data(
            reader.frame(queries.SEAT_WINS),
            reader.frame(queries.LEAD_CHANGES),
            reader.frame(queries.MIDGAME_LEADERS),
            reader.frame(queries.WINNER_BEHIND),
            reader.frame(queries.BRANCHING),
        )
        return balance

    assert balance_of(self_play).balance == pytest.approx(1 - (0.75 - 0.25))
    assert balance_of(self_play).self_play == 4
    assert balance_of(read).balance is None and balance_of(read).games == 4


def test_balance_figures(read: Reader) -> None:
    (balance,) = figures._balance_data(
        read.frame(queries.SEAT_WINS),
        read.frame(queries.LEAD_CHANGES),
        read.frame(queries.MIDGAME_LEADERS),
        read.frame(queries.WINNER_BEHIND),
        read.frame(queries.BRANCHING),
    )
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


def chosen_games(store: Store, **selection: Any) -> int:
    """How many games a report with this selection covers."""
    return int(Reader(store, "motto", Selection(**selection)).frame(queries.SAMPLE)["games"].iloc[0])


def test_a_bot_filter_matches_the_bot_at_any_budget() -> None:
    with Store.open(MEMORY) as store:
        store.add_games([hand_made(*GAMES["A"], bots=("mcts:50", "random", "random")), hand_made(*GAMES["B"])])
        assert chosen_games(store, bot="mcts") == 1
        assert chosen_games(store, bot="mcts:50") == 1
        assert chosen_games(store, bot="mcts:5") == 0
        assert chosen_games(store, bot="mct") == 0
        assert chosen_games(store, bot="random") == 2


def test_self_play_keeps_the_games_in_which_one_bot_played_every_seat() -> None:
    with Store.open(MEMORY) as store:
        store.add_games(
            [
                hand_made(*GAMES["A"], bots=("greedy",) * 3),
                hand_made(*GAMES["B"], bots=("mcts:50",) * 3),
                hand_made(*GAMES["C"], bots=("mcts:50", "mcts:50", "mcts:200")),  # two budgets: two bots
                hand_made(*GAMES["D"]),
            ]
        )
        assert chosen_games(store, self_play=True) == 2
        assert chosen_games(store, self_play=True, bot="mcts") == 1
        html = report_html(store, "motto", self_play=True)
    assert "self-play only" in html and "Seat advantage in self-play games" in html


def test_token_race_shares_the_games_by_the_place_each_stack_emptied() -> None:
    race = pd.DataFrame({"stack": ["red", "red", "love"], "place": [1, 2, 1], "games": [3, 1, 1], "turn": [10, 20, 30]})
    data = game_figures._token_race_data(race, games=4)
    assert data["stacks"] == ["red", "love"]
    assert data["share"] == [[0.75, 0.25], [0.25, 0.0]]
    assert data["turn"] == [12.5, 30.0]


NINE_STACKS = ["money", "1", "2", "red", "purple", "love", "blue", "3", "passion"]


def test_the_token_race_shows_all_nine_stacks_on_a_categorical_axis_within_100_percent() -> None:
    race = pd.DataFrame(
        {
            "stack": [s for s in NINE_STACKS for _ in range(3)],
            "place": [1, 2, 3] * 9,
            "games": [k % 4 + 1 for k in range(27)],
            "turn": [20] * 27,
        }
    )  # every stack emptied in at most 3 + 4 + ... of 10 games, once a game
    figure = game_figures.plot_token_race(race, Sample(10, 30))
    drawn = json.loads(figure.to_json())
    assert drawn["layout"]["xaxis"]["type"] == "category"
    assert drawn["layout"]["yaxis"]["range"] == [0, 1]
    assert all(sorted(trace["x"]) == sorted(NINE_STACKS) for trace in drawn["data"])
    totals = [sum(trace["y"][k] for trace in drawn["data"]) for k in range(9)]
    assert all(0 < total <= 1 for total in totals)
    assert drawn["layout"]["title"]["subtitle"]["text"] == "n = 10 games, 30 seats"


def test_moirai_objective_cards_are_sorted_by_their_numbers() -> None:
    cards = ["atropos 10", "atropos 11", "atropos 12", "atropos 9", "clotho 1", "clotho 2"]
    sources = pd.DataFrame({"source": cards, "mean": [1.0] * 6, "seats": [3] * 6})
    figure = game_figures.plot_objectives(sources, Sample(1, 3))
    by_card = json.loads(figure.to_json())["data"][0]["x"]
    assert by_card == ["atropos 9", "atropos 10", "atropos 11", "atropos 12", "clotho 1", "clotho 2"]
    assert figure.layout.xaxis.type == "category"


def test_products_show_their_buyers_win_rate_with_its_interval_beside_all_seats() -> None:
    products = pd.DataFrame(
        {"product": ["canoe", "hut"], "seats": [30, 3], "win_rate": [0.5, 2 / 3], "all_seats": [60, 60]}
    )
    figure = game_figures.plot_products(products, Sample(20, 60), baseline=1 / 3)
    popularity, rates = figure.data
    assert list(rates.y) == ["canoe (n=30)", "hut (n=3)"]  # by win rate, each with its seats
    assert list(popularity.x) == [0.5, 0.05]
    assert list(rates.x) == [0.5, pytest.approx(2 / 3)]
    low, high = wilson(2, 3)
    assert rates.error_x.arrayminus[1] == pytest.approx(2 / 3 - low)
    assert rates.error_x.array[1] == pytest.approx(high - 2 / 3)
    assert [shape.x0 for shape in figure.layout.shapes] == [pytest.approx(1 / 3)]
    assert figure.layout.yaxis.type == "category"


def test_card_win_rates_carry_their_n_interval_and_the_rate_of_all_seats() -> None:
    cards = pd.DataFrame(
        {"card": ["the-sun", "death", "moon"], "won": [2, 50, 0], "discarded": [0, 0, 3], "win_rate": [1.0, 0.8, None]}
    )
    figure = game_figures.plot_card_wins(cards, Sample(40, 120), baseline=1 / 3)
    (bars,) = figure.data
    assert list(bars.y) == ["death (n=50)", "the-sun (n=2)"]
    width = [hi + lo for hi, lo in zip(bars.error_x.array, bars.error_x.arrayminus)]
    assert width[1] > 2 * width[0]  # two cards won say far less than fifty
    assert [shape.x0 for shape in figure.layout.shapes] == [pytest.approx(1 / 3)]
    assert figure.layout.title.subtitle.text == "n = 40 games, 120 seats"


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
