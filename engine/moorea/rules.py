"""Moorea, rulings R3-R10: setup, chance, a turn (draw, one action, hand limit) and the end.

Reads top to bottom like the rulebook. A turn is several successive decisions of the same seat (to_move stays
that seat): the compulsory draw, with a cart an optional second draw (declined by going straight to an action),
one action or a pass, and the hand-limit discard when the hand is over the limit. The first event of a turn
begins it (`next_turn`); chance events belong to the turn that caused them.

The state, with costs and payments (R5-R7), is in `state.py`, what a seat may do in `actions.py`, the score (R11)
and the engine's stall rule in `score.py`. Hand cards are codes (see `cards.py`); product cards and tools are
numbers; events name them.
"""

from __future__ import annotations

from collections.abc import Sequence
from random import Random
from typing import Any

from loom.engine.cards import contains_all, with_sorted, without, without_all
from loom.engine.dispatch import event_rules
from loom.engine.moorea.cards import (
    CARDS,
    CART,
    FULL_DECK,
    HAND_CARDS,
    MAX_PLAYERS,
    MIN_PLAYERS,
    NET,
    PRODUCTS,
    SPEAR,
    commodity,
    hand_cards,
    in_game,
    names,
    product,
    tool,
)
from loom.engine.moorea.score import stalled
from loom.engine.moorea.state import (
    ACTION,
    DISCARD,
    DRAW,
    N_COMMODITIES,
    PHASES,
    SECOND_DRAW,
    MooreaState,
    counts,
    hand_limit,
    limit_of,
    phase,
    product_problem,
    replace,
    set_at,
    sites_of,
    tool_problem,
)
from loom.engine.protocol import CHANCE_TO_MOVE, HIDDEN
from loom.events.base import IllegalAction, Payload
from loom.events.moorea import (
    CardDrawn,
    CardsDealt,
    CardsDiscarded,
    CardsExchanged,
    CardsLaid,
    DiscardReshuffled,
    FaceUpDrawn,
    FaceUpRefilled,
    GameStarted,
    ProductBought,
    ProductLaidOut,
    ToolBought,
    TurnPassed,
)

# --- Setup (R3) -----------------------------------------------------------------------------------------------------


def _check_players(count: int) -> None:
    if not MIN_PLAYERS <= count <= MAX_PLAYERS:
        raise IllegalAction(f"Moorea is for {MIN_PLAYERS} to {MAX_PLAYERS} players, not {count}")


def setup(players: Sequence[str], rng: Random) -> list[Payload]:
    """R3: shuffle the commodities, and piles I and II apart (I on top); deal 6 cards each, 3 face up, lay out 10."""
    _check_players(len(players))
    deck = list(FULL_DECK)
    rng.shuffle(deck)
    piles = [[n for n in in_game(len(players)) if PRODUCTS[n].pile == k] for k in (0, 1)]
    for pile in piles:
        rng.shuffle(pile)
    order = piles[0] + piles[1]
    hand, seats = CARDS.hand_size, len(players)
    dealt = hand * seats
    return [
        GameStarted(
            players=tuple(players),
            seed=rng.getrandbits(48),
            deck=names(tuple(deck)),
            pile=tuple(PRODUCTS[n].id for n in order),
        ),
        CardsDealt(
            hands=tuple(names(tuple(deck[hand * s : hand * (s + 1)])) for s in range(seats)),
            face_up=names(tuple(deck[dealt : dealt + CARDS.face_up])),
            layout=tuple(PRODUCTS[n].id for n in order[: CARDS.layout]),
        ),
    ]


def _check_started(state: MooreaState, event: GameStarted) -> None:
    if state.players:
        raise IllegalAction("the game has already started")
    _check_players(len(event.players))
    if event.deck is not None and tuple(sorted(map(commodity, event.deck))) != FULL_DECK:
        raise IllegalAction("the deck must hold 15 cards of each commodity (R3)")
    if event.pile is not None:
        pile = [product(p) for p in event.pile]
        if sorted(pile) != list(in_game(len(event.players))):
            raise IllegalAction(f"the pile must hold the product cards in play for {len(event.players)} players (R3)")
        if [PRODUCTS[p].pile for p in pile] != sorted(PRODUCTS[p].pile for p in pile):
            raise IllegalAction("pile I lies on top of pile II (R3)")


