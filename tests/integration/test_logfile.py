"""The JSON Lines log format: export, import, and every way a file can be wrong."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from loom.events.base import MAX_LINE
from loom.replay.logfile import LogError, export_lines, import_file, read_games
from loom.replay.store import Store

EXAMPLE = Path(__file__).parents[2] / "docs" / "examples" / "motto-table-game.jsonl"


def _import(store: Store, lines: list[str]) -> list[int]:
    return import_file(store, io.StringIO("\n".join(lines) + "\n"))


def test_export_then_import_gives_the_same_game(store: Store, motto_ids: list[int]) -> None:
    for game_id in motto_ids:
        lines = list(export_lines(store, game_id))
        new_id = _import(store, lines)[0]
        assert list(export_lines(store, new_id))[1:] == lines[1:]
        assert store.results(new_id) == store.results(game_id)


def test_an_exported_branch_stands_alone(store: Store, motto_ids: list[int]) -> None:
    from loom.replay.branches import branch

    child = branch(store, motto_ids[0], 9, [], "greedy")
    lines = list(export_lines(store, child))
    assert json.loads(lines[0])["parent"] == motto_ids[0]
    assert json.loads(lines[1])["seq"] == 1
    new_id = _import(store, lines)[0]
    assert store.load(new_id)[-1].payload == store.load(child)[-1].payload


def test_the_hand_written_table_game_imports(store: Store) -> None:
    with EXAMPLE.open() as file:
        [game_id] = import_file(store, file)
    info = store.game(game_id)
    assert info.status == "open" and info.turns == 12 and [s.name for s in info.seats] == ["Ann", "Ben"]
    assert info.seed != 0  # drawn at import and recorded, so a continuation is reproducible


def test_a_file_of_several_games_imports_them_all(store: Store, motto_ids: list[int]) -> None:
    lines = [line for game_id in motto_ids[:3] for line in export_lines(store, game_id)]
    assert len(_import(store, lines)) == 3


def _lines(store: Store, game_id: int) -> list[str]:
    return list(export_lines(store, game_id))


def _expect(store: Store, lines: list[str], message: str) -> None:
    games_before = len(store.games(limit=1000))
    with pytest.raises(LogError, match=message):
        _import(store, lines)
    assert len(store.games(limit=1000)) == games_before


def test_a_line_that_is_not_json_names_its_line(store: Store, motto_ids: list[int]) -> None:
    lines = _lines(store, motto_ids[0])
    lines[4] = '{"type": "motto.took", "card": '
    _expect(store, lines, "line 5: not JSON")


def test_an_illegal_event_names_its_line_and_the_rule(store: Store, motto_ids: list[int]) -> None:
    lines = _lines(store, motto_ids[0])
    event = json.loads(lines[3])
    lines[3] = json.dumps({"type": "motto.played", "cards": ["red-1-love", "red-1-love", "red-1-love"]})
    assert event["turn"] == 1
    _expect(store, lines, "line 4: red-1-love, red-1-love, red-1-love are not all in the hand of seat 0")


def test_an_unknown_event_type_is_refused(store: Store, motto_ids: list[int]) -> None:
    lines = _lines(store, motto_ids[0])
    lines[3] = '{"type": "motto.cheated"}'
    _expect(store, lines, "line 4: unknown event type 'motto.cheated'")


def test_a_missing_field_is_refused(store: Store, motto_ids: list[int]) -> None:
    lines = _lines(store, motto_ids[0])
    lines[3] = '{"type": "motto.took"}'
    _expect(store, lines, "line 4: motto.took needs field 'card'")


def test_a_wrong_seq_turn_or_actor_is_refused(store: Store, motto_ids: list[int]) -> None:
    lines = _lines(store, motto_ids[0])
    event = json.loads(lines[3])
    lines[3] = json.dumps(event | {"actor": (event["actor"] + 1) % 3})
    _expect(store, lines, "line 4: actor is")


def test_an_event_before_any_header_is_refused(store: Store) -> None:
    _expect(store, ['{"type": "motto.started", "players": ["a", "b"]}'], "line 1: the file must begin with a header")


def test_an_unknown_game_in_the_header_is_refused(store: Store) -> None:
    _expect(store, ['{"format": "loom-log", "version": 1, "game": "chess"}'], "line 1: unknown game 'chess'")


def test_one_bad_game_stops_the_whole_file(store: Store, motto_ids: list[int]) -> None:
    good = _lines(store, motto_ids[0])
    bad = _lines(store, motto_ids[1])
    bad[-1] = bad[-1].replace('"motto.', '"moirai.')
    _expect(store, good + bad, f"line {len(good) + len(bad)}")


def test_an_empty_file_is_refused() -> None:
    with pytest.raises(LogError, match="holds no game"):
        read_games([])


def test_a_large_file_checked_by_several_processes_gives_the_same_games(
    store: Store, motto_ids: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("loom.replay.logfile.CHUNK_LINES", 150)
    lines = [line for game_id in motto_ids for line in export_lines(store, game_id)]
    ids = import_file(store, io.StringIO("\n".join(lines) + "\n"), workers=2)
    assert len(ids) == len(motto_ids)
    for old, new in zip(motto_ids, ids, strict=True):
        assert list(export_lines(store, new))[1:] == list(export_lines(store, old))[1:]


def test_a_bad_line_in_a_later_chunk_leaves_the_database_untouched(
    store: Store, motto_ids: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("loom.replay.logfile.CHUNK_LINES", 150)
    lines = [line for game_id in motto_ids for line in export_lines(store, game_id)]
    lines[-3] = "{not json"
    with pytest.raises(LogError, match=f"line {len(lines) - 2}: not JSON"):
        import_file(store, io.StringIO("\n".join(lines) + "\n"), workers=2)
    assert len(store.games(limit=1000)) == len(motto_ids)


@pytest.mark.parametrize(("workers", "window"), [(1, 2), (2, 2 * 2)])
def test_an_import_reads_the_file_at_most_a_window_of_chunks_ahead_of_what_it_stored(
    store: Store, motto_ids: list[int], monkeypatch: pytest.MonkeyPatch, workers: int, window: int
) -> None:
    """Twelve games of one chunk each: the file is never read (nor queued) whole before it is stored.

    In one process, the first two chunks are read to see whether the file is worth a pool; then one at a time."""
    from loom.replay import logfile, writing

    monkeypatch.setattr(logfile, "CHUNK_LINES", 1)  # each game a chunk of its own
    monkeypatch.setattr(logfile, "WINDOW", 2)
    lines = [line for game_id in motto_ids * 2 for line in export_lines(store, game_id)]
    read = stored = 0
    ahead: list[int] = []
    chunks, insert_batch = logfile.game_chunks, writing.insert_batch

    def counted_chunks(file: Any, size: int) -> Iterator[tuple[int, list[str]]]:
        nonlocal read
        for chunk in chunks(file, size):
            read += 1
            ahead.append(read - stored)
            yield chunk

    def counted_insert(db: Any, games: Any, first_id: int) -> list[int]:
        nonlocal stored
        stored += 1
        return insert_batch(db, games, first_id)

    monkeypatch.setattr(logfile, "game_chunks", counted_chunks)
    monkeypatch.setattr(writing, "insert_batch", counted_insert)
    ids = import_file(store, io.StringIO("\n".join(lines) + "\n"), workers=workers)
    assert (len(ids), read, stored) == (12, 12, 12)
    assert max(ahead) == window


def test_a_bad_line_in_an_earlier_chunk_is_named_before_a_too_long_line_read_later(
    store: Store, motto_ids: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("loom.replay.logfile.CHUNK_LINES", 1)
    lines = [line for game_id in motto_ids for line in export_lines(store, game_id)]
    lines[3] = "{not json"
    lines[-2] = "x" * (MAX_LINE + 10)
    with pytest.raises(LogError, match="line 4: not JSON"):
        import_file(store, io.StringIO("\n".join(lines) + "\n"), workers=2)
    assert len(store.games(limit=1000)) == len(motto_ids)
