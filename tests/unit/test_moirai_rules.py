"""Moirai's rules, one small test per behaviour of rulings M1-M17 and every worked example of the rulebook.

Positions are built by hand: hand-written events recorded through `engine.play.record` (checked exactly as a log
being imported), or a `MoiraiState` passed its fields. Scoring examples build only the looms they need.
"""

from __future__ import annotations

from functools import partial
from random import Random

import pytest

from loom.engine.moirai import GAME
from loom.engine.moirai.actions import Draw, Keep, Take, pile_arrangements, single_placements
from loom.engine.moirai.cards import CHOICES, COLOURS, FULL_DECK, OBJECTIVES, colour, decade
from loom.engine.moirai.rules import place
from loom.engine.moirai.score import (
    atropos_9,
    atropos_10,
    atropos_11,
    atropos_12,
    atropos_ranking,
    clotho_1,
    clotho_2,
    clotho_3,
    clotho_4,
    lachesis_5,
    lachesis_6,
    lachesis_7,
    lachesis_8,
    score_table,
)
from loom.engine.moirai.state import Life, Loom, MoiraiState
from loom.engine.play import start
from loom.engine.protocol import CHANCE_TO_MOVE, HIDDEN
from loom.events.base import IllegalAction
from loom.events.moirai import (
    CardKept,
    CardsDrawn,
    GameStarted,
    ObjectivesDrawn,
    PileTaken,
    StartsDealt,
    StartsRevealed,
)
from tests import recording

NAMES = ("ann", "ben", "cat", "dan", "eve")


# --- Building positions ---------------------------------------------------------------------------------------------


def life(start: int, *cards: int, close: int | None = None) -> Life:
    """A life: its starting card, its face-up cards, its closing card (None: open)."""
    return (start, tuple(cards), close)


def cut(start: int, *cards: int) -> Life:
    """A cut-short life; its closing card is a card no example uses."""
    return (start, tuple(cards), 99)


# Recording hand-written events into a position, and the reason one is refused (tests/recording.py).
record_all = partial(recording.record_all, GAME)
refused = partial(recording.refused, GAME)


def table_game(players: int = 2, objectives: tuple[int, int, int] = (2, 6, 12)) -> MoiraiState:
    """A game begun as at a real table: no deck order, no starting cards named."""
    return record_all(
        GAME.blank(),
        GameStarted(players=NAMES[:players], seed=1),
        ObjectivesDrawn(objectives=objectives),
        StartsDealt(),
    )


def ordered_game(deck: list[int], players: int = 2) -> MoiraiState:
    """A game whose deck order (top first) is recorded; the starting cards are its first cards."""
    return record_all(
        GAME.blank(),
        GameStarted(players=NAMES[:players], seed=1, deck=tuple(deck)),
        ObjectivesDrawn(objectives=(2, 6, 12)),
        StartsDealt(starts=tuple(deck[:players])),
    )


def position(
    looms: tuple[Loom, ...], *, piles: tuple[tuple[int, ...], ...] = ((),) * 4, **fields: object
) -> MoiraiState:
    """A hand-built position in which seat 0 is to move, with unseen cards in an unordered deck."""
    used = {c for loom in looms for s, cards, close in loom for c in (s, *cards, close) if c is not None}
    used |= {c for p in piles for c in p}
    deck = tuple(c for c in FULL_DECK if c not in used)
    changes = {"deck_left": len(deck), "objectives": (1, 5, 9)} | fields
    return MoiraiState(
        players=NAMES[: len(looms)],
        dealt=True,
        deck=deck,
        piles=piles,
        looms=looms,
        **changes,  # type: ignore[arg-type]
    )


def scored(objective: int, *looms: Loom) -> list[int]:
    """The points of `objective` for each seat's loom."""
    return [row[OBJECTIVES[objective].key] for row in score_table((objective,), looms)]


# --- M1: components and players --------------------------------------------------------------------------------------


def test_m1_eighty_cards_coloured_by_number_mod_4_with_decades() -> None:
    """M1: cards 0..79; green 0, 4, 8..., blue 1, 5..., purple 2, 6..., red 3, 7...; decade = number // 10."""
    assert tuple(range(80)) == FULL_DECK
    assert COLOURS == ("green", "blue", "purple", "red")
    assert [COLOURS[colour(c)] for c in (0, 4, 1, 17, 2, 18, 3, 79)] == [
        "green",
        "green",
        "blue",
        "blue",
        "purple",
        "purple",
        "red",
        "red",
    ]
    assert [decade(c) for c in (0, 9, 10, 59, 79)] == [0, 0, 1, 5, 7]


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_m1_two_to_five_players_may_play(players: int) -> None:
    """M1: a game of 2 to 5 players starts, and seat 0 is to move with one life each."""
    state, _ = start(GAME, NAMES[:players], Random(players))
    assert GAME.to_move(state) == 0
    assert [len(loom) for loom in state.looms] == [1] * players


