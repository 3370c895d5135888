"""The project installs as the `loom` namespace: every package folder is listed in pyproject.toml (issue 13)."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).parents[2]
TOP = ("events", "engine", "replay", "cli", "dashboards", "service")


def _setuptools() -> dict[str, object]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]


def test_every_package_folder_is_installed_under_loom() -> None:
    folders = {
        "loom." + ".".join(init.parent.relative_to(ROOT).parts)
        for top in TOP
        for init in (ROOT / top).rglob("__init__.py")
    }
    assert set(_setuptools()["packages"]) == folders  # type: ignore[arg-type]


def test_each_top_level_folder_is_a_loom_package() -> None:
    assert _setuptools()["package-dir"] == {f"loom.{top}": top for top in TOP}


def test_the_packages_import_as_loom_and_not_by_their_folder_names(tmp_path: Path) -> None:
    """Run outside the checkout, where only the installed distribution is on the path."""
    script = "import importlib.util as u; print(u.find_spec('loom.events') is not None, u.find_spec('events') is None)"
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=tmp_path, check=True)
    assert done.stdout.split() == ["True", "True"]
