"""The floor of bench/api.py: a minimal FastAPI app that inserts one DuckDB row per request and commits it.

Not part of Loom: what any service that writes each request in its own transaction can do on this machine, served
by the same uvicorn as `logs serve`. POST /rows with a JSON body {"game": int, "seq": int, "payload": {...}}
answers {"seq": seq}.

    .venv/bin/python bench/api_floor.py DB PORT
"""

from __future__ import annotations

import json
import sys
import threading
from typing import Any

import duckdb
import uvicorn
from fastapi import FastAPI
from pydantic import BaseModel


class Row(BaseModel):
    game: int
    seq: int
    payload: dict[str, Any]


def floor_app(path: str) -> FastAPI:
    """The app on a DuckDB file of one table; each thread of the pool writes through its own cursor."""
    con = duckdb.connect(path)
    con.execute("CREATE TABLE IF NOT EXISTS rows (game BIGINT, seq INTEGER, payload JSON)")
    local = threading.local()
    app = FastAPI()

    @app.post("/rows")
    def insert(row: Row) -> dict[str, Any]:
        cursor = getattr(local, "cursor", None)
        if cursor is None:
            cursor = local.cursor = con.cursor()
        cursor.execute("INSERT INTO rows VALUES (?, ?, ?)", [row.game, row.seq, json.dumps(row.payload)])  # commits
        return {"seq": row.seq}

    @app.get("/rows")
    def count() -> dict[str, Any]:
        return {"rows": con.cursor().execute("SELECT count(*) FROM rows").fetchall()[0][0]}

    return app


if __name__ == "__main__":
    uvicorn.run(floor_app(sys.argv[1]), host="127.0.0.1", port=int(sys.argv[2]), log_level="info")
