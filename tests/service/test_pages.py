"""The dashboards and replay pages served by a real server, and opened in a real browser (headless Chromium)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from loom.engine.registry import get_game
from loom.replay.simulate import simulate
from loom.replay.store import Store
from loom.service.server import free_port, running
from loom.service.settings import Settings
from tests.browser import browser_tab
from tests.service.client import ADMIN, Api


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    """A server on a database of six finished three-player games of Motto and of Moirai, simulated beforehand."""
    path = tmp_path_factory.mktemp("pages") / "pages.duckdb"
    with Store.open(path) as store:
        for name in ("motto", "moirai"):
            simulate(store, get_game(name), 6, ["greedy", "random", "random"], seed=4)
    with running(Settings(str(path), port=free_port(), admin_token=ADMIN)) as base:
        client = Api(base)
        yield client
        client.close()


def _seat_token(api: Api, game_id: int, seat: int) -> str:
    return str(api.ok("GET", f"/games/{game_id}/tokens", ADMIN)["tokens"]["seats"][seat])


def test_the_dashboard_is_served_as_one_page(api: Api) -> None:
    for query in ("", "?game=moirai", "?since=2000-01-01&bot=greedy"):
        page = api.call("GET", f"/dashboard{query}")
        assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
        assert "Moirai" in page.text and "Plotly" in page.text
        assert '<script src="/static/plotly.min.js' in page.text and len(page.content) < 2_000_000  # not embedded
    assert api.call("GET", "/dashboard?game=chess").status_code == 422
    no_self_play = api.call("GET", "/dashboard?self_play=true")  # the recorded games mix bots
    assert no_self_play.status_code == 400 and "self-play only" in no_self_play.json()["error"]


def test_a_replay_is_served_to_a_seat_with_its_token(api: Api) -> None:
    mine = api.call("GET", f"/games/7/replay?token={_seat_token(api, 7, 2)}")
    assert mine.status_code == 200 and "Moirai" in mine.text
    assert api.call("GET", "/games/7/replay?as=all", ADMIN).status_code == 200
    assert api.call("GET", f"/games/7/replay?as=0&token={_seat_token(api, 7, 2)}").status_code == 403


def test_the_served_dashboard_draws_in_a_browser_without_errors(api: Api) -> None:
    with browser_tab(f"{api.base}/dashboard?game=moirai") as tab:
        assert tab.page.evaluate("document.querySelectorAll('.js-plotly-plot .main-svg').length") >= 10
        assert tab.errors == []


def _table_token(api: Api, game_id: int) -> str:
    return str(api.ok("GET", f"/games/{game_id}/tokens", ADMIN)["tokens"]["table"])


def test_a_what_if_on_the_served_board_branches_plays_on_and_shows_in_the_tree(api: Api) -> None:
    with browser_tab(f"{api.base}/games/7/replay?token={_table_token(api, 7)}") as tab:
        page = tab.page
        first = page.inner_text("#table")
        page.keyboard.press("Shift+ArrowRight")  # a turn at a time (the arrows alone step a move)
        page.keyboard.press("Shift+ArrowRight")  # turn 3: after a draw and a keep, a take has choices
        assert page.inner_text("#table") != first
        page.wait_for_selector("#legal li:nth-child(2) button.legal")  # a selector: the page's policy forbids eval
        assert "turn 3" in page.inner_text("#whatif-status")
        page.select_option("#whatif-bot", "random")
        page.locator("#legal button.legal").nth(1).click()
        page.wait_for_selector("#compare[data-branch]", timeout=60_000)
        branch = int(page.get_attribute("#compare", "data-branch") or 0)
        columns = page.locator("#compare > div")
        assert columns.count() == 2 and "as played (game 7)" in columns.nth(0).inner_text()
        assert f"what if (game {branch})" in columns.nth(1).inner_text() and "%" in columns.nth(1).inner_text()
        page.wait_for_selector(f"#tree li.branch[data-game='{branch}']")
        assert tab.errors == []
    made = api.ok("GET", f"/games/{branch}", None)
    assert made["parent"] == 7 and made["status"] == "finished"
    tree = api.ok("GET", "/games/7/tree")
    assert [(b["id"], b["fork_turn"]) for b in tree["branches"]] == [(branch, 3)]


def test_a_seat_plays_a_what_if_on_its_board_from_a_deal_sampled_from_its_view(api: Api) -> None:
    with browser_tab(f"{api.base}/games/8/replay?token={_seat_token(api, 8, 2)}") as tab:
        page = tab.page
        page.keyboard.press("Shift+ArrowRight")  # a turn at a time (the arrows alone step a move)
        page.keyboard.press("Shift+ArrowRight")  # turn 3: seat 2 to move, so its token lists its actions
        page.wait_for_selector("#legal li button.legal")
        assert "turn 3" in page.inner_text("#whatif-status")
        page.select_option("#whatif-bot", "random")
        page.locator("#legal button.legal").first.click()
        page.wait_for_selector("#compare[data-whatif]", timeout=60_000)
        number = int(page.get_attribute("#compare", "data-whatif") or 0)
        columns = page.locator("#compare > div")
        assert columns.count() == 2 and "%" in columns.nth(0).inner_text()  # the real line, over sampled deals
        assert f"what if (what-if {number})" in columns.nth(1).inner_text() and "%" in columns.nth(1).inner_text()
        assert "sampled from your view" in page.inner_text("#whatif-status")
        page.wait_for_selector(f"#tree li.whatif[data-whatif='{number}']")
        assert "on a sampled deal" in page.inner_text("#tree")
        assert tab.errors == []
    tree = api.ok("GET", "/games/8/tree")
    assert tree["branches"] == [] and [(w["seat"], w["fork_turn"]) for w in tree["whatifs"]] == [(2, 3)]


def _draws(api: Api, game_id: int) -> list[dict[str, Any]]:
    """The game's draws (a seat's three cards, then its keep in the same turn), as log lines."""
    events = api.ok("GET", f"/games/{game_id}/events?after=0&limit=5000", ADMIN)["events"]
    return [event for event in events if event["type"] == "moirai.drew"]


def test_a_seat_forks_a_what_if_in_the_middle_of_a_turn_on_its_board_and_deals_it_again(api: Api) -> None:
    draws = _draws(api, 9)
    theirs = next(event for event in draws if event["actor"] != 2)  # another seat drew; it keeps next
    mine = next(event for event in draws if event["actor"] == 2)
    with browser_tab(f"{api.base}/games/9/replay?token={_seat_token(api, 9, 2)}") as tab:
        page = tab.page
        page.click(f"#moves button[data-seq='{mine['seq']}']")  # its own draw: the keeps of that very position
        page.wait_for_selector("#legal button.legal:not(.play-on)")
        assert f"after event {mine['seq']} (turn {mine['turn']})" in page.inner_text("#whatif-status")
        assert all('"keep"' in text for text in page.locator("#legal button.legal").all_inner_texts())
        page.click(f"#moves button[data-seq='{theirs['seq']}']")  # another seat's draw: nothing of it to list
        page.wait_for_selector("#legal button.play-on")
        assert f"after event {theirs['seq']}" in page.inner_text("#whatif-status")
        page.select_option("#whatif-bot", "random")
        page.fill("#whatif-seed", "4242")
        page.click("#legal button.play-on")
        page.wait_for_selector("#compare[data-whatif]", timeout=60_000)
        number = int(page.get_attribute("#compare", "data-whatif") or 0)
        assert page.get_attribute("#compare", "data-fork-seq") == str(theirs["seq"])
        assert "seed 4242" in page.inner_text("#whatif-status")
        page.click("#deal-again")  # the same what-if from a fresh seed
        page.wait_for_selector(f"#compare[data-whatif='{number + 1}']", timeout=60_000)
        page.wait_for_selector(f"#tree li.whatif[data-whatif='{number + 1}']")
        assert f"after event {theirs['seq']}" in page.inner_text("#tree")
        assert tab.errors == []
    made = api.ok("GET", "/games/9/tree")["whatifs"][-2:]
    assert [(w["fork_seq"], w["fork_turn"], w["seat"]) for w in made] == [(theirs["seq"], theirs["turn"], 2)] * 2
    assert made[0]["seed"] == 4242 and made[1]["seed"] != 4242


def test_pages_send_a_policy_that_runs_only_their_own_scripts(api: Api) -> None:
    for path in ("/dashboard?game=motto", f"/games/7/replay?token={_seat_token(api, 7, 1)}"):
        page = api.call("GET", path)
        policy = dict(part.strip().split(" ", 1) for part in page.headers["content-security-policy"].split(";"))
        scripts = policy["script-src"].split()
        assert scripts and all(source.startswith("'sha256-") for source in scripts)
        assert policy["default-src"] == "'none'" and policy["frame-ancestors"] == "'none'"
        assert page.headers["x-content-type-options"] == "nosniff"


INJECT = """() => {
  const script = document.createElement("script");
  script.textContent = "window.injected = 1";
  document.body.append(script);
  const link = document.createElement("a");
  link.id = "injected-link";
  link.href = "javascript:window.clicked = 1";
  link.textContent = "Ann";
  document.body.prepend(link);
  const image = document.createElement("img");
  image.setAttribute("onerror", "window.handled = 1");
  image.src = "data:,not-an-image";
  document.body.append(image);
}"""


def test_a_served_page_runs_no_script_it_did_not_bring_in_a_browser(api: Api) -> None:
    with browser_tab(f"{api.base}/games/7/replay?token={_seat_token(api, 7, 0)}") as tab:
        assert tab.errors == []
        tab.page.evaluate(INJECT)
        tab.page.click("#injected-link")
        tab.page.wait_for_timeout(300)
        assert tab.page.evaluate("[window.injected, window.clicked, window.handled]") == [None, None, None]
        assert tab.errors and all("Content Security Policy" in error for error in tab.errors)


def test_an_open_games_replay_shows_each_new_move_and_a_finished_ones_is_the_same_page_again(api: Api) -> None:
    created = api.create("motto", ["Ann", "Ben", "Cy"], seed=3)
    game_id, seats, table = created["id"], created["tokens"]["seats"], created["tokens"]["table"]
    before = api.call("GET", f"/games/{game_id}/replay?token={table}")
    now = api.ok("GET", f"/games/{game_id}/state", seats[0])
    mover = now["to_move"]
    action = api.ok("GET", f"/games/{game_id}/state", seats[mover])["legal"][0]
    api.ok("POST", f"/games/{game_id}/actions", seats[mover], json={"expected_seq": now["seq"], "action": action})
    after = api.call("GET", f"/games/{game_id}/replay?token={table}")
    assert before.status_code == after.status_code == 200
    assert after.text.count('class="move"') > before.text.count('class="move"')  # not a page kept from before
    finished = [api.call("GET", "/games/2/replay?as=all", ADMIN) for _ in range(2)]
    assert finished[0].status_code == 200 and finished[0].text == finished[1].text
