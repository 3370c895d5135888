"""Reading a replay page's board as a browser does: the table shown after each event, rebuilt from the page's data
(each distinct line written once, each table runs of those lines)."""

from __future__ import annotations

import json
import re
from typing import Any


def script_data(html: str, element_id: str) -> Any:
    """The JSON of the page's data element `element_id`."""
    found = re.search(rf'<script type="application/json" id="{element_id}">(.*?)</script>', html, re.S)
    assert found is not None, element_id
    return json.loads(found.group(1))


def page_tables(html: str) -> list[tuple[int, str]]:
    """Every position of the board: the event it follows (its seq) and the table shown there, as the page's script
    rebuilds it."""
    drawn, seqs = script_data(html, "tables"), script_data(html, "board-data")["seqs"]
    tables = []
    for run in drawn["runs"]:
        ids = [start + j for start, count in zip(run[::2], run[1::2]) for j in range(count)]
        tables.append('<pre class="table">' + "\n".join(drawn["lines"][i] for i in ids) + "</pre>")
    assert len(tables) == len(seqs)
    return list(zip(seqs, tables))
