"""`logs export`: chosen games as one JSON Lines log (streamed) or into a Parquet lake; the filters `logs import
--lake` shares."""

from __future__ import annotations

import os
import sys
from datetime import datetime
from enum import StrEnum
from pathlib import Path
from typing import IO, Annotated

import typer
from rich.markup import escape

from loom.cli.app import app
from loom.cli.common import Db, err, fails_cleanly, id_summary, open_store, out, plural, print_json, progress_bar
from loom.events.base import LoomError
from loom.replay.export import BadSelection, Selection, choose, pages, parse_ranges
from loom.replay.store import Store

DATES = ["%Y-%m-%d", "%Y-%m-%dT%H:%M", "%Y-%m-%d %H:%M"]

# The filters, shared by `logs export` and `logs import --lake` (lichess's game export has the same).
Game = Annotated[str | None, typer.Option("--game", "-g", help="Only games of this kind (motto, moirai, ...).")]
Since = Annotated[
    datetime | None,
    typer.Option(
        "--since",
        help="Only games played (the log's date, else recorded) on or after this date (2026-12-01, 2026-12-01T18:00).",
        formats=DATES,
    ),
]
Until = Annotated[
    datetime | None,
    typer.Option("--until", help="Only games played (else recorded) before this date (same forms).", formats=DATES),
]
Bot = Annotated[
    str | None, typer.Option("--bot", help="Only games in which this bot played a seat (mcts: any budget; mcts:50).")
]
Players = Annotated[int | None, typer.Option("--players", min=1, help="Only games of this many players.")]
Finished = Annotated[bool, typer.Option("--finished", help="Only finished games.")]
Branches = Annotated[bool, typer.Option("--branches/--no-branches", help="Take branches too (or root games only).")]
SkipDuplicates = Annotated[
    bool, typer.Option("--skip-duplicates", help="Leave out a game stored already instead of refusing the import.")
]
LakeIds = Annotated[list[str] | None, typer.Option("--id", help="With --lake: only these lake ids or ranges (10-20).")]


class Format(StrEnum):
    """What `logs export` writes."""

    jsonl = "jsonl"
    parquet = "parquet"


def selection(
    ids: list[str],
    game: str | None,
    since: datetime | None,
    until: datetime | None,
    bot: str | None,
    players: int | None,
    finished: bool,
    branches: bool,
) -> Selection:
    """The games the command line chooses (dates in the local time zone, as typed)."""
    return Selection(
        game=game,
        since=since.astimezone() if since else None,
        until=until.astimezone() if until else None,
        bot=bot,
        players=players,
        finished=finished,
        branches=branches,
        ranges=parse_ranges(ids),
    )


@app.command("export")
@fails_cleanly
def export_command(
    games: Annotated[
        list[str] | None,
        typer.Argument(
            help="Game ids and ranges (17, 10-20, 30-; default: every game); with --format parquet, the lake's folder.",
            show_default=False,
        ),
    ] = None,
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="The file (default: stdout), or the lake's folder.")
    ] = None,
    format: Annotated[
        Format, typer.Option("--format", "-f", help="jsonl: one log of every game; parquet: add them to a lake.")
    ] = Format.jsonl,
    game: Game = None,
    since: Since = None,
    until: Until = None,
    bot: Bot = None,
    players: Players = None,
    finished: Finished = False,
    branches: Branches = True,
    db: Db = None,
) -> None:
    """Write the chosen games as one JSON Lines log (docs/log-format.md), or add them to a Parquet lake
    (docs/lake.md)."""
    ids = list(games or [])
    if format is Format.parquet:
        lake = _lake_folder(ids, output)
        chosen = selection(ids, game, since, until, bot, players, finished, branches)
        _export_lake(db, lake, chosen)
        return
    chosen = selection(ids, game, since, until, bot, players, finished, branches)
    with open_store(db, read_only=True) as store:
        count = choose(store.db, chosen)
        if count == 0:
            _no_game(store, chosen)
        if output is None:
            _to_stdout(store, count)
            return
        try:
            with output.open("w", encoding="utf-8") as file:
                events = _stream(store, file, count)
        except OSError as error:
            raise LoomError(f"cannot write {output}: {error.strerror}") from None
    if count == 1 and len(chosen.ranges) == 1 and chosen.ranges[0][0] == chosen.ranges[0][1]:
        out.print(f"wrote game {chosen.ranges[0][0]} ({events} events) to {escape(str(output))}", soft_wrap=True)
    else:
        out.print(f"wrote {count} games ({events:,} events) to {escape(str(output))}", soft_wrap=True)


