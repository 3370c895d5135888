"""The `logs` command: the shared app, whose group imports a command's module when that command runs (cli/app.py)."""

from __future__ import annotations

from loom.cli.app import app


def main() -> None:
    """Entry point of the `logs` console script."""
    app()


if __name__ == "__main__":
    main()
