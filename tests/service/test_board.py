"""The served board's routes: plotly.js and the API docs from the server's own files (compressed, cached, no CDN),
and a position's win chances, for the table's token only."""

from __future__ import annotations

import re
from typing import Any

import pytest

from loom.dashboards.page import plotly_bytes, plotly_hash
from tests.service.client import ADMIN, Api


@pytest.fixture(scope="module")
def game(api: Api) -> dict[str, Any]:
    """A Moirai game the server dealt, a few turns played."""
    created = api.create("moirai", ["Ann", "Ben", "Cy"], seed=3)
    seq = created["seq"]
    for _ in range(4):
        mover = api.ok("GET", f"/games/{created['id']}/state", created["tokens"]["table"])
        body = {"expected_seq": seq, "action": mover["legal"][0]}
        seq = api.ok("POST", f"/games/{created['id']}/actions", created["tokens"]["table"], json=body)["seq"]
    return created


def fetched(api: Api, path: str, **headers: str) -> Any:
    return api.http.get(path, headers=headers)


def test_plotly_js_is_served_gzipped_and_cached_for_good(api: Api) -> None:
    zipped = fetched(api, "/static/plotly.min.js", **{"Accept-Encoding": "gzip"})
    assert zipped.status_code == 200 and zipped.headers["content-encoding"] == "gzip"
    assert zipped.content == plotly_bytes()  # httpx unzips it
    assert int(zipped.headers["content-length"]) < len(plotly_bytes()) / 3
    assert "immutable" in zipped.headers["cache-control"] and zipped.headers["content-type"].startswith("text/java")
    plain = fetched(api, "/static/plotly.min.js", **{"Accept-Encoding": "identity"})
    assert "content-encoding" not in plain.headers and plain.content == plotly_bytes()
    again = fetched(api, "/static/plotly.min.js", **{"If-None-Match": zipped.headers["etag"]})
    assert again.status_code == 304 and again.content == b""


def test_a_served_replay_loads_plotly_from_the_server_by_its_hash(api: Api, game: dict[str, Any]) -> None:
    page = api.call("GET", f"/games/{game['id']}/replay?token={game['tokens']['table']}")
    assert page.status_code == 200 and len(page.content) < 1_000_000  # plotly.js alone is 4.8 MB
    src = re.search(r'<script src="([^"]+)" integrity="([^"]+)"></script>', page.text)
    assert src is not None and src.group(1).startswith("/static/plotly.min.js?v=") and src.group(2) == plotly_hash()
    assert f"'{plotly_hash()}'" in page.headers["content-security-policy"]


@pytest.mark.parametrize("path", ["/docs", "/redoc"])
def test_the_api_docs_load_nothing_from_elsewhere(api: Api, path: str) -> None:
    page = api.call("GET", path)
    assert page.status_code == 200
    sources = re.findall(r'(?:src|href)="([^"]+)"', page.text) + re.findall(r"(?:src|href)='([^']+)'", page.text)
    assert sources and all(source.startswith("/") for source in sources)
    for source in sources:
        assert api.call("GET", source).status_code == 200
    assert "http" not in re.sub(r"https?://(www\.)?(w3\.org|swagger\.io|github\.com)\S*", "", page.text)


def test_an_unknown_static_file_is_not_found(api: Api) -> None:
    assert api.call("GET", "/static/docs/..%2F..%2Fcore.py").status_code == 404
    assert api.call("GET", "/static/docs/core.py").status_code == 404


def test_chances_from_every_hand_are_for_the_table_and_the_admin_a_seat_gets_sampled_ones(
    api: Api, game: dict[str, Any]
) -> None:
    path = f"/games/{game['id']}/chances?turn=2&rollouts=8"
    told = api.ok("GET", path, game["tokens"]["table"])
    assert told["turn"] == 2 and told["rollouts"] == 8 and told["bot"] == "greedy"
    assert abs(sum(told["chance"]) - 1) < 1e-9 and len(told["margin"]) == 3
    assert api.ok("GET", path, ADMIN)["chance"] == told["chance"]  # the same rollouts: lines compare fairly
    seat = api.ok("GET", path, game["tokens"]["seats"][0])  # over deals sampled from seat 0's view
    assert seat["sampled"] and not told["sampled"] and seat["as"] == 0 and seat["rollouts"] == 8
    assert api.call("GET", path).status_code == 401
    assert api.call("GET", f"{path}&token={game['tokens']['table']}").status_code == 400
    assert api.call("GET", f"/games/{game['id']}/chances?bot=nobody", ADMIN).status_code == 422


def test_chances_past_the_last_turn_are_the_positions_now(api: Api, game: dict[str, Any]) -> None:
    now = api.ok("GET", f"/games/{game['id']}/state", ADMIN)
    told = api.ok("GET", f"/games/{game['id']}/chances?turn=999&rollouts=2", ADMIN)
    assert (told["seq"], told["turn"]) == (now["seq"], now["turn"])
