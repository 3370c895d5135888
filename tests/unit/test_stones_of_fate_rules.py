"""Stones of Fate's rules: one small test per behaviour of rulings S1-S11 and the rulebook's six examples.

Positions are built by hand (`table`: a `StonesState` given its spread, stones and collections), then driven with
`engine.play.act` (an action, then chance) or `record` (one event, checked exactly as an imported log would be).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import partial
from random import Random

import pytest

from loom.engine.play import Step, act, record, start
from loom.engine.protocol import CHANCE_TO_MOVE, HIDDEN
from loom.engine.stones_of_fate import GAME
from loom.engine.stones_of_fate.actions import (
    Choose,
    Flip,
    GiveDeath,
    Move,
    Peek,
    Recover,
    Stop,
    Swap,
    Take,
    legal_actions,
)
from loom.engine.stones_of_fate.cards import (
    CARD_IDS,
    CARDS,
    COLOURS,
    DECK_PER_PLAYER,
    FULL_DECK,
    KEYSTONE_SIDES,
    POWER_SIDES,
    card,
    grid_for,
)
from loom.engine.stones_of_fate.rules import tidy
from loom.engine.stones_of_fate.score import card_points, scores, winners
from loom.engine.stones_of_fate.state import EMPTY, StonesState, place, position, side_edges, winner_at
from loom.events.base import IllegalAction, Payload
from loom.events.stones_of_fate import (
    CardDrawn,
    CardFlipped,
    CardPeeked,
    CardWon,
    DeathGiven,
    FinalFlip,
    GameStarted,
    NextChosen,
    RandomDiscards,
    SpreadDealt,
    SpreadRefilled,
    StoneMoved,
)
from tests import recording

NAMES = ("ann", "bob", "cat", "dan")
BLACK, GREEN, RED = 0, 1, 2  # the rulebook's colours are the stones of seats 0, 1, 2
PLAIN = [c.id for c in CARDS if not (c.flip or c.win or c.end or c.scoring)]  # cards with no effect or rule


# --- Building positions ---------------------------------------------------------------------------------------------


def table(
    players: int = 2,
    spread: Mapping[str, str | None] | None = None,
    stones: Mapping[int, Mapping[str, int]] | None = None,
    collections: Mapping[int, Sequence[str]] | None = None,
    deck: Sequence[str] | None = None,
    discard: Sequence[str] = (),
    seat: int = 0,
    actions: int = 0,
) -> StonesState:
    """A dealt position: named cards at the given places (a plain card elsewhere, None for an empty space); an
    ordered deck (top first; by default plain cards); every seat remembers the whole spread."""
    grid = grid_for(players)
    names = [grid.position_name(p) for p in range(grid.size)]
    placed = dict(spread or {})
    held = {s: tuple(card(n) for n in collections.get(s, ())) if collections else () for s in range(players)}
    used = {*placed.values(), *(n for s in held.values() for n in (CARD_IDS[c] for c in s)), *discard, *(deck or ())}
    fillers = iter(n for n in PLAIN if n not in used)
    layout = tuple(
        EMPTY if (name in placed and placed[name] is None) else card(placed.get(name) or next(fillers))
        for name in names
    )
    ordered = (
        tuple(card(n) for n in deck) if deck is not None else tuple(card(next(fillers)) for _ in range(8 * players))
    )
    state = StonesState(
        players=NAMES[:players],
        seed=1,
        rows=grid.rows,
        cols=grid.cols,
        dealt=True,
        spread=layout,
        known=(tuple(HIDDEN if c == EMPTY else c for c in layout),) * players,
        known_top=(HIDDEN,) * players,
        deck=ordered,
        deck_ordered=True,
        deck_size=len(ordered),
        stones=((0,) * grid.edges,) * players,
        collections=tuple(held[s] for s in range(players)),
        discard=tuple(card(n) for n in discard),
        turn=1 if actions else 0,
        seat=seat,
        actions=actions,
    )
    for colour, where in (stones or {}).items():
        mine = [0] * grid.edges
        for edge, count in where.items():
            mine[place(state, edge)] += count
        state = _with_stones(state, colour, tuple(mine))
    return state


def _with_stones(state: StonesState, colour: int, mine: tuple[int, ...]) -> StonesState:
    fields = {name: getattr(state, name) for name in StonesState.__slots__}  # type: ignore[attr-defined]
    fields["stones"] = (*state.stones[:colour], mine, *state.stones[colour + 1 :])
    return StonesState(**fields)


def winning(state: StonesState, at: str, seat: int) -> StonesState:
    """`state` with `seat`'s stones matching every Keystone of the card at `at` and one on a Power side."""
    p = position(state, at)
    c, edges = state.spread[p], side_edges(state, p)
    mine = [0] * len(state.stones[seat])
    for side, count in KEYSTONE_SIDES[c]:
        mine[edges[side]] = count
    if POWER_SIDES[c]:
        mine[edges[POWER_SIDES[c][0]]] += 1
    return _with_stones(state, seat, tuple(mine))


def record_all(state: StonesState, *payloads: Payload) -> tuple[StonesState, list[Step]]:
    """The state after recording (checking) each payload in turn, and the steps."""
    steps = []
    for payload in payloads:
        state, step = record(GAME, state, payload)
        steps.append(step)
    return state, steps


# Recording hand-written events into a position, and the reason one is refused (tests/recording.py).
refused = partial(recording.refused, GAME)


def play(state: StonesState, *actions: object, rng: Random | None = None) -> tuple[StonesState, list[Step]]:
    """The seat(s) to move take these actions in turn, chance acting after each."""
    rng, steps = rng or Random(0), []
    for action in actions:
        state, more = act(GAME, state, action, rng)
        steps += more
    return state, steps


def types(steps: Sequence[Step]) -> list[str]:
    """The event type names of `steps`, without the game prefix."""
    return [step.payload.TYPE.removeprefix("stones-of-fate.") for step in steps]


def held(state: StonesState, seat: int) -> list[str]:
    """The card ids of a seat's collection."""
    return [CARD_IDS[c] for c in state.collections[seat]]