def _started(state: MooreaState, event: GameStarted) -> MooreaState:
    seats = len(event.players)
    return replace(
        state,
        players=event.players,
        seed=event.seed or 0,
        hands=((),) * seats,
        tools=((),) * seats,
        owned=((),) * seats,
        laid=((),) * seats,
        deck=FULL_DECK if event.deck is None else tuple(map(commodity, event.deck)),
        deck_ordered=event.deck is not None,
        pile=in_game(seats) if event.pile is None else tuple(product(p) for p in event.pile),
        pile_ordered=event.pile is not None,
    )


def _check_dealt(state: MooreaState, event: CardsDealt) -> None:
    if state.dealt:
        raise IllegalAction("the cards have already been dealt")
    if len(event.hands) != len(state.players) or any(len(hand) != CARDS.hand_size for hand in event.hands):
        raise IllegalAction(f"each of the {len(state.players)} players is dealt {CARDS.hand_size} cards (R3)")
    if len(event.face_up) != CARDS.face_up or len(event.layout) != CARDS.layout:
        raise IllegalAction(f"{CARDS.face_up} commodities are turned face up and {CARDS.layout} products laid out (R3)")
    dealt = [commodity(c) for hand in event.hands for c in hand] + [commodity(c) for c in event.face_up]
    _check_from_deck(state, dealt)
    _check_from_pile(state, [product(p) for p in event.layout])


def _dealt(state: MooreaState, event: CardsDealt) -> MooreaState:
    hands = tuple(tuple(sorted(commodity(c) for c in hand)) for hand in event.hands)
    face_up = tuple(commodity(c) for c in event.face_up)
    layout = tuple(product(p) for p in event.layout)
    deck = _take_from_deck(state, [c for hand in hands for c in hand] + list(face_up))
    return replace(state, dealt=True, hands=hands, face_up=face_up, deck=deck, layout=layout, pile=_take(state, layout))


# --- Chance: the deck, the face-up commodities, the layout (R3-R5) ---------------------------------------------------


def _check_from_deck(state: MooreaState, drawn: list[int]) -> None:
    """`drawn` may come off the top of the commodity deck. The deck is hidden from every seat, so a refusal names
    only the cards the event gave: one message whichever cards lie on top or wherever the others are."""
    if len(drawn) > len(state.deck):
        raise IllegalAction("the commodity deck is empty")
    possible = tuple(drawn) == state.deck[: len(drawn)] if state.deck_ordered else contains_all(state.deck, drawn)
    if possible:
        return
    if len(drawn) == 1:
        raise IllegalAction(f"{HAND_CARDS[drawn[0]]} is not the top card of the commodity deck")
    if state.deck_ordered:
        raise IllegalAction("the dealt cards are not the next cards of the commodity deck")
    raise IllegalAction("the deal names more cards of a commodity than the commodity deck holds")


def _take_from_deck(state: MooreaState, drawn: list[int]) -> tuple[int, ...]:
    return state.deck[len(drawn) :] if state.deck_ordered else without_all(state.deck, drawn)


def _check_from_pile(state: MooreaState, taken: list[int]) -> None:
    """R3: the top of the pile; with its order unknown, unseen cards, pile I's before pile II's. The pile's order
    is hidden from every seat: a refusal names only the cards the event gave, never the pile's."""
    if len(taken) > len(state.pile):
        raise IllegalAction("the product pile is empty")
    if state.pile_ordered:
        if tuple(taken) != state.pile[: len(taken)]:
            laid = ", ".join(PRODUCTS[p].id for p in taken)
            raise IllegalAction(f"{laid} {'is' if len(taken) == 1 else 'are'} not the top of the product pile")
        return
    for p in taken:
        if p not in state.pile:
            raise IllegalAction(f"{PRODUCTS[p].id} is not in the product pile")
    first = sum(1 for p in state.pile if PRODUCTS[p].pile == 0)
    second = sum(1 for p in taken if PRODUCTS[p].pile == 1)
    if second > max(0, len(taken) - first):
        raise IllegalAction("pile I lies on top of pile II: its cards come out first (R3)")


def _take(state: MooreaState, taken: tuple[int, ...]) -> tuple[int, ...]:
    return state.pile[len(taken) :] if state.pile_ordered else without_all(state.pile, taken)


def _needs_chance(state: MooreaState) -> bool:
    """R4: an empty deck is rebuilt at once; R5: three commodities face up, ten products laid out, while cards last."""
    if not state.deck and state.discard:
        return True
    if len(state.face_up) < CARDS.face_up and state.deck:
        return True
    return len(state.layout) < CARDS.layout and bool(state.pile)


