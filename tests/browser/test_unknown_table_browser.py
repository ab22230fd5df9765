"""A person's table (static/js/play.js) for a game whose table no script of the site draws
(issue 42): it says so and draws nothing, rather than drawing the game as another game's
table (four seats and a partner) and losing touch with the server on the first view. The
page, its scripts and the server's answers are served here (page.route), the scripts from
static/js as the site serves them; the game is a test game with a person's table and no
script of its own (Game.browser_scripts)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, Route, expect

from tests.browser import test_browser
from tests.games.registry import registered_test_games

pytestmark = [pytest.mark.browser, pytest.mark.timeout(120)]

browser, page = test_browser.browser, test_browser.page
STATIC = Path(__file__).resolve().parents[2] / "static"
SITE = "http://arena.test"
SCRIPTS = ("viewers.js", "sm.js", "replay.js", "play.js")


def _game_without_a_drawn_table() -> tuple[str, int]:
    from engine.games import GAMES

    with registered_test_games():
        game = next(g for g in GAMES.values()
                    if g.has_person_table and not g.browser_scripts)
        return game.name, game.seats


def _table_page(name: str) -> str:
    scripts = "".join(f'<script src="/static/js/{s}" defer></script>' for s in SCRIPTS)
    return f"""<!doctype html><html><body>
<section id="play" data-game="{name}" data-status="running" data-seq="-1"
  data-state-url="/play/1/state/" data-resign-url="/play/1/resign/">
  <input type="hidden" name="csrfmiddlewaretoken" value="x">
  <p id="p-message" class="viewer-message">Waiting…</p>
  <div class="table-felt" id="p-table"><div class="seat seat-0" data-seat="0"></div>
    <div class="seat seat-1" data-seat="1"></div><div class="trick" id="p-trick"></div></div>
  <div id="p-actions"></div><div id="p-turn"></div><div id="p-contract"></div>
  <div id="p-bids"></div><div id="p-last"></div><div id="p-scores"></div>
  <button type="button" id="p-resign">Resign</button></section>
<p id="p-after" hidden></p>{scripts}</body></html>"""


def test_a_table_no_script_draws_is_said_so_and_left_undrawn(page: Page) -> None:
    name, seats = _game_without_a_drawn_table()
    view: dict[str, Any] = {"seat": 0, "hand": ["1S", "2H"], "legal": ["1S", "2H"],
                            "your_turn": True, "over": False, "at": 1, "names":
                            ["ada", *(f"bot-{n}" for n in range(1, seats))]}
    polls: list[str] = []

    def serve(route: Route) -> None:
        path = route.request.url.removeprefix(SITE).split("?")[0]
        if path == "/play/1/":
            route.fulfill(body=_table_page(name), content_type="text/html")
        elif path.startswith("/static/js/"):
            route.fulfill(body=(STATIC / path.removeprefix("/static/")).read_text(),
                          content_type="text/javascript")
        elif path == "/play/1/state/":
            polls.append(path)
            route.fulfill(body=json.dumps({"status": "running", "seq": 0, "view": view,
                                           "now": 0}), content_type="application/json")
        else:
            route.fulfill(status=404, body="")

    page.route(f"{SITE}/**", serve)
    page.goto(f"{SITE}/play/1/")
    expect(page.locator("#p-actions")).to_contain_text(
        f"This site has no drawing of this game's table ({name})")
    assert polls
    expect(page.locator("#p-table .seat .card")).to_have_count(0)  # no hand drawn as a game's
    expect(page.locator("#p-message")).not_to_contain_text("Lost touch")
