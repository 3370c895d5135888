"""Benchmark: build the replay page (`logs replay ID --html`, the served `/games/{id}/replay`) of one game of each kind.

One three-player game per game (greedy bots, `--seed`, default 5: Moorea's is the ~390-event game of the profile in
bench/profiles/page.md) is simulated into a temporary store. For each game, in interleaved rounds, the CPU time of
this process (the machine is shared: CPU seconds hold better than wall seconds) to build:

  * floor: the same page with a table drawn once per turn, as the page did before it kept a position after every
    event (`positions` replaced by one drawn per turn, each table drawn alone);
  * before: a table after every event, each drawn alone (the drawing before this piece: no memo);
  * now: `replay_html` as it is, every seat's cards shown;
  * seat: `replay_html` as seat 1 saw it.

The figure to read is now / floor (target: at most ~1.3).

    .venv/bin/python bench/page.py              # 3 rounds
    .venv/bin/python bench/page.py --quick      # 1 round
"""

from __future__ import annotations

import sys
from pathlib import Path

_BENCH = Path(__file__).resolve().parent
if sys.path and Path(sys.path[0] or ".").resolve() == _BENCH:
    sys.path[0] = str(_BENCH.parent)  # the project root: a bench file must not shadow a package

import statistics  # noqa: E402
import subprocess  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable, Iterator, Sequence  # noqa: E402
from contextlib import contextmanager  # noqa: E402
from typing import Any  # noqa: E402

from bench._common import Report, output_path, parser, temp_dir  # noqa: E402
from loom.dashboards import viewer  # noqa: E402
from loom.engine.protocol import Game  # noqa: E402
from loom.replay.store import Store  # noqa: E402

NAME = "page"
GAMES = ("moorea", "stones-of-fate", "motto", "moirai")
TARGET = 1.3
LOGS = Path(sys.executable).with_name("logs")


def per_turn(game: Game, events: Sequence[Any], seat: int | None) -> list[viewer.Position]:
    """The positions the page had before: one at the end of every turn (and at the end), each table drawn alone."""
    out: list[viewer.Position] = []
    state = game.blank()
    for k, event in enumerate(events):
        state = game.apply(state, event.payload)
        last = k + 1 == len(events)
        if not last and events[k + 1].turn == event.turn:
            continue
        shown = state if seat is None else game.view(state, seat)
        turn = event.turn + 1 if last else events[k + 1].turn
        out.append(viewer.Position(event.seq, turn, list(game.scores(shown)), viewer.drawn_lines(game, shown, seat)))
    return out


def per_event_alone(game: Game, events: Sequence[Any], seat: int | None) -> list[viewer.Position]:
    """A position after every event, each table drawn alone (no memo): the page's drawing before this piece."""
    out: list[viewer.Position] = []
    state = game.blank()
    for k, event in enumerate(events):
        state = game.apply(state, event.payload)
        shown = state if seat is None else game.view(state, seat)
        turn = events[k + 1].turn if k + 1 < len(events) else event.turn + 1
        out.append(viewer.Position(event.seq, turn, list(game.scores(shown)), viewer.drawn_lines(game, shown, seat)))
    return out


@contextmanager
def positions_by(draw: Callable[[Game, Sequence[Any], int | None], list[viewer.Position]] | None) -> Iterator[None]:
    """The page built with `draw` in place of `viewer.positions` (None: as it is)."""
    kept = viewer.positions
    if draw is not None:
        viewer.positions = draw  # type: ignore[assignment]
    try:
        yield
    finally:
        viewer.positions = kept  # type: ignore[assignment]


def cpu(build: Callable[[], str]) -> float:
    began = time.process_time()
    build()
    return time.process_time() - began


def main() -> None:
    p = parser(NAME, __doc__ or "")
    p.add_argument("--rounds", type=int, default=3, help="interleaved rounds; each figure is their median")
    p.set_defaults(seed=5)
    args = p.parse_args()
    rounds = 1 if args.quick else args.rounds
    report = Report(NAME, "The replay page's build time, beside the page drawn per turn", {"rounds": rounds})
    with temp_dir(NAME) as tmp:
        stores = {}
        for name in GAMES:
            db = tmp / f"{name}.duckdb"
            command = [str(LOGS), "simulate", name, "-n", "1", "--bot", "greedy", "--seed", str(args.seed)]
            subprocess.run([*command, "--db", str(db)], check=True, capture_output=True)
            stores[name] = Store.open(db, read_only=True)
        ways: dict[str, Callable[[Store], str]] = {
            "floor": lambda s: _page(s, per_turn),
            "before": lambda s: _page(s, per_event_alone),
            "now": lambda s: _page(s, None),
            "seat": lambda s: _page(s, None, seat=1),
        }
        spent: dict[tuple[str, str], list[float]] = {}
        for _ in range(rounds):
            for name, store in stores.items():
                for way, build in ways.items():
                    spent.setdefault((name, way), []).append(cpu(lambda: build(store)))  # noqa: B023
        for name, store in stores.items():
            info = store.game_row(1)
            median = {way: statistics.median(spent[(name, way)]) for way in ways}
            report.section(f"{name}: {info.last_seq} events, {info.turns} turns")
            report.add("floor (a table per turn)", round(median["floor"], 3), "s CPU", key=f"{name}.floor")
            report.add("before (a table per event)", round(median["before"], 3), "s CPU", key=f"{name}.before")
            report.add("now", round(median["now"], 3), "s CPU", key=f"{name}.now")
            report.add("now, as seat 1", round(median["seat"], 3), "s CPU", key=f"{name}.seat")
            ratio = median["now"] / median["floor"]
            note = f"target ≤ {TARGET}" + ("" if ratio <= TARGET else ": MISSED")
            report.add("now / floor", round(ratio, 2), "x", note, key=f"{name}.ratio")
            report.add("before / now", round(median["before"] / median["now"], 2), "x", key=f"{name}.speedup")
        for store in stores.values():
            store.close()
    report.emit(output_path(NAME, args))


def _page(store: Store, draw: Any, seat: int | None = None) -> str:
    with positions_by(draw):
        return viewer.replay_html(store, 1, seat=seat, plotly="/plotly.js", whatif=True)


if __name__ == "__main__":
    main()