# --- S1: the card data file -----------------------------------------------------------------------------------------


def test_s1_the_data_file_holds_82_cards_22_major_and_15_of_each_suit() -> None:
    """S1: 82 cards with stable ids; 22 Major Arcana from The Fool to The World; 15 Coins, Wands, Cups, Swords."""
    assert len(CARDS) == 82 and len(set(CARD_IDS)) == 82
    majors = [c.name for c in CARDS if c.arcana == "major"]
    assert len(majors) == 22 and majors[0] == "The Fool" and majors[-1] == "The World"
    for suit in ("coins", "wands", "cups", "swords"):
        assert sum(c.suit == suit for c in CARDS) == 15


def test_s1_every_invented_value_is_marked_as_invented() -> None:
    """S1: each card says which of its fields are invented; the rulebook's effects are not marked invented."""
    assert all(c.invented for c in CARDS)
    assert all("zones" in c.invented and "points" in c.invented for c in CARDS)
    by_name = {c.name: c for c in CARDS}
    for name in ("The Tower", "Strength", "Death"):
        assert not {"flip", "win", "end"} & set(by_name[name].invented)
    assert "flip" in by_name["The Moon"].invented and "scoring" not in by_name["King of Swords"].invented


BROKEN = {
    "a card missing": (
        lambda t: t.replace(t[t.index('  { id = "ace-of-coins"') : t.index('  { id = "two-of-coins"')], ""),
        "82",
    ),
    "a duplicate id": (lambda t: t.replace('id = "two-of-coins"', 'id = "ace-of-coins"'), "share an id"),
    "a bad zone": (lambda t: t.replace('top = "power"', 'top = "tower"', 1), "is not a zone"),
    "a keystone of 4": (lambda t: t.replace('"keystone-1"', '"keystone-4"', 1), "is not a zone"),
    "an unknown effect": (lambda t: t.replace('flip = "moon"', 'flip = "eclipse"'), "unknown"),
    "no power nor keystone (S2)": (
        lambda t: t.replace(
            'top = "power", right = "blank", bottom = "power", left = "power"',
            'top = "blank", right = "blank", bottom = "opportunity", left = "forbidden"',
        ),
        r"at least one power or keystone zone \(S2\)",
    ),
    "the Tower without its effect (S2)": (lambda t: t.replace(', flip = "tower"', ""), "The Tower must carry"),
    "negative points": (lambda t: t.replace("points = 1,", "points = -1,", 1), "points must be"),
    "a minor card without suit": (lambda t: t.replace(', suit = "cups"', "", 1), r"major \(no suit\) or minor"),
    "an unknown field": (lambda t: t.replace("points = 2,", "points = 2, colour = 3,", 1), "unknown field"),
    "not TOML": (lambda t: t + "\n[[[", "cannot read"),
    "a card nobody can win": (
        lambda t: t.replace('left = "keystone-1", win = "strength"', 'left = "keystone-3", win = "strength"').replace(
            'top = "keystone-1", right = "blank", bottom = "forbidden"',
            'top = "keystone-3", right = "blank", bottom = "forbidden"',
        ),
        "needs 6 stones",
    ),
}


@pytest.mark.parametrize("breakage", sorted(BROKEN))
def test_s1_a_broken_copy_of_the_data_file_is_refused_on_load(breakage: str, tmp_path: pytest.TempPathFactory) -> None:
    """S1: the loader validates the file; a broken copy is refused with the reason."""
    from pathlib import Path

    from loom.engine.stones_of_fate.cards import CARDS_FILE, CardDataError, load_cards

    edit, reason = BROKEN[breakage]
    copy = Path(str(tmp_path)) / "cards.toml"
    text = CARDS_FILE.read_text()
    assert edit(text) != text
    copy.write_text(edit(text))
    with pytest.raises(CardDataError, match=reason):
        load_cards(copy)
    assert load_cards(CARDS_FILE).cards == CARDS  # the shipped file loads


def test_s1_scoring_rules_per_suit_and_per_major() -> None:
    """S1: a per-suit rule adds points per card of its suit held; a per-major rule per Major Arcana (itself too)."""
    queen = card("queen-of-cups")
    assert card_points(queen, [queen]) == 1  # itself is a Cups card
    assert card_points(queen, [queen, card("ace-of-cups"), card("two-of-cups"), card("ace-of-coins")]) == 3
    world = card("the-world")
    assert card_points(world, [world]) == 1
    assert card_points(world, [world, card("death"), card("ace-of-cups")]) == 2


# --- S2: effects ------------------------------------------------------------------------------------------------------


def test_s2_every_card_has_a_power_or_keystone_zone() -> None:
    """S2."""
    assert all(any(z == 1 or z > 10 for z in c.zones) for c in CARDS)


def test_s2_at_least_twelve_distinct_effects_among_them_the_rulebooks_three() -> None:
    """S2: The Tower (FLIP), Strength (WIN), Death (end) and at least nine more."""
    effects = {e for c in CARDS for e in (c.flip, c.win, c.end) if e}
    assert len(effects) >= 12
    by_name = {c.name: c for c in CARDS}
    assert (by_name["The Tower"].flip, by_name["Strength"].win, by_name["Death"].end) == ("tower", "strength", "death")


# --- S3: setup --------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("players", "shape"), [(2, (2, 3)), (3, (3, 3)), (4, (3, 3))])
def test_s3_the_spread_is_2_by_3_for_two_players_and_3_by_3_otherwise(players: int, shape: tuple[int, int]) -> None:
    """S3: the grid, 5 stones each in the supply, and a deck of 8 cards per player; the rest leave the game."""
    state, steps = start(GAME, NAMES[:players], Random(players))
    assert (state.rows, state.cols) == shape and len(state.spread) == shape[0] * shape[1]
    assert state.deck_size == len(state.deck) == DECK_PER_PLAYER * players
    assert all(sum(mine) == 0 for mine in state.stones) and all(s == 0 for s in map(sum, state.stones))
    started = steps[0].payload
    assert isinstance(started, GameStarted) and started.deck is not None
    in_play = {*state.spread, *state.deck}
    assert len(in_play) == len(state.spread) + len(state.deck) and len(FULL_DECK) - len(in_play) > 0