def _to_stdout(store: Store, count: int) -> None:
    """Stream the chosen games to stdout; a reader that stops early (`| head`) stops the export quietly."""
    try:
        _stream(store, sys.stdout, count)
        sys.stdout.flush()
    except BrokenPipeError:
        # Python would complain once more when it flushes stdout at exit: point stdout at /dev/null first.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except OSError as error:
        raise LoomError(f"cannot write to stdout: {error.strerror}") from None


def _lake_folder(ids: list[str], output: Path | None) -> Path:
    """The lake's folder: -o, or the one argument that is not a game id (a folder named like an id needs -o)."""
    folders = [text for text in ids if not text.replace("-", "").isdigit()]
    for text in folders:
        ids.remove(text)
    if output is not None:
        folders.append(str(output))
    if len(folders) != 1:
        raise BadSelection("--format parquet writes to one lake folder: give it once, as an argument or with -o")
    return Path(folders[0])


def _no_game(store: Store, chosen: Selection) -> None:
    """Refuse an export that chooses nothing; a game asked for by its id alone that does not exist is named."""
    for first, last in chosen.ranges:
        if first == last:
            store.game(first)  # UnknownGameId if there is none
    raise BadSelection("no game matches; nothing was written")


def _stream(store: Store, file: IO[str], count: int) -> int:
    """Write every chosen game's lines, a page at a time; how many events."""
    events = 0
    with progress_bar("exporting", count) as advance:
        for page in pages(store.db):
            file.write("".join(line + "\n" for _, lines in page for line in lines))
            events += sum(len(lines) - 1 for _, lines in page)
            advance(len(page))
    return events


def _export_lake(db: Path | None, lake: Path, chosen: Selection) -> None:
    from loom.cli.dashboard import catch_up
    from loom.replay.lake import write_lake

    catch_up(db)  # a lake takes a game's facts whole: let the projector finish them first where it can
    with open_store(db, read_only=True, threads=os.cpu_count()) as store:
        written = write_lake(store, lake, chosen)
    where = escape(str(lake))
    if written.behind:
        err.print(
            f"{written.behind} chosen game{'s are' if written.behind != 1 else ' is'} not projected yet (the server's "
            "projector is behind) and left out of the lake; export again in a moment to add "
            f"{'them' if written.behind != 1 else 'it'}",
            markup=False,
        )
    if written.games:
        out.print(f"added {written.games} games to lake {where} ({len(written.files)} new files)")
    elif written.behind:
        out.print(f"nothing was written to lake {where}")
    elif written.chosen:
        out.print(f"lake {where} holds every chosen game already; nothing was written")
    else:
        raise BadSelection("no game matches; nothing was written")


def import_lake_command(
    file: Path | None, lake: Path | None, chosen: Selection, db: Path | None, as_json: bool, skip_duplicates: bool
) -> None:
    """`logs import --lake DIR`: the chosen games of a lake into the store, all or nothing; the lake's ids mapped to
    the new ones with --json."""
    from loom.replay.lake import import_lake

    if file is not None and lake is not None:
        raise BadSelection("give a log file or --lake DIR, not both")
    if lake is None and file is not None:
        raise BadSelection("the filters choose games of a lake (--lake DIR): a log file is imported whole")
    if lake is None:
        raise BadSelection("give a log file to import ('-' reads stdin), or --lake DIR")
    with open_store(db) as store:
        try:
            mapping = import_lake(store, lake, chosen, skip_duplicates=skip_duplicates)
        except LoomError as error:
            raise LoomError(f"{lake}: {error}; nothing was imported") from None
    new = [new_id for new_id in mapping.values() if new_id is not None]
    if as_json:
        print_json({"ids": new, "lake": {str(old): new_id for old, new_id in mapping.items()}})
        return
    where = escape(str(lake))
    skipped = len(mapping) - len(new)
    note = f" ({plural(skipped, 'duplicate')} skipped)" if skipped else ""
    if not new:
        out.print(f"imported no game from lake {where}{note}")
        return
    out.print(f"imported {plural(len(new), 'game')} from lake {where}: {id_summary(new)}{note}")
