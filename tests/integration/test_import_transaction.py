"""An import writes a file's games batch by batch in one transaction: all of a file or none of it, and staging tables an
older version's interrupted import left behind are dropped."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from loom.replay import queries
from loom.replay.logfile import LogError, export_lines, import_file
from loom.replay.store import Store

COUNTED = ("games", "seats", "events", "snapshots", "results", "turn_facts", "game_facts")


def _counts(store: Store) -> dict[str, int]:
    return {table: store.con.execute(queries.count_rows(table)).fetchall()[0][0] for table in COUNTED}


def _staging_tables(store: Store) -> list[str]:
    return [name for (name,) in store.con.execute(queries.STAGING_TABLES).fetchall()]


def test_a_bad_line_in_the_last_chunk_stores_nothing_and_leaves_no_staging(
    store: Store, motto_ids: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("loom.replay.logfile.CHUNK_LINES", 40)  # many chunks, each a batch of the one transaction
    lines = [line for game_id in motto_ids for line in export_lines(store, game_id)]
    lines[-2] = "{not json"
    before = _counts(store)
    with pytest.raises(LogError, match=f"line {len(lines) - 1}: not JSON"):
        import_file(store, io.StringIO("\n".join(lines) + "\n"), workers=1)
    assert _counts(store) == before
    assert _staging_tables(store) == []


def test_a_multi_chunk_import_stores_every_game_and_leaves_no_staging(
    store: Store, motto_ids: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("loom.replay.logfile.CHUNK_LINES", 40)
    lines = [line for game_id in motto_ids for line in export_lines(store, game_id)]
    ids = import_file(store, io.StringIO("\n".join(lines) + "\n"), workers=1)
    assert ids == list(range(max(motto_ids) + 1, max(motto_ids) + 1 + len(motto_ids)))
    for old, new in zip(motto_ids, ids, strict=True):
        assert list(export_lines(store, new))[1:] == list(export_lines(store, old))[1:]
    assert _staging_tables(store) == []


def test_an_older_imports_staging_left_by_a_crash_is_dropped_by_the_next_writable_open(tmp_path: Path) -> None:
    path = tmp_path / "loom.duckdb"
    with Store.open(path) as store:
        example = Path(__file__).parents[2] / "docs" / "examples" / "motto-table-game.jsonl"
        lines = example.read_text(encoding="utf-8").splitlines()
        import_file(store, io.StringIO("\n".join(lines) + "\n"))
        before = _counts(store)
        for table in queries.STAGED:  # what an older version's import, killed before its final move, left
            store.con.execute(f"CREATE TABLE staging_{table} AS SELECT * FROM {table}")
        assert _staging_tables(store)
        assert _counts(store) == before  # seen by no reader
    with Store.open(path, read_only=True) as reader:
        assert _counts(reader) == before
        assert len(reader.games(limit=10)) == 1
    with Store.open(path) as store:
        assert _staging_tables(store) == []
        assert _counts(store) == before
        assert len(import_file(store, io.StringIO("\n".join(lines) + "\n"))) == 1  # and the next import works
