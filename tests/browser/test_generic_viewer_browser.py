"""The replay viewer on a game it has no drawing of (issue 42), in headless Chromium: a match
of Quartet (tests/games/quartet, four players without partners, no script of its own) opens
on its match page in the generic stepper, the match's moves in the game's words one a step
(GET /api/v1/matches/<id>/replay-text/), game by game; a file of it opened at /replay/ is
said to have no drawing here, not refused as "not a replay"."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from engine.games import GAMES, Game
from tests.browser import test_browser
from tests.games.quartet.stored import NAMES, quartet_replay, stored_quartet_match

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True),
              pytest.mark.timeout(300)]

browser, page = test_browser.browser, test_browser.page
GENERIC = re.compile(r"\bgame-generic\b")


def lines_of(game: Game, replay: dict[str, Any], number: int) -> list[str]:
    return [s["text"] for s in game.replay_steps(replay) if s["game"] == number]


def test_a_game_without_a_drawing_steps_through_its_moves_in_words(
        quartet: Game, live_server: Any, page: Page, house: Any) -> None:
    replay = quartet_replay("browser")
    match = stored_quartet_match(replay, house)
    page.goto(f"{live_server.url}/matches/{match.pk}/")
    expect(page.locator("h1")).to_contain_text(f"Match #{match.pk}")
    expect(page.locator(".match-head")).to_contain_text(NAMES[0])
    viewer = page.locator("#viewer")
    expect(viewer).to_have_class(test_browser.LOADED)
    expect(viewer).to_have_class(GENERIC)
    expect(page.locator("#v-message")).to_contain_text(
        f"no drawing of {quartet.replay_format} replays")
    expect(page.locator("#v-deal option")).to_have_count(len(replay["games"]))
    first = lines_of(quartet, replay, 0)
    now = page.locator("#v-trick")
    expect(now).to_have_text(first[0])
    expect(page.locator("#v-step")).to_have_text(f"step 1 of {len(first)} \u00b7 move")
    page.locator("#v-next").click()
    page.locator("#v-next").click()
    expect(now).to_have_text(first[2])
    expect(page.locator("#v-bids .generic-moves li")).to_have_count(3)
    page.locator("#v-prev").click()
    expect(now).to_have_text(first[1])
    page.locator("#v-last").click()
    expect(now).to_have_text(first[-1])
    page.locator("#v-next").click()  # past a game's last move: the next game's first
    second = lines_of(quartet, replay, 1)
    expect(now).to_have_text(second[0])
    expect(page.locator("#v-deal")).to_have_value("1")
    expect(page.locator("#v-contract")).to_contain_text("Quartet, rules short")
    test_browser.shot(page, "generic-stepper")


def test_a_file_of_a_game_without_a_drawing_is_said_so_and_a_drawn_one_still_draws(
        quartet: Game, live_server: Any, page: Page, tmp_path: Path) -> None:
    path = tmp_path / "quartet.json"
    path.write_text(json.dumps(quartet_replay("file")))
    page.goto(f"{live_server.url}/replay/")
    page.set_input_files("#v-file", str(path))
    message = page.locator("#v-message")
    expect(message).to_contain_text(f"no drawing of {quartet.replay_format} replays")
    expect(message).not_to_contain_text("not a Kaiser Arena replay")
    registered = page.evaluate("window.KaiserArenaReplay.formats()")
    assert set(registered) == {g.replay_format for g in GAMES.values()
                               if g.browser_scripts}, registered
