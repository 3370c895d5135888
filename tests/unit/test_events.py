"""Events: stable type names, JSON both ways, and upcasters that read logs written with an older schema."""

from __future__ import annotations

import re
from dataclasses import dataclass

import pytest

from loom.events import moirai, moorea  # noqa: F401  # registers the event types the tests decode
from loom.events.base import MalformedEvent, Payload
from loom.events.motto import CardsPlayed, GameStarted, PoolCardTaken
from loom.events.parsing import ABSENT, parse_event
from loom.events.registry import decode_payload, decode_payload_text, encode_payload, register, upcaster
from loom.events.stones_of_fate import FinalFlip


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


def test_an_upcaster_missing_the_old_field_says_which() -> None:
    with pytest.raises(MalformedEvent, match="test.renamed version 1 needs field 'old'"):
        decode_payload("test.renamed", {}, 1)


@pytest.mark.parametrize(
    ("type_name", "data", "message"),
    [
        ("motto.played", {"cards": ["red-1-love", "red-2-love", 7]}, "motto.played: cards[2] must be a string, not 7"),
        ("motto.played", {"cards": ["a", "b", "c", "d"]}, "cards has too many items (4; at most 3)"),
        ("moirai.took", {"pile": "red", "placed": [[1, "up", 1.0]]}, "placed[0][2] must be a whole number, not 1.0"),
        ("moirai.kept", {"placed": [[1, "up", 1], [2, "up", 1]]}, "placed has too many items (2; at most 1)"),
        ("stones-of-fate.won", {"at": "a1", "card": "x", "winner": "1"}, "winner must be a whole number, not '1'"),
        ("stones-of-fate.took", {"owner": True, "card": "x"}, "owner must be a whole number, not true"),
        ("moorea.exchanged", {"paid": "fish", "card": "wood"}, "paid must be a list, not 'fish'"),
        ("motto.started", {"players": ["a", "b"], "deck": {"top": "x"}}, "deck must be a list, not an object"),
    ],
)
def test_every_field_is_checked_strictly_against_its_declared_type(
    type_name: str, data: dict[str, object], message: str
) -> None:
    with pytest.raises(MalformedEvent, match=re.escape(message)):
        decode_payload(type_name, data)


def test_null_is_read_where_the_type_allows_it() -> None:
    flip = decode_payload("stones-of-fate.final-flip", {"cards": [None, "the-sun"], "winners": [None, 1]})
    assert flip == FinalFlip(cards=(None, "the-sun"), winners=(None, 1))
    assert decode_payload("motto.started", {"players": ["a", "b"], "seed": None}) == GameStarted(players=("a", "b"))


def test_parse_event_splits_a_line_into_its_envelope_and_payload() -> None:
    line = {"seq": 3, "turn": 1, "actor": 0, "type": "motto.took", "v": 1, "card": "red-1-love"}
    envelope, payload = parse_event(line, "motto")
    assert (envelope.seq, envelope.turn, envelope.actor, envelope.type, envelope.v) == (3, 1, 0, "motto.took", 1)
    assert payload == PoolCardTaken(card="red-1-love")
    assert line["seq"] == 3  # the caller's dict is left as given
    assert envelope.disagreement(3, 1, 0) is None
    assert envelope.disagreement(3, 1, 1) == "actor is 0, but the rules make it 1"


def test_an_envelope_key_left_out_is_not_checked() -> None:
    envelope, _ = parse_event({"type": "motto.took", "card": "red-1-love"})
    assert envelope.seq is ABSENT and envelope.actor is ABSENT and envelope.v is None
    assert envelope.disagreement(99, 9, None) is None


def test_a_line_of_an_old_schema_version_is_upcast_then_checked() -> None:
    envelope, payload = parse_event({"seq": 4, "type": "test.renamed", "v": 1, "old": "x"})
    assert payload == Renamed(new="x") and envelope.v == 1 and envelope.seq == 4
    with pytest.raises(MalformedEvent, match=r"^test.renamed: new must be a string, not 5$"):
        parse_event({"type": "test.renamed", "v": 1, "old": 5})
