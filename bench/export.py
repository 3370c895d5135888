"""Benchmark: `logs export` of every game of a 2,000-game store, streamed and into a lake, each next to its floor.

The store holds three-player Motto games (greedy, random, random), simulated once and cached under bench/out/cache/
(or `--db FILE`). In one run, side by side:

  * the streamed JSON Lines export of every game (replay/export.py: two queries per page of 500 games), games/s and
    events/s, against its floor, DuckDB writing the same events as JSON Lines itself
    (`COPY (SELECT ... FROM events ORDER BY game_id, seq) TO 'x.json'`), on one thread as the export reads and on all;
  * the export one game at a time as before (`export_lines` per game, in process) on a sample, extrapolated, and the
    command `logs export ID` (a process per game, what a shell loop pays) timed a few times and extrapolated;
  * the lake: `logs export --format parquet` of every game (a COPY per table), its bytes per event against JSON Lines,
    and `logs import --lake` of it into a fresh store against `logs import` of the JSON Lines file (both check every
    event by the rules: the same path).

    .venv/bin/python bench/export.py            # 2,000 games (simulating them takes a minute, once)
    .venv/bin/python bench/export.py --quick    # 200 games
    .venv/bin/python bench/export.py --profile  # also cProfile the streamed export
"""

from __future__ import annotations

import sys
from pathlib import Path

_BENCH = Path(__file__).resolve().parent
if sys.path and Path(sys.path[0] or ".").resolve() == _BENCH:
    sys.path[0] = str(_BENCH.parent)  # the project root: bench/replay.py must not shadow the replay package

import os  # noqa: E402
import subprocess  # noqa: E402
import time  # noqa: E402
from typing import Any  # noqa: E402

from bench._common import BOTS, GAME, OUT, ROOT, Report, output_path, parser, profile, temp_dir  # noqa: E402
from loom.engine.registry import get_game  # noqa: E402
from loom.replay.export import Selection, choose, pages  # noqa: E402
from loom.replay.lake import import_lake, write_lake  # noqa: E402
from loom.replay.logfile import export_lines, import_file  # noqa: E402
from loom.replay.projector import project  # noqa: E402
from loom.replay.simulate import lineup, simulate  # noqa: E402
from loom.replay.store import Store  # noqa: E402

NAME = "export"
SAMPLE = 100  # games exported one at a time, in process
CLI_RUNS = 3  # `logs export ID` processes timed


def build(path: Path, games: int, seed: int) -> None:
    """A store of `games` Motto games at `path`, unless it is there already."""
    if path.exists():
        with Store.open(path) as store:  # one cached by an older run may have games behind the projector
            project(store)
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".partial")
    partial.unlink(missing_ok=True)
    game = get_game(GAME)
    with Store.open(partial) as store:
        simulate(store, game, games, lineup(game, len(BOTS), list(BOTS)), seed)
        project(store)  # a lake takes only games whose facts are whole, as `logs export --format parquet` does
    partial.rename(path)


def stream(store: Store, file: Path) -> tuple[int, int]:
    """The streamed export of every game to `file`, as `logs export -o FILE` does it; (games, events)."""
    games = events = 0
    count = choose(store.db, Selection())
    with file.open("w", encoding="utf-8") as out:
        for page in pages(store.db):
            out.write("".join(line + "\n" for _, lines in page for line in lines))
            games += len(page)
            events += sum(len(lines) - 1 for _, lines in page)
    assert games == count
    return games, events


def timed(fn: Any) -> tuple[float, Any]:
    started = time.perf_counter()
    result = fn()
    return time.perf_counter() - started, result