@pytest.mark.parametrize("players", [1, 6])
def test_m1_one_or_six_players_are_refused(players: int) -> None:
    """M1: setup and a recorded moirai.started both refuse 1 or 6 players."""
    lineup = tuple(f"p{k}" for k in range(players))
    with pytest.raises(IllegalAction, match=f"Moirai is for 2 to 5 players, not {players}"):
        GAME.setup(lineup, Random(0))
    assert f"not {players}" in refused(GAME.blank(), GameStarted(players=lineup))


def test_m1_a_recorded_deck_must_hold_each_card_once() -> None:
    """M1: a deck missing a card, or holding one twice, is refused."""
    twice = GameStarted(players=NAMES[:2], deck=(0, *range(79)))
    assert "exactly once (M1)" in refused(GAME.blank(), twice)


# --- M2: the three objectives ----------------------------------------------------------------------------------------


def test_m2_one_objective_of_each_moira_is_drawn_at_random() -> None:
    """M2: setup draws one Clotho (1-4), one Lachesis (5-8), one Atropos (9-12); over many seeds, all appear."""
    seen = set()
    for seed in range(60):
        objectives = GAME.setup(NAMES[:2], Random(seed))[1].objectives  # type: ignore[attr-defined]
        assert [o in ids for o, ids in zip(objectives, CHOICES)] == [True] * 3
        seen.update(objectives)
    assert seen == set(range(1, 13))
    assert [OBJECTIVES[o].moira for o in (1, 5, 9)] == ["clotho", "lachesis", "atropos"]


def test_m2_objectives_are_public_and_must_be_one_per_moira() -> None:
    """M2: every seat's view holds the objectives; two Clotho objectives are refused."""
    state = table_game()
    assert GAME.view(state, 1).objectives == (2, 6, 12)
    begun = record_all(GAME.blank(), GameStarted(players=NAMES[:2]))
    assert "one Clotho (1-4)" in refused(begun, ObjectivesDrawn(objectives=(1, 2, 9)))


# --- M3: the face-down starting card ---------------------------------------------------------------------------------


def test_m3_each_seat_draws_its_starting_card_which_opens_its_first_life() -> None:
    """M3: seat 0's starting card is the top of the deck, seat 1's the next; each is the start of life 1."""
    deck = list(range(79, -1, -1))
    state = ordered_game(deck)
    assert [loom for loom in state.looms] == [((79, (), None),), ((78, (), None),)]
    assert state.deck_left == 78 and state.deck[0] == 77


def test_m3_nobody_sees_a_starting_card_not_even_its_owner() -> None:
    """M3: in every seat's view every setup starting card is HIDDEN, although the omniscient log records it."""
    state = ordered_game(list(range(80)))
    for seat in (0, 1):
        assert [loom[0][0] for loom in GAME.view(state, seat).looms] == [HIDDEN, HIDDEN]


def test_m3_dealt_starting_cards_must_follow_the_recorded_deck() -> None:
    """M3: with a recorded deck, the starting cards are its first cards."""
    state = record_all(
        GAME.blank(), GameStarted(players=NAMES[:2], deck=FULL_DECK), ObjectivesDrawn(objectives=(1, 5, 9))
    )
    assert refused(state, StartsDealt(starts=(1, 0))) == "the starting cards are not the next cards of the deck"


def test_m3_the_starting_cards_are_revealed_for_scoring() -> None:
    """M3, M12: when the deck is spent, chance reveals the starting cards; then every seat sees them."""
    state = position(((life(HIDDEN, 5, close=9),), (life(HIDDEN, 7),)), deck_left=0)
    assert GAME.to_move(state) == CHANCE_TO_MOVE
    reveal = GAME.chance(state, Random(0))
    assert isinstance(reveal, StartsRevealed) and set(reveal.starts) <= set(state.deck)
    over = record_all(state, reveal)
    assert GAME.to_move(over) is None
    assert [loom[0][0] for loom in GAME.view(over, 1).looms] == list(reveal.starts)


def test_m3_a_reveal_must_name_unseen_cards_and_known_starts() -> None:
    """M3: a revealed starting card must be unseen (table log) or equal to the recorded one."""
    state = position(((life(HIDDEN, 5, close=9),), (life(3, 7),)), deck_left=0)
    assert refused(state, StartsRevealed(starts=(2, 4))) == "4 is not seat 1's starting card"
    assert "nobody has seen yet" in refused(state, StartsRevealed(starts=(5, 3)))


