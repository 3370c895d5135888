"""Write the expected states of every golden log: `python tests/golden/regenerate.py`, then review the diff.

A golden log is `tests/golden/<game>/<name>.jsonl`; beside it, `<name>.expected.json` holds the state (as JSON) at
the start of a few turns and at the end, and `<name>.expected.txt` the final table as drawn for a person.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

from rich.console import Console

from loom.engine.presentation import presentation
from loom.replay.logfile import import_file
from loom.replay.replay import position
from loom.replay.store import MEMORY, Store

HERE = Path(__file__).parent


def expected(log: Path) -> tuple[dict[str, object], str]:
    """The states and the drawing that the log must produce."""
    with Store.open(MEMORY) as store, log.open() as file:
        [game_id] = import_file(store, file)
        info = store.game(game_id)
        turns = sorted({1, max(1, info.turns // 2), info.turns})
        states = {str(t): (at := position(store, game_id, turn=t)).game.describe(at.state) for t in turns}
        end = position(store, game_id)
        console = Console(file=io.StringIO(), width=110, no_color=True, color_system=None)
        console.print(presentation(end.game.name).render(end.state, None))
        return {"turns": states, "final": end.game.describe(end.state), "status": info.status}, console.file.getvalue()


def main() -> None:
    """Rewrite every expected file."""
    for log in sorted(HERE.glob("*/*.jsonl")):
        data, drawing = expected(log)
        log.with_suffix(".expected.json").write_text(json.dumps(data, indent=1) + "\n")
        log.with_suffix(".expected.txt").write_text(drawing)
        print(f"wrote the expected state of {log.relative_to(HERE)}")


if __name__ == "__main__":
    main()
