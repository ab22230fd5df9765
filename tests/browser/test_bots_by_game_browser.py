"""/bots/ keeps the games apart (issue 43: "/bots/ has no game column"): each row names its
bot's game, and the Game filter keeps one game's bots, at a desktop's and two phones' widths,
in headless Chromium; the API's list takes the same filter and refuses an unknown game in
words."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from playwright.sync_api import Browser, Page, expect

from bots.models import Bot, game_title
from bots.services import bot_builtin_add
from tests.browser import test_browser
from tests.browser.test_error_pages_browser import page_without_script_errors
from tests.browser.test_phone_layout_browser import DESKTOP, NARROWEST, PHONE, assert_fits

browser = test_browser.browser

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True),
              pytest.mark.timeout(120)]


@pytest.fixture
def bots() -> dict[str, Bot]:
    owner = User.objects.create_user("gwen", password="not-a-secret-1")
    made = {"kaiser": Bot.objects.create(owner=owner, name="kaiser-kate", game="kaiser"),
            "sergeant-major": Bot.objects.create(owner=owner, name="major-mo",
                                                 game="sergeant-major")}
    bot_builtin_add(bot=made["kaiser"], spec="builtin:greedy")
    bot_builtin_add(bot=made["sergeant-major"], spec="builtin:random")
    return made


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    yield from page_without_script_errors(browser, viewport=DESKTOP)


@pytest.mark.parametrize("size", [DESKTOP, PHONE, NARROWEST], ids=["1280", "390", "320"])
def test_each_bot_names_its_game_and_the_filter_keeps_one_game(
        live_server: Any, page: Page, bots: dict[str, Bot], size: dict[str, int]) -> None:
    page.set_viewport_size(size)
    page.goto(live_server.url + "/bots/")
    for game, bot in bots.items():
        row = page.locator("tbody tr", has_text=bot.name)
        expect(row.locator("td.game")).to_have_text(game_title(game))
    assert_fits(page, "/bots/")
    page.locator("select[name=game]").select_option(label=game_title("sergeant-major"))
    page.get_by_role("button", name="Show").click()
    expect(page).to_have_url(live_server.url + "/bots/?game=sergeant-major")
    expect(page.locator("tbody tr", has_text="major-mo")).to_have_count(1)
    expect(page.locator("tbody tr", has_text="kaiser-kate")).to_have_count(0)
    expect(page.locator("select[name=game]")).to_have_value("sergeant-major")
    assert_fits(page, "/bots/?game=sergeant-major")


def test_an_unknown_game_is_said_in_words_on_the_page_and_the_api(bots: dict[str, Bot]) -> None:
    client = Client()
    page = client.get("/bots/?game=chess")
    assert page.status_code == 400
    assert "No game is called “chess”" in page.content.decode()
    assert "kaiser-kate" not in page.content.decode()
    api = client.get("/api/v1/bots/?game=chess")
    assert api.status_code == 400 and "No game is called 'chess'" in api.json()["fields"]["game"][0]
    listed = client.get("/api/v1/bots/?game=kaiser").json()
    names = [b["name"] for b in listed.get("results", listed)]
    assert "kaiser-kate" in names and "major-mo" not in names