# --- M4: the four public piles ----------------------------------------------------------------------------------------


def test_m4_discards_go_to_the_pile_of_their_colour_and_every_seat_sees_them() -> None:
    """M4, M7: the two cards not kept go face up onto the piles of their colours, visible in every view."""
    state = record_all(table_game(), CardsDrawn(cards=(14, 33, 58)), CardKept(placed=((14, "up", 1),)))
    assert state.piles == ((), (33,), (58,), ())
    assert GAME.view(state, 1).piles == GAME.view(state, 0).piles == state.piles


# --- M5: face-up cards in increasing order ---------------------------------------------------------------------------


def test_m5_a_life_with_only_its_starting_card_accepts_any_card() -> None:
    """M5: the first face-up card of a life may be any value."""
    assert place((life(HIDDEN),), [(0, "up", 1)]) == (life(HIDDEN, 0),)


def test_m5_a_face_up_card_must_be_strictly_greater_than_the_last() -> None:
    """M5: 42 follows 41, but 29 cannot follow 41 (nor can 41 follow itself)."""
    loom = (life(3), life(7, 12, 41))
    assert place(loom, [(42, "up", 2)])[1] == life(7, 12, 41, 42)
    with pytest.raises(IllegalAction, match="29 cannot follow 41 on life 2"):
        place(loom, [(29, "up", 2)])


def test_m5_a_refused_placement_names_the_reason_through_the_event() -> None:
    """M5: a moirai.kept placing a card too low is refused with the reason, and nothing changes."""
    state = record_all(table_game(), CardsDrawn(cards=(50, 33, 58)), CardKept(placed=((50, "up", 1),)))
    state = record_all(state, CardsDrawn(cards=(2, 8, 71)), CardKept(placed=((71, "up", 1),)))
    drawn = record_all(state, CardsDrawn(cards=(29, 30, 31)))
    assert refused(drawn, CardKept(placed=((29, "up", 1),))) == "29 cannot follow 50 on life 1 (M5)"


def test_m5_face_up_cards_go_on_existing_lives_only() -> None:
    """M5: there is no life 3 on a loom of two lives."""
    with pytest.raises(IllegalAction, match="there is no life 3: the loom has 2 lives"):
        place((life(1), life(2)), [(40, "up", 3)])


# --- M6: face-down cards open or close lives --------------------------------------------------------------------------


def test_m6_a_face_down_card_opens_a_new_life_numbered_next() -> None:
    """M6: a face-down card opens life n + 1 as its starting card; any other number is refused."""
    assert place((life(1, 5),), [(60, "open", 2)]) == (life(1, 5), life(60))
    with pytest.raises(IllegalAction, match="a new life is life 2, not life 3"):
        place((life(1, 5),), [(60, "open", 3)])


def test_m6_a_face_down_card_closes_an_open_life_with_a_face_up_card() -> None:
    """M6: closing needs a face-up card on the life; a life holding only its starting card cannot be closed."""
    assert place((life(1, 5),), [(60, "close", 1)]) == (life(1, 5, close=60),)
    with pytest.raises(IllegalAction, match="life 1 holds no face-up card yet, so it cannot be closed"):
        place((life(1),), [(60, "close", 1)])


def test_m6_a_closed_life_takes_no_more_cards() -> None:
    """M6: neither a face-up card nor another closing card goes on a cut-short life."""
    loom = (life(1, 5, close=9),)
    for how in ("up", "close"):
        with pytest.raises(IllegalAction, match="life 1 is cut short and takes no more cards"):
            place(loom, [(60, how, 1)])


# --- M7: option 1 -----------------------------------------------------------------------------------------------------


def test_m7_option_1_draws_three_and_keeps_one_of_them() -> None:
    """M7: the kept card must be one of the drawn cards, and exactly one is kept."""
    drawn = record_all(table_game(), CardsDrawn(cards=(14, 33, 58)))
    assert GAME.to_move(drawn) == 0 and drawn.drawn == (14, 33, 58)
    assert refused(drawn, CardKept(placed=((40, "up", 1),))) == "40 is not one of the cards drawn this turn (M7)"
    assert "exactly one" in refused(drawn, CardKept(placed=((14, "up", 1), (33, "open", 2))))  # type: ignore[arg-type]
    assert "keep one of the cards drawn this turn first" in refused(drawn, PileTaken(pile="green", placed=()))