def _check_refilled(state: MooreaState, event: FaceUpRefilled) -> None:
    if len(state.face_up) >= CARDS.face_up:
        raise IllegalAction("no face-up commodity place is waiting for a card")
    _check_from_deck(state, [commodity(event.card)])


def _refilled(state: MooreaState, event: FaceUpRefilled) -> MooreaState:
    card = commodity(event.card)
    return replace(state, face_up=state.face_up + (card,), deck=_take_from_deck(state, [card]))


def _check_laid_out(state: MooreaState, event: ProductLaidOut) -> None:
    if len(state.layout) >= CARDS.layout:
        raise IllegalAction("no layout place is waiting for a product card")
    _check_from_pile(state, [product(event.product)])


def _laid_out(state: MooreaState, event: ProductLaidOut) -> MooreaState:
    card = product(event.product)
    return replace(state, layout=state.layout + (card,), pile=_take(state, (card,)))


def _check_reshuffled(state: MooreaState, event: DiscardReshuffled) -> None:
    if state.deck or not state.discard:
        raise IllegalAction("the discard pile is reshuffled only when the commodity deck is empty (R4)")
    if event.deck is not None and sorted(map(commodity, event.deck)) != sorted(state.discard):
        raise IllegalAction("the new deck must hold exactly the cards of the discard pile")


def _reshuffled(state: MooreaState, event: DiscardReshuffled) -> MooreaState:
    if event.deck is None:
        return replace(state, deck=tuple(sorted(state.discard)), deck_ordered=False, discard=())
    return replace(state, deck=tuple(map(commodity, event.deck)), deck_ordered=True, discard=())


# --- A turn: the compulsory draw (R4) ------------------------------------------------------------------------------


def _check_draw_phase(state: MooreaState) -> None:
    if phase(state) not in (DRAW, SECOND_DRAW):
        raise IllegalAction(f"seat {state.seat} has drawn already; now comes the {PHASES[phase(state)]} (R4)")


def _check_drew(state: MooreaState, event: CardDrawn) -> None:
    _check_draw_phase(state)
    _check_from_deck(state, [commodity(event.card)])


def _check_drew_face_up(state: MooreaState, event: FaceUpDrawn) -> None:
    _check_draw_phase(state)
    if SPEAR not in state.tools[state.seat]:
        raise IllegalAction("only a player with a spear may draw a face-up commodity (R4)")
    if commodity(event.card) not in state.face_up:
        raise IllegalAction(f"no {event.card} lies face up")


def _after_draw(state: MooreaState, card: int, **changes: Any) -> MooreaState:
    seat = state.seat
    second = state.phase == DRAW and CART in state.tools[seat]
    return replace(
        state,
        turn=_turn_of(state),
        phase=SECOND_DRAW if second else ACTION,
        hands=set_at(state.hands, seat, with_sorted(state.hands[seat], card)),
        **changes,
    )


def _drew(state: MooreaState, event: CardDrawn) -> MooreaState:
    card = commodity(event.card)
    return _after_draw(state, card, deck=_take_from_deck(state, [card]))


def _drew_face_up(state: MooreaState, event: FaceUpDrawn) -> MooreaState:
    card = commodity(event.card)
    return _after_draw(state, card, face_up=without(state.face_up, card))


# --- A turn: one action or a pass (R5-R8) --------------------------------------------------------------------------


def _check_action_phase(state: MooreaState) -> None:
    if phase(state) == DRAW:
        raise IllegalAction(f"seat {state.seat} must draw a commodity card first (R4)")
    if phase(state) == DISCARD:
        raise IllegalAction(f"seat {state.seat} has acted and must now discard down to the hand limit (R9)")


def _check_in_hand(state: MooreaState, cards: tuple[int, ...]) -> None:
    if not contains_all(state.hands[state.seat], cards):
        raise IllegalAction(f"{', '.join(names(cards))} are not all in the hand of seat {state.seat}")


def _check_passed(state: MooreaState, event: TurnPassed) -> None:
    _check_action_phase(state)


def _check_exchanged(state: MooreaState, event: CardsExchanged) -> None:
    _check_action_phase(state)
    paid = hand_cards(event.paid)
    if len(paid) != 2:
        raise IllegalAction("an exchange gives exactly 2 hand cards (R5)")
    _check_in_hand(state, paid)
    if commodity(event.card) not in state.face_up:
        raise IllegalAction(f"no {event.card} lies face up")