@pytest.mark.parametrize("players", [1, 5])
def test_s3_two_to_four_players(players: int) -> None:
    """S3: setup and a recorded start refuse 1 or 5 players."""
    lineup = tuple(NAMES[0] + str(k) for k in range(players))
    with pytest.raises(IllegalAction, match=f"2 to 4 players, not {players}"):
        GAME.setup(lineup, Random(0))
    assert f"not {players}" in refused(GAME.blank(), GameStarted(players=lineup))


def test_s3_the_spread_is_seen_by_all_at_setup_then_lies_face_down() -> None:
    """S3: every seat remembers the dealt spread; later refills are unseen."""
    state, _ = record_all(GAME.blank(), GameStarted(players=NAMES[:2]), SpreadDealt(spread=tuple(PLAIN[:6])))
    for seat in (0, 1):
        assert GAME.view(state, seat).spread == tuple(card(n) for n in PLAIN[:6])
        assert GAME.view(state, seat).deck == (HIDDEN,) * len(state.deck)
    assert GAME.to_move(state) == 0


def test_s3_a_recorded_deck_and_spread_must_fit_the_setup() -> None:
    """S3: the deck is 8 different cards per player; the spread 6 (or 9) different cards, none of them in the deck."""
    assert "8 different cards per player" in refused(
        GAME.blank(), GameStarted(players=NAMES[:2], deck=tuple(PLAIN[:15]))
    )
    started, _ = record_all(GAME.blank(), GameStarted(players=NAMES[:2], deck=tuple(PLAIN[:16])))
    assert "6 different cards" in refused(started, SpreadDealt(spread=tuple(PLAIN[16:21])))
    assert "also in the recorded deck" in refused(started, SpreadDealt(spread=tuple(PLAIN[15:21])))
    assert "begins with stones-of-fate.started" in refused(GAME.blank(), SpreadDealt(spread=()))


# --- S4: edges --------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("players", "edges", "inner"), [(2, 17, 7), (3, 24, 12)])
def test_s4_edge_adjacency_on_both_grid_sizes(players: int, edges: int, inner: int) -> None:
    """S4: a 2 x 3 grid has 17 edges, 7 between two cards; a 3 x 3 grid 24, 12 between two cards. An inner edge is
    the right side of the left card and the left side of the right card (and likewise vertically)."""
    grid = grid_for(players)
    assert grid.edges == edges
    assert sum(len(grid.adjacent(e)) == 2 for e in range(edges)) == inner
    assert all(1 <= len(grid.adjacent(e)) <= 2 for e in range(edges))
    state = table(players)
    assert place(state, "a1-right") == place(state, "a2-left")
    assert place(state, "a1-bottom") == place(state, "b1-top")
    assert place(state, "a1-top") != place(state, "a1-left")
    last = grid.position_name(grid.size - 1)
    assert len(grid.adjacent(place(state, f"{last}-bottom"))) == 1
    assert {pos for pos, _ in grid.adjacent(place(state, "a2-bottom"))} == {1, 1 + grid.cols}


def test_s4_a_stone_between_two_cards_counts_for_both() -> None:
    """S4: one black stone on the edge between a1 and a2 is a Power stone of both (Ace of Coins' left Power zone,
    The Hermit's right Power zone)."""
    state = table(2, spread={"a1": "the-hermit", "a2": "ace-of-coins"}, stones={BLACK: {"a1-right": 1}})
    assert winner_at(state, 0) == BLACK and winner_at(state, 1) == BLACK


def test_s4_stones_stay_on_their_edges_when_a_card_leaves() -> None:
    """S4: the card is won and its space refilled; the stones have not moved."""
    state = table(2, spread={"a1": "ace-of-coins"}, stones={BLACK: {"a1-top": 1, "a1-left": 1}}, actions=1)
    before = state.stones
    after, steps = play(state, Flip("a1"))
    assert types(steps) == ["flipped", "won", "refilled"] and after.stones == before
    assert after.spread[0] not in (EMPTY, card("ace-of-coins"))


# --- S5: peek ---------------------------------------------------------------------------------------------------------


def test_s5_a_peek_is_known_to_the_peeker_only() -> None:
    """S5: seat 0 peeks at a card refilled unseen; only its view shows it."""
    state = table(2, spread={"a1": None}, actions=2)
    state = record_all(state, SpreadRefilled(at="a1", card=CARD_IDS[state.deck[0]]))[0]
    assert GAME.view(state, 0).spread[0] == HIDDEN == GAME.view(state, 1).spread[0]
    state = play(state, Peek("a1"))[0]
    assert GAME.view(state, 1).spread[0] == state.spread[0] and GAME.view(state, 0).spread[0] == HIDDEN


def test_s5_a_peek_at_the_deck_shows_its_top_card_and_where_it_goes() -> None:
    """S5: the peeker knows the top card, and so knows it when the refill puts it face down in the spread."""
    state = table(2, spread={"a1": "ace-of-coins"}, deck=["two-of-cups", "ace-of-cups"], stones={BLACK: {"a1-top": 1}})
    state, steps = play(state, Peek("deck"))
    assert steps[0].payload == CardPeeked(at="deck", card="two-of-cups")
    assert GAME.view(state, 0).deck_top == card("two-of-cups") and GAME.view(state, 1).deck_top == HIDDEN
    state, _ = play(state, Flip("a1"))
    assert state.spread[0] == card("two-of-cups")
    assert GAME.view(state, 0).spread[0] == card("two-of-cups") and GAME.view(state, 1).spread[0] == HIDDEN


def test_s5_only_a_face_down_card_or_the_deck_may_be_peeked_at() -> None:
    """S5: not an empty space, not a wrong card name."""
    state = table(2, spread={"a1": None, "a2": "ace-of-coins"})
    assert "no face-down card at a1" in refused(state, CardPeeked(at="a1", card="ace-of-coins"))
    assert refused(state, CardPeeked(at="a2", card="two-of-cups")) == "two-of-cups is not the card at a2"
    assert "not a place" in refused(state, CardPeeked(at="c1", card="ace-of-coins"))


