"""`logs` imports a command's module (and its libraries) only when that command runs; its help lists every command
as if all were loaded."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import pytest
import typer
import typer.main

from loom.cli.app import COMMANDS, LazyCommands, app

HEAVY = ("pandas", "plotly", "fastapi", "uvicorn", "sqlmodel", "sqlalchemy", "pyarrow", "dask", "distributed")
"""Libraries no command but the one that uses them should pay for at start."""

LOADED = (
    "import runpy, sys\n"
    "sys.argv = ['logs', *sys.argv[1:]]\n"
    "try:\n"
    "    runpy.run_module('loom.cli.main', run_name='__main__')\n"
    "except SystemExit:\n"
    "    pass\n"
    "print(' '.join(sorted(m for m in sys.modules if '.' not in m or m.startswith('loom.'))), file=sys.stderr)\n"
)


def _loaded(*args: str | Path) -> set[str]:
    """The modules (top-level, and Loom's) a `logs` command imported, run in a process of its own."""
    done = subprocess.run([sys.executable, "-c", LOADED, *map(str, args)], capture_output=True, text=True)
    return set(done.stderr.splitlines()[-1].split())


def _help(group: typer.core.TyperGroup, capsys: pytest.CaptureFixture[str]) -> str:
    ctx = group.make_context("logs", [], resilient_parsing=True)
    capsys.readouterr()
    print(ctx.get_help())  # typer's rich help prints itself and returns nothing
    return capsys.readouterr().out


def test_logs_help_imports_no_command_module_nor_any_library_of_theirs() -> None:
    loaded = _loaded("--help")
    assert {m for m in loaded if m.startswith("loom.")} == {"loom.cli", "loom.cli.app"}
    assert loaded.isdisjoint((*HEAVY, "duckdb"))


def test_a_command_imports_its_own_module_only(tmp_path: Path) -> None:
    loaded = _loaded("simulate", "motto", "-n", "1", "--db", tmp_path / "new.duckdb")
    assert {m for m in loaded if m.startswith("loom.cli.")} == {"loom.cli.app", "loom.cli.common", "loom.cli.games"}
    assert loaded.isdisjoint({"loom.dashboards", "loom.service", "sqlalchemy", "sqlmodel", "plotly", "fastapi", "dask"})
    assert (tmp_path / "new.duckdb").exists()


def test_each_command_is_defined_in_the_module_the_group_imports_for_it() -> None:
    for module in set(COMMANDS.values()):
        importlib.import_module(f"loom.cli.{module}")
    registered = {info.name: info.callback.__module__ for info in app.registered_commands if info.callback}
    assert registered == {name: f"loom.cli.{module}" for name, module in COMMANDS.items()}


def test_the_help_listed_from_the_sources_is_the_loaded_commands_help(capsys: pytest.CaptureFixture[str]) -> None:
    for module in set(COMMANDS.values()):
        importlib.import_module(f"loom.cli.{module}")
    loaded = typer.main.get_command(app)
    listed = typer.main.get_command(app)
    assert isinstance(listed, typer.core.TyperGroup) and isinstance(listed.commands, LazyCommands)
    listed.commands.made.clear()  # as in a fresh `logs --help`: every command listed from its module's source
    assert _help(listed, capsys) == _help(loaded, capsys)
    assert not listed.commands.made
    for name in COMMANDS:
        assert name in _help(listed, capsys)


def test_a_command_asked_for_by_name_is_made_once() -> None:
    group = typer.main.get_command(app)
    assert isinstance(group, typer.core.TyperGroup) and isinstance(group.commands, LazyCommands)
    group.commands.made.clear()
    made = group.commands["rebuild"]
    assert made.callback is not None and group.commands["rebuild"] is made
    assert group.commands.get("no-such-command") is None
