"""Hostile and careless log files: each is refused with one line naming the line and what is wrong, and nothing is
stored. The same parser reads the events a client sends the service (`replay.live.checked_events`)."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from loom.engine.registry import get_game
from loom.events.base import MAX_LINE, LoomError, MalformedEvent
from loom.replay.live import checked_events
from loom.replay.logfile import LogError, import_file
from loom.replay.store import Store

EXAMPLE = (Path(__file__).parents[2] / "docs" / "examples" / "motto-table-game.jsonl").read_text().splitlines()
HEADER, STARTED, DEALT, TOOK = (json.loads(line) for line in EXAMPLE[:4])


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    """An empty store on a real file."""
    with Store.open(tmp_path / "loom.duckdb") as opened:
        yield opened


def _refused(store: Store, lines: list[str], message: str) -> None:
    with pytest.raises(LogError) as refusal:
        import_file(store, io.StringIO("\n".join(lines) + "\n"))
    assert message in str(refusal.value)
    assert "\n" not in str(refusal.value)
    assert store.games(limit=10) == []


def _with(number: int, **changes: Any) -> list[str]:
    """The example table game with line `number` (from 1) changed; a value of `...` removes the key."""
    line = json.loads(EXAMPLE[number - 1]) | changes
    line = {key: value for key, value in line.items() if value is not ...}
    return [*EXAMPLE[: number - 1], json.dumps(line), *EXAMPLE[number:]]


def test_the_example_imports_as_given(store: Store) -> None:
    assert len(import_file(store, io.StringIO("\n".join(EXAMPLE)))) == 1


# --- The header ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("bots", "message"),
    [
        (5, "line 1: bots must be a list of a bot's name or null per seat, not 5"),
        ([{}, {}], "line 1: bots[0] must be a bot's name or null, not an object"),
        (["greedy", 3], "line 1: bots[1] must be a bot's name or null, not 3"),
        (["greedy", "x" * 101], "line 1: bots[1] must be a name of 1 to 100 characters"),
        (["greedy", None, None], "line 1: bots names 3 seats, but the game has 2 players"),
    ],
)
def test_bots_must_be_a_name_or_null_per_seat(store: Store, bots: object, message: str) -> None:
    _refused(store, _with(1, bots=bots), message)


@pytest.mark.parametrize("version", [0, "1", True, 1.0, None])
def test_the_format_version_must_be_the_number_1(store: Store, version: object) -> None:
    shown = json.dumps(version).replace('"', "'")
    _refused(store, _with(1, version=version), f"line 1: log format version {shown}; this Loom reads 1")


@pytest.mark.parametrize(("key", "value"), [("game", 5), ("id", "7"), ("parent", 1.5), ("source", [])])
def test_header_fields_have_their_kinds(store: Store, key: str, value: object) -> None:
    _refused(store, _with(1, **{key: value}), f"line 1: {key} must be")


# --- The players and the seed of the first event ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("players", "message"),
    [
        ("Ann", "line 2: motto.started: players must be a list, not 'Ann'"),
        ([1, 2], "line 2: motto.started: players[0] must be a string, not 1"),
        (["Ann", {"name": "Ben"}], "line 2: motto.started: players[1] must be a string, not an object"),
        (["Ann", ""], "line 2: motto.started: players[1] is empty"),
        (["Ann", "B" * 101], "line 2: motto.started: players[1] is longer than 100 characters"),
        (None, "line 2: motto.started: players must be a list, not null"),
    ],
)
def test_players_are_a_list_of_names(store: Store, players: object, message: str) -> None:
    _refused(store, _with(2, players=players), message)


def test_a_name_of_100_characters_is_read(store: Store) -> None:
    [game_id] = import_file(store, io.StringIO("\n".join(_with(2, players=["Ann", "B" * 100]))))
    assert store.game(game_id).seats[1].name == "B" * 100


@pytest.mark.parametrize(
    ("seed", "message"),
    [
        (2**63, "seed must be less than 2**63, not 9223372036854775808"),
        (2**64, "seed must be a whole number, not 1.8446744073709552e+19"),  # past 64 bits, JSON gives a float
        ("7", "seed must be a whole number, not '7'"),
        (-1, "seed must be at least 0, not -1"),
        (1.5, "seed must be a whole number, not 1.5"),
        (True, "seed must be a whole number, not true"),
    ],
)
def test_the_seed_is_a_whole_number_below_2_to_the_63(store: Store, seed: object, message: str) -> None:
    _refused(store, _with(2, seed=seed), f"line 2: motto.started: {message}")


def test_the_largest_seed_is_read(store: Store) -> None:
    [game_id] = import_file(store, io.StringIO("\n".join(_with(2, seed=2**63 - 1))))
    assert store.game(game_id).seed == 2**63 - 1


# --- Every event's envelope and fields -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"v": 0}, "line 4: v must be a schema version, a whole number from 1, not 0"),
        ({"v": "1"}, "line 4: v must be a schema version, a whole number from 1, not '1'"),
        ({"v": None}, "line 4: v must be a schema version, a whole number from 1, not null"),
        ({"v": 2}, "line 4: motto.took has schema version 2; this Loom reads up to 1"),
        ({"seq": "3"}, "line 4: seq must be a whole number, not '3'"),
        ({"seq": True}, "line 4: seq must be a whole number, not true"),
        ({"turn": 1.0}, "line 4: turn must be a whole number, not 1.0"),
        ({"actor": "0"}, "line 4: actor must be a seat number or null, not '0'"),
        ({"type": ...}, "line 4: an event needs its 'type'"),
        ({"type": 7}, "line 4: type must be a string, not 7"),
        ({"type": "motto.cheated"}, "line 4: unknown event type 'motto.cheated'"),
        ({"type": "moirai.drew"}, "line 4: moirai.drew is not an event of motto"),
        ({"card": 7}, "line 4: motto.took: card must be a string, not 7"),
        ({"card": ["red-2-money"]}, "line 4: motto.took: card must be a string, not a list"),
        ({"card": "x" * 101}, "line 4: motto.took: card is longer than 100 characters"),
    ],
)
def test_every_key_of_an_event_line_has_its_kind(store: Store, changes: dict[str, Any], message: str) -> None:
    _refused(store, _with(4, **changes), message)


def test_hands_may_not_be_null(store: Store) -> None:
    _refused(store, _with(3, hands=None), "line 3: motto.dealt: hands must be a list, not null")


def test_a_nested_list_is_checked_to_its_innermost_item(store: Store) -> None:
    _refused(store, _with(3, hands=[["red-2-love", 2], []]), "line 3: motto.dealt: hands[0][1] must be a string, not 2")


def test_a_fixed_number_of_items_is_kept(store: Store) -> None:
    lines = _with(7, cards=["red-2-love", "red-2-passion"])
    _refused(store, lines, "line 7: motto.played: cards has too few items (2)")


def test_points_of_a_token_are_a_whole_number_not_true(store: Store) -> None:
    _refused(store, _with(7, tokens=[["2", True], ["red", 3]]), "line 7: motto.played: tokens[0][1] must be a whole")


# --- Limits ----------------------------------------------------------------------------------------------------------


def _nested(depth: int) -> str:
    return "[" * depth + '"red-2-money"' + "]" * depth


@pytest.mark.parametrize("depth", [16, 500, 1_100, 5_000])
def test_a_field_nested_too_deep_is_refused_with_the_limit(store: Store, depth: int) -> None:
    line = '{"type": "motto.took", "card": ' + _nested(depth) + "}"
    _refused(store, [*EXAMPLE[:3], line], "line 4: ")
    _refused(store, [*EXAMPLE[:3], line], "nested too deep (a line may nest 16 levels of arrays and objects)")


def test_an_object_nested_deep_in_a_field_is_refused_with_the_limit(store: Store) -> None:
    line = '{"type": "motto.took", "card": ' + '{"a": ' * 600 + "1" + "}" * 600 + "}"
    _refused(store, [*EXAMPLE[:3], line], "line 4: motto.took: card is nested too deep (a line may nest 16 levels")


def test_fifteen_levels_inside_the_line_are_within_the_limit(store: Store) -> None:
    line = '{"type": "motto.took", "card": ' + _nested(15) + "}"  # the line's object makes 16
    _refused(store, [*EXAMPLE[:3], line], "line 4: motto.took: card must be a string, not a list")


class _Counting(io.StringIO):
    """A file that counts the characters it hands out."""

    handed = 0

    def readline(self, size: int | None = -1, /) -> str:
        text = super().readline(size)
        self.handed += len(text)
        return text


def test_an_over_long_line_is_refused_after_reading_no_more_than_the_limit(store: Store) -> None:
    long_line = '{"type": "motto.took", "card": "' + "x" * (3 * MAX_LINE) + '"}'
    file = _Counting("\n".join([*EXAMPLE[:3], long_line, *EXAMPLE[4:]]))
    with pytest.raises(LogError, match=r"^line 4: longer than 1,048,576 characters \(1 MiB\), the most a line"):
        import_file(store, file)
    assert file.handed <= sum(len(line) + 1 for line in EXAMPLE[:3]) + MAX_LINE + 1
    assert store.games(limit=10) == []


def test_a_line_of_exactly_the_limit_is_read(store: Store) -> None:
    padded = EXAMPLE[0][:-1] + " " * (MAX_LINE - len(EXAMPLE[0])) + "}"
    assert len(padded) == MAX_LINE
    assert len(import_file(store, io.StringIO("\n".join([padded, *EXAMPLE[1:]])))) == 1


# --- The same parser behind the service ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("event", "message", "error"),
    [
        (STARTED | {"players": "Ann"}, "event 1: motto.started: players must be a list, not 'Ann'", MalformedEvent),
        (STARTED | {"seed": 2**64}, "event 1: motto.started: seed must be less than 2**63", MalformedEvent),
        (STARTED | {"seed": "7"}, "event 1: motto.started: seed must be a whole number, not '7'", MalformedEvent),
        ({"players": ["A", "B"]}, "event 1: an event needs its 'type'", MalformedEvent),
        ({"type": 5}, "event 1: type must be a string, not 5", MalformedEvent),
        ([1, 2], "event 1: an event is a JSON object, not a list", MalformedEvent),
        (STARTED | {"v": 0}, "event 1: v must be a schema version, a whole number from 1, not 0", MalformedEvent),
        (STARTED | {"seq": True}, "event 1: seq must be a whole number, not true", MalformedEvent),
        (STARTED | {"seq": 2}, "event 1: seq is 2, but the rules make it 1", LoomError),
    ],
)
def test_the_service_reads_events_with_the_same_parser(event: Any, message: str, error: type[LoomError]) -> None:
    game = get_game("motto")
    with pytest.raises(error) as refusal:
        checked_events(game, game.blank(), [event], 0)
    assert str(refusal.value) == message or str(refusal.value).startswith(message)


def test_the_service_refuses_a_deeply_nested_event_without_recursing() -> None:
    game = get_game("motto")
    deep = json.loads('{"type": "motto.started", "players": ' + "[" * 900 + "]" * 900 + "}")
    with pytest.raises(MalformedEvent, match="event 1: motto.started: players is nested too deep"):
        checked_events(game, game.blank(), [deep], 0)


def test_a_field_of_the_wrong_kind_in_a_later_event_is_the_clients_error() -> None:
    game = get_game("motto")
    state = game.blank()
    opening = checked_events(game, state, [STARTED, DEALT], 0)
    with pytest.raises(MalformedEvent, match="^event 1: motto.took: card must be a string, not 7$"):
        checked_events(game, opening.state, [TOOK | {"card": 7}], 2)


# --- Any mutation: imported, or refused in one line with nothing written ---------------------------------------------

_JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**64 - 1)
    | st.floats(allow_nan=False)
    | st.text(max_size=8)
    | st.sampled_from(["red-2-love", "blue-1-love", "Ann", "motto.took", "motto.drew"]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=12,
)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    number=st.integers(min_value=1, max_value=len(EXAMPLE)),
    key=st.sampled_from(
        [
            "format",
            "version",
            "game",
            "bots",
            "type",
            "seq",
            "turn",
            "actor",
            "v",
            "players",
            "seed",
            "hands",
            "pool",
            "card",
            "cards",
            "tokens",
            "deck",
            "extra",
        ]
    ),
    value=_JSON | st.just(...),
)
def test_a_mutated_log_is_imported_or_refused_in_one_line(store: Store, number: int, key: str, value: Any) -> None:
    before = len(store.games(limit=1000))
    try:
        added = import_file(store, io.StringIO("\n".join(_with(number, **{key: value}))))
    except LogError as refusal:
        assert "\n" not in str(refusal) and str(refusal).startswith("line ")
        assert len(store.games(limit=1000)) == before
    else:
        assert len(store.games(limit=1000)) == before + len(added)
