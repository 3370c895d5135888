"""Ctrl-C while DuckDB reads a batch of Arrow rows from Python ends as an interruption, never as another error.

DuckDB reads the batch through the Python variable `arrow_batch`; a signal at that moment makes it report the scan
failing, or (the interruption lost) the variable missing, which an import would report as a failure of the file.
"""

from __future__ import annotations

import os
import signal
import threading
import time

import pyarrow as pa

from loom.cli.common import INTERRUPTED
from loom.replay.store import MEMORY, Store


def test_ctrl_c_at_any_moment_of_an_insert_is_an_interruption() -> None:
    rows = pa.table({"a": list(range(1000))})
    outcomes = set()
    with Store.open(MEMORY) as store:
        store.db.run("CREATE TABLE numbers (a INTEGER)")
        for attempt in range(100):
            # Ctrl-C at moments spread over a few statements, so that some land inside the scan of the batch.
            timer = threading.Timer(0.0003 * (attempt % 9), os.kill, (os.getpid(), signal.SIGINT))
            try:
                timer.start()
                deadline = time.monotonic() + 5
                while time.monotonic() < deadline:
                    store.db.insert("numbers", rows)
            except KeyboardInterrupt:
                outcomes.add("KeyboardInterrupt")
            except RuntimeError as error:
                outcomes.add(str(error))
            timer.join()
    assert outcomes <= {"KeyboardInterrupt", INTERRUPTED}