def _check_bought(state: MooreaState, event: ProductBought) -> None:
    _check_action_phase(state)
    bought, paid, seat = product(event.product), hand_cards(event.paid), state.seat
    if bought not in state.layout:
        raise IllegalAction(f"{event.product} is not in the layout")
    _check_in_hand(state, paid)
    sites = sites_of(state.owned[seat])
    problem = product_problem(PRODUCTS[bought], counts(paid), sites, NET in state.tools[seat])
    if problem:
        raise IllegalAction(problem)


def _check_bought_tool(state: MooreaState, event: ToolBought) -> None:
    _check_action_phase(state)
    kind, paid = tool(event.tool), hand_cards(event.paid)
    if kind in state.tools[state.seat]:
        raise IllegalAction(f"seat {state.seat} already has a {event.tool}: one tool of each kind per player (R5)")
    if not state.supply[kind]:
        raise IllegalAction(f"no {event.tool} is left")
    _check_in_hand(state, paid)
    problem = tool_problem(kind, counts(paid))
    if problem:
        raise IllegalAction(problem)


def _check_laid(state: MooreaState, event: CardsLaid) -> None:
    _check_action_phase(state)
    store, cards = product(event.store), hand_cards(event.cards)
    if store not in state.owned[state.seat] or PRODUCTS[store].kind != "store":
        raise IllegalAction(f"seat {state.seat} owns no store {event.store}")
    if not cards:
        raise IllegalAction("lay at least one card (R5)")
    _check_in_hand(state, cards)
    refused = [HAND_CARDS[c] for c in cards if c not in PRODUCTS[store].accepts]
    if refused:
        accepted = ", ".join(HAND_CARDS[c] for c in PRODUCTS[store].accepts)
        raise IllegalAction(f"the {PRODUCTS[store].name} takes only {accepted}, not {refused[0]} (R5, R7)")


def _spend(state: MooreaState, paid: tuple[int, ...]) -> dict[str, Any]:
    """Paid cards leave the hand: commodities to the discard pile, intermediate products out of the game (R8)."""
    spent = [c for c in paid if c >= N_COMMODITIES]
    return {
        "hands": set_at(state.hands, state.seat, without_all(state.hands[state.seat], paid)),
        "discard": state.discard + tuple(c for c in paid if c < N_COMMODITIES),
        "removed": state.removed + tuple(spent) if spent else state.removed,
    }


def _passed(state: MooreaState, event: TurnPassed) -> MooreaState:
    return _after_action(state)


def _exchanged(state: MooreaState, event: CardsExchanged) -> MooreaState:
    card, changes = commodity(event.card), _spend(state, hand_cards(event.paid))
    changes["hands"] = set_at(changes["hands"], state.seat, with_sorted(changes["hands"][state.seat], card))
    return _after_action(state, face_up=without(state.face_up, card), **changes)


def _bought(state: MooreaState, event: ProductBought) -> MooreaState:
    bought, seat = product(event.product), state.seat
    changes = _spend(state, hand_cards(event.paid))
    code = PRODUCTS[bought].hand_code
    if code >= 0:  # R8: stoneware, hut and canoe go into the hand
        changes["hands"] = set_at(changes["hands"], seat, with_sorted(changes["hands"][seat], code))
    else:
        changes["owned"] = set_at(state.owned, seat, state.owned[seat] + (bought,))
    if not state.pile and state.final_turns is None:  # R10: this turn, then one more for every seat
        changes["final_turns"] = len(state.players) + 1
    return _after_action(state, layout=without(state.layout, bought), **changes)


def _bought_tool(state: MooreaState, event: ToolBought) -> MooreaState:
    kind, seat = tool(event.tool), state.seat
    supply = set_at(state.supply, kind, state.supply[kind] - 1)
    tools = set_at(state.tools, seat, tuple(sorted(state.tools[seat] + (kind,))))
    return _after_action(state, supply=supply, tools=tools, **_spend(state, hand_cards(event.paid)))


def _laid(state: MooreaState, event: CardsLaid) -> MooreaState:
    store, cards, seat = product(event.store), hand_cards(event.cards), state.seat
    laid = set_at(state.laid, seat, state.laid[seat] + tuple((store, c) for c in cards))
    return _after_action(state, laid=laid, hands=set_at(state.hands, seat, without_all(state.hands[seat], cards)))