def main() -> None:
    p = parser(NAME, __doc__.split("\n\n")[0])
    p.add_argument("--games", type=int, default=None, help="games in the store (default 2,000; --quick: 200)")
    p.add_argument("--db", type=Path, default=None, help="export this store instead (read-only)")
    p.add_argument("--profile", action="store_true", help="also cProfile the streamed export")
    args = p.parse_args()
    games = args.games or (200 if args.quick else 2_000)
    db = args.db or OUT / "cache" / f"motto-export-{games}-seed{args.seed}.duckdb"
    if args.db is None:
        build(db, games, args.seed)

    report = Report(
        NAME, f"logs export of {games:,} games: streamed, one at a time, and a Parquet lake", {"db": str(db)}
    )
    profiles: dict[str, Any] = {}
    with temp_dir(NAME) as tmp:
        with Store.open(db, read_only=True) as store:
            events_in_store = store.count("events")
            jsonl = tmp / "all.jsonl"
            export_s, (exported, events) = timed(lambda: stream(store, jsonl))
            floor = tmp / "floor.json"
            sql = f"COPY (SELECT * FROM events ORDER BY game_id, seq) TO '{floor}' (FORMAT json)"
            floor_1_s, _ = timed(lambda: store.con.execute(sql))
            store.db.set_threads(os.cpu_count() or 1)
            floor_n_s, _ = timed(lambda: store.con.execute(sql))
            store.db.set_threads(1)
            sample = [info.id for info in store.all_games()[:SAMPLE]]
            one_s, _ = timed(lambda: [list(export_lines(store, game_id)) for game_id in sample])
            if args.profile:
                profiles["streamed export"] = profile(lambda: stream(store, tmp / "profiled.jsonl"))
        cli = []
        for game_id in sample[:CLI_RUNS]:
            command = [str(ROOT / ".venv" / "bin" / "logs"), "export", str(game_id), "--db", str(db)]
            seconds, done = timed(lambda command=command: subprocess.run(command, capture_output=True, check=False))
            assert done.returncode == 0, done.stderr
            cli.append(seconds)
        cli_s = min(cli)

        lake = tmp / "lake"
        with Store.open(db, read_only=True, threads=os.cpu_count()) as store:
            lake_s, written = timed(lambda: write_lake(store, lake, Selection()))
        lake_bytes = sum(path.stat().st_size for path in (lake / "events").rglob("*.parquet"))
        with Store.open(tmp / "from-lake.duckdb") as fresh:
            lake_import_s, mapping = timed(lambda: import_lake(fresh, lake, Selection()))
        with Store.open(tmp / "from-jsonl.duckdb") as fresh, jsonl.open(encoding="utf-8") as file:
            jsonl_import_s, ids = timed(lambda: import_file(fresh, file))
        assert len(mapping) == len(ids) == exported == written.games
        jsonl_bytes = jsonl.stat().st_size

    report.section("JSON Lines, every game")
    report.add("games", exported)
    report.add("events", events, note=f"{events_in_store:,} stored (a branch's prefix is written again)")
    report.add(
        "streamed export", export_s, "s", f"{exported / export_s:,.0f} games/s, {events / export_s:,.0f} events/s"
    )
    report.add("floor: DuckDB COPY TO json, 1 thread", floor_1_s, "s", f"export / floor = {export_s / floor_1_s:.1f}x")
    report.add(
        f"floor: DuckDB COPY TO json, {os.cpu_count()} threads",
        floor_n_s,
        "s",
        f"export / floor = {export_s / floor_n_s:.1f}x",
    )
    report.add("JSON Lines bytes per event", jsonl_bytes / events, "B")
    report.section("one game at a time (before)")
    report.add(
        f"export_lines in process, {len(sample)} games",
        one_s,
        "s",
        f"x{exported / len(sample):.0f}: {one_s * exported / len(sample):.1f} s",
    )
    report.add(
        "`logs export ID`, one process", cli_s, "s", f"x{exported:,}: {cli_s * exported / 60:.1f} min by shell loop"
    )
    report.add("streamed speed-up over the shell loop", cli_s * exported / export_s, "x")
    report.section("Parquet lake")
    report.add(
        "export --format parquet", lake_s, "s", f"{written.games / lake_s:,.0f} games/s, {len(written.files)} files"
    )
    report.add("lake bytes per event (events table)", lake_bytes / events_in_store, "B")
    report.add("import --lake (every event checked)", lake_import_s, "s", f"{events / lake_import_s:,.0f} events/s")
    report.add(
        "import of the JSON Lines file (the same checks)",
        jsonl_import_s,
        "s",
        f"lake / JSON Lines = {lake_import_s / jsonl_import_s:.2f}x",
    )
    report.emit(output_path(NAME, args), profiles or None)


if __name__ == "__main__":
    main()
