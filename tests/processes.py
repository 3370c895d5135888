"""The processes a test started, read from /proc: which of a session are alive, and waiting for a condition."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path


def session_alive(sid: int) -> list[int]:
    """The live (not zombie) processes of session `sid`."""
    return [pid for pid, (state, _, session) in processes().items() if session == sid and state != "Z"]


def processes() -> dict[int, tuple[str, int, int]]:
    """(state, parent, session) of every process."""
    found = {}
    for name in filter(str.isdigit, os.listdir("/proc")):
        try:
            stat = Path(f"/proc/{name}/stat").read_text()
        except OSError:
            continue  # it just ended
        state, parent, _, session = stat[stat.rindex(")") + 2 :].split()[:4]
        found[int(name)] = (state, int(parent), int(session))
    return found


def wait_for(check: Callable[[], bool], seconds: float) -> bool:
    """Whether `check` holds within `seconds`."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.05)
    return False