def test_s5_a_peek_at_an_empty_deck_is_refused_as_such() -> None:
    """S5: with the deck spent, a peek at it is refused saying so (not as an unknown place of the spread)."""
    with pytest.raises(IllegalAction, match="^the deck is empty$"):
        act(GAME, table(2, deck=[]), Peek("deck"), Random(0))


# --- S6: move a stone, and the two-action turn ------------------------------------------------------------------------


def test_s6_a_stone_moves_from_the_supply_to_an_edge_to_another_edge_and_back() -> None:
    """S6: from anywhere to any edge or back to the supply; the same action twice is allowed, and the seat stays
    to move between its two actions."""
    state = table(2)
    state, steps = play(state, Move("black", "supply", "a1-top"))
    assert GAME.to_move(state) == 0 and state.actions == 1 and GAME.next_turn(state, False) == 1
    state, more = play(state, Move("black", "a1-top", "b2-left"))
    assert [s.turn for s in steps + more] == [1, 1] and [s.actor for s in steps + more] == [0, 0]
    assert state.stones[0][place(state, "b1-right")] == 1 and sum(state.stones[0]) == 1
    assert GAME.to_move(state) == 1 and GAME.next_turn(state, False) == 2
    state, _ = play(state, Move("green", "supply", "a1-top"), Move("green", "a1-top", "supply"))
    assert sum(state.stones[1]) == 0 and GAME.to_move(state) == 0


def test_s6_a_player_moves_only_their_own_stones_and_only_stones_they_have() -> None:
    """S6: never another player's stone; no stone from an empty supply or an empty edge; somewhere else."""
    state = table(2, stones={GREEN: {"a1-top": 1}, BLACK: {"a2-top": 5}})
    assert "only its own stones" in refused(state, StoneMoved(colour="green", source="a1-top", target="supply"))
    assert "no black stone is left in the supply" in refused(
        state, StoneMoved(colour="black", source="supply", target="a1-top")
    )
    assert "no black stone stands at a1-top" in refused(
        state, StoneMoved(colour="black", source="a1-top", target="supply")
    )
    assert "somewhere else" in refused(state, StoneMoved(colour="black", source="a2-top", target="a2-top"))
    assert "not an edge" in refused(state, StoneMoved(colour="black", source="a2-top", target="a9-top"))


def test_s6_legal_actions_are_peeks_moves_and_flips_of_the_seat() -> None:
    """S5-S7: six peeks and the deck, the seat's own moves (the supply to each of 17 edges), six flips."""
    legal = legal_actions(table(2))
    assert sum(isinstance(a, Peek) for a in legal) == 7 and sum(isinstance(a, Flip) for a in legal) == 6
    assert sum(isinstance(a, Move) for a in legal) == 17 and all(
        a.colour == "black" for a in legal if isinstance(a, Move)
    )


# --- S7: the flip sequence --------------------------------------------------------------------------------------------


def test_s7_flip_effect_then_opportunity_draws_then_winner_then_win_effect() -> None:
    """S7: The Star's FLIP (the flipper draws) comes before the Opportunity draw, then the card is won."""
    state = table(2, spread={"a1": "the-star"}, deck=["ace-of-cups", "two-of-cups", "three-of-cups"])
    state = winning(state, "a1", BLACK)
    state = _with_stones(state, GREEN, tuple(1 if e == place(state, "a1-right") else 0 for e in range(17)))
    state, steps = play(state, Flip("a1"))
    assert types(steps)[:4] == ["flipped", "drew", "drew", "won"]
    assert [s.payload.seat for s in steps[1:3]] == [BLACK, GREEN]  # type: ignore[attr-defined]
    assert held(state, BLACK) == ["ace-of-cups", "the-star"] and held(state, GREEN) == ["two-of-cups"]


def test_s7_opportunity_draws_go_clockwise_from_the_flipper_and_stop_when_the_deck_ends() -> None:
    """S7 (2): seat 1 flips; seats 1, 2, 0 have stones at the Opportunity zone; the deck holds two cards: seats 1
    and 2 draw, seat 0 does not."""
    opportunity = {"a1-top": 1}
    state = table(3, spread={"a1": "ace-of-cups"}, deck=["two-of-cups", "three-of-cups"], seat=1,
                  stones={0: opportunity, 1: opportunity, 2: opportunity})  # fmt: skip
    state, steps = play(state, Flip("a1"))
    draws = [s.payload for s in steps if isinstance(s.payload, CardDrawn)]
    assert draws == [CardDrawn(seat=1, card="two-of-cups"), CardDrawn(seat=2, card="three-of-cups")]
    assert state.deck_size == 0 and state.ending is False and GAME.to_move(state) == 1  # the turn goes on
    flipped, _ = record_all(
        table(3, spread={"a1": "ace-of-cups"}, seat=1, stones={0: opportunity, 1: opportunity}),
        CardFlipped(at="a1", card="ace-of-cups"),
    )
    assert "seat 1 draws now, not seat 2" in refused(flipped, CardDrawn(seat=2, card="ace-of-coins"))


def test_s7_with_several_cards_face_up_the_current_seat_chooses_which_is_won_next() -> None:
    """S7: Wheel of Fortune flips a second card; the flipper then chooses the order of the winners."""
    state = table(2, spread={"a1": "wheel-of-fortune", "b3": "ace-of-coins"})
    state, _ = play(state, Flip("a1"), Flip("b3"))
    assert GAME.to_move(state) == 0 and legal_actions(state) == [Choose("a1"), Choose("b3")]
    assert "is not face up" in refused(state, NextChosen(at="a2"))
    state, steps = play(state, Choose("b3"))
    assert [s.payload.at for s in steps if isinstance(s.payload, CardWon)] == ["b3", "a1"]  # type: ignore[attr-defined]


