"""`logs import` of a game stored already, the log header's tags, and a summary instead of a wall of ids."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.run import fails, ok

GOLDEN = Path(__file__).parents[1] / "golden"
TABLE_GAME = GOLDEN / "moirai" / "table-game.jsonl"
TAGS = {
    "date": "2026-11-28",
    "place": "Café [red]Zürich[/red] <b>",
    "event": "Club night :smile:",
    "round": "3",
    "notes": "[bold]not bold[/bold]",
}


def _tagged(tmp_path: Path, **tags: str) -> Path:
    """The golden Moirai table game with these tags in its header."""
    header, *events = TABLE_GAME.read_text(encoding="utf-8").splitlines()
    path = tmp_path / "tagged.jsonl"
    lines = [json.dumps(json.loads(header) | tags, ensure_ascii=False), *events]
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def test_a_file_imported_twice_is_one_game_and_a_clear_refusal(tmp_path: Path) -> None:
    db = tmp_path / "t.duckdb"
    assert ok("import", TABLE_GAME, "--db", db).strip() == "imported 1 game: id 1"
    message = fails("import", TABLE_GAME, "--db", db)
    assert message == (
        f"error: {TABLE_GAME}: line 1: the same game as game 1, stored already (--skip-duplicates leaves it out); "
        "nothing was imported\n"
    )
    assert [row["id"] for row in json.loads(ok("list", "--db", db, "--json"))] == [1]


def test_skip_duplicates_imports_the_rest_and_says_how_many_it_skipped(tmp_path: Path, db: Path) -> None:
    both = tmp_path / "both.jsonl"
    ok("export", "1", "-o", both, "--db", db)
    both.write_text(both.read_text() + TABLE_GAME.read_text())
    said = ok("import", both, "--db", db, "--skip-duplicates").strip()
    assert said == "imported 1 game: id 5 (1 duplicate skipped)"
    again = json.loads(ok("import", both, "--db", db, "--skip-duplicates", "--json"))
    assert again == {"ids": [], "skipped": 2}


def test_import_lake_refuses_or_skips_the_games_stored_already(tmp_path: Path, db: Path) -> None:
    lake = tmp_path / "lake"
    ok("export", "--format", "parquet", lake, "--db", db)
    assert "lake game 1: the same game as game 1, stored already" in fails("import", "--lake", lake, "--db", db)
    said = " ".join(ok("import", "--lake", lake, "--db", db, "--skip-duplicates").split())  # unwrapped
    assert said == f"imported no game from lake {lake} (4 duplicates skipped)"


def test_many_imported_games_are_summed_up_in_one_line_and_listed_whole_in_json(tmp_path: Path, db: Path) -> None:
    path = tmp_path / "all.jsonl"
    ok("export", "-o", path, "--db", db)
    other = tmp_path / "other.duckdb"
    assert ok("import", path, "--db", other).strip() == "imported 4 games: ids 1 to 4"
    third = tmp_path / "third.duckdb"
    assert json.loads(ok("import", path, "--db", third, "--json")) == {"ids": [1, 2, 3, 4]}


def test_the_header_tags_are_stored_exported_as_given_and_shown_as_text(tmp_path: Path) -> None:
    db, path = tmp_path / "t.duckdb", _tagged(tmp_path, **TAGS)
    ok("import", path, "--db", db)
    exported = ok("export", "1", "--db", db).splitlines()
    header = json.loads(exported[0])
    assert {key: header[key] for key in TAGS} == TAGS
    shown = ok("show", "1", "--db", db)
    for line in ("Played: 2026-11-28", "Place: Café [red]Zürich[/red] <b>", "Event: Club night :smile:"):
        assert line in shown  # text, never markup nor emoji
    assert "Notes: [bold]not bold[/bold]" in shown
    assert json.loads(ok("show", "1", "--db", db, "--json"))["tags"] == TAGS
    again = tmp_path / "again.jsonl"
    again.write_text("\n".join(exported) + "\n", encoding="utf-8")
    ok("import", again, "--db", tmp_path / "other.duckdb")
    assert ok("export", "1", "--db", tmp_path / "other.duckdb").splitlines()[0] == exported[0]


def test_a_game_without_tags_shows_none_and_exports_none(tmp_path: Path, db: Path) -> None:
    assert json.loads(ok("show", "1", "--db", db, "--json"))["tags"] == {}
    assert set(json.loads(ok("export", "1", "--db", db).splitlines()[0])) == {"format", "version", "game", "id", "bots"}


def test_a_bad_date_or_a_control_character_is_refused_with_its_line(tmp_path: Path) -> None:
    db = tmp_path / "t.duckdb"
    for tags, reason in (
        ({"date": "2026-02-30"}, "date must be the day played as YYYY-MM-DD"),
        ({"date": "28/11/2026"}, "date must be the day played as YYYY-MM-DD"),
        ({"place": "x" * 101}, "place must be a text of 1 to 100 characters"),
        ({"notes": "two\nlines"}, "notes must be printable text on one line"),
        ({"event": "\x1b[31mred"}, "event must be printable text on one line"),
    ):
        assert f"line 1: {reason}" in fails("import", _tagged(tmp_path, **tags), "--db", db)
    assert json.loads(ok("list", "--db", db, "--json")) == []


def test_since_and_until_choose_by_the_day_played_when_the_log_gives_one(tmp_path: Path) -> None:
    db = tmp_path / "t.duckdb"
    ok("import", _tagged(tmp_path, date="2020-05-01"), "--db", db)  # played long before it was recorded
    ok("import", GOLDEN / "motto" / "table-game.jsonl", "--db", db)  # no date: recorded today
    assert _exported_ids("--since", "2020-04-30", "--until", "2020-05-02", db=db) == [1]
    assert _exported_ids("--since", "2021-01-01", db=db) == [2]
    assert _exported_ids("--until", "2020-05-01", db=db) == []


def _exported_ids(*filters: str, db: Path) -> list[int]:
    lines = ok("export", *filters, "--db", db).splitlines() if _chooses(*filters, db=db) else []
    return [json.loads(line)["id"] for line in lines if line.startswith('{"format"')]


def _chooses(*filters: str, db: Path) -> bool:
    from tests.cli.run import logs

    code, _, stderr = logs("export", *filters, "--db", db)
    assert code == 0 or "no game matches" in stderr, stderr
    return code == 0


def test_the_dashboard_chooses_and_dates_games_by_the_day_played(tmp_path: Path) -> None:
    played, db, page = tmp_path / "played.duckdb", tmp_path / "t.duckdb", tmp_path / "report.html"
    ok("simulate", "motto", "-n", "1", "--seed", "1", "--db", played)
    header, *events = ok("export", "1", "--db", played).splitlines()
    log = tmp_path / "dated.jsonl"  # a finished game played long before it was recorded
    log.write_text("\n".join([json.dumps(json.loads(header) | {"date": "2020-05-01"}), *events]) + "\n")
    ok("import", log, "--db", db)
    ok("dashboard", "--db", db, "-o", page)
    assert "played 2020-05-01" in page.read_text(encoding="utf-8")
    assert "no finished games to report on" in fails("dashboard", "--since", "2021-01-01", "--db", db, "-o", page)
