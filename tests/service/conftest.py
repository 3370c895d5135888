"""A real Loom server on a free loopback port, on a database file of its own, for each test module."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from loom.service.context import Service
from loom.service.server import free_port, running
from loom.service.settings import Settings
from tests.service.client import ADMIN, Api


@pytest.fixture(scope="module")
def db_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The server's database file."""
    return tmp_path_factory.mktemp("service") / "served.duckdb"


@pytest.fixture(scope="module")
def api(db_path: Path) -> Iterator[Api]:
    """A client of a server running for the whole module, with an admin token."""
    settings = Settings(str(db_path), port=free_port(), admin_token=ADMIN, max_body=64 * 1024)
    with running(settings) as base:
        client = Api(base)
        yield client
        client.close()


@pytest.fixture
def service(tmp_path: Path) -> Iterator[Service]:
    """A service on a database of its own (with its journal), written to in this process: no HTTP."""
    opened = Service.open(Settings(str(tmp_path / "service.duckdb"), admin_token=ADMIN))
    try:
        yield opened
    finally:
        opened.close()
