"""`logs replay --seq --legal` and `logs branch --seq` in the middle of a turn, and a seat's what-if on the command
line (`logs branch --as`, with `--seed`), on a recorded Moirai game: a turn draws three cards, then keeps one."""

from __future__ import annotations

import json
from pathlib import Path

from loom.replay.branches import line_of, whatif_of
from loom.replay.replay import position
from loom.replay.store import Store
from tests.cli.run import fails, ok, recorded_databases

recorded, db = recorded_databases("moirai", 1)


def _after_a_draw(db: Path) -> tuple[int, int, int]:
    """The first event where a seat drew (its turn goes on: it keeps a card next), its turn, and the seat."""
    with Store.open(db, read_only=True) as store:
        drawn = next(e for e in store.load(1) if e.payload.TYPE == "moirai.drew")
    assert drawn.actor is not None
    return drawn.seq, drawn.turn, drawn.actor


def test_legal_just_after_an_event_lists_that_positions_actions(db: Path) -> None:
    seq, turn, seat = _after_a_draw(db)
    result = json.loads(ok("replay", "1", "--seq", str(seq), "--legal", "--db", db, "--json"))
    assert (result["seq"], result["turn"], result["seat"]) == (seq, turn, seat)
    assert result["legal"] and all(action["type"] == "keep" for action in result["legal"])
    at_start = json.loads(ok("replay", "1", "--turn", str(turn), "--legal", "--db", db, "--json"))["legal"]
    assert at_start != result["legal"]  # the start of the turn draws; the middle keeps
    other = (seat + 1) % 3
    refused = fails("replay", "1", "--seq", str(seq), "--legal", "--as", str(other), "--db", db)
    assert f"seat {other} is not to move after event {seq} of game 1: seat {seat} is" in refused


def test_a_branch_forks_just_after_an_event_and_plays_a_move_listed_there(db: Path) -> None:
    seq, turn, _ = _after_a_draw(db)
    keep = ok("replay", "1", "--seq", str(seq), "--legal", "--db", db).splitlines()[-1]
    (branch,) = json.loads(ok("branch", "1", "--seq", str(seq), "--play", keep, "--db", db, "--json"))["ids"]
    shown = json.loads(ok("show", str(branch), "--db", db, "--json"))
    assert (shown["parent"], shown["fork_seq"], shown["seq"]) == (1, seq, seq + 1)
    tree = json.loads(ok("tree", "1", "--db", db, "--json"))
    assert [(b["id"], b["fork_turn"]) for b in tree["branches"]] == [(branch, turn)]
    assert f"fork at turn {turn} after event {seq}" in ok("tree", "1", "--db", db)


def test_a_seats_what_if_is_kept_with_its_seed_and_dealt_the_same_again(db: Path) -> None:
    seq, turn, seat = _after_a_draw(db)
    keep = ok("replay", "1", "--seq", str(seq), "--legal", "--as", str(seat), "--db", db).splitlines()[0]
    args = ("branch", "1", "--seq", str(seq), "--as", str(seat), "--play", keep, "--bot", "random", "--db", db)
    first = json.loads(ok(*args, "--seed", "12", "--json"))
    again = json.loads(ok(*args, "--seed", "12", "--json"))
    assert (first["whatif"], again["whatif"], first["seed"]) == (1, 2, 12)
    assert (first["fork_seq"], first["fork_turn"]) == (seq, turn)
    assert first | {"whatif": 0} == again | {"whatif": 0}
    with Store.open(db, read_only=True) as store:
        lines = [line_of(store, whatif_of(store, 1, n)) for n in (1, 2)]
        at = position(store, 1, seq=seq)
    assert lines[0].steps == lines[1].steps and lines[0].steps[0].actor == seat
    assert at.game.view(lines[0].start, seat) == at.game.view(at.state, seat)  # the seat's view, the rest dealt
    assert json.loads(ok("list", "--db", db, "--json"))[-1]["id"] == 1  # kept as a recipe, not as a game
    assert "seed 12" in ok("tree", "1", "--db", db)


def test_a_seed_out_of_range_or_without_a_seat_is_refused_in_one_line(db: Path) -> None:
    seq, _, seat = _after_a_draw(db)
    for seed in ("-1", str(2**63), "x"):
        assert "invalid value for '--seed'" in fails(
            "branch", "1", "--seq", str(seq), "--as", str(seat), "--seed", seed, "--db", db
        )
    assert "give --as SEAT too" in fails("branch", "1", "--seq", str(seq), "--seed", "3", "--db", db)
    assert "give exactly one of them" in fails("branch", "1", "--seq", str(seq), "--turn", "2", "--db", db)
    assert "seat 5 is out of range" in fails("branch", "1", "--seq", str(seq), "--as", "5", "--db", db)
    assert json.loads(ok("tree", "1", "--db", db, "--json"))["whatifs"] == []