def test_s7_effects_do_not_trigger_on_cards_drawn_from_the_deck() -> None:
    """S7: The Tower drawn for an Opportunity zone is added without its FLIP effect."""
    state = table(2, spread={"a1": "ace-of-cups"}, deck=["the-tower"], collections={1: ["two-of-cups"]},
                  stones={BLACK: {"a1-top": 1}})  # fmt: skip
    state, steps = play(state, Flip("a1"))
    assert (
        "discarded" not in types(steps)
        and held(state, BLACK) == ["the-tower"]
        and held(state, GREEN) == ["two-of-cups"]
    )


# --- S8: the winner ---------------------------------------------------------------------------------------------------


def test_s8_example_1_black_wins_by_three_power_stones_to_two() -> None:
    """Rulebook example 1: Power zones top, bottom, left; black has 3 stones beside them, green 2 and one beside the
    blank right side that does not count; nobody is at the top Power zone."""
    state = table(2, spread={"a1": "ace-of-coins"},
                  stones={BLACK: {"a1-left": 2, "a1-bottom": 1},
                          GREEN: {"a1-bottom": 1, "a1-left": 1, "a1-right": 1}})  # fmt: skip
    assert winner_at(state, 0) == BLACK
    state, steps = play(state, Flip("a1"))
    assert steps[1].payload == CardWon(at="a1", card="ace-of-coins", winner=BLACK)


def test_s8_example_2_a_forbidden_stone_disqualifies_all_of_that_players_stones() -> None:
    """Rulebook example 2: black has two stones at the Power zone but one at the Forbidden zone: green's single
    Power stone wins."""
    state = table(2, spread={"a1": "two-of-wands"}, stones={BLACK: {"a1-top": 2, "a1-left": 1}, GREEN: {"a1-top": 1}})
    assert winner_at(state, 0) == GREEN
    without_forbidden = table(2, spread={"a1": "two-of-wands"}, stones={BLACK: {"a1-top": 2}, GREEN: {"a1-top": 1}})
    assert winner_at(without_forbidden, 0) == BLACK


def test_s8_example_4_keystones_matched_exactly_and_both_draw_for_the_opportunity_zone() -> None:
    """Rulebook example 4: two Keystones right and one below; green matches them, black has too many below. Both have
    a stone at the Opportunity zone and draw, the flipper (black) first; then green wins the card."""
    state = table(2, spread={"a1": "ace-of-cups"}, deck=["ace-of-coins", "two-of-coins", "three-of-coins"],
                  stones={GREEN: {"a1-right": 2, "a1-bottom": 1, "a1-top": 1},
                          BLACK: {"a1-right": 2, "a1-bottom": 2, "a1-top": 1}})  # fmt: skip
    state, steps = play(state, Flip("a1"))
    assert [s.payload for s in steps[1:4]] == [
        CardDrawn(seat=BLACK, card="ace-of-coins"),
        CardDrawn(seat=GREEN, card="two-of-coins"),
        CardWon(at="a1", card="ace-of-cups", winner=GREEN),
    ]
    assert held(state, GREEN) == ["two-of-coins", "ace-of-cups"] and held(state, BLACK) == ["ace-of-coins"]


def test_s8_too_few_keystones_fail_as_too_many_do() -> None:
    """S8: one stone short on the right Keystone zone does not qualify either."""
    state = table(2, spread={"a1": "ace-of-cups"}, stones={GREEN: {"a1-right": 1, "a1-bottom": 1}})
    assert winner_at(state, 0) is None


def test_s8_a_card_with_only_keystones_goes_to_the_single_qualifying_player() -> None:
    """S8: Ace of Cups has no Power zone: one qualifying seat wins; two qualifying seats tie and it is discarded."""
    exact = {"a1-right": 2, "a1-bottom": 1}
    assert winner_at(table(2, spread={"a1": "ace-of-cups"}, stones={GREEN: exact}), 0) == GREEN
    state = table(2, spread={"a1": "ace-of-cups"}, stones={GREEN: exact, BLACK: exact})
    assert winner_at(state, 0) is None
    state, steps = play(state, Flip("a1"))
    assert steps[1].payload == CardWon(at="a1", card="ace-of-cups", winner=None) and state.discard == (
        card("ace-of-cups"),
    )


def test_s8_a_power_tie_or_no_power_stone_discards_the_card() -> None:
    """S8: equal Power stones tie; with Keystones matched but no Power stone, nobody wins."""
    tie = table(2, spread={"a1": "ace-of-coins"}, stones={BLACK: {"a1-top": 1}, GREEN: {"a1-left": 1}})
    assert winner_at(tie, 0) is None
    assert winner_at(table(2, spread={"a1": "ace-of-coins"}), 0) is None
    keystone_only = table(2, spread={"a1": "the-chariot"}, stones={BLACK: {"a1-left": 1}})
    assert winner_at(keystone_only, 0) is None
    assert winner_at(table(2, spread={"a1": "the-chariot"}, stones={BLACK: {"a1-left": 1, "a1-top": 1}}), 0) == BLACK


def test_s8_a_won_event_must_name_the_rules_winner() -> None:
    """S8: import refuses a card given to the wrong seat."""
    state = table(2, spread={"a1": "ace-of-coins"}, stones={BLACK: {"a1-top": 1}})
    state, _ = record_all(state, CardFlipped(at="a1", card="ace-of-coins"))
    assert "is won by seat 0 (S8), not 1" in refused(state, CardWon(at="a1", card="ace-of-coins", winner=1))


# --- S9: refill -------------------------------------------------------------------------------------------------------


