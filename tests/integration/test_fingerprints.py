"""Each stored game's content fingerprint: the same game typed twice, or exported and imported, has the same one; a
branch or another game differs; a store of schema 4 migrates and fingerprints the games it holds."""

from __future__ import annotations

import io
from pathlib import Path

import duckdb
import pytest

from loom.engine.registry import get_game
from loom.replay.branches import branch
from loom.replay.fingerprint import DuplicateGame, Duplicates
from loom.replay.logfile import export_lines, import_file
from loom.replay.simulate import simulate
from loom.replay.store import SCHEMA_VERSION, Store

GOLDEN = Path(__file__).parents[1] / "golden"
TABLE_GAME = GOLDEN / "moirai" / "table-game.jsonl"  # written at a table: no seed, import draws one


def _print(store: Store, game_id: int) -> str | None:
    return store.game(game_id).fingerprint


def _import(store: Store, text: str, *, skip: bool = False) -> tuple[list[int], Duplicates]:
    guard = Duplicates(store.db, skip=skip)
    return import_file(store, io.StringIO(text), workers=1, duplicates=guard), guard


def _games(store: Store) -> int:
    return int(store.con.execute("SELECT count(*) FROM games").fetchone()[0])  # type: ignore[index]


def test_a_game_typed_at_a_table_imported_twice_has_one_fingerprint_though_its_seeds_differ(tmp_path: Path) -> None:
    with Store.open(tmp_path / "a.duckdb") as a, Store.open(tmp_path / "b.duckdb") as b:
        (first,) = import_file(a, io.StringIO(TABLE_GAME.read_text()))
        (second,) = import_file(b, io.StringIO(TABLE_GAME.read_text()))
        assert a.game(first).seed != b.game(second).seed
        assert _print(a, first) == _print(b, second) is not None


def test_an_exported_game_imported_elsewhere_keeps_its_fingerprint_and_two_games_differ(tmp_path: Path) -> None:
    with Store.open(tmp_path / "a.duckdb") as a, Store.open(tmp_path / "b.duckdb") as b:
        ids = simulate(a, get_game("motto"), 2, ["greedy", "random"], seed=3)
        text = "".join(line + "\n" for line in export_lines(a, ids[0]))
        (copy,) = import_file(b, io.StringIO(text))
        assert _print(b, copy) == _print(a, ids[0]) != _print(a, ids[1])


def test_a_branch_gets_its_own_fingerprint_when_the_store_is_next_opened(tmp_path: Path) -> None:
    path = tmp_path / "a.duckdb"
    with Store.open(path) as store:
        (game_id,) = simulate(store, get_game("motto"), 1, ["random", "random"], seed=5)
        child = branch(store, game_id, 3, [], None)  # no event of its own yet: the parent's first turns
        assert _print(store, child) is None  # its prefix is its parent's: computed by the next writable open
    with Store.open(path) as store:
        fingerprint = _print(store, child)
        assert fingerprint not in (None, _print(store, game_id))
        text = "".join(line + "\n" for line in export_lines(store, child))
    with Store.open(tmp_path / "b.duckdb") as other:
        (copy,) = import_file(other, io.StringIO(text))
        assert _print(other, copy) == fingerprint


def test_importing_a_game_stored_already_is_refused_naming_its_line_and_the_stored_game(tmp_path: Path) -> None:
    with Store.open(tmp_path / "a.duckdb") as store:
        ids = simulate(store, get_game("motto"), 2, ["random", "random"], seed=1)
        first, second = ("".join(line + "\n" for line in export_lines(store, game_id)) for game_id in ids)
        with pytest.raises(DuplicateGame, match="^line 1: the same game as game 1, stored already"):
            _import(store, first + second)
        table = TABLE_GAME.read_text()  # a new game first: the refusal names the stored one's header
        with pytest.raises(DuplicateGame, match=f"^line {table.count(chr(10)) + 1}: the same game as game 2, stored"):
            _import(store, table + second)
        assert _games(store) == 2


def test_a_game_twice_in_one_file_is_refused_at_its_second_header(tmp_path: Path) -> None:
    with Store.open(tmp_path / "a.duckdb") as source, Store.open(tmp_path / "b.duckdb") as store:
        (game_id,) = simulate(source, get_game("motto"), 1, ["random", "random"], seed=2)
        lines = [line + "\n" for line in export_lines(source, game_id)]
        with pytest.raises(DuplicateGame, match=f"^line {len(lines) + 1}: the same game as an earlier one"):
            _import(store, "".join(lines * 2))
        assert _games(store) == 0


def test_a_game_twice_in_one_file_is_refused_as_an_earlier_one_though_that_one_is_stored_in_another_chunk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("loom.replay.logfile.CHUNK_LINES", 1)  # each game a chunk: the first stored before the second
    with Store.open(tmp_path / "a.duckdb") as source, Store.open(tmp_path / "b.duckdb") as store:
        (game_id,) = simulate(source, get_game("motto"), 1, ["random", "random"], seed=2)
        lines = [line + "\n" for line in export_lines(source, game_id)]
        with pytest.raises(DuplicateGame, match=f"^line {len(lines) + 1}: the same game as an earlier one"):
            _import(store, "".join(lines * 2))
        assert _games(store) == 0


def test_skipping_duplicates_stores_the_new_games_and_counts_the_others(tmp_path: Path) -> None:
    with Store.open(tmp_path / "a.duckdb") as source, Store.open(tmp_path / "b.duckdb") as store:
        ids = simulate(source, get_game("motto"), 3, ["random", "random"], seed=4)
        games = ["".join(line + "\n" for line in export_lines(source, game_id)) for game_id in ids]
        _import(store, games[0])
        new, guard = _import(store, games[0] + games[1] + games[1] + games[2], skip=True)
        assert (new, guard.skipped) == ([2, 3], 2)
        assert [_print(store, i) for i in (1, 2, 3)] == [_print(source, i) for i in ids]


def test_a_store_of_schema_4_migrates_and_fingerprints_its_games_as_they_would_be_now(tmp_path: Path) -> None:
    path = tmp_path / "old.duckdb"
    with Store.open(path) as store:
        ids = simulate(store, get_game("moorea"), 2, ["random", "random"], seed=6, facts=True)
        expected = [_print(store, i) for i in ids]
    with duckdb.connect(str(path)) as con:  # as schema 4 left it: no fingerprint, no tags
        for column in ("fingerprint", "played", "place", "event", "round", "notes"):
            con.execute(f"ALTER TABLE games DROP COLUMN {column}")
        con.execute("UPDATE meta SET value = '4' WHERE key = 'schema_version'")
    with Store.open(path, read_only=True) as reader:  # read as it is, never written
        assert [reader.game(i).fingerprint for i in ids] == [None, None]
        assert reader.game(ids[0]).tags() == {}
    with Store.open(path) as migrated:
        version = migrated.con.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        assert version == (str(SCHEMA_VERSION),) == ("5",)
        assert [_print(migrated, i) for i in ids] == expected