def _after_action(state: MooreaState, **changes: Any) -> MooreaState:
    """R9: over the hand limit, the seat discards next; otherwise its turn ends."""
    changes["turn"] = _turn_of(state)
    seat = state.seat
    hand = changes["hands"][seat] if "hands" in changes else state.hands[seat]
    if len(hand) > limit_of(changes["tools"][seat] if "tools" in changes else state.tools[seat]):
        return replace(state, phase=DISCARD, **changes)
    return _end_turn(state, **changes)


# --- A turn: the hand limit (R9) -----------------------------------------------------------------------------------


def _check_discarded(state: MooreaState, event: CardsDiscarded) -> None:
    if phase(state) != DISCARD:
        raise IllegalAction(f"seat {state.seat} is not over the hand limit now (R9)")
    cards = hand_cards(event.cards)
    over = len(state.hands[state.seat]) - hand_limit(state, state.seat)
    if len(cards) != over:
        raise IllegalAction(f"seat {state.seat} must discard exactly {over} card(s) to reach its hand limit (R9)")
    _check_in_hand(state, cards)


def _discarded(state: MooreaState, event: CardsDiscarded) -> MooreaState:
    return _end_turn(state, **_spend(state, hand_cards(event.cards)))


# --- End of the game (R10) -----------------------------------------------------------------------------------------


def _end_turn(state: MooreaState, **changes: Any) -> MooreaState:
    """The next seat's turn, with `changes`. R10: once triggered, count down the turns left; and if the game could
    never end (`stalled`), the end is triggered too."""
    final_turns = changes.pop("final_turns", state.final_turns)
    seat, seats = (state.seat + 1) % len(state.players), len(state.players)
    if final_turns is not None:
        return replace(state, seat=seat, phase=DRAW, final_turns=final_turns - 1, **changes)
    ended = replace(state, seat=seat, phase=DRAW, **changes)
    return replace(ended, final_turns=seats) if stalled(ended) else ended


# --- Who acts --------------------------------------------------------------------------------------------------------


def to_move(state: MooreaState) -> int | None:
    """The seat to act, CHANCE_TO_MOVE, or None once the last turn of R10 is played."""
    if not state.dealt or _needs_chance(state):
        return CHANCE_TO_MOVE
    if state.final_turns == 0:
        return None
    return state.seat


def _turn_of(state: MooreaState) -> int:
    return state.turn + 1 if state.phase == DRAW else state.turn


def next_turn(state: MooreaState, by_chance: bool) -> int:
    """A seat's first event of a turn begins the next turn; its later ones and chance's belong to the current one."""
    return state.turn if by_chance else _turn_of(state)


# --- Checking and applying events ------------------------------------------------------------------------------------


check, apply = event_rules(
    MooreaState,
    "Moorea",
    {
        GameStarted: (_check_started, _started),
        CardsDealt: (_check_dealt, _dealt),
        CardDrawn: (_check_drew, _drew),
        FaceUpDrawn: (_check_drew_face_up, _drew_face_up),
        TurnPassed: (_check_passed, _passed),
        CardsExchanged: (_check_exchanged, _exchanged),
        ProductBought: (_check_bought, _bought),
        ToolBought: (_check_bought_tool, _bought_tool),
        CardsLaid: (_check_laid, _laid),
        CardsDiscarded: (_check_discarded, _discarded),
        FaceUpRefilled: (_check_refilled, _refilled),
        ProductLaidOut: (_check_laid_out, _laid_out),
        DiscardReshuffled: (_check_reshuffled, _reshuffled),
    },
    setup=(
        (GameStarted, "a Moorea log begins with moorea.started"),
        (CardsDealt, "the cards are dealt (moorea.dealt) before anything else happens"),
    ),
    setup_done=lambda state: 0 if not state.players else 1 if not state.dealt else 2,
)


# --- Hidden information ---------------------------------------------------------------------------------------------


def view(state: MooreaState, seat: int) -> MooreaState:
    """What `seat` knows: its own hand and everything face up (R5); never others' hands, the deck, the pile's
    order, nor the seed of chance that would reveal them."""
    hands = tuple(hand if s == seat else (HIDDEN,) * len(hand) for s, hand in enumerate(state.hands))
    return replace(state, hands=hands, deck=(HIDDEN,) * len(state.deck), pile=(HIDDEN,) * len(state.pile), seed=HIDDEN)
