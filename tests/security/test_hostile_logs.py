"""Hostile log files: real exports of every game, mutated field by field and line by line, are either a valid game
(then export and import agree) or refused in one line with nothing written. Then each input issue 12 lists, alone."""

from __future__ import annotations

import io
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rich.console import Console

from loom.engine.presentation import presentation
from loom.engine.registry import get_game
from loom.events.base import ENVELOPE_ORDER, LoomError
from loom.replay.live import service_secret
from loom.replay.logfile import export_lines, import_file
from loom.replay.replay import position
from loom.replay.store import Store
from loom.service.access import Keys
from loom.service.server import free_port, running
from loom.service.settings import Settings
from tests.cli.run import EXAMPLES
from tests.security.common import GAMES, logs, one_line_error, one_line_refusal, recorded_lines, rows, rows_in
from tests.security.conftest import TALLY
from tests.service.client import Api

EVENTS_KEPT = 60
"""Events of each recorded game the mutations work on: enough for every kind of event, few enough to be quick."""


def nested(depth: int) -> Any:
    """A list `depth` levels deep."""
    value: Any = 0
    for _ in range(depth):
        value = [value]
    return value


SCALARS = st.sampled_from(
    [2**63, 2**64, 2**63 - 1, -(2**63) - 1, -1, 0, 1, 1.5, -0.0, 1e300, "7", "-1", "", "1", None, True, False]
)
HOSTILE = st.one_of(
    SCALARS,
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=12),
    st.from_regex(r"[0-9]{1,25}", fullmatch=True),
    st.integers(min_value=1, max_value=600).map(nested),
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(max_size=4),
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=2),
        max_leaves=8,
    ),
)
"""Values of every JSON type, the edges of 64-bit integers, strings of digits, and nesting up to 600 deep."""
FIXED = settings(
    deadline=None, derandomize=True, database=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
"""The same examples on every run (fixed seeds), none kept between runs, and no deadline on a loaded machine."""
KINDS = ("set", "set", "set", "set_inner", "drop_field", "add_field", "drop_line", "dup_line", "swap_lines")


class Logs(dict[str, list[dict[str, Any]]]):
    """Each game's log lines, shown briefly in hypothesis's report of a failing example."""

    def __repr__(self) -> str:
        return f"<the first {EVENTS_KEPT} events of a recorded game of each of {', '.join(self)}>"


@pytest.fixture(scope="module")
def logs_of(tmp_path_factory: pytest.TempPathFactory) -> Logs:
    """Each game's header and first events, as decoded log lines."""
    folder = tmp_path_factory.mktemp("hostile")
    return Logs(
        (game, [json.loads(line) for line in recorded_lines(folder / f"{game}.duckdb", game)[: EVENTS_KEPT + 1]])
        for game in GAMES
    )


@pytest.fixture(scope="module")
def target(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Store]:
    """The store the mutated files are imported into, on a file, open for the module."""
    with Store.open(tmp_path_factory.mktemp("target") / "target.duckdb") as store:
        yield store


def mutate(data: st.DataObject, lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A copy of `lines` with one mutation drawn by hypothesis: a field's value replaced (or an element of a list
    field), a field dropped or added, a line dropped, duplicated or swapped with another."""
    lines = json.loads(json.dumps(lines))
    index = data.draw(st.one_of(st.sampled_from([0, 1, 2]), st.integers(0, len(lines) - 1)), label="line")
    kind = data.draw(st.sampled_from(KINDS), label="kind")
    line = lines[index]
    if kind in ("set", "set_inner", "drop_field"):
        extra = ["version", "bots", "game", "id"] if index == 0 else list(ENVELOPE_ORDER)
        key = data.draw(st.sampled_from(sorted(set(line) | set(extra))), label="key")
        if kind == "drop_field":
            line.pop(key, None)
        elif kind == "set_inner" and isinstance(line.get(key), list) and line[key]:
            at = data.draw(st.integers(0, len(line[key]) - 1), label="at")
            line[key][at] = data.draw(HOSTILE, label="value")
        else:
            line[key] = data.draw(HOSTILE, label="value")
    elif kind == "add_field":
        line[data.draw(st.text(min_size=1, max_size=8), label="new key")] = data.draw(HOSTILE, label="value")
    elif kind == "drop_line":
        del lines[index]
    elif kind == "dup_line":
        lines.insert(index, json.loads(json.dumps(line)))
    else:
        other = data.draw(st.integers(0, len(lines) - 1), label="other")
        lines[index], lines[other] = lines[other], lines[index]
    return lines


def text_of(lines: list[dict[str, Any]]) -> str:
    """The lines as a log file's text."""
    return "".join(json.dumps(line) + "\n" for line in lines)


def check_accepted(store: Store, ids: list[int]) -> None:
    """An accepted game replays, renders for everyone and each seat, and survives export and import unchanged."""
    for game_id in ids:
        at = position(store, game_id)
        console = Console(file=io.StringIO(), width=120)
        console.print(presentation(at.game.name).render(at.state, None))
        at.game.describe(at.state)
        for seat in range(at.info.players):
            console.print(presentation(at.game.name).render(at.game.view(at.state, seat), seat))
            at.game.describe(at.game.view(at.state, seat))
        exported = list(export_lines(store, game_id))
        (again,) = import_file(store, io.StringIO("\n".join(exported) + "\n"), workers=1)
        assert list(export_lines(store, again))[1:] == exported[1:]


def import_or_refuse(store: Store, text: str) -> str:
    """Import `text`: 'accepted' if it was a valid file (checked by `check_accepted`), 'refused' if it was refused
    in one line with the store as it was; anything else (another exception) fails the test."""
    before = rows(store)
    TALLY["hostile files tried"] += 1
    try:
        ids = import_file(store, io.StringIO(text), workers=1)
    except LoomError as error:
        assert one_line_error(str(error)), str(error)
        assert rows(store) == before
        TALLY["hostile files refused cleanly"] += 1
        return "refused"
    assert ids
    TALLY["hostile files accepted"] += 1
    check_accepted(store, ids)
    return "accepted"


@pytest.mark.parametrize("game", GAMES)
@settings(FIXED, max_examples=150)
@given(data=st.data())
def test_a_mutated_log_is_refused_in_one_line_or_is_a_valid_game(
    game: str, data: st.DataObject, logs_of: Logs, target: Store
) -> None:
    import_or_refuse(target, text_of(mutate(data, logs_of[game])))


@pytest.mark.parametrize("game", GAMES)
@settings(FIXED, max_examples=6)
@given(data=st.data())
def test_logs_import_of_a_mutated_log_exits_2_with_one_line_and_writes_nothing(
    game: str, data: st.DataObject, logs_of: Logs, tmp_path_factory: pytest.TempPathFactory
) -> None:
    folder = tmp_path_factory.mktemp("cli")
    db, file = folder / "cli.duckdb", folder / "mutated.jsonl"
    Store.open(db).close()
    file.write_text(text_of(mutate(data, logs_of[game])), encoding="utf-8")
    TALLY["hostile files tried"] += 1
    code, _, stderr = logs("import", file, "--db", db)
    assert code in (0, 2), stderr
    if code == 2:
        assert one_line_refusal(stderr), stderr
        assert set(rows_in(db).values()) == {0}
        TALLY["hostile files refused cleanly"] += 1


# --- Each input issue 12 lists, on its own ---------------------------------------------------------------------------


@pytest.fixture
def table_game() -> list[dict[str, Any]]:
    """docs/examples/motto-table-game.jsonl, decoded: Ann and Ben's game typed after a real table."""
    text = (EXAMPLES / "motto-table-game.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


@pytest.fixture
def db(tmp_path: Path) -> Path:
    """A store with one game imported in it (the table game), closed again."""
    path = tmp_path / "loom.duckdb"
    code, _, stderr = logs("import", EXAMPLES / "motto-table-game.jsonl", "--db", path)
    assert code == 0, stderr
    return path


def refused_import(db: Path, tmp_path: Path, text: str) -> str:
    """`logs import` of `text`: it must exit 2 with one line and leave the store as it was; that line."""
    file = tmp_path / "hostile.jsonl"
    file.write_text(text, encoding="utf-8")
    before = rows_in(db)
    TALLY["listed inputs tried"] += 1
    code, _, stderr = logs("import", file, "--db", db)
    assert code == 2 and one_line_refusal(stderr), (code, stderr)
    assert rows_in(db) == before
    TALLY["listed inputs refused cleanly"] += 1
    return stderr


def changed(lines: list[dict[str, Any]], index: int, key: str, value: Any) -> str:
    """The file's text with `key` of line `index` set to `value`."""
    lines = json.loads(json.dumps(lines))
    lines[index][key] = value
    return text_of(lines)


@pytest.mark.parametrize("bots", [5, [{}, {}], "random", [1, 2]], ids=repr)
def test_a_header_whose_bots_are_not_a_name_per_seat_is_refused(
    table_game: list[dict[str, Any]], db: Path, tmp_path: Path, bots: Any
) -> None:
    refused_import(db, tmp_path, changed(table_game, 0, "bots", bots))


@pytest.mark.parametrize(
    "players", ["Ann", [1, 2], [{"name": "Ann"}, "Ben"], ["Ann", None], [["Ann"], "Ben"]], ids=repr
)
def test_players_that_are_not_a_list_of_names_are_refused(
    table_game: list[dict[str, Any]], db: Path, tmp_path: Path, players: Any
) -> None:
    refused_import(db, tmp_path, changed(table_game, 1, "players", players))


def test_a_deal_whose_hands_are_null_is_refused(table_game: list[dict[str, Any]], db: Path, tmp_path: Path) -> None:
    refused_import(db, tmp_path, changed(table_game, 2, "hands", None))


@pytest.mark.parametrize("version", [0, "1", -1, 2**64], ids=repr)
def test_a_schema_version_that_is_not_a_known_number_is_refused(
    table_game: list[dict[str, Any]], db: Path, tmp_path: Path, version: Any
) -> None:
    refused_import(db, tmp_path, changed(table_game, 3, "v", version))


@pytest.mark.parametrize("seed", [2**63, 2**64, "7", -1, 1.5, [7]], ids=repr)
def test_a_seed_that_is_not_a_63_bit_number_is_refused(
    table_game: list[dict[str, Any]], db: Path, tmp_path: Path, seed: Any
) -> None:
    refused_import(db, tmp_path, changed(table_game, 1, "seed", seed))


@pytest.mark.parametrize("key", ["card", "hands", "players", "tokens"])
def test_a_field_nested_500_deep_is_refused(
    table_game: list[dict[str, Any]], db: Path, tmp_path: Path, key: str
) -> None:
    index = next(i for i, line in enumerate(table_game) if key in line)
    refused_import(db, tmp_path, changed(table_game, index, key, nested(500)))


def test_a_line_too_long_to_be_a_real_table_is_refused(
    table_game: list[dict[str, Any]], db: Path, tmp_path: Path
) -> None:
    said = refused_import(db, tmp_path, changed(table_game, 1, "players", ["A" * 24_000_000, "Ben"]))
    assert "line 2" in said


def test_a_player_name_longer_than_any_persons_is_refused(
    table_game: list[dict[str, Any]], db: Path, tmp_path: Path
) -> None:
    refused_import(db, tmp_path, changed(table_game, 1, "players", ["Ann " * 5000, "Ben"]))


def test_an_event_without_a_type_is_refused_naming_no_python_object(
    table_game: list[dict[str, Any]], db: Path, tmp_path: Path
) -> None:
    lines = json.loads(json.dumps(table_game))
    del lines[3]["type"]
    assert "<object" not in refused_import(db, tmp_path, text_of(lines))


def test_an_unknown_event_type_is_refused_naming_it(table_game: list[dict[str, Any]], db: Path, tmp_path: Path) -> None:
    assert "motto.stole" in refused_import(db, tmp_path, changed(table_game, 3, "type", "motto.stole"))


@pytest.mark.parametrize("value", [[], {}, 3, None], ids=repr)
def test_an_event_type_that_is_not_a_string_is_refused(
    table_game: list[dict[str, Any]], db: Path, tmp_path: Path, value: Any
) -> None:
    assert "<object" not in refused_import(db, tmp_path, changed(table_game, 3, "type", value))


# --- The command line's own arguments --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [("show", "abc"), ("replay", "1", "--as", "x"), ("list", "--limit", "0"), ("replay", "abc"), ("export", "1.5")],
    ids=" ".join,
)
def test_a_bad_argument_is_one_line_not_typers_box(db: Path, args: tuple[str, ...]) -> None:
    TALLY["listed inputs tried"] += 1
    code, _, stderr = logs(*args, "--db", db)
    assert code == 2 and one_line_refusal(stderr), stderr
    TALLY["listed inputs refused cleanly"] += 1


def test_a_branch_played_with_5000_nested_brackets_is_refused_in_one_line(db: Path) -> None:
    before = rows_in(db)
    TALLY["listed inputs tried"] += 1
    code, _, stderr = logs("branch", "1", "--turn", "2", "--play", "[" * 5000 + "]" * 5000, "--db", db)
    assert code == 2 and one_line_refusal(stderr), stderr
    assert rows_in(db) == before
    TALLY["listed inputs refused cleanly"] += 1


def test_a_duckdb_file_that_is_not_a_loom_store_is_refused_and_left_alone(tmp_path: Path) -> None:
    import duckdb

    path = tmp_path / "other.duckdb"
    with duckdb.connect(str(path)) as con:
        con.execute("CREATE TABLE birds (name VARCHAR)")
        con.execute("INSERT INTO birds VALUES ('wren')")
    TALLY["listed inputs tried"] += 1
    for args in (("list",), ("import", EXAMPLES / "motto-table-game.jsonl")):
        code, _, stderr = logs(*args, "--db", path)
        assert code == 2 and one_line_refusal(stderr), stderr
    with duckdb.connect(str(path), read_only=True) as con:
        assert con.execute("SELECT table_name FROM information_schema.tables").fetchall() == [("birds",)]
    TALLY["listed inputs refused cleanly"] += 1


def test_a_file_that_is_not_utf8_or_not_json_is_refused(db: Path, tmp_path: Path) -> None:
    for raw in (b"\xff\xfe{}", b'{"format": "loom-log", "version": 1, "game": "motto"}\n{"type": \n'):
        file = tmp_path / "bad.jsonl"
        file.write_bytes(raw)
        TALLY["listed inputs tried"] += 1
        code, _, stderr = logs("import", file, "--db", db)
        assert code == 2 and one_line_refusal(stderr), stderr
        TALLY["listed inputs refused cleanly"] += 1


def test_the_example_table_games_import_and_export_unchanged(tmp_path: Path) -> None:
    """The hostile checks above refuse only what is wrong: every hand-written example still imports."""
    with Store.open(tmp_path / "examples.duckdb") as store:
        for game in GAMES:
            with (EXAMPLES / f"{game}-table-game.jsonl").open(encoding="utf-8") as file:
                ids = import_file(store, file, workers=1)
            check_accepted(store, ids)
            assert get_game(game).name == store.game(ids[0]).game


# --- The same inputs through the API, and the API's own --------------------------------------------------------------


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    """A default server (loopback, no admin token) on a database of its own."""
    path = tmp_path_factory.mktemp("hostile-api") / "served.duckdb"
    with running(Settings(str(path), port=free_port())) as base:
        client = Api(base)
        yield client
        client.close()


def refused_by_api(api: Api, method: str, path: str, **kwargs: Any) -> str:
    """A request that must get a 4xx JSON error of one line and write nothing; the error."""
    before = api.ok("GET", "/games?limit=1000")
    TALLY["listed inputs tried"] += 1
    with api.http.stream(method, path, timeout=10, **kwargs) as response:  # a stream that starts is not read
        assert 400 <= response.status_code < 500, response.status_code
        response.read()
    assert 400 <= response.status_code < 500, (response.status_code, response.text[:300])
    error = response.json()["error"]
    assert isinstance(error, str) and one_line_error(error), error
    assert api.ok("GET", "/games?limit=1000") == before
    TALLY["listed inputs refused cleanly"] += 1
    return error


HOSTILE_OPENINGS = {
    "players: 'Ann'": (1, "players", "Ann"),
    "players: [1, 2]": (1, "players", [1, 2]),
    "a player named by an object": (1, "players", [{"name": "Ann"}, "Ben"]),
    "hands: null": (2, "hands", None),
    "v: '1'": (2, "v", "1"),
    "v: 0": (2, "v", 0),
    "seed: 2**64": (1, "seed", 2**64),
    "seed: 2**63": (1, "seed", 2**63),
    "seed: '7'": (1, "seed", "7"),
    "seed: -1": (1, "seed", -1),
    "seed: 1.5": (1, "seed", 1.5),
    "hands nested 500 deep": (2, "hands", nested(500)),
    "pool nested 900 deep": (2, "pool", nested(900)),
}


@pytest.mark.parametrize("case", HOSTILE_OPENINGS, ids=str)
def test_a_table_opening_with_a_bad_field_is_refused_by_the_api_as_by_logs_import(
    api: Api, table_game: list[dict[str, Any]], case: str
) -> None:
    index, key, value = HOSTILE_OPENINGS[case]
    lines = json.loads(json.dumps(table_game))
    lines[index][key] = value
    refused_by_api(
        api,
        "POST",
        "/games",
        content=json.dumps({"game": "motto", "events": lines[1:4]}),
        headers={"Content-Type": "application/json"},
    )


def test_table_events_nested_900_deep_are_refused_in_one_line(api: Api, table_game: list[dict[str, Any]]) -> None:
    created = api.ok("POST", "/games", json={"game": "motto", "events": table_game[1:3]})
    body = json.dumps({"expected_seq": created["seq"], "events": [{"type": "motto.took", "card": nested(900)}]})
    table = created["tokens"]["table"]
    refused_by_api(
        api,
        "POST",
        f"/games/{created['id']}/events",
        content=body,
        headers={"Content-Type": "application/json", "Authorization": f"Bearer {table}"},
    )
    assert api.ok("GET", f"/games/{created['id']}", table)["seq"] == created["seq"]


@pytest.mark.parametrize("last_event_id", ["²", "¹", "-1", "1.5", "abc"])
def test_a_stream_resumed_from_a_bad_last_event_id_is_refused_in_one_line(api: Api, last_event_id: str) -> None:
    created = api.ok("POST", "/games", json={"game": "motto", "players": ["Ann", "Ben"], "seed": 3})
    header = {"Last-Event-ID": last_event_id.encode("latin-1")}  # its bytes as a browser sends them
    refused_by_api(api, "GET", f"/games/{created['id']}/stream", headers=header)


# --- Text from logs is data, never markup ----------------------------------------------------------------------------

MARKUP_NAMES = ["[link=javascript:alert(document.domain)]Ann[/link]", "<script>alert(2)</script>[bold]Ben"]
"""The issue's name, and one in HTML: long, so for pages (a terminal's table would wrap them)."""
SHORT_MARKUP_NAMES = ["[link=javascript:x]Ann[/link]", "[bold]Ben"]
"""Names in rich markup short enough to print whole in an 80-column table."""


def marked_up(table_game: list[dict[str, Any]], tmp_path: Path, names: list[str]) -> Path:
    """A store holding the table game with its players named `names`."""
    lines = json.loads(json.dumps(table_game))
    lines[1]["players"] = names
    file, db = tmp_path / "marked.jsonl", tmp_path / "marked.duckdb"
    file.write_text(text_of(lines), encoding="utf-8")
    code, _, stderr = logs("import", file, "--db", db)
    assert code == 0, stderr
    return db


def no_live_markup(page: str) -> None:
    """A page in which the names are text: no javascript: link and no script of theirs, in the page or in the
    tables it swaps in from its JSON data."""
    data = re.findall(r'<script type="application/json"[^>]*>(.*?)</script>', page, re.S)
    for text in [page, *(json.dumps(json.loads(chunk), ensure_ascii=False) for chunk in data)]:
        text = text.replace('\\"', '"').lower()
        assert 'href="javascript:' not in text and "href='javascript:" not in text
        assert "<script>alert(2)</script>" not in text


def test_names_in_rich_markup_are_printed_as_written(table_game: list[dict[str, Any]], tmp_path: Path) -> None:
    db = marked_up(table_game, tmp_path, SHORT_MARKUP_NAMES)
    for args in (("replay", "1"), ("replay", "1", "--as", "0"), ("show", "1")):
        code, stdout, stderr = logs(*args, "--db", db)
        assert code == 0, stderr
        assert all(name in stdout for name in SHORT_MARKUP_NAMES), (args, stdout[:400])


def test_names_in_markup_are_text_on_every_page(table_game: list[dict[str, Any]], tmp_path: Path) -> None:
    db = marked_up(table_game, tmp_path, MARKUP_NAMES)
    for seat in ("0", "1", None):
        page = tmp_path / "replay.html"
        code, _, stderr = logs("replay", "1", "--html", page, *(("--as", seat) if seat else ()), "--db", db)
        assert code == 0, stderr
        no_live_markup(page.read_text(encoding="utf-8"))
    served = tmp_path / "served.duckdb"
    served.write_bytes(db.read_bytes())
    with Store.open(served) as store:
        seat_0 = Keys(service_secret(store), None).token(1, 0)
    with running(Settings(str(served), port=free_port())) as base:
        client = Api(base)
        response = client.call("GET", f"/games/1/replay?token={seat_0}")
        assert response.status_code == 200, response.text
        no_live_markup(response.text)
        client.close()
