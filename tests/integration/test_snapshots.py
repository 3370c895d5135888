"""Snapshots restore exactly the state they were taken of, or nothing: a snapshot made for another shape of state
(a field added since, the positional format used before fingerprints) is refused and the game folded from its start."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import fields, make_dataclass
from typing import Any

import pytest

from loom.engine.registry import get_game
from loom.replay.replay import fold, position
from loom.replay.simulate import simulate
from loom.replay.snapshots import SNAPSHOT_EVERY, decode_state, encode_state, fingerprint
from loom.replay.store import Store

MOOREA = get_game("moorea")


def _state_class(*added: str) -> type:
    """The same frozen state class, `State` with fields a and b, with any `added` int fields after them."""
    return make_dataclass(
        "State", [("a", int), ("b", tuple[int, ...]), *((name, int, 0) for name in added)], frozen=True
    )


def test_a_snapshot_restores_the_state_it_was_taken_of() -> None:
    state_type = _state_class()
    state = state_type(a=1, b=(2, 3))
    assert decode_state(state_type, encode_state(state)) == state


def test_a_snapshot_stores_fields_by_name_with_the_types_fingerprint() -> None:
    stored = json.loads(encode_state(_state_class()(a=1, b=(2, 3))))
    assert stored == {"type": fingerprint(_state_class()), "fields": {"a": 1, "b": [2, 3]}}


def test_a_snapshot_of_a_state_class_without_a_field_added_since_is_refused() -> None:
    text = encode_state(_state_class()(a=1, b=(2, 3)))
    assert fingerprint(_state_class("c")) != fingerprint(_state_class())
    assert decode_state(_state_class("c"), text) is None


def test_a_snapshot_whose_field_changed_type_is_refused() -> None:
    retyped = make_dataclass("State", [("a", int), ("b", tuple[str, ...])], frozen=True)
    assert decode_state(retyped, encode_state(_state_class()(a=1, b=(2, 3)))) is None


def test_a_snapshot_with_the_right_fingerprint_but_other_fields_is_refused() -> None:
    text = json.dumps({"type": fingerprint(_state_class()), "fields": {"a": 1, "c": [2, 3]}})
    assert decode_state(_state_class(), text) is None


@pytest.mark.parametrize("text", ["[1,[2,3]]", "[1,[2,3],0]", "not json", "null", '{"type": null}'])
def test_an_old_positional_or_unreadable_snapshot_is_refused(text: str) -> None:
    assert decode_state(_state_class(), text) is None


def test_an_old_positional_snapshot_of_a_real_state_is_refused() -> None:
    state = fold(MOOREA, [])
    positional = json.dumps([getattr(state, f.name) for f in fields(state)])
    assert decode_state(MOOREA.state_type, positional) is None
    assert decode_state(MOOREA.state_type, encode_state(state)) == state


# --- A long game replayed through its stored snapshots -----------------------------------------------------------


@pytest.fixture
def long_game(store: Store) -> int:
    """One four-player Moorea game between random bots: over a thousand events, so replays start from snapshots."""
    (game_id,) = simulate(store, MOOREA, 1, ["random"] * 4, seed=1)
    assert store.game(game_id).last_seq > 4 * SNAPSHOT_EVERY
    return game_id


def _rewrite_snapshots(store: Store, game_id: int, change: Callable[[dict[str, Any]], Any]) -> None:
    """Replace every stored snapshot of the game by `change(its stored JSON)`."""
    rows = store.con.execute("SELECT seq, state FROM snapshots WHERE game_id = ?", [game_id]).fetchall()
    assert rows
    for seq, text in rows:
        new = json.dumps(change(json.loads(text)))
        store.con.execute("UPDATE snapshots SET state = ? WHERE game_id = ? AND seq = ?", [new, game_id, seq])


def _check_late_positions(store: Store, game_id: int) -> None:
    """A late turn and the end, replayed from a snapshot (or refusing it), equal the fold from the first event."""
    info = store.game(game_id)
    events = store.load(game_id)
    turn = info.turns - 2
    snapshot, _ = store.read_position(store.game_row(game_id), "turn", turn, MOOREA.rules_version)
    assert snapshot is not None and snapshot[0] > 2 * SNAPSHOT_EVERY  # the store offers a snapshot to start from
    at = position(store, game_id, turn=turn)
    before = [e for e in events if e.turn < turn]
    assert (at.state, at.seq, at.turn) == (fold(MOOREA, before), before[-1].seq, turn)
    end = position(store, game_id)
    assert (end.state, end.seq, end.turn) == (fold(MOOREA, events), info.last_seq, events[-1].turn)
    middle = position(store, game_id, seq=3 * SNAPSHOT_EVERY + 5)
    assert middle.state == fold(MOOREA, events[: 3 * SNAPSHOT_EVERY + 5])


def test_a_late_turn_of_a_long_game_replayed_through_snapshots_equals_the_fold_from_the_start(
    store: Store, long_game: int
) -> None:
    _check_late_positions(store, long_game)


def test_a_snapshot_with_another_fingerprint_is_not_used_even_if_its_fields_fit(store: Store, long_game: int) -> None:
    """The fields are made wrong too, so a snapshot used in spite of its fingerprint would give another state."""

    def tamper(stored: dict[str, Any]) -> dict[str, Any]:
        stored["fields"]["turn"] += 1
        return stored | {"type": "0123456789abcdef"}

    _rewrite_snapshots(store, long_game, tamper)
    _check_late_positions(store, long_game)


def test_an_old_positional_snapshot_in_the_store_is_not_misread(store: Store, long_game: int) -> None:
    """Stored before a field (here `removed`) was added: read by position, every later field would shift by one."""
    _rewrite_snapshots(store, long_game, lambda stored: [v for k, v in stored["fields"].items() if k != "removed"])
    _check_late_positions(store, long_game)
