"""The project installs as the `loom` namespace: every package folder is listed in pyproject.toml (issue 13)."""

from __future__ import annotations

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
