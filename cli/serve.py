"""`logs serve`: the HTTP service, recording and replaying games live and serving the dashboards."""

from __future__ import annotations

from typing import Annotated

import typer

from loom.cli.app import app
from loom.cli.common import Db, err, fails_cleanly
from loom.replay.store import default_db
from loom.service.settings import MAX_BODY, Settings


@app.command("serve")
@fails_cleanly
def serve_command(
    host: Annotated[str, typer.Option("--host", help="The address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", min=1, max=65535, help="The port to listen on.")] = 8000,
    admin_token: Annotated[
        str | None,
        typer.Option(
            "--admin-token",
            envvar="LOGS_ADMIN_TOKEN",
            help="The token that creates games and sees everything; required off this machine.",
            show_default=False,
        ),
    ] = None,
    max_body: Annotated[int, typer.Option("--max-body", min=1, help="The largest request body, in bytes.")] = MAX_BODY,
    processes: Annotated[
        int,
        typer.Option(
            "--processes",
            min=1,
            help="Processes that check and answer appends, each on a core of its own (the first holds the file).",
        ),
    ] = 1,
    db: Db = None,
) -> None:
    """Serve the HTTP API (OpenAPI at /docs), live streams and the dashboards; one process owns the database."""
    from loom.service.server import serve, server_for  # uvicorn and FastAPI load only for this command

    server = server_for(Settings(str(db or default_db()), host, port, admin_token, max_body), processes=processes)
    if admin_token is None:
        err.print("no admin token: anyone on this machine may create games (set --admin-token to restrict)")
    serve(server)
