"""`logs dashboard` and `logs replay --html`: pages written whole, bad input refused in one line."""

from __future__ import annotations

from pathlib import Path

from loom.replay.store import Store
from tests.cli.run import fails, logs, ok, record


def test_dashboard_writes_one_page(db: Path, tmp_path: Path) -> None:
    page = tmp_path / "report.html"
    assert "wrote the dashboard" in ok("dashboard", "--game", "motto", "-o", page, "--db", db)
    assert page.read_text().startswith("<!DOCTYPE html>")


def test_dashboard_filters_by_date_and_bot(db: Path, tmp_path: Path) -> None:
    page = tmp_path / "report.html"
    ok("dashboard", "--since", "2020-01-01", "--bot", "random", "-o", page, "--db", db)
    assert page.exists()


def test_dashboard_with_nothing_to_show_says_so(db: Path, tmp_path: Path) -> None:
    assert "no finished motto games to report on since 2999-01-01" in fails(
        "dashboard", "--game", "motto", "--since", "2999-01-01", "-o", tmp_path / "r.html", "--db", db
    )
    assert not (tmp_path / "r.html").exists()


def test_dashboard_of_an_unknown_game_is_refused(db: Path, tmp_path: Path) -> None:
    assert "unknown game 'chess'" in fails("dashboard", "--game", "chess", "-o", tmp_path / "r.html", "--db", db)


def test_a_page_that_cannot_be_written_is_refused_in_one_line(db: Path, tmp_path: Path) -> None:
    assert "cannot write" in fails("dashboard", "-o", tmp_path / "missing" / "r.html", "--db", db)


def test_replay_html_writes_the_games_page(db: Path, tmp_path: Path) -> None:
    page = tmp_path / "game.html"
    assert "wrote the replay of game 1" in ok("replay", "1", "--html", page, "--as", "0", "--db", db)
    assert "as seat 0" in page.read_text()


def test_replay_html_of_an_unknown_game_is_refused(db: Path, tmp_path: Path) -> None:
    assert "no game with id 999" in fails("replay", "999", "--html", tmp_path / "g.html", "--db", db)


def test_dashboard_first_lets_the_projector_catch_up_with_imported_games(db: Path, tmp_path: Path) -> None:
    log, copy, page = tmp_path / "one.jsonl", tmp_path / "copy.duckdb", tmp_path / "report.html"
    ok("export", "1", "-o", log, "--db", db)
    ok("import", log, "--db", copy)  # an import leaves the facts to the projector
    with Store.open(copy, read_only=True) as store:
        assert store.games_behind() == 1
    ok("dashboard", "--game", "motto", "-o", page, "--db", copy)
    with Store.open(copy, read_only=True) as store:
        assert store.games_behind() == 0
    assert "1 finished Motto game" in page.read_text()


def test_dashboard_of_a_store_it_cannot_write_says_how_many_games_are_left_out(db: Path, tmp_path: Path) -> None:
    log, copy, page = tmp_path / "one.jsonl", tmp_path / "copy.duckdb", tmp_path / "report.html"
    ok("export", "2", "-o", log, "--db", db)  # not game 1, which `record` stores again (a duplicate is refused)
    ok("rebuild", "--db", record(copy, "motto", 1))  # projected
    ok("import", log, "--db", copy)  # left to the projector
    with Store.open(copy, read_only=True):  # a reader holds the file: the dashboard cannot let the projector run
        code, _, stderr = logs("dashboard", "--game", "motto", "-o", page, "--db", copy)
    assert code == 0, stderr
    assert "1 finished game is not projected yet" in stderr
    assert "1 finished Motto game" in page.read_text()


def test_dashboard_from_a_lake_draws_the_games_exported_to_it(db: Path, tmp_path: Path) -> None:
    lake, page = tmp_path / "lake", tmp_path / "report.html"
    ok("export", "--format", "parquet", lake, "--db", db)
    assert "wrote the dashboard to" in ok("dashboard", "--lake", lake, "-o", page)
    assert "4 finished Motto games" in page.read_text()
    ok("dashboard", "--lake", lake, "--bot", "greedy", "--game", "motto", "-o", page)
    assert "with bot greedy" in page.read_text()
    assert "no finished games to report on with bot nobody" in fails("dashboard", "--lake", lake, "--bot", "nobody")


def test_dashboard_takes_a_lake_or_a_store_not_both(db: Path, tmp_path: Path) -> None:
    assert "not both" in fails("dashboard", "--lake", tmp_path, "--db", db, "-o", tmp_path / "r.html")
    assert "no lake at" in fails("dashboard", "--lake", tmp_path, "-o", tmp_path / "r.html")
    assert not (tmp_path / "r.html").exists()
