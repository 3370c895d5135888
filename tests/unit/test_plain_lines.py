"""events/parsing.py `reader` and replay/recorder.py `_encoder`: a line read the plain way (without pydantic) is
read exactly as the validator reads it, and any line the plain way does not take is left to the validator, which
alone refuses; a payload is stored as the same JSON text as `encode_payload` writes."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from loom.events import registry
from loom.events.base import MAX_TEXT, MalformedEvent
from loom.events.parsing import Readers, _parse_event, parse_event, reader
from loom.events.registry import encode_payload
from loom.replay.recorder import _encoder

GOLDEN = Path(__file__).resolve().parent.parent / "golden"
registry.load_all()


def _golden_lines() -> list[dict[str, Any]]:
    lines = []
    for path in sorted(GOLDEN.glob("*/*.jsonl")):
        for text in path.read_text(encoding="utf-8").splitlines():
            data = json.loads(text)
            if text.strip() and "format" not in data:
                lines.append(data)
    return lines


LINES = _golden_lines()
ODD = [True, False, 0, -1, 2**63, 1.0, "7", "", "x" * MAX_TEXT, "x" * (MAX_TEXT + 1), None, [], {}, ["a"], [1]]


def _changed(value: Any) -> Iterator[Any]:
    """Values like `value` and unlike it: each odd value, and for a list each item changed, one more, one fewer."""
    yield from ODD
    if isinstance(value, list):
        yield value[:-1]
        yield [*value, value[-1] if value else "a"]
        for index, item in enumerate(value):
            for other in _changed(item) if isinstance(item, list) else ODD:
                yield [*value[:index], other, *value[index + 1 :]]


def _variants(data: dict[str, Any]) -> Iterator[dict[str, Any]]:
    yield data
    yield {key: value for key, value in data.items() if key != "v"}
    yield data | {"extra": 1}
    for key, value in data.items():
        if key == "type":
            continue
        yield {k: v for k, v in data.items() if k != key}
        for other in _changed(value):
            yield data | {key: other}


def _outcome(parse: Any, data: dict[str, Any], game: str | None) -> Any:
    try:
        return parse(data, game)
    except MalformedEvent as error:
        return f"refused: {error}"


def test_the_golden_logs_hold_every_game_s_lines() -> None:
    assert {line["type"].split(".")[0] for line in LINES} == {"motto", "moirai", "moorea", "stones-of-fate"}


def test_every_event_type_has_a_plain_reader() -> None:
    assert all(reader(cls) is not None for cls in registry._CLASSES.values() if cls.TYPE.split(".")[0] != "test")


def test_a_plain_line_and_its_variants_read_as_the_validator_reads_them() -> None:
    tried = taken = 0
    for line in LINES:
        game = line["type"].split(".")[0]
        read = Readers(game)[line["type"]]
        assert read is not None
        for data in _variants(line):
            tried += 1
            full = _outcome(_parse_event, data, game)
            plain = read(data)
            if plain is not None:  # taken the plain way: only a line the validator takes, read the same
                taken += 1
                seq, turn, actor, v, payload = plain
                assert not isinstance(full, str), (data, full)
                assert (tuple(full[0]), full[1]) == ((seq, turn, actor, data["type"], v), payload)
                assert type(payload) is type(full[1])
            assert _outcome(parse_event, data, game) == full
    assert taken > len(LINES) and tried > 2 * taken


def test_a_plain_payload_holds_tuples_as_a_validated_one_does() -> None:
    for line in LINES:
        payload = Readers(line["type"].split(".")[0])[line["type"]](line)[4]  # type: ignore[misc]
        for name in payload.__dataclass_fields__:
            value = getattr(payload, name)
            assert not isinstance(value, list)
            if isinstance(value, tuple):
                assert not any(isinstance(item, list) for item in value)


@pytest.mark.parametrize("type_name", ["moirai.drew", "motto.nothing", "stones-of-fate.moved"])
def test_a_type_of_another_game_or_of_none_has_no_reader_in_a_game(type_name: str) -> None:
    assert Readers("motto")[type_name] is None


def test_a_payload_is_stored_as_the_same_json_text_as_encode_payload_writes() -> None:
    for line in LINES:
        payload = _parse_event(line, None)[1]
        assert _encoder(type(payload))(payload) == encode_payload(payload)