def test_s9_each_empty_space_gets_the_top_card_face_down_unseen_at_the_end_of_the_turn() -> None:
    """S9: after the second action the empty spaces are refilled from the top of the deck; nobody knows them."""
    state = table(
        2, spread={"a1": "ace-of-coins", "a2": "two-of-wands"}, deck=["two-of-cups", "three-of-cups", "four-of-cups"]
    )
    state, steps = play(state, Flip("a1"))
    assert "refilled" not in types(steps) and state.spread[0] == EMPTY  # not between the two actions
    state, steps = play(state, Flip("a2"))
    refills = [s.payload for s in steps if isinstance(s.payload, SpreadRefilled)]
    assert refills == [SpreadRefilled(at="a1", card="two-of-cups"), SpreadRefilled(at="a2", card="three-of-cups")]
    assert all(s.actor is None and s.turn == 1 for s in steps if isinstance(s.payload, SpreadRefilled))
    assert GAME.view(state, 0).spread[:2] == (HIDDEN, HIDDEN) and GAME.to_move(state) == 1
    short = table(2, spread={"a1": None}, deck=["four-of-cups"], actions=2)
    refusal = refused(short, SpreadRefilled(at="a1", card="five-of-cups"))
    assert refusal == "five-of-cups is not the top card of the deck"


# --- S10: the end -----------------------------------------------------------------------------------------------------


def test_s10_when_the_refill_empties_the_deck_the_spread_is_flipped_without_effects() -> None:
    """S10: the last card refills the spread; the final flip awards every card by S8 with no FLIP effect (The Tower
    discards nothing) and no Opportunity draw; the game is over."""
    state = table(2, spread={"a1": "ace-of-coins", "a2": "the-tower", "b1": "ace-of-cups"}, deck=["two-of-cups"],
                  collections={1: ["three-of-cups"]},
                  stones={BLACK: {"a1-top": 1, "a2-top": 1}, GREEN: {"b1-top": 1}})  # fmt: skip
    state, steps = play(state, Flip("a1"), Move("black", "supply", "b3-top"))
    final = steps[-1].payload
    assert isinstance(final, FinalFlip) and types(steps)[-2:] == ["refilled", "final-flip"]
    assert (final.cards[0], final.cards[1], final.cards[3]) == ("two-of-cups", "the-tower", "ace-of-cups")
    assert final.winners[1] == BLACK and final.winners[3] is None
    assert GAME.to_move(state) is None and held(state, GREEN) == ["three-of-cups"]
    assert "the-tower" in held(state, BLACK) and state.spread == (EMPTY,) * 6
    assert "the game is over" in refused(state, StoneMoved(colour="black", source="supply", target="a1-top"))


def test_s10_when_opportunity_draws_empty_the_deck_the_turn_ends_first_then_the_final_flip() -> None:
    """S10: the deck runs out during the first action; the seat still takes its second action; no refill; the end."""
    state = table(2, spread={"a1": "ace-of-cups"}, deck=["two-of-cups"], stones={BLACK: {"a1-top": 1}})
    state, steps = play(state, Flip("a1"))
    assert state.deck_size == 0 and GAME.to_move(state) == BLACK
    state, steps = play(state, Peek("b2"))
    assert types(steps) == ["peeked", "final-flip"] and GAME.to_move(state) is None
    assert steps[-1].payload.cards[0] is None  # type: ignore[attr-defined]


def test_s10_the_final_flip_must_match_the_spread_and_s8() -> None:
    """S10: a recorded final flip naming other cards or winners is refused."""
    state = table(2, spread={"a1": "ace-of-coins"}, deck=[], stones={BLACK: {"a1-top": 1}}, actions=2)
    state = tidy(state)  # the turn's two actions are done and the deck is empty
    assert state.ending and GAME.to_move(state) == CHANCE_TO_MOVE
    good = GAME.chance(state, Random(0))
    assert isinstance(good, FinalFlip) and good.winners[0] == BLACK
    assert "won by" in refused(state, FinalFlip(cards=good.cards, winners=(GREEN, *good.winners[1:])))
    wrong = FinalFlip(cards=("two-of-cups", *good.cards[1:]), winners=good.winners)
    assert "must name the cards of the spread" in refused(state, wrong)


# --- S11: score -------------------------------------------------------------------------------------------------------


def test_s11_example_3_the_swords_card_is_worth_1_or_3_with_three_swords() -> None:
    """Rulebook example 3: the King of Swords is 1 point, or 3 once its holder has 3 Swords, itself included."""
    king, two, three = card("king-of-swords"), card("two-of-swords"), card("three-of-swords")
    assert card_points(king, [king]) == 1
    assert card_points(king, [king, two]) == 1
    assert card_points(king, [king, two, three]) == 3


def test_s11_highest_score_wins_then_most_cards_then_a_shared_victory() -> None:
    """S11: score is the sum of points; a tie goes to the seat with more cards; still tied, both win."""
    state = table(
        3, collections={0: ["the-empress"], 1: ["ace-of-coins", "two-of-coins", "ace-of-cups"], 2: ["nine-of-cups"]}
    )
    assert scores(state) == [3, 3, 2] and winners(state) == [1]
    state = table(2, collections={0: ["the-empress"], 1: ["the-emperor"]})
    assert winners(state) == [0, 1]


def test_s11_death_is_given_by_its_holder_before_the_tie_break() -> None:
    """S2, S11: at the end the top score is tied; Death's holder (seat 2, not tied) gives it to seat 1 of its choice,
    which then wins; Death's rule comes before the most-cards tie-break."""
    state = table(3, spread={p: None for p in ("a1", "a2", "a3", "b1", "b2", "b3", "c1", "c2", "c3")}, deck=[],
                  collections={0: ["ace-of-coins", "two-of-coins", "three-of-coins"], 1: ["the-emperor"], 2: ["death"]},
                  actions=1)  # fmt: skip
    state, steps = play(state, Move("black", "supply", "a1-top"))
    assert types(steps)[-1] == "final-flip" and GAME.to_move(state) == 2
    assert legal_actions(state) == [GiveDeath(0), GiveDeath(1)]
    assert "one of the seats tied" in refused(state, DeathGiven(to=2))
    state, steps = play(state, GiveDeath(1))
    assert steps[0].actor == 2 and steps[0].turn == 1 and GAME.to_move(state) is None
    assert held(state, 1) == ["the-emperor", "death"] and winners(state) == [1]  # not seat 0, with more cards


