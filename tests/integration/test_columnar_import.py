"""`logs import` at columnar speed: the file read in blocks, chunks checked into Arrow batches, no facts on the way."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from collections.abc import Iterable, Iterator
from typing import Any

import pytest

from loom.events.base import MAX_LINE, MalformedEvent
from loom.events.parsing import _parse_event, parse_event
from loom.replay import logfile, queries
from loom.replay.logfile import LogError, check_chunk, export_lines, game_chunks, import_file
from loom.replay.store import Store


def _cut_line_by_line(lines: Iterable[str], size: int) -> Iterator[tuple[int, list[str]]]:
    """How chunks were cut before the file was read in blocks: a chunk of at least `size` lines ends before a
    line that starts as a header does."""
    chunk: list[str] = []
    first = 1
    for number, text in enumerate(lines, start=1):
        if len(chunk) >= size and text.startswith('{"format"'):
            yield first, chunk
            chunk, first = [], number
        chunk.append(text)
    if chunk:
        yield first, chunk


def _log(store: Store, game_ids: list[int]) -> str:
    return "".join(line + "\n" for game_id in game_ids for line in export_lines(store, game_id))


@pytest.mark.parametrize("block", [7, 1 << 20])
@pytest.mark.parametrize("size", [1, 150, 10_000])
def test_a_file_read_in_blocks_is_cut_into_the_same_chunks_as_line_by_line(
    store: Store, motto_ids: list[int], monkeypatch: pytest.MonkeyPatch, block: int, size: int
) -> None:
    monkeypatch.setattr(logfile, "BLOCK", block)
    text = _log(store, motto_ids) + "\n  \n"  # blank lines at the end belong to the last chunk
    expected = [(first, "".join(lines)) for first, lines in _cut_line_by_line(io.StringIO(text), size)]
    assert list(game_chunks(io.StringIO(text), size)) == expected


def test_a_last_line_without_its_newline_is_read(store: Store, motto_ids: list[int]) -> None:
    text = _log(store, motto_ids[:2]).rstrip("\n")
    assert "".join(chunk for _, chunk in game_chunks(io.StringIO(text), 1)) == text
    assert len(import_file(store, io.StringIO(text), workers=1)) == 2


class _Counted(io.StringIO):
    """A file that counts the characters read from it."""

    given = 0

    def read(self, size: int | None = -1, /) -> str:
        text = super().read(size)
        self.given += len(text)
        return text


def test_a_line_longer_than_the_limit_is_refused_before_the_file_is_read_much_further(
    store: Store, motto_ids: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(logfile, "BLOCK", 4096)
    head = _log(store, motto_ids[:1])
    file = _Counted(head + "x" * (4 * MAX_LINE))  # no newline anywhere in the last 4 MiB
    with pytest.raises(LogError, match=f"line {head.count(chr(10)) + 1}: longer than 1,048,576 characters"):
        list(game_chunks(file, 1))
    assert file.given <= len(head) + MAX_LINE + 2 * 4096


def test_a_too_long_line_of_a_chunk_is_named_before_its_other_errors(store: Store, motto_ids: list[int]) -> None:
    """As when the file was read line by line: the long line stopped the reading of its chunk."""
    lines = _log(store, motto_ids[:2]).splitlines()
    lines[2] = "{not json"
    lines[-1] = "y" * (MAX_LINE + 1)
    with pytest.raises(LogError, match=f"line {len(lines)}: longer than"):
        check_chunk((1, "\n".join(lines) + "\n"))


def test_a_chunk_becomes_arrow_batches_numbered_by_the_writer(store: Store, motto_ids: list[int]) -> None:
    batch = check_chunk((1, _log(store, motto_ids)))
    assert batch.games == len(motto_ids)
    assert set(batch.tables) == {"games", "seats", "events", "snapshots", "results"}
    numbered = batch.numbered(100)
    assert numbered["games"].column("id").to_pylist() == list(range(100, 100 + len(motto_ids)))
    events = numbered["events"].column("game_id").to_pylist()
    assert sorted(set(events)) == list(range(100, 100 + len(motto_ids)))
    assert len(events) == sum(store.game(game_id).last_seq for game_id in motto_ids)


def _rows(store: Store, table: str, game_ids: list[int]) -> int:
    marks = ", ".join("?" * len(game_ids))
    return int(store.con.execute(f"SELECT count(*) FROM {table} WHERE game_id IN ({marks})", game_ids).fetchone()[0])


@pytest.mark.parametrize("workers", [1, 2])
def test_an_import_leaves_the_facts_to_the_projector_and_keeps_results_and_snapshots(
    store: Store, motto_ids: list[int], monkeypatch: pytest.MonkeyPatch, workers: int
) -> None:
    monkeypatch.setattr(logfile, "CHUNK_LINES", 150)
    ids = import_file(store, io.StringIO(_log(store, motto_ids)), workers=workers)
    assert _rows(store, "turn_facts", ids) == 0
    assert _rows(store, "game_facts", ids) == 0
    assert _rows(store, "results", ids) == _rows(store, "results", motto_ids)
    assert _rows(store, "snapshots", ids) == _rows(store, "snapshots", motto_ids)
    assert [store.game(i).last_seq for i in ids] == [store.game(i).last_seq for i in motto_ids]
    assert store.con.execute(queries.STAGING_TABLES).fetchall() == []


def _lines(store: Store, motto_ids: list[int]) -> list[dict[str, Any]]:
    return [json.loads(line) for line in export_lines(store, motto_ids[0])][1:]


def test_a_plain_line_parses_as_the_full_way_parses_it(store: Store, motto_ids: list[int]) -> None:
    for data in _lines(store, motto_ids):
        assert parse_event(data, "motto") == _parse_event(data, "motto")
        assert parse_event({k: v for k, v in data.items() if k != "v"}) == _parse_event(
            {k: v for k, v in data.items() if k != "v"}, None
        )


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"v": None}, "v must be a schema version"),
        ({"v": True}, "v must be a schema version"),
        ({"v": 9}, "schema version 9"),
        ({"seq": "1"}, "seq must be a whole number"),
        ({"actor": 1.0}, "actor must be a seat number or null"),
        ({"type": "moirai.drew"}, "is not an event of motto"),
        ({"type": "motto.nothing"}, "unknown event type"),
        ({"extra": 1}, "has no field 'extra'"),
    ],
)
def test_a_line_off_the_plain_way_is_refused_as_the_full_way_refuses_it(
    store: Store, motto_ids: list[int], change: dict[str, Any], message: str
) -> None:
    data = _lines(store, motto_ids)[2] | change
    with pytest.raises(MalformedEvent, match=message) as quick:
        parse_event(data, "motto")
    with pytest.raises(MalformedEvent) as full:
        _parse_event(data, "motto")
    assert str(quick.value) == str(full.value)


def test_a_checking_worker_makes_arrow_tables_without_loading_pandas(store: Store, motto_ids: list[int]) -> None:
    code = (
        "import sys\n"
        "from loom.replay.logfile import _arrow_without_pandas, check_chunk\n"
        "_arrow_without_pandas()\n"
        "batch = check_chunk((1, sys.stdin.read()))\n"
        "print(batch.games, batch.tables['events'].num_rows, 'pandas' in sys.modules)\n"
        "import pandas\n"  # still there for whoever asks for it
        "print(pandas.__name__)\n"
    )
    text = _log(store, motto_ids[:2])
    done = subprocess.run([sys.executable, "-c", code], input=text, capture_output=True, text=True, check=True)
    events = sum(1 for line in text.splitlines() if not line.startswith('{"format"'))
    assert done.stdout.split() == ["2", str(events), "False", "pandas"]
