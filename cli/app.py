"""The `logs` Typer application that every command module registers on."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

import typer
from typer.core import TyperGroup


class LoomGroup(TyperGroup):
    """The `logs` group: a usage error is one line on stderr with exit code 2, like every other error."""

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


app = typer.Typer(
    name="logs",
    help="Loom: record, replay, branch and analyse tabletop card games.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode="rich",
    cls=LoomGroup,
)