def test_s11_no_death_decision_without_a_tie() -> None:
    """S2: Death's holder decides nothing when one seat leads."""
    state = table(2, spread={p: None for p in ("a1", "a2", "a3", "b1", "b2", "b3")}, deck=[],
                  collections={0: ["the-empress", "death"], 1: ["the-emperor"]}, actions=1)  # fmt: skip
    state, _ = play(state, Move("black", "supply", "a1-top"))
    assert GAME.to_move(state) is None and winners(state) == [0]


# --- The effects (S2) -------------------------------------------------------------------------------------------------


def test_effect_tower_example_6_every_player_discards_at_random_then_black_adds_the_tower() -> None:
    """Rulebook example 6 (The Tower, FLIP): black wins the Tower; first every player, black included, discards a
    random card of their collection (a chance event naming them); the Tower is not yet black's to lose."""
    state = table(3, spread={"a1": "the-tower"}, stones={BLACK: {"a1-top": 2}, GREEN: {"a1-bottom": 1}},
                  collections={0: ["ace-of-coins", "two-of-coins"], 1: ["ace-of-cups"], 2: []})  # fmt: skip
    state, steps = play(state, Flip("a1"), rng=Random(3))
    discards = steps[1].payload
    assert isinstance(discards, RandomDiscards) and steps[1].actor is None
    assert (
        discards.cards[1] == "ace-of-cups"
        and discards.cards[2] is None
        and discards.cards[0] in ("ace-of-coins", "two-of-coins")
    )
    assert steps[2].payload == CardWon(at="a1", card="the-tower", winner=BLACK)
    assert len(held(state, BLACK)) == 2 and held(state, BLACK)[-1] == "the-tower" and held(state, GREEN) == []
    assert "the-tower" not in [CARD_IDS[c] for c in state.discard] and len(state.discard) == 2


def test_effect_strength_example_5_red_wins_and_moves_three_stones() -> None:
    """Rulebook example 5 (Strength, WIN): red flips Strength with its second action and wins it with one stone at
    each Keystone (left, top); red then moves its top stone to the right side and both black stones back to black's
    supply."""
    state = table(3, spread={"a1": "strength"}, seat=RED, actions=1,
                  stones={RED: {"a1-left": 1, "a1-top": 1}, BLACK: {"a1-right": 2}})  # fmt: skip
    state, steps = play(state, Flip("a1"))
    assert steps[-1].payload == CardWon(at="a1", card="strength", winner=RED) and GAME.to_move(state) == RED
    state, steps = play(
        state,
        Move("red", "a1-top", "a1-right"),
        Move("black", "a1-right", "supply"),
        Move("black", "a1-right", "supply"),
    )
    assert [s.actor for s in steps[:3]] == [RED] * 3 and all(s.turn == 1 for s in steps)
    assert state.stones[BLACK][place(state, "a1-right")] == 0 and state.stones[RED][place(state, "a1-right")] == 1
    assert GAME.to_move(state) == 0 and types(steps)[-1] == "refilled"  # the turn then ended


def test_effect_strength_may_stop_early_and_moves_any_colour() -> None:
    """Strength: 'up to' three moves of any colour; stopping ends the effect."""
    state = table(2, spread={"a1": "strength"}, stones={BLACK: {"a1-left": 1, "a1-top": 1}, GREEN: {"b2-top": 1}})
    state, _ = play(state, Flip("a1"))
    legal = legal_actions(state)
    assert Move("green", "a2-bottom", "supply") in legal and Stop() in legal  # b2-top is a2-bottom
    state, steps = play(state, Stop())
    assert types(steps) == ["stopped"] and GAME.to_move(state) == 0 and state.actions == 1


def test_effect_wheel_of_fortune_flips_one_more_card_with_its_own_flip_effect() -> None:
    """Wheel of Fortune (FLIP): the flipper flips another face-down card; that card's FLIP effect (The Star) is
    carried out too; the extra flip is not one of the turn's actions."""
    state = table(2, spread={"a1": "wheel-of-fortune", "a2": "the-star"}, deck=["ace-of-cups", "two-of-cups"])
    state, steps = play(state, Flip("a1"))
    assert GAME.to_move(state) == 0 and all(isinstance(a, Flip) for a in legal_actions(state))
    state, steps = play(state, Flip("a2"))
    assert types(steps)[:2] == ["flipped", "drew"] and state.actions == 1 and held(state, 0) == ["ace-of-cups"]


def test_effect_high_priestess_peeks_at_up_to_two_cards() -> None:
    """The High Priestess (FLIP): two free peeks for the flipper, known to it alone."""
    state = table(2, spread={"a1": "the-high-priestess", "b1": None})
    state, _ = play(state, Flip("a1"), Peek("deck"), Peek("a2"))
    assert state.actions == 1 and state.known_top[0] == state.deck[0]
    assert GAME.view(state, 0).deck_top == state.deck[0] and GAME.view(state, 1).deck_top == HIDDEN


def test_effect_chariot_moves_up_to_two_of_the_flippers_own_stones() -> None:
    """The Chariot (FLIP): up to two moves, own colour only, before the winner is determined."""
    state = table(2, spread={"a1": "the-chariot"}, stones={GREEN: {"a1-top": 1}})
    state, _ = play(state, Flip("a1"))
    assert all(a.colour == "black" for a in legal_actions(state) if isinstance(a, Move))
    assert "only its own stones" in refused(state, StoneMoved(colour="green", source="a1-top", target="supply"))
    state, steps = play(state, Move("black", "supply", "a1-left"), Move("black", "supply", "a1-top"))
    assert steps[-1].payload == CardWon(at="a1", card="the-chariot", winner=BLACK)


def test_effect_temperance_sends_stones_at_its_forbidden_zone_home_before_the_winner() -> None:
    """Temperance (FLIP): the stones beside its Forbidden zone return to the supply, so black, who stood there,
    is no longer out and wins by Power."""
    state = table(2, spread={"a1": "temperance"}, stones={BLACK: {"a1-right": 1, "a1-top": 2}, GREEN: {"a1-bottom": 1}})
    assert winner_at(state, 0) == GREEN
    state, steps = play(state, Flip("a1"))
    assert steps[1].payload == CardWon(at="a1", card="temperance", winner=BLACK)
    assert state.stones[BLACK][place(state, "a1-right")] == 0