def test_m7_the_kept_card_may_go_up_open_or_close() -> None:
    """M7, M5, M6: the offered placements of a kept card are every legal one, opening a life always among them."""
    state = position(((life(HIDDEN, 20), life(4), life(8, 30, close=31)), (life(HIDDEN),)), drawn=(25, 10, 70))
    keeps = GAME.legal_actions(state)
    assert Keep((10, "open", 4)) in keeps and Keep((25, "up", 1)) in keeps and Keep((10, "up", 2)) in keeps
    assert Keep((70, "close", 1)) in keeps and Keep((10, "up", 1)) not in keeps
    assert not any(p.placement[2] == 3 for p in keeps if isinstance(p, Keep))  # life 3 is closed
    assert Keep((10, "close", 2)) not in keeps  # life 2 holds only its starting card


def test_m7_option_1_is_legal_whenever_the_deck_is_not_empty() -> None:
    """M7: draw is offered while the deck lasts; opening a life is offered for every drawn card."""
    state = position(((life(HIDDEN, 79, close=1),), (life(HIDDEN),)))
    assert GAME.legal_actions(state)[0] == Draw()
    assert single_placements(state.looms[0], 5) == [(5, "open", 2)]


# --- M8: option 2 -----------------------------------------------------------------------------------------------------


def test_m8_every_card_of_the_pile_is_placed_at_most_one_face_down() -> None:
    """M8: a pile taken is emptied onto the loom; the cards are placed in the order listed."""
    state = position(((life(HIDDEN, 10),), (life(HIDDEN),)), piles=((4, 8, 12), (), (), ()))
    after = record_all(state, PileTaken(pile="green", placed=((12, "up", 1), (4, "open", 2), (8, "up", 2))))
    assert after.looms[0] == (life(HIDDEN, 10, 12), life(4, 8)) and after.piles[0] == ()
    assert GAME.to_move(after) == 1


def test_m8_only_one_card_of_a_pile_may_go_face_down() -> None:
    """M8: two face-down cards from one pile are refused."""
    state = position(((life(HIDDEN, 10),), (life(HIDDEN),)), piles=((4, 8, 12), (), (), ()))
    two_down = PileTaken(pile="green", placed=((12, "up", 1), (4, "open", 2), (8, "close", 1)))
    assert refused(state, two_down) == "only one card of a pile may go face down (M8)"


def test_m8_every_card_must_be_placed_once_and_only_cards_of_the_pile() -> None:
    """M8: leaving a card out, placing a card twice, or a card from elsewhere is refused."""
    state = position(((life(HIDDEN, 10),), (life(HIDDEN),)), piles=((4, 8, 12), (), (), ()))
    reason = "every card of the green pile (4, 8, 12) must be placed, each once (M8)"
    assert refused(state, PileTaken(pile="green", placed=((12, "up", 1), (4, "open", 2)))) == reason
    assert refused(state, PileTaken(pile="green", placed=((12, "up", 1), (4, "open", 2), (4, "up", 2)))) == reason
    assert refused(state, PileTaken(pile="green", placed=((12, "up", 1), (4, "open", 2), (9, "up", 2)))) == reason


def test_m8_the_pile_must_not_be_empty() -> None:
    """M8: an empty pile cannot be taken, and an unknown pile is named."""
    state = position(((life(HIDDEN, 10),), (life(HIDDEN),)))
    assert refused(state, PileTaken(pile="red", placed=())) == "the red pile is empty (M8)"
    assert "is not a pile" in refused(state, PileTaken(pile="gold", placed=()))


def test_m8_a_face_down_opener_may_be_continued_by_the_same_pile() -> None:
    """M8: the face-down card opens a new life first, then cards of the same pile continue it."""
    state = position(((life(HIDDEN, 70),), (life(HIDDEN),)), piles=((), (), (6, 10, 30), ()))
    after = record_all(state, PileTaken(pile="purple", placed=((30, "open", 2), (6, "up", 2), (10, "up", 2))))
    assert after.looms[0][1] == life(30, 6, 10)


def test_m8_a_face_down_card_may_close_a_life_after_the_face_up_cards_of_the_turn() -> None:
    """M8: a life holding only its starting card is continued then closed in the same take; order matters."""
    state = position(((life(HIDDEN),), (life(HIDDEN),)), piles=((), (), (), (3, 7)))
    after = record_all(state, PileTaken(pile="red", placed=((3, "up", 1), (7, "close", 1))))
    assert after.looms[0] == (life(HIDDEN, 3, close=7),)
    wrong_order = PileTaken(pile="red", placed=((7, "close", 1), (3, "up", 1)))
    assert "cannot be closed" in refused(state, wrong_order)


