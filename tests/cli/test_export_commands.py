"""`logs export` of many games, to a file, to stdout and to a lake, and `logs import --lake`."""

from __future__ import annotations

import json
from pathlib import Path

from loom.replay.store import Store
from tests.cli.run import fails, logs, ok


def said(*args: str | Path) -> str:
    """What a command that succeeds prints, its whitespace made single spaces."""
    return " ".join(ok(*args).split())


def test_every_game_streams_as_each_games_export_in_a_row(db: Path) -> None:
    code, stdout, stderr = logs("export", "--db", db)
    assert code == 0 and stderr == ""  # no progress bar where stderr is not a terminal
    assert stdout == "".join(ok("export", str(game_id), "--db", db) for game_id in (1, 2, 3, 4))


def test_ids_and_ranges_write_their_games_to_one_file(db: Path, tmp_path: Path) -> None:
    path = tmp_path / "some.jsonl"
    assert said("export", "1", "3-4", "-o", path, "--db", db).startswith("wrote 3 games (")
    headers = [json.loads(line) for line in path.read_text().splitlines() if line.startswith('{"format"')]
    assert [header["id"] for header in headers] == [1, 3, 4]
    assert json.loads(ok("import", path, "--db", tmp_path / "other.duckdb", "--json")) == {"ids": [1, 2, 3]}


def test_one_game_keeps_its_message(db: Path, tmp_path: Path) -> None:
    path = tmp_path / "one.jsonl"
    message = said("export", "2", "-o", path, "--db", db)
    assert message == f"wrote game 2 ({len(path.read_text().splitlines()) - 1} events) to {path}"


def test_filters_that_choose_nothing_write_nothing(db: Path, tmp_path: Path) -> None:
    path = tmp_path / "none.jsonl"
    assert "no game matches; nothing was written" in fails("export", "--game", "moirai", "-o", path, "--db", db)
    assert not path.exists()
    assert "no game with id 99" in fails("export", "99", "--db", db)
    assert "neither a game id nor a range" in fails("export", "1-x", "--db", db)


def test_a_lake_export_adds_only_new_games(db: Path, tmp_path: Path) -> None:
    lake = tmp_path / "lake"
    assert said("export", "--format", "parquet", lake, "1-2", "--db", db).startswith("added 2 games to lake")
    assert said("export", "--format", "parquet", "-o", lake, "--db", db).startswith("added 2 games to lake")
    assert "holds every chosen game already" in said("export", "-f", "parquet", lake, "--db", db)
    assert "one lake folder" in fails("export", "--format", "parquet", "--db", db)


def test_a_lake_imports_with_its_ids_mapped(db: Path, tmp_path: Path) -> None:
    lake = tmp_path / "lake"
    ok("export", "--format", "parquet", lake, "--db", db)
    fresh = tmp_path / "fresh.duckdb"
    imported = json.loads(ok("import", "--lake", lake, "--id", "2-3", "--db", fresh, "--json"))
    assert imported == {"ids": [1, 2], "lake": {"2": 1, "3": 2}}
    assert ok("export", "1", "--db", fresh).splitlines()[1:] == ok("export", "2", "--db", db).splitlines()[1:]
    assert "lake game 2: the same game as game 1, stored already" in fails("import", "--lake", lake, "--db", fresh)
    again = said("import", "--lake", lake, "--db", fresh, "--skip-duplicates")
    assert again == f"imported 2 games from lake {lake}: ids 3 to 4 (2 duplicates skipped)"


def test_an_import_needs_one_source(db: Path, tmp_path: Path) -> None:
    assert "give a log file" in fails("import", "--db", db)
    assert "not both" in fails("import", tmp_path / "x.jsonl", "--lake", tmp_path, "--db", db)
    assert "a log file is imported whole" in fails("import", tmp_path / "x.jsonl", "--finished", "--db", db)
    assert "no lake at" in fails("import", "--lake", tmp_path, "--db", db)


def test_a_lake_export_lets_the_projector_finish_imported_games_first(db: Path, tmp_path: Path) -> None:
    log, copy, lake = tmp_path / "one.jsonl", tmp_path / "copy.duckdb", tmp_path / "lake"
    ok("export", "1", "-o", log, "--db", db)
    ok("import", log, "--db", copy)  # an import leaves the facts to the projector
    assert said("export", "--format", "parquet", lake, "--db", copy).startswith("added 1 games to lake")
    with Store.open(copy, read_only=True) as store:
        assert store.games_behind() == 0


def test_a_lake_export_leaves_out_games_it_cannot_let_the_projector_finish(db: Path, tmp_path: Path) -> None:
    log, copy, lake = tmp_path / "one.jsonl", tmp_path / "copy.duckdb", tmp_path / "lake"
    ok("export", "1", "-o", log, "--db", db)
    ok("import", log, "--db", copy)
    with Store.open(copy, read_only=True):  # a reader holds the file: the projector cannot run
        code, stdout, stderr = logs("export", "--format", "parquet", lake, "--db", copy)
    assert code == 0, stderr
    assert "1 chosen game is not projected yet" in stderr and "nothing was written" in stdout
    assert said("export", "--format", "parquet", lake, "--db", copy).startswith("added 1 games to lake")
