"""Shared helpers of the benchmark scripts: options, timing, percentiles, profiles, and the report (table + JSON).

Every script imports this as `bench._common` after `setup_path()` has put the project root first on sys.path
(running `python bench/replay.py` would otherwise make `bench/replay.py` shadow the `replay` package).
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import platform
import pstats
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "bench" / "out"

GAME = "motto"
BOTS = ("greedy", "random", "random")


def parser(name: str, description: str) -> argparse.ArgumentParser:
    """An argument parser with the options every benchmark shares: --quick, --seed, --output."""
    started_environment()  # git commit and load as the run begins
    p = argparse.ArgumentParser(prog=f"bench/{name}.py", description=description)
    p.add_argument("--quick", action="store_true", help="a small run (seconds, not minutes) to check the script works")
    p.add_argument("--seed", type=int, default=0, help="seed of the simulated games (default 0)")
    p.add_argument(
        "--output",
        type=Path,
        default=None,
        help=f"where to write the JSON (default bench/out/{name}.json, or bench/out/{name}.quick.json with --quick)",
    )
    return p


def output_path(name: str, args: argparse.Namespace) -> Path:
    if args.output is not None:
        return Path(args.output)
    return OUT / (f"{name}.quick.json" if args.quick else f"{name}.json")


def environment() -> dict[str, Any]:
    """What the figures were measured on."""
    import duckdb
    import pyarrow

    try:
        commit = subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False
        ).stdout.strip()
        dirty = bool(
            subprocess.run(
                ["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no"],
                capture_output=True,
                text=True,
                check=False,
            ).stdout.strip()
        )
    except OSError:
        commit, dirty = "", False
    try:
        load = os.getloadavg()
    except OSError:
        load = (0.0, 0.0, 0.0)
    return {
        "when": datetime.now(UTC).isoformat(timespec="seconds"),
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "python_build": python_build(),
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "loadavg": [round(x, 2) for x in load],
        "duckdb": duckdb.__version__,
        "pyarrow": pyarrow.__version__,
        "git_commit": commit,
        "git_dirty": dirty,
    }


def python_build() -> str:
    """Whether the interpreter runs on a shared libpython (pyenv's builds) or one linked into the executable
    (Debian's): calls into a shared one cost more, and pure-Python figures here were 15-18% slower on it."""
    try:
        maps = Path("/proc/self/maps").read_text()
    except OSError:
        return "unknown"
    return "libpython shared" if "/libpython" in maps else "libpython linked in"


_STARTED: dict[str, Any] | None = None


def started_environment() -> dict[str, Any]:
    """The environment as it was when the benchmark started (the code may change while a long run goes on)."""
    global _STARTED
    if _STARTED is None:
        _STARTED = environment()
    return _STARTED


@contextmanager
def temp_dir(prefix: str) -> Iterator[Path]:
    """A temporary directory, removed afterwards (databases, log files)."""
    path = Path(tempfile.mkdtemp(prefix=f"loom-bench-{prefix}-"))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


class Timer:
    """Accumulates wall time of several timed sections: `with timer: ...`."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self.count = 0

    def __enter__(self) -> Timer:
        self._start = time.perf_counter()
        return self

    def __exit__(self, *exc: object) -> None:
        self.seconds += time.perf_counter() - self._start
        self.count += 1


def percentiles(values: Sequence[float], points: Sequence[float] = (50, 90, 99)) -> dict[str, float]:
    """Nearest-rank-interpolated percentiles (statistics.quantiles, inclusive method), plus min/max/mean."""
    data = sorted(values)
    if not data:
        return {}
    out: dict[str, float] = {"min": data[0], "mean": statistics.fmean(data), "max": data[-1]}
    if len(data) == 1:
        out |= {f"p{p:g}": data[0] for p in points}
        return out
    cuts = statistics.quantiles(data, n=100, method="inclusive")
    for p in points:
        out[f"p{p:g}"] = statistics.median(data) if p == 50 else cuts[int(p) - 1]
    return out


def profile(fn: Callable[[], Any], top: int = 15, root: Path = ROOT) -> dict[str, Any]:
    """Run `fn` under cProfile; the top functions by own time and by cumulative time."""
    prof = cProfile.Profile()
    start = time.perf_counter()
    prof.enable()
    try:
        fn()
    finally:
        prof.disable()
    wall = time.perf_counter() - start
    stats = pstats.Stats(prof)
    total = stats.total_tt  # type: ignore[attr-defined]

    def where(func: tuple[str, int, str]) -> str:
        filename, line, name = func
        if filename == "~":
            return name
        path = Path(filename)
        try:
            filename = str(path.relative_to(root))
        except ValueError:
            parts = path.parts
            filename = "/".join(parts[-2:]) if len(parts) > 1 else filename
        return f"{filename}:{line}({name})"

    rows = [
        {"function": where(func), "ncalls": nc, "tottime": tt, "cumtime": ct, "tottime_pct": 100 * tt / total}
        for func, (cc, nc, tt, ct, callers) in stats.stats.items()  # type: ignore[attr-defined]
    ]
    by_tottime = sorted(rows, key=lambda r: r["tottime"], reverse=True)[:top]
    by_cumtime = sorted(rows, key=lambda r: r["cumtime"], reverse=True)[:top]
    return {"wall_s_under_profiler": wall, "profiled_s": total, "by_tottime": by_tottime, "by_cumtime": by_cumtime}


@dataclass
class Report:
    """The figures of one benchmark: shown as a table, written as JSON."""

    name: str
    title: str
    params: dict[str, Any]
    rows: list[dict[str, Any]] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)

    def add(self, metric: str, value: Any, unit: str = "", note: str = "", key: str | None = None) -> None:
        """One figure; `key` names it in the JSON `figures` object (default: metric)."""
        self.rows.append({"key": key or metric, "metric": metric, "value": value, "unit": unit, "note": note})

    def section(self, title: str) -> None:
        self.rows.append({"section": title})

    def figures(self) -> dict[str, Any]:
        return {r["key"]: r["value"] for r in self.rows if "section" not in r}

    def emit(self, path: Path, profiles: dict[str, Any] | None = None) -> None:
        from rich.console import Console
        from rich.table import Table

        console = Console()
        table = Table(title=self.title, title_justify="left")
        table.add_column("metric")
        table.add_column("value", justify="right")
        table.add_column("unit")
        table.add_column("note", overflow="fold")
        for row in self.rows:
            if "section" in row:
                table.add_section()
                table.add_row(f"[bold]{row['section']}[/]", "", "", "")
                continue
            table.add_row(row["metric"], fmt(row["value"]), row["unit"], row["note"])
        console.print(table)
        if profiles:
            for label, prof in profiles.items():
                ptable = Table(
                    title=f"cProfile: {label} (top by own time; {prof['profiled_s']:.2f} s profiled)",
                    title_justify="left",
                )
                for column in ("function", "ncalls", "own s", "own %", "cum s"):
                    ptable.add_column(column, justify="left" if column == "function" else "right")
                for r in prof["by_tottime"][:12]:
                    ptable.add_row(
                        r["function"],
                        str(r["ncalls"]),
                        f"{r['tottime']:.3f}",
                        f"{r['tottime_pct']:.1f}",
                        f"{r['cumtime']:.3f}",
                    )
                console.print(ptable)
        data = {
            "benchmark": self.name,
            "title": self.title,
            "params": self.params,
            "environment": started_environment() | {"loadavg_at_end": [round(x, 2) for x in os.getloadavg()]},
            "figures": self.figures(),
            "rows": [r for r in self.rows if "section" not in r],
            **self.extra,
        }
        if profiles:
            data["profiles"] = profiles
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(data, indent=2, default=str) + "\n", encoding="utf-8")
        console.print(f"wrote {path}")


def fmt(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        if value == 0:
            return "0"
        if abs(value) >= 1000:
            return f"{value:,.0f}"
        if abs(value) >= 100:
            return f"{value:.1f}"
        if abs(value) >= 1:
            return f"{value:.2f}"
        return f"{value:.3g}"
    return str(value)


def progress(label: str, done: int, total: int, started: float) -> None:
    """A one-line progress note on stderr (the table goes to stdout)."""
    elapsed = time.perf_counter() - started
    rate = done / elapsed if elapsed else 0.0
    left = (total - done) / rate if rate else 0.0
    print(f"\r{label}: {done:,}/{total:,} ({rate:,.0f}/s, ~{left:,.0f} s left)   ", end="", file=sys.stderr, flush=True)
    if done >= total:
        print(file=sys.stderr, flush=True)