def test_m8_bots_are_offered_a_bounded_family_of_legal_arrangements() -> None:
    """M8: a one-card pile offers every placement; a larger pile a bounded family, each arrangement legal."""
    loom = (life(HIDDEN, 20), life(5, 40), life(8, 9, close=1))
    assert pile_arrangements(loom, (30,)) == [(p,) for p in single_placements(loom, 30)]
    pile = tuple(range(2, 80, 4))  # twenty purple cards
    arrangements = pile_arrangements(loom, pile)
    assert 0 < len(arrangements) <= 30
    for placed in arrangements:
        assert sorted(c for c, _, _ in placed) == list(pile)
        assert sum(how != "up" for _, how, _ in placed) <= 1
        place(loom, placed)  # raises if illegal


# --- M9: who sees face-down cards -------------------------------------------------------------------------------------


def test_m9_an_option_1_face_down_card_is_seen_by_its_owner_only() -> None:
    """M9: opening or closing from option 1 shows the card to its owner only."""
    state = record_all(table_game(), CardsDrawn(cards=(14, 33, 58)), CardKept(placed=((14, "up", 1),)))
    state = record_all(state, CardsDrawn(cards=(2, 8, 71)), CardKept(placed=((8, "open", 2),)))
    state = record_all(state, CardsDrawn(cards=(40, 5, 9)), CardKept(placed=((40, "close", 1),)))
    assert GAME.view(state, 1).looms[1][1] == life(8) and GAME.view(state, 0).looms[1][1] == life(HIDDEN)
    assert GAME.view(state, 0).looms[0][0][2] == 40 and GAME.view(state, 1).looms[0][0][2] == HIDDEN


def test_m9_the_drawn_cards_are_seen_by_the_drawer_only() -> None:
    """M7, M9: before one is kept, the drawn cards are HIDDEN to the other seats."""
    drawn = record_all(table_game(), CardsDrawn(cards=(14, 33, 58)))
    assert GAME.view(drawn, 0).drawn == (14, 33, 58) and GAME.view(drawn, 1).drawn == (HIDDEN,) * 3


def test_m9_an_option_2_face_down_card_is_known_to_everyone() -> None:
    """M9: a card taken from a pile was public; face down, it stays visible in every view."""
    state = position(((life(HIDDEN, 10),), (life(HIDDEN),)), piles=((4, 8, 12), (), (), ()))
    after = record_all(state, PileTaken(pile="green", placed=((12, "up", 1), (4, "open", 2), (8, "up", 2))))
    assert GAME.view(after, 1).looms[0][1] == life(4, 8)


# --- M10, M11: the end ------------------------------------------------------------------------------------------------


def test_m10_the_game_ends_when_the_last_card_is_drawn_after_that_turn() -> None:
    """M10: the drawer keeps one, discards the rest, places it; then the reveal, and the game is over."""
    state = position(((life(HIDDEN, 10),), (life(HIDDEN),)), deck_left=3)
    state = record_all(state, CardsDrawn(cards=state.deck[:3]))
    assert GAME.to_move(state) == 0 and state.deck_left == 0
    state = record_all(state, CardKept(placed=((state.drawn[0], "open", 2),)))
    assert GAME.to_move(state) == CHANCE_TO_MOVE
    assert isinstance(GAME.chance(state, Random(1)), StartsRevealed)


def test_m10_with_fewer_than_three_cards_left_option_1_draws_what_is_left() -> None:
    """M10: with two cards left, option 1 draws two; drawing three is refused."""
    state = position(((life(HIDDEN, 10),), (life(HIDDEN),)), deck_left=2)
    assert "draws 2 cards here, not 3" in refused(state, CardsDrawn(cards=state.deck[:3]))
    [drew] = GAME.resolve(state, Draw(), Random(0))
    assert len(drew.cards) == 2  # type: ignore[attr-defined]


def test_m11_option_2_never_ends_the_game() -> None:
    """M11: taking the last pile with cards left in the deck passes the turn; the game goes on."""
    state = position(((life(HIDDEN, 10),), (life(HIDDEN),)), piles=((), (13,), (), ()), deck_left=1)
    after = record_all(state, PileTaken(pile="blue", placed=((13, "up", 1),)))
    assert GAME.to_move(after) == 1


def test_m11_no_option_1_once_the_deck_is_empty() -> None:
    """M11: with the deck spent no draw is offered or accepted (M10 has already ended the game)."""
    state = position(((life(HIDDEN, 10),), (life(HIDDEN),)), deck_left=0)
    assert GAME.legal_actions(state) == []
    assert "the deck is empty" in str(pytest.raises(IllegalAction, GAME.check, state, CardsDrawn(cards=())).value)


# --- M12: what counts as first and last card -------------------------------------------------------------------------


