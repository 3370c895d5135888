"""Events: stable type names, JSON both ways, and upcasters that read logs written with an older schema."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from events.base import MalformedEvent, Payload
from events.motto import CardsPlayed, GameStarted
from events.registry import decode_payload, decode_payload_text, encode_payload, register, upcaster


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class Renamed(Payload):
    """A test event whose version 1 called its field `old`."""

    TYPE = "test.renamed"
    VERSION = 2
    new: str


@upcaster("test.renamed", 1)
def _old_to_new(data: dict[str, object]) -> dict[str, object]:
    return {"new": data["old"]}


def test_an_event_round_trips_through_json() -> None:
    event = CardsPlayed(cards=("red-1-love", "red-2-love", "red-3-love"), tokens=(("love", 3), ("red", 3)))
    assert decode_payload_text("motto.played", encode_payload(event), 1) == event


def test_decoded_lists_become_tuples_so_events_stay_immutable() -> None:
    event = decode_payload("motto.started", {"players": ["a", "b"], "seed": 1})
    assert event == GameStarted(players=("a", "b"), seed=1)
    assert isinstance(event.players, tuple)


def test_an_old_schema_version_is_upcast() -> None:
    assert decode_payload("test.renamed", {"old": "x"}, 1) == Renamed(new="x")
    assert decode_payload_text("test.renamed", '{"old": "y"}', 1) == Renamed(new="y")


def test_a_newer_schema_version_than_known_is_refused() -> None:
    with pytest.raises(MalformedEvent, match="schema version 3"):
        decode_payload("test.renamed", {"new": "x"}, 3)


@pytest.mark.parametrize(
    ("type_name", "data", "message"),
    [
        ("motto.nothing", {}, "unknown event type 'motto.nothing'"),
        ("motto.took", {}, "needs field 'card'"),
        ("motto.took", {"card": "red-1-love", "colour": "red"}, "has no field 'colour'"),
    ],
)
def test_malformed_events_are_refused_with_the_reason(type_name: str, data: dict[str, object], message: str) -> None:
    with pytest.raises(MalformedEvent, match=message):
        decode_payload(type_name, data)


def test_type_names_are_registered_once() -> None:
    with pytest.raises(ValueError, match="taken"):
        register(Renamed)
