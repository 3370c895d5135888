"""Argument errors are one line on stderr with exit code 2, like every other error; --help still helps."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.run import fails, logs, ok


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["show", "abc"], "invalid value for 'game_id'"),
        (["replay", "1", "--as", "x"], "invalid value for '--as'"),
        (["list", "--limit", "0"], "invalid value for '--limit'"),
        (["simulate", "motto", "--games", "0"], "invalid value for '--games'"),
        (["simulate", "motto", "--games", str(10**20)], "less than or equal to 1000000"),
        (["whatif", "1", "--turn", "2", "--rollouts", str(10**6)], "invalid value for '--rollouts'"),
        (["serve", "--max-body", "0"], "invalid value for '--max-body'"),
        (["show"], "missing argument 'game_id'"),
        (["show", "1", "2"], "unexpected extra argument"),
        (["list", "--bogus"], "no such option: --bogus"),
        (["chess"], "no such command 'chess'"),
        (["dashboard", "--since", "yesterday"], "invalid value for '--since'"),
    ],
)
def test_an_argument_error_is_one_line(db: Path, args: list[str], says: str) -> None:
    message = fails(*args, "--db", db) if args != ["chess"] else fails(*args)
    assert message.startswith("error: ") and says in message
    assert "Usage" not in message and "╭" not in message


def test_a_refused_argument_writes_nothing(db: Path) -> None:
    fails("simulate", "motto", "--games", "0", "--db", db)
    fails("branch", "1", "--turn", "x", "--db", db)
    assert len(json.loads(ok("list", "--db", db, "--json"))) == 4


def test_a_limit_larger_than_the_store_lists_every_game(db: Path) -> None:
    assert len(json.loads(ok("list", "--limit", str(10**20), "--db", db, "--json"))) == 4


def test_help_still_prints_the_commands_and_their_options() -> None:
    text = ok("--help")
    assert "simulate" in text and "replay" in text
    assert "--limit" in ok("list", "--help")


def test_logs_alone_prints_the_help() -> None:
    code, stdout, stderr = logs()
    assert code == 2 and "simulate" in stdout and "error" not in stderr


def test_the_installed_command_prints_one_line_too() -> None:
    done = subprocess.run([sys.executable, "-m", "loom.cli.main", "show", "abc"], capture_output=True, text=True)
    assert done.returncode == 2
    assert done.stderr.startswith("error: invalid value for 'game_id'") and done.stderr.count("\n") == 1
    help_text = subprocess.run([sys.executable, "-m", "loom.cli.main", "--help"], capture_output=True, text=True)
    assert help_text.returncode == 0 and "simulate" in help_text.stdout


NESTED = "[" * 5000 + "]" * 5000


@pytest.mark.parametrize("command", [["branch", "1", "--turn", "3"], ["whatif", "1", "--turn", "3"], ["play", "1"]])
def test_play_nested_five_thousand_deep_is_refused_in_one_line(db: Path, command: list[str]) -> None:
    assert "--play 1 nests more than 16 levels" in fails(*command, "--play", NESTED, "--db", db)
    assert len(json.loads(ok("list", "--db", db, "--json"))) == 4


def test_play_nested_a_little_too_deep_is_refused(db: Path) -> None:
    action = '{"type": "draw", "x": ' + "[" * 16 + "]" * 16 + "}"
    assert "--play 2 nests more than 16 levels" in fails(
        "branch", "1", "--turn", "3", "--play", '{"type": "draw"}', "--play", action, "--db", db
    )