def test_m12_the_first_card_is_the_starting_card_and_lachesis_counts_face_up_cards_only() -> None:
    """M12: Clotho 2 reads the starting cards; Lachesis 5 counts face-up cards, never the face-down ones."""
    loom = (life(7, 50, 51, close=52), life(23, 1))
    assert scored(2, loom) == [2]  # decades 0 and 2 of the starting cards 7 and 23
    assert scored(5, loom) == [2]  # two face-up cards, not four


def test_m12_the_last_card_of_a_cut_short_life_is_its_last_face_up_card() -> None:
    """M12: a closing card's value never scores: 39 closed by 70 is below 40 for Atropos 10 and 11."""
    loom = (life(1, 20, 39, close=70),)
    assert scored(10, loom) == [2] and scored(11, loom) == [0]
    assert atropos_ranking((loom,)) == [(38, 39, 0)]


# --- M13-M16: the objectives' corners -------------------------------------------------------------------------------


def test_m13_clotho_1_counts_the_setup_life() -> None:
    """M13: one seat has only its setup life, the other three lives: 8 points for the first."""
    assert scored(1, (life(HIDDEN),), (life(1), life(2), life(3))) == [8, 0]


def test_m14_a_majority_needs_at_least_one_card_and_ties_all_score() -> None:
    """M14: no seat has a purple first card, so nobody takes purple; two seats tie on green and both score."""
    alberto = (life(0), life(4), life(1))
    melanie = (life(8), life(12))
    assert scored(3, alberto, melanie) == [8, 4]  # green tie 4 + 4, blue 4 for Alberto alone
    assert scored(6, (life(9, 2),), (life(9, 6),), (life(9, 1),)) == [4, 4, 4]  # purple tie 4 + 4; blue 4


def test_m15_clotho_4_is_zero_with_fewer_than_two_colours() -> None:
    """M15: four green first cards score nothing; most x least present colour otherwise."""
    assert scored(4, (life(0), life(4), life(8), life(12))) == [0]
    assert scored(4, (life(0), life(4), life(8), life(1))) == [3]


def test_m16_atropos_12_ranks_signed_differences_ties_to_the_higher_last_card() -> None:
    """M16: a negative difference still ranks; equal differences go to the higher last card; one seat takes two."""
    ann = (cut(10, 60), cut(40, 20))  # +50, -20
    ben = (cut(2, 52), cut(30, 41))  # +50 ending 52 (behind Ann's +50 ending 60), +11
    assert [seat for _, _, seat in atropos_ranking((ann, ben))] == [0, 1, 1, 0]
    assert scored(12, ann, ben) == [7, 8]


def test_m16_only_cut_short_lives_rank() -> None:
    """M16: an open life with a huge difference does not score."""
    assert scored(12, (life(0, 79),), (cut(10, 11),)) == [0, 7]


# --- M17: the winner ------------------------------------------------------------------------------------------------


def test_m17_the_highest_total_wins() -> None:
    """M17: objectives 1, 5, 9 summed; the highest total wins alone."""
    state = position(((life(1, 2, 3, close=4),), (life(5, 6), life(7, 8))))
    assert GAME.breakdown(state) == [
        {"clotho 1": 4, "lachesis 5": 2, "atropos 9": 0},
        {"clotho 1": 0, "lachesis 5": 1, "atropos 9": -6},
    ]
    assert GAME.scores(state) == [6, -5] and GAME.winners(state) == [0]


def test_m17_a_tie_goes_to_the_most_cut_short_lives_then_is_shared() -> None:
    """M17: equal totals, the seat with more cut-short lives wins; equal again, both win."""
    state = position(((life(1, 9, close=4), life(2, 7)), (life(5, 6), life(3, 8))), objectives=(1, 5, 11))
    assert GAME.scores(state) == [1, 1] and GAME.winners(state) == [0]
    state = position(((life(1, 9), life(2, 7)), (life(5, 6), life(3, 8))), objectives=(1, 5, 11))
    assert GAME.winners(state) == [0, 1]


# --- The rulebook's worked examples, objective by objective ----------------------------------------------------------

ALBERTO, ALIS, MELANIE = 0, 1, 2


def test_example_clotho_1_melanie_earns_8_points() -> None:
    """Clotho 1: Alberto 5 lives, Alis 5, Mélanie 3: Mélanie earns 8, the others nothing."""
    five = tuple(life(c) for c in range(5))
    assert scored(1, five, five, tuple(life(c) for c in range(3))) == [0, 0, 8]


def test_example_clotho_2_melanie_earns_4_points_for_4_decades() -> None:
    """Clotho 2: lives beginning 7, 14, 23, 27 and 59 span 4 decades: 4 points."""
    assert scored(2, tuple(life(c) for c in (7, 14, 23, 27, 59))) == [4]


