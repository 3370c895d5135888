"""The `logs` Typer application that every command module registers on."""

import typer

app = typer.Typer(
    name="logs",
    help="Loom: record, replay, branch and analyse tabletop card games.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode="rich",
)
