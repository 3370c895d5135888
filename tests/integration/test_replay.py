"""Replay from the store: turns, events, snapshots, branches and the tree."""

from __future__ import annotations

import pytest

from loom.engine.registry import get_game
from loom.replay.branches import branch, continue_game, tree
from loom.replay.projector import rebuild
from loom.replay.replay import OutOfRange, fold, position
from loom.replay.snapshots import SNAPSHOT_EVERY, decode_state
from loom.replay.store import Store

MOTTO = get_game("motto")


def test_turn_n_is_the_state_before_any_event_of_turn_n(store: Store, motto_ids: list[int]) -> None:
    """DESIGN.md contract 5: --turn N shows the position in which turn N's player decides."""
    events = store.load(motto_ids[0])
    for turn in (1, 2, 7, store.game(motto_ids[0]).turns):
        expected = fold(MOTTO, [e for e in events if e.turn < turn])
        at = position(store, motto_ids[0], turn=turn)
        assert at.state == expected
        assert at.seq == max(e.seq for e in events if e.turn < turn)
        assert MOTTO.to_move(at.state) == next(e.actor for e in events if e.turn == turn)


def test_no_turn_gives_the_final_state(store: Store, motto_ids: list[int]) -> None:
    at = position(store, motto_ids[1])
    assert MOTTO.to_move(at.state) is None
    assert at.seq == store.game(motto_ids[1]).last_seq


def test_seq_gives_the_state_just_after_that_event(store: Store, motto_ids: list[int]) -> None:
    events = store.load(motto_ids[0])
    at = position(store, motto_ids[0], seq=10)
    assert at.state == fold(MOTTO, events[:10])
    assert at.turn == events[9].turn


@pytest.mark.parametrize("turn", [0, -1, 10_000])
def test_a_turn_out_of_range_is_refused(store: Store, motto_ids: list[int], turn: int) -> None:
    with pytest.raises(OutOfRange, match="out of range"):
        position(store, motto_ids[0], turn=turn)


def test_an_event_out_of_range_is_refused(store: Store, motto_ids: list[int]) -> None:
    with pytest.raises(OutOfRange):
        position(store, motto_ids[0], seq=10_000)


def test_snapshots_are_kept_and_give_the_same_state_as_a_full_fold(
    store: Store, motto_ids: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Snapshots are read for games longer than two stretches; here every game counts as long."""
    monkeypatch.setattr("loom.replay.reading.SNAPSHOT_EVERY", 1)
    read = []
    monkeypatch.setattr("loom.replay.replay.decode_state", lambda *args: read.append(args) or decode_state(*args))
    long_game = max(motto_ids, key=lambda i: store.game(i).last_seq)
    last = store.game(long_game).last_seq
    assert last > SNAPSHOT_EVERY
    seqs = [row[0] for row in store.con.execute("SELECT seq FROM snapshots WHERE game_id = ?", [long_game]).fetchall()]
    assert [seq // SNAPSHOT_EVERY for seq in seqs] == list(range(1, len(seqs) + 1))  # one in every stretch
    assert seqs and last - seqs[-1] < SNAPSHOT_EVERY + 10
    events = store.load(long_game)
    for seq in (seqs[0] - 1, seqs[0], seqs[0] + 1, last):
        assert position(store, long_game, seq=seq).state == fold(MOTTO, events[:seq])
    assert len(read) == 3  # every position but the one before the first snapshot started from one
    turn = events[seqs[0]].turn + 1
    assert position(store, long_game, turn=turn).state == fold(MOTTO, [e for e in events if e.turn < turn])
    assert len(read) == 4


def test_a_branch_shares_its_parents_prefix_without_copying_it(store: Store, motto_ids: list[int]) -> None:
    parent = motto_ids[0]
    child = branch(store, parent, 10, [], "greedy")
    fork = store.game(child).fork_seq
    assert fork == position(store, parent, turn=10).seq
    assert store.load(child, upto=fork) == [e.__class__(child, *_rest(e)) for e in store.load(parent, upto=fork)]
    stored = store.con.execute("SELECT min(seq), count(*) FROM events WHERE game_id = ?", [child]).fetchall()[0]
    assert stored == (fork + 1, store.game(child).last_seq - fork)


def _rest(event):  # type: ignore[no-untyped-def]
    return event.seq, event.turn, event.actor, event.payload


def test_a_branch_never_changes_its_parent(store: Store, motto_ids: list[int]) -> None:
    parent = motto_ids[0]
    events, results, info = store.load(parent), store.results(parent), store.game(parent)
    branch(store, parent, 5, [{"type": "draw"}], "random")
    branch(store, parent, 20, [], "greedy")
    assert store.load(parent) == events
    assert store.results(parent) == results
    assert store.game(parent) == info


def test_branch_plays_the_given_action_first(store: Store, motto_ids: list[int]) -> None:
    child = branch(store, motto_ids[0], 6, [{"type": "draw"}], None)
    first = store.load(child, after=store.game(child).fork_seq)[0]
    assert first.type == "motto.drew" and first.turn == 6
    assert store.game(child).status == "open"


def test_a_branch_of_a_branch_inside_the_shared_prefix_replays_the_same_prefix(
    store: Store, motto_ids: list[int]
) -> None:
    parent = motto_ids[0]
    child = branch(store, parent, 30, [], "greedy")
    grandchild = branch(store, child, 8, [], "random")
    fork = store.game(grandchild).fork_seq
    assert position(store, grandchild, seq=fork).state == position(store, parent, turn=8).state


def test_an_open_branch_can_be_played_to_its_end(store: Store, motto_ids: list[int]) -> None:
    child = branch(store, motto_ids[0], 12, [], None)
    continue_game(store, child, [], "greedy")
    assert store.game(child).status == "finished"
    assert [r.seat for r in store.results(child) if r.winner] == MOTTO.winners(position(store, child).state)


def test_the_tree_lists_branches_and_theirs_with_fork_turns(store: Store, motto_ids: list[int]) -> None:
    root = motto_ids[0]
    a = branch(store, root, 10, [], "greedy")
    b = branch(store, root, 4, [], "random")
    c = branch(store, a, 20, [], "greedy")
    node = tree(store, root)
    assert [(n.info.id, n.fork_turn) for n in node.children] == [(b, 4), (a, 10)]
    assert [(n.info.id, n.fork_turn) for n in node.children[1].children] == [(c, 20)]


def test_results_are_a_projection_rebuilt_from_events(store: Store, motto_ids: list[int]) -> None:
    before = {game_id: store.results(game_id) for game_id in motto_ids}
    store.con.execute("UPDATE results SET score = -1")
    assert rebuild(store) == len(motto_ids)
    assert {game_id: store.results(game_id) for game_id in motto_ids} == before


def test_a_branch_is_stored_with_its_parents_seats(store: Store, motto_ids: list[int]) -> None:
    parent = store.game(motto_ids[0])
    child = store.game(branch(store, motto_ids[0], 5, [], None))
    assert child.seats == parent.seats and child.players == parent.players == 3