def test_example_clotho_2_is_at_most_8_points() -> None:
    """Clotho 2: one point per decade, so at most 8."""
    assert scored(2, tuple(life(c) for c in range(0, 80, 5))) == [8]


def test_example_clotho_3_alberto_and_melanie_share_the_green_majority() -> None:
    """Clotho 3: green first cards Alberto 3, Mélanie 3, Alis 2: Alberto and Mélanie each earn 4."""
    alberto = tuple(life(c) for c in (0, 4, 8))
    alis = tuple(life(c) for c in (12, 16))
    melanie = tuple(life(c) for c in (20, 24, 28))
    assert scored(3, alberto, alis, melanie) == [4, 0, 4]


def test_example_clotho_4_alis_earns_6_then_3_with_a_purple_first_card() -> None:
    """Clotho 4: 3 red and 2 green first cards give 3 x 2 = 6; one purple more gives 3 x 1 = 3."""
    alis = tuple(life(c) for c in (3, 7, 11, 0, 4))
    assert scored(4, alis) == [6]
    assert scored(4, (*alis, life(2))) == [3]


def test_example_lachesis_5_alberto_earns_8_for_his_8_card_life() -> None:
    """Lachesis 5: lives of 5, 8 and 6 face-up cards (face-down cards not counted): 8 points."""
    alberto = (
        life(HIDDEN, *range(10, 15), close=70),
        life(1, *range(20, 28)),
        life(2, *range(30, 36), close=71),
    )
    assert scored(5, alberto) == [8]


def test_example_lachesis_6_melanie_and_alis_share_the_purple_majority() -> None:
    """Lachesis 6: 5 purple cards in one life for Mélanie and Alis, 4 for Alberto: Mélanie and Alis earn 4 each."""
    alberto = (life(0, 2, 6, 10, 14), life(1, 18, 22, 26))
    alis = (life(3, 30, 34, 38, 42, 46),)
    melanie = (life(5, 50, 54, 58, 62, 66), life(7, 70, 74))
    assert scored(6, alberto, alis, melanie) == [0, 4, 4]


def test_example_lachesis_7_alis_earns_9_for_three_four_colour_lives() -> None:
    """Lachesis 7: three lives each holding blue, red, purple and green: 3 x 3 = 9; a three-colour life nothing."""
    alis = (life(0, 1, 2, 3, 4), life(5, 8, 9, 10, 11), life(6, 12, 13, 14, 15), life(7, 16, 17, 18))
    assert scored(7, alis) == [9]


def test_example_lachesis_8_alberto_earns_5_decade_points() -> None:
    """Lachesis 8: 7, 12, 18, 21, 24, 26, 47, 59, 72: (12, 18) and (21, 24, 26) give 5 points."""
    assert scored(8, (life(HIDDEN, 7, 12, 18, 21, 24, 26, 47, 59, 72),)) == [5]


def test_example_atropos_9_melanie_loses_12_for_4_unclosed_lives() -> None:
    """Atropos 9: 4 lives without a closing card: -3 x 4 = -12; cut-short lives cost nothing."""
    melanie = (life(0, 1), life(2, 3), life(4, 5), life(6), cut(8, 9))
    assert scored(9, melanie) == [-12]


def test_example_atropos_10_alis_earns_4() -> None:
    """Atropos 10: cut-short lives ending 23, 39, 40 and 59: 2 x 2 = 4 for 23 and 39."""
    alis = (cut(0, 23), cut(1, 39), cut(2, 40), cut(3, 59))
    assert scored(10, alis) == [4]


def test_example_atropos_11_alberto_earns_6() -> None:
    """Atropos 11: cut-short lives ending 17, 40, 58 and 77: 2 x 3 = 6 for 40, 58 and 77."""
    alberto = (cut(0, 17), cut(1, 40), cut(2, 58), cut(3, 77))
    assert scored(11, alberto) == [6]


def test_example_atropos_12_melanie_earns_7_and_alis_8() -> None:
    """Atropos 12: Mélanie 5 -> 75 (70), Alis 2 -> 72 (70) and 10 -> 79 (69); Alberto's differences are smaller.
    The tie at 70 goes to the higher last card, 75: Mélanie 7, Alis 5 + 3 = 8."""
    alberto = (cut(20, 60), cut(30, 41))
    alis = (cut(2, 72), cut(10, 79))
    melanie = (cut(5, 75),)
    assert scored(12, alberto, alis, melanie) == [0, 8, 7]


