"""`logs replay --moves`, `--legal` and `--legend` on recorded Motto games (greedy against random,
tests/cli/conftest.py) and on the hand-written Motto example with its players renamed to markup."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from loom.engine.motto.cards import CARD_NAMES
from loom.engine.registry import get_game
from loom.engine.telling import tell_game
from loom.replay.replay import position
from loom.replay.store import Store
from tests.cli.run import EXAMPLES, fails, ok

CARD = re.compile("|".join(CARD_NAMES))
BOLD, LINK = "[bold]Ann[/bold]", "[link=javascript:alert(1)]x[/link]"
OSC_LINK = "\x1b]8;"


def moves_json(db: Path, *args: str) -> dict:
    return json.loads(ok("replay", "1", "--moves", *args, "--db", db, "--json"))


# --- --moves ---------------------------------------------------------------------------------------------------------


def test_moves_tell_every_event_of_the_game_in_order(db: Path) -> None:
    with Store.open(db, read_only=True) as store:
        events = store.load(1)
    result = moves_json(db)
    assert [m["seq"] for m in result["moves"]] == [e.seq for e in events]
    players = list(events[0].payload.players)  # type: ignore[attr-defined]
    assert [m["text"] for m in result["moves"]] == tell_game("motto", events, players, None)
    assert {m["player"] for m in result["moves"]} == {None, *players}


def test_moves_as_a_seat_name_only_the_cards_it_saw(db: Path) -> None:
    """T4: another seat's card drawn from the deck is "a card"; the seat's own draws are named."""
    for move in moves_json(db, "--as", "1")["moves"]:
        if "from the deck" in move["text"] and "drew" in move["text"]:
            if move["actor"] == 1:
                assert move["text"].startswith("You drew ") and CARD.search(move["text"]), move
            else:
                assert move["text"].endswith("drew a card from the deck.") and not CARD.search(move["text"]), move


def test_moves_up_to_a_turn_stop_at_its_start(db: Path) -> None:
    fork = json.loads(ok("replay", "1", "--turn", "5", "--db", db, "--json"))["seq"]
    assert [m["seq"] for m in moves_json(db, "--turn", "5")["moves"]] == list(range(1, fork + 1))


def test_moves_print_numbered_lines_with_turn_and_player(db: Path) -> None:
    shown = ok("replay", "1", "--moves", "--as", "0", "--turn", "4", "--db", db)
    lines = shown.splitlines()
    assert lines[0].startswith("Game 1, moves 1 to") and "as seen by seat 0" in lines[0]
    assert re.match(r"\s*1\. turn 0\s+chance: .* sat down to play Motto", lines[1])
    assert any(re.match(r"\s*\d+\. turn 1\s+\S", line) for line in lines)


def test_moves_as_a_seat_out_of_range_is_one_line(db: Path) -> None:
    assert "seat 5 is out of range" in fails("replay", "1", "--moves", "--as", "5", "--db", db)


# --- --legal ---------------------------------------------------------------------------------------------------------


def _mover(db: Path, turn: int) -> int:
    with Store.open(db, read_only=True) as store:
        at = position(store, 1, turn=turn)
    mover: int = at.game.to_move(at.state)
    return mover


def test_legal_lists_the_movers_actions_as_play_takes_them(db: Path) -> None:
    lines = ok("replay", "1", "--turn", "5", "--legal", "--db", db).splitlines()
    actions = [json.loads(line) for line in lines]
    assert actions and all(isinstance(a, dict) and "type" in a for a in actions)
    for line in (lines[0], lines[-1]):
        branched = json.loads(ok("branch", "1", "--turn", "5", "--play", line, "--db", db, "--json"))["ids"]
        assert len(branched) == 1


def test_legal_as_the_seat_to_move_is_the_same_list(db: Path) -> None:
    mover = _mover(db, 5)
    everyone = ok("replay", "1", "--turn", "5", "--legal", "--db", db)
    assert ok("replay", "1", "--turn", "5", "--legal", "--as", str(mover), "--db", db) == everyone
    result = json.loads(ok("replay", "1", "--turn", "5", "--legal", "--db", db, "--json"))
    assert result["seat"] == mover and [json.dumps(a, separators=(",", ":")) for a in result["legal"]] == (
        everyone.splitlines()
    )


def test_legal_as_a_seat_not_to_move_is_refused_in_one_line(db: Path) -> None:
    other = (_mover(db, 5) + 1) % 3
    assert f"seat {other} is not to move at turn 5" in fails(
        "replay", "1", "--turn", "5", "--legal", "--as", str(other), "--db", db
    )


def test_legal_names_no_card_hidden_from_the_seat_to_move(db: Path) -> None:
    """The actions come from the mover's own view: every card they name is one it sees (its hand, the pool)."""
    rules = get_game("motto")
    for turn in range(3, 12):
        with Store.open(db, read_only=True) as store:
            at = position(store, 1, turn=turn)
        mover = rules.to_move(at.state)
        view = rules.describe(rules.view(at.state, mover))
        visible = set(view["hands"][mover]) | set(view["pool"])
        shown = ok("replay", "1", "--turn", str(turn), "--legal", "--db", db)
        assert set(CARD.findall(shown)) <= visible, turn


def test_legal_at_the_end_of_a_finished_game_is_refused(db: Path) -> None:
    assert "is over" in fails("replay", "1", "--legal", "--db", db)


# --- --legend --------------------------------------------------------------------------------------------------------


def test_legend_explains_the_symbols_under_the_table(db: Path) -> None:
    shown = ok("replay", "1", "--turn", "3", "--legend", "--db", db)
    assert "Legend" in shown and "♥ love" in shown and "▒▒ a card you cannot see" in shown
    assert shown.index("Legend") > shown.index("Token stacks")


# --- Text from logs is never markup -----------------------------------------------------------------------------------


@pytest.fixture
def hostile(tmp_path: Path) -> Path:
    """The hand-written Motto example with its players renamed to markup."""
    text = (EXAMPLES / "motto-table-game.jsonl").read_text()
    path = tmp_path / "hostile.jsonl"
    path.write_text(text.replace('"players": ["Ann", "Ben"]', f'"players": ["{BOLD}", "{LINK}"]'))
    db = tmp_path / "hostile.duckdb"
    ok("import", path, "--db", db)
    return db


def test_moves_print_markup_names_as_written(hostile: Path) -> None:
    for seat in ("0", "1"):
        shown = ok("replay", "1", "--moves", "--as", seat, "--db", hostile)
        assert LINK in shown and BOLD in shown


def test_moves_never_become_a_link_or_a_style_in_a_terminal(hostile: Path) -> None:
    env = {**os.environ, "FORCE_COLOR": "1", "COLUMNS": "200"}
    done = subprocess.run(
        [sys.executable, "-m", "loom.cli.main", "replay", "1", "--moves", "--db", str(hostile)],
        capture_output=True,
        text=True,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    assert OSC_LINK not in done.stdout and "javascript" not in done.stdout.replace(LINK, "")
    assert LINK in done.stdout and "\x1b[1mAnn" not in done.stdout
