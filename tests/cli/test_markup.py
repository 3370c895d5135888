"""Text from logs is data, never rich markup: a player named like markup is printed as written, never styled or
linked, in every table and tree the terminal shows."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.run import EXAMPLES, ok

BOLD, LINK = "[bold]Ann[/bold]", "[link=javascript:alert(1)]x[/link]"
OSC_LINK = "\x1b]8;"  # how a terminal is told to start a hyperlink


@pytest.fixture
def hostile(tmp_path: Path) -> Path:
    """A database with the hand-written Motto example, its players renamed to markup, and a branch of it."""
    text = (EXAMPLES / "motto-table-game.jsonl").read_text()
    path = tmp_path / "hostile.jsonl"
    path.write_text(text.replace('"players": ["Ann", "Ben"]', f'"players": ["{BOLD}", "{LINK}"]'))
    db = tmp_path / "hostile.duckdb"
    ok("import", path, "--db", db)
    ok("branch", "1", "--turn", "3", "--db", db)
    return db


def _in_a_colour_terminal(*args: str | Path) -> str:
    """The command's output as a colour terminal that shows links would get it."""
    env = {**os.environ, "FORCE_COLOR": "1", "COLUMNS": "200"}
    done = subprocess.run(
        [sys.executable, "-m", "loom.cli.main", *map(str, args)], capture_output=True, text=True, env=env
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_show_prints_markup_names_as_written(hostile: Path) -> None:
    for game_id in ("1", "2"):
        text = ok("show", game_id, "--db", hostile)
        assert BOLD in text and LINK in text


@pytest.mark.parametrize("command", [["show", "1"], ["show", "2"], ["list"], ["tree", "1"]])
def test_no_name_becomes_a_link_or_a_style_in_a_terminal(hostile: Path, command: list[str]) -> None:
    text = _in_a_colour_terminal(*command, "--db", hostile)
    assert OSC_LINK not in text and "javascript" not in text.replace(LINK, "")
    assert "\x1b[1mAnn" not in text


def test_whatif_heads_its_columns_with_the_names_as_written(hostile: Path) -> None:
    text = _in_a_colour_terminal("whatif", "1", "--turn", "3", "--rollouts", "2", "--workers", "1", "--db", hostile)
    assert OSC_LINK not in text and LINK in text and BOLD in text


def test_emoji_codes_in_a_name_stay_text(tmp_path: Path) -> None:
    text = (EXAMPLES / "motto-table-game.jsonl").read_text()
    path = tmp_path / "emoji.jsonl"
    path.write_text(text.replace('"players": ["Ann", "Ben"]', '"players": ["Ann :smile:", "Ben :thumbs_up:"]'))
    db = tmp_path / "emoji.duckdb"
    ok("import", path, "--db", db)
    shown = ok("show", "1", "--db", db)
    assert "Ann :smile:" in shown and "Ben :thumbs_up:" in shown