def test_example_breakdowns_are_keyed_by_the_objectives_in_play() -> None:
    """The breakdown of a seat names each objective in play, `clotho 2`, `lachesis 6`, `atropos 12`."""
    alis = (cut(2, 72), cut(10, 79))
    melanie = (cut(5, 75),)
    rows = score_table((2, 6, 12), (alis, melanie))
    assert list(rows[0]) == ["clotho 2", "lachesis 6", "atropos 12"]
    assert rows[0]["atropos 12"] == 8 and rows[1]["atropos 12"] == 7


def test_every_objective_has_a_scorer_and_its_data() -> None:
    """The twelve Moira cards of cards.toml, 4 per Moira, each scored by the function of its id."""
    assert sorted(OBJECTIVES) == list(range(1, 13))
    scorers = [clotho_1, clotho_2, clotho_3, clotho_4, lachesis_5, lachesis_6, lachesis_7, lachesis_8]
    scorers += [atropos_9, atropos_10, atropos_11, atropos_12]
    assert all(f.__name__.endswith(f"_{n}") for n, f in enumerate(scorers, start=1))


# --- Actions, placements and table logs ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        ([29, "sideways", 2], "a card is placed up, open, close, not 'sideways'"),
        ([29, "up", 0], "lives are numbered from 1, not 0"),
        ([80, "up", 1], "80 is not a Moirai life card"),
        ([29, "up"], "a placement is [card, how, life]"),
        ("29 up 1", "a placement is [card, how, life]"),
    ],
)
def test_a_malformed_placement_is_refused_with_its_reason(raw: object, reason: str) -> None:
    """A placement is `[card, how, life]`; anything else is refused, in an action or in an event."""
    with pytest.raises(IllegalAction, match=reason.replace("[", r"\[").replace("]", r"\]")):
        GAME.parse_action({"type": "keep", "place": raw})
    drawn = record_all(table_game(), CardsDrawn(cards=(29, 33, 58)))
    assert reason in refused(drawn, CardKept(placed=(raw,)))  # type: ignore[arg-type]


def test_actions_round_trip_through_json() -> None:
    """draw, keep and take: parse_action(action_json(a)) == a; an unknown action names the three kinds."""
    for action in (Draw(), Keep((29, "up", 2)), Take(2, ((2, "open", 3), (22, "up", 3)))):
        assert GAME.parse_action(GAME.action_json(action)) == action
    assert GAME.action_json(Take(2, ((2, "open", 3),))) == {"type": "take", "pile": "purple", "place": [[2, "open", 3]]}
    with pytest.raises(IllegalAction, match="use draw, keep or take"):
        GAME.parse_action({"type": "pass"})


def test_a_table_log_names_only_unseen_cards() -> None:
    """Chance is in the log: without a recorded deck, a drawn card must be one nobody has seen, three distinct."""
    state = record_all(table_game(), CardsDrawn(cards=(14, 33, 58)), CardKept(placed=((14, "up", 1),)))
    assert "distinct cards nobody has seen yet" in refused(state, CardsDrawn(cards=(33, 1, 2)))
    assert "distinct cards nobody has seen yet" in refused(state, CardsDrawn(cards=(1, 1, 2)))


def test_a_recorded_deck_fixes_every_draw() -> None:
    """With the deck order recorded, a draw must name its next three cards."""
    state = ordered_game(list(range(80)))
    assert refused(state, CardsDrawn(cards=(3, 2, 4))) == "the drawn cards are not the next cards of the deck"
    [drew] = GAME.resolve(state, Draw(), Random(0))
    assert drew == CardsDrawn(cards=(2, 3, 4))


def test_a_table_log_may_leave_the_setup_to_chance() -> None:
    """A log holding only moirai.started: chance draws the objectives, then deals unknown starting cards."""
    state = record_all(GAME.blank(), GameStarted(players=NAMES[:3], seed=5))
    objectives = GAME.chance(state, Random(1))
    state = record_all(state, objectives)
    dealt = GAME.chance(state, Random(1))
    assert dealt == StartsDealt(starts=None)
    state = record_all(state, dealt)
    assert GAME.to_move(state) == 0 and state.deck_left == 77
    assert [loom[0][0] for loom in state.looms] == [HIDDEN] * 3


def test_setup_events_come_first_and_in_order() -> None:
    """A Moirai log begins with started, objectives-drawn, dealt; anything else first is refused."""
    with pytest.raises(IllegalAction, match="begins with moirai.started"):
        GAME.check(GAME.blank(), ObjectivesDrawn(objectives=(1, 5, 9)))
    begun = record_all(GAME.blank(), GameStarted(players=NAMES[:2]))
    assert "begins with moirai.started, then moirai.objectives-drawn" in refused(begun, StartsDealt())
