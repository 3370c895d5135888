"""The `logs` command: every command module registers itself on the shared app."""

from __future__ import annotations

from loom.cli import dashboard, demo, exporting, games, logfiles, replaying, serve, whatif  # noqa: F401  (each registers its commands)
from loom.cli.app import app


def main() -> None:
    """Entry point of the `logs` console script."""
    app()


if __name__ == "__main__":
    main()
