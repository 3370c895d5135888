"""The seeded games of a playout module's game (tests/unit/test_<game>_playouts.py and its `SUITE`)."""

from __future__ import annotations

import pytest

from tests import playouts
from tests.playouts import Playout


@pytest.fixture(scope="module")
def games(request: pytest.FixtureRequest) -> list[Playout]:
    """The seeded games of the module's `SUITE`, played once per session (tests/unit/test_playouts.py shares them)."""
    return playouts.seeded(request.module.SUITE)
