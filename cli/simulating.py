"""`logs simulate --lake DIR [--cluster ADDRESS]`: games played on a Dask cluster (or here), written into a lake."""

from __future__ import annotations

from contextlib import nullcontext
from pathlib import Path

from rich.markup import escape

from loom.cli.common import out, print_json, progress_bar
from loom.engine.protocol import Game
from loom.events.base import LoomError
from loom.replay.cluster import LOCAL, LakeSimulation, connect, discard_run, new_run, simulate_to_lake


def simulate_lake(
    rules: Game,
    games: int,
    bots: list[str],
    seed: int,
    cluster: str | None,
    lake: Path | None,
    workers: int | None,
    chunk: int,
    as_json: bool,
) -> None:
    """Play the games on the cluster (or in this process) into the lake; its ids, as `logs simulate` prints them."""
    if lake is None:
        # The cluster's workers write Parquet files side by side; a DuckDB file has one writer, which would receive
        # every game over the network and store them one batch at a time: the bottleneck a cluster is for avoiding.
        raise LoomError(
            "--cluster writes into a Parquet lake: give --lake DIR (`logs import --lake DIR` loads it into a store)"
        )
    if cluster is None and workers not in (None, 1):
        raise LoomError("--lake plays in this process: for more, use --cluster local --workers N")
    client_of = connect(cluster, workers) if cluster is not None else nullcontext(None)
    run = new_run()
    try:
        with client_of as client, progress_bar("simulating", games) as advance:
            done = simulate_to_lake(lake, rules, games, bots, seed, client, chunk, advance, run)
    except BaseException:
        if cluster == LOCAL:  # its workers are gone with it: nothing of the run is still being written
            discard_run(lake, run)
        raise
    _report(rules, lake, done, seed, as_json)


def _report(rules: Game, lake: Path, done: LakeSimulation, seed: int, as_json: bool) -> None:
    ids = done.ids
    if as_json:
        print_json({"ids": list(ids), "lake": str(lake), "run": done.run, "seed": seed})
        return
    files = sum(len(c.files) for c in done.chunks)
    out.print(
        f"recorded {done.games} {escape(rules.title)} games into lake {escape(str(lake))}: ids {ids[0]} to {ids[-1]} "
        f"({files} new files; --seed {seed})"
    )
