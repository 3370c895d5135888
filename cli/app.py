"""The `logs` Typer application that every command module registers on, loading a command's module only to run it.

`logs` starts in the time of Python, typer and rich: each command's module (and what it imports: DuckDB, pyarrow,
the engine, plotly, FastAPI, Dask, ...) is imported when that command is run or asked for its help. `logs --help`
lists the commands from their modules' source (their docstrings), imported by none.
"""

from __future__ import annotations

import ast
import importlib
import sys
from collections.abc import Iterator, MutableMapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any

import typer
import typer.main
from typer.core import TyperCommand, TyperGroup

COMMANDS = {
    "export": "exporting",
    "dashboard": "dashboard",
    "replay": "replaying",
    "branch": "replaying",
    "play": "replaying",
    "tree": "replaying",
    "demo": "demo",
    "simulate": "games",
    "list": "games",
    "show": "games",
    "import": "logfiles",
    "rebuild": "logfiles",
    "serve": "serve",
    "whatif": "whatif",
    "analyse": "whatif",
}
"""Each command of `logs`, in the order `logs --help` lists them, and the module of loom.cli that defines it."""

LISTED = ("help", "short_help", "hidden", "deprecated", "rich_help_panel")
"""What of a command `logs --help` shows: its help (the docstring, unless the decorator gives one) and these."""


@cache
def listings() -> dict[str, dict[str, Any]]:
    """Each command's part of `logs --help` by name, read from its module's source: `app.command(NAME, ...)` and the
    docstring of the function it decorates, as typer reads them, without importing the module."""
    found: dict[str, dict[str, Any]] = {}
    for module in dict.fromkeys(COMMANDS.values()):
        source = Path(__file__).with_name(f"{module}.py").read_text(encoding="utf-8")
        for node in ast.parse(source).body:
            if not isinstance(node, ast.FunctionDef):
                continue
            for decorator in node.decorator_list:
                if (
                    isinstance(decorator, ast.Call)
                    and isinstance(decorator.func, ast.Attribute)
                    and isinstance(decorator.func.value, ast.Name)
                    and (decorator.func.value.id, decorator.func.attr) == ("app", "command")
                ):
                    name = ast.literal_eval(decorator.args[0])
                    given = {k.arg: ast.literal_eval(k.value) for k in decorator.keywords if k.arg in LISTED}
                    found[name] = {"help": ast.get_docstring(node)} | given
    return found


class LazyCommands(MutableMapping[str, Any]):
    """The group's commands by name: every name of COMMANDS, each command made (its module imported) when first
    looked up; `listing` answers a command not made yet with its part of `logs --help` alone."""

    def __init__(self, made: MutableMapping[str, Any]) -> None:
        self.made = dict(made)  # the commands registered already (a module imported before): typer made them
        self.listing = False

    def __getitem__(self, name: str) -> Any:
        if name not in self.made:
            if name not in COMMANDS:
                raise KeyError(name)
            if self.listing:
                return TyperCommand(name, rich_markup_mode=app.rich_markup_mode, **listings()[name])
            self.made[name] = _make(name)
        return self.made[name]

    def __setitem__(self, name: str, command: Any) -> None:
        self.made[name] = command

    def __delitem__(self, name: str) -> None:
        del self.made[name]

    def __iter__(self) -> Iterator[str]:
        return iter(dict.fromkeys([*COMMANDS, *self.made]))

    def __len__(self) -> int:
        return len(set(COMMANDS) | set(self.made))


def _make(name: str) -> Any:
    """The command `name`, its module imported (which registers it on `app`), made as typer makes a group's."""
    importlib.import_module(f"loom.cli.{COMMANDS[name]}")
    info = next(info for info in reversed(app.registered_commands) if info.name == name)
    return typer.main.get_command_from_info(
        info, pretty_exceptions_short=app.pretty_exceptions_short, rich_markup_mode=app.rich_markup_mode
    )


class LoomGroup(TyperGroup):
    """The `logs` group: a usage error is one line on stderr with exit code 2, like every other error; a command's
    module is imported when the command is run (or asked for its help), not when `logs` starts."""

    def __init__(self, **attrs: Any) -> None:
        super().__init__(**attrs)
        self.commands = LazyCommands(self.commands)

    def list_commands(self, ctx: Any) -> list[str]:
        return list(self.commands)  # their names: typer's own would make every command

    def format_help(self, ctx: Any, formatter: Any) -> None:
        commands = self.commands
        if not isinstance(commands, LazyCommands):
            return super().format_help(ctx, formatter)
        commands.listing = True  # the list of commands needs their help texts, not their modules
        try:
            return super().format_help(ctx, formatter)
        finally:
            commands.listing = False

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        windows_expand_args: bool = True,
        **extra: Any,
    ) -> Any:
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, False, windows_expand_args, **extra)
        try:
            code = super().main(args, prog_name, complete_var, False, windows_expand_args, **extra)
        except typer.TyperException as error:  # typer's own copy of click's errors: a usage error, a bad value
            if type(error).__name__ != "NoArgsIsHelpError":  # `logs` alone: the help is printed already
                print(f"error: {usage_error(error)}", file=sys.stderr)
            sys.exit(2)
        except typer.Abort:
            print("error: aborted", file=sys.stderr)
            sys.exit(1)
        sys.exit(code if isinstance(code, int) else 0)


def usage_error(error: typer.TyperException) -> str:
    """Typer's usage error as one line, in Loom's words: lower case first, no full stop."""
    text = " ".join(error.format_message().split()).rstrip(".")
    return text[:1].lower() + text[1:]


def _logs() -> None:
    # The group's own callback: with it typer makes `logs` a group even before any command is registered.
    pass


app = typer.Typer(
    name="logs",
    help="Loom: record, replay, branch and analyse tabletop card games.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode="rich",
    cls=LoomGroup,
    callback=_logs,
)