def test_effect_moon_swaps_two_face_down_cards_and_memories_follow() -> None:
    """The Moon (FLIP): two face-down cards change places; what a seat remembered moves with them."""
    state = table(2, spread={"a1": "the-moon", "a2": "ace-of-coins", "b3": "ace-of-cups"})
    state, _ = play(state, Flip("a1"), Swap("a2", "b3"))
    assert state.spread[1] == card("ace-of-cups") and state.spread[5] == card("ace-of-coins")
    assert GAME.view(state, 1).spread[1] == card("ace-of-cups")


def test_effect_star_the_flipper_draws_a_card() -> None:
    """The Star (FLIP): the flipper draws the top card of the deck into their collection, winner or not."""
    state = table(2, spread={"a1": "the-star"}, deck=["ace-of-cups", "two-of-cups"])
    state, steps = play(state, Flip("a1"))
    assert steps[1].payload == CardDrawn(seat=BLACK, card="ace-of-cups") and held(state, BLACK) == ["ace-of-cups"]


def test_effect_sun_the_winner_draws_two_cards() -> None:
    """The Sun (WIN): its winner, not the flipper, draws two cards."""
    state = winning(
        table(2, spread={"a1": "the-sun"}, deck=["ace-of-cups", "two-of-cups", "three-of-cups"]), "a1", GREEN
    )
    state, steps = play(state, Flip("a1"))
    assert [s.payload for s in steps[2:4]] == [
        CardDrawn(seat=GREEN, card="ace-of-cups"),
        CardDrawn(seat=GREEN, card="two-of-cups"),
    ]
    assert held(state, GREEN) == ["the-sun", "ace-of-cups", "two-of-cups"]


def test_effect_devil_the_winner_takes_a_card_from_another_collection() -> None:
    """The Devil (WIN): the winner chooses a card of another seat's collection; gained so, it has no effect."""
    state = winning(table(2, spread={"a1": "the-devil"}, collections={1: ["the-tower", "ace-of-coins"]}), "a1", BLACK)
    state, _ = play(state, Flip("a1"))
    assert legal_actions(state) == [Take(1, card("the-tower")), Take(1, card("ace-of-coins"))]
    state, steps = play(state, Take(1, card("the-tower")))
    assert held(state, BLACK) == ["the-devil", "the-tower"] and held(state, GREEN) == ["ace-of-coins"]
    assert "discarded" not in types(steps)


def test_effect_judgement_the_winner_takes_a_card_from_the_discard_pile() -> None:
    """Judgement (WIN): a card of the discard pile joins the winner's collection."""
    state = winning(table(2, spread={"a1": "judgement"}, discard=["the-empress"]), "a1", GREEN)
    state, _ = play(state, Flip("a1"), Recover(card("the-empress")))
    assert held(state, GREEN) == ["judgement", "the-empress"] and state.discard == ()


def test_effect_hermit_the_winners_stones_all_go_home() -> None:
    """The Hermit (WIN): every stone of its winner returns to their supply."""
    state = table(2, spread={"a1": "the-hermit"}, stones={BLACK: {"a1-top": 1, "b3-top": 2}, GREEN: {"b2-top": 1}})
    state, _ = play(state, Flip("a1"))
    assert sum(state.stones[BLACK]) == 0 and sum(state.stones[GREEN]) == 1


def test_effect_justice_other_players_stones_beside_it_go_home() -> None:
    """Justice (WIN): the other seats' stones on its four sides return to their supply; the winner's stay."""
    state = winning(table(2, spread={"a1": "justice"}, stones={GREEN: {"a1-bottom": 1, "b3-top": 1}}), "a1", BLACK)
    state = _with_stones(
        state, GREEN, tuple(1 if e in (place(state, "a1-right"), place(state, "b3-top")) else 0 for e in range(17))
    )
    state, _ = play(state, Flip("a1"))
    assert held(state, BLACK) == ["justice"]
    assert state.stones[GREEN][place(state, "a1-right")] == 0 and state.stones[GREEN][place(state, "b3-top")] == 1
    assert sum(state.stones[BLACK]) == 4


def test_effects_that_cannot_be_carried_out_are_skipped() -> None:
    """S2: The Tower with empty collections, Judgement with an empty discard pile: nothing waits."""
    state = table(2, spread={"a1": "the-tower"}, stones={BLACK: {"a1-top": 1}})
    state, steps = play(state, Flip("a1"))
    assert types(steps) == ["flipped", "won"] and GAME.to_move(state) == 0
    state = winning(table(2, spread={"a1": "judgement"}), "a1", BLACK)
    state, steps = play(state, Flip("a1"))
    assert types(steps) == ["flipped", "won"] and GAME.to_move(state) == 0


def test_an_effect_decision_belongs_to_the_winner_even_off_turn() -> None:
    """S7: green wins Strength on black's turn; green decides its moves (to_move is green), then black goes on."""
    state = winning(table(2, spread={"a1": "strength"}), "a1", GREEN)
    state, _ = play(state, Flip("a1"))
    assert GAME.to_move(state) == GREEN and GAME.next_turn(state, False) == 1
    state, steps = play(state, Stop())
    assert steps[0].actor == GREEN and GAME.to_move(state) == BLACK


def test_chance_is_the_one_to_act_between_a_flip_and_its_winner() -> None:
    """S7: after a flip, the winner is a chance event; a seat's event then is refused."""
    state, _ = record_all(table(2, spread={"a1": "ace-of-coins"}), CardFlipped(at="a1", card="ace-of-coins"))
    assert GAME.to_move(state) == CHANCE_TO_MOVE
    assert "chance must act first" in refused(state, StoneMoved(colour="black", source="supply", target="a1-top"))


@pytest.mark.parametrize("players", [2, 3, 4])
def test_colours_follow_the_seats(players: int) -> None:
    """The stones of seat k are COLOURS[k]; the rulebook's examples use black, green, red."""
    assert COLOURS[:3] == ("black", "green", "red")
    state = table(players)
    assert len(state.stones) == players
