"""A log file on disk is cut by its bytes (file_spans) and each worker reads its own span: the same lines, the same
line numbers and the same refusals as the file read as text by this process."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from loom.events.base import MAX_LINE
from loom.replay import logfile
from loom.replay.logfile import LogError, export_lines, file_spans, game_chunks, import_file, spanned
from loom.replay.store import Store


def _log(store: Store, game_ids: list[int], newline: str = "\n") -> str:
    return "".join(line + newline for game_id in game_ids for line in export_lines(store, game_id))


def _written(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "games.jsonl"
    path.write_bytes(text.encode("utf-8"))
    return path


@pytest.mark.parametrize("block", [7, 1 << 20])
@pytest.mark.parametrize("size", [1, 150, 10_000])
@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_a_file_on_disk_is_cut_into_spans_holding_the_chunks_its_text_is_cut_into(
    store: Store, motto_ids: list[int], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, block: int, size: int,
    newline: str,
) -> None:  # fmt: skip
    monkeypatch.setattr(logfile, "BLOCK", block)
    path = _written(tmp_path, _log(store, motto_ids, newline) + "\n  \n")
    with path.open(encoding="utf-8") as file:
        expected = list(game_chunks(file, size))
    spans = list(file_spans(str(path), size))
    assert [(span.first, span.text()) for span in spans] == expected
    assert [span.lines for span in spans] == [text.count("\n") for _, text in expected]


def test_a_line_ended_by_a_lone_carriage_return_is_numbered_as_a_text_file_numbers_it(
    store: Store, motto_ids: list[int], tmp_path: Path
) -> None:
    lines = _log(store, motto_ids[:2]).splitlines()
    text = lines[0] + "\r" + "\n".join(lines[1:]) + "\n"
    path = _written(tmp_path, text)
    with path.open(encoding="utf-8") as file:
        expected = list(game_chunks(file, 1))
    assert [(span.first, span.text()) for span in file_spans(str(path), 1)] == expected


@pytest.mark.parametrize("workers", [1, 2])
def test_a_file_on_disk_imports_as_the_same_text_from_a_stream(
    store: Store, motto_ids: list[int], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, workers: int
) -> None:
    monkeypatch.setattr(logfile, "CHUNK_LINES", 150)
    path = _written(tmp_path, _log(store, motto_ids, "\r\n"))
    with path.open(encoding="utf-8") as file:
        assert spanned(file) == str(path)
        ids = import_file(store, file, workers=workers)
    for old, new in zip(motto_ids, ids, strict=True):
        assert list(export_lines(store, new))[1:] == list(export_lines(store, old))[1:]


@pytest.mark.parametrize("workers", [1, 2])
def test_a_bad_line_of_a_file_on_disk_is_named_by_its_number(
    store: Store, motto_ids: list[int], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, workers: int
) -> None:
    monkeypatch.setattr(logfile, "CHUNK_LINES", 150)
    lines = _log(store, motto_ids).splitlines()
    lines[400] = "{not json"
    path = _written(tmp_path, "\n".join(lines) + "\n")
    before = store.count("games")
    with path.open(encoding="utf-8") as file, pytest.raises(LogError, match="^line 401: not JSON"):
        import_file(store, file, workers=workers)
    assert store.count("games") == before


def test_bytes_that_are_not_utf8_are_refused_as_a_text_file_refuses_them(
    store: Store, motto_ids: list[int], tmp_path: Path
) -> None:
    path = tmp_path / "games.jsonl"
    path.write_bytes(_log(store, motto_ids[:2]).encode() + b'{"format": "\xff"}\n')
    with path.open(encoding="utf-8") as file, pytest.raises(UnicodeDecodeError):
        import_file(store, file, workers=1)


def test_a_line_too_long_in_characters_but_not_in_bytes_is_refused_by_its_number(
    store: Store, motto_ids: list[int], tmp_path: Path
) -> None:
    head = _log(store, motto_ids[:1])
    path = _written(tmp_path, head + "é" * (MAX_LINE + 1) + "\n")  # 2 MiB of bytes: too long only when decoded
    with path.open(encoding="utf-8") as file, pytest.raises(LogError, match=f"line {head.count(chr(10)) + 1}: longer"):
        import_file(store, file, workers=1)


def test_a_run_of_bytes_without_a_newline_is_refused_while_the_file_is_cut(
    store: Store, motto_ids: list[int], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(logfile, "BLOCK", 1 << 16)
    head = _log(store, motto_ids[:1])
    path = _written(tmp_path, head + "x" * (8 * MAX_LINE))  # 8 MiB without a newline: no worker is given it
    with pytest.raises(LogError, match=f"line {head.count(chr(10)) + 1}: longer than 1,048,576 characters"):
        list(file_spans(str(path), 1))


def test_a_file_named_from_the_working_directory_is_spanned_by_its_whole_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _written(tmp_path, "{}\n")
    monkeypatch.chdir(tmp_path)
    with open("games.jsonl", encoding="utf-8") as file:
        assert spanned(file) == str(path)  # a worker started elsewhere still finds it


def test_only_a_file_on_disk_read_from_its_start_as_utf8_is_spanned(tmp_path: Path) -> None:
    path = _written(tmp_path, "{}\n{}\n")
    with path.open(encoding="utf-8") as file:
        assert spanned(file) == str(path)
        file.readline()
        assert spanned(file) is None  # a file part read: the rest is what the caller wants
    with path.open(encoding="latin-1") as file:
        assert spanned(file) is None
    assert spanned(io.StringIO("{}\n")) is None
    assert spanned(["{}\n"]) is None
