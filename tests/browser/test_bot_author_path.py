"""The bot author's path from the home page alone, in headless Chromium: a new visitor reaches
the rules and the protocol by links, downloads the local runner and a starter bot into an
empty folder, plays a local match against builtin:greedy with the system python3 and nothing
else, signs up, uploads the very same file, sees it checked, playing, listed as not rated
yet, then on the leaderboard after its first matches, and opens its statistics; a queued
match page follows its match until the replay shows; the navigation fits a phone.

As in test_browser.py, the upload check runs eagerly inside the upload request (the real
sandbox plays it) and the ladder matches are played through the tournaments services."""

from __future__ import annotations

import hashlib
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from bots.models import BotVersion
from ladder import services as ladder_services
from ladder.models import Ladder
from matches import services as match_services
from matches.models import Match
from matches.stats import play_stats_fold
from tests.browser import test_browser

# The fixtures of the other browser tests: Chromium, a page that fails on JavaScript errors,
# and the site with eager checks and the house bots.
browser, page, site = test_browser.browser, test_browser.page, test_browser.site
shot = test_browser.shot

# The one flow that always plays as production does: every seat in its own gVisor kernel.
pytestmark = [pytest.mark.production_kernel, pytest.mark.browser,
              pytest.mark.django_db(transaction=True), pytest.mark.timeout(300)]

BOT = "first-timer"
SYSTEM_PYTHON = "/usr/bin/python3"


def read_the_reference(page: Page, base: str) -> None:
    page.goto(base + "/")
    page.locator('a[href^="/docs/rules/#"]').first.click()
    expect(page.locator("h1")).to_have_text("Kaiser: the rules Kaiser Arena plays")
    expect(page.locator("#glossary")).to_be_visible()
    expect(page.locator("#official")).to_be_visible()
    page.get_by_role("link", name="The bot protocol").click()
    expect(page.locator("h1")).to_have_text("The bot protocol (version 1)")
    expect(page.locator("td code", has_text="bank_ms").first).to_be_visible()
    shot(page, "docs-protocol")


def download_runner_and_starter(page: Page, folder: Path) -> None:
    page.get_by_role("link", name="Write a bot").first.click()
    expect(page.locator("h1")).to_have_text("Write a Kaiser bot")
    with page.expect_download() as runner:
        page.click("#runner-link")
    runner.value.save_as(folder / "kaiser-engine.pyz")
    shown_sha = page.locator("#runner-sha256").inner_text()
    assert hashlib.sha256((folder / "kaiser-engine.pyz").read_bytes()).hexdigest() == shown_sha
    with page.expect_download() as starter:
        page.click('a[href="/docs/starter/minimal_bot.py"]')
    starter.value.save_as(folder / "my_bot.py")


def play_locally(folder: Path) -> None:
    """The system python3 with a bare environment: nothing of this project is importable."""
    env = {"PATH": "/usr/bin:/bin", "HOME": str(folder)}
    played = subprocess.run(
        [SYSTEM_PYTHON, "-I", "kaiser-engine.pyz", "match", "my_bot.py", "builtin:greedy",
         "--replay", "m.json"], cwd=folder, env=env, capture_output=True, text=True, timeout=120)
    assert played.returncode == 0, played.stderr
    assert "A = my_bot v1, B = greedy v1" in played.stdout
    assert "faults: none" in played.stdout
    assert json.loads((folder / "m.json").read_text())["format"] == "kaiser-replay"
    checked = subprocess.run([SYSTEM_PYTHON, "-I", "kaiser-engine.pyz", "validate", "m.json"],
                             cwd=folder, env=env, capture_output=True, text=True, timeout=60)
    assert checked.stdout.strip() == "m.json: valid"


def sign_up_and_upload(page: Page, base: str, program: Path) -> None:
    page.goto(base + "/")
    page.get_by_role("link", name="Sign up").first.click()
    page.fill("#id_username", "newcomer")
    page.fill("#id_password1", test_browser.PASSWORD)
    page.fill("#id_password2", test_browser.PASSWORD)
    page.get_by_role("button", name="Create account").click()
    page.get_by_role("link", name="New bot").click()
    page.fill("#id_name", BOT)
    page.get_by_role("button", name="Save").click()
    expect(page.locator("h1")).to_contain_text(f"Upload a version of {BOT}")
    page.set_input_files("input[type=file]", str(program))
    page.get_by_role("button", name="Upload").click()
    expect(page.locator("#upload-progress")).to_have_attribute("data-status", "active",
                                                               timeout=120_000)


def test_a_new_visitor_goes_from_the_home_page_to_a_rated_bot_and_its_statistics(
    site: None, live_server: Any, page: Page, tmp_path: Path
) -> None:
    base = live_server.url
    folder = tmp_path / "empty"
    folder.mkdir()
    read_the_reference(page, base)
    download_runner_and_starter(page, folder)
    play_locally(folder)

    sign_up_and_upload(page, base, folder / "my_bot.py")
    page.goto(base + "/bots/")
    page.get_by_role("link", name=BOT).click()
    expect(page.locator("#v1 .status-active")).to_have_text("checked")
    expect(page.locator("#v1 .badge.playing")).to_have_text("plays")
    expect(page.locator("#bot-playing")).to_have_text("version 1 plays")

    version = BotVersion.objects.get(bot__name=BOT)
    main = Ladder.objects.get(slug="main")
    ladder_services.ladder_entries_sync(ladder=main)
    page.goto(base + "/")
    expect(page.locator("#unrated-list")).to_contain_text(BOT)
    expect(page.locator(f'tr[data-bot="{BOT}"]')).to_have_count(0)

    test_browser.first_matches(version)
    assert play_stats_fold() == 2  # what the beat does every few seconds
    page.goto(base + "/")
    row = page.locator(f'tr[data-bot="{BOT}"]')
    expect(row).to_be_visible()
    expect(row.locator("td").nth(5)).to_have_text("2")  # rated matches
    expect(page.locator("#unrated-list")).to_have_count(0)
    row.get_by_role("link", name=BOT).click()
    page.click("#stats-link")
    stats = page.locator("#play-stats")
    expect(stats.locator("h2")).to_have_text("Why it wins or loses")
    expect(stats.locator("#stats-table")).to_contain_text("Points a deal")
    expect(stats.locator("#stats-table thead")).to_contain_text("all bots")
    expect(stats.locator("tbody tr").first.locator("td").first).to_have_text("2")  # matches
    shot(page, "bot-statistics")


def test_a_queued_match_page_shows_the_replay_once_played(
    site: None, live_server: Any, page: Page
) -> None:
    random, greedy = ladder_services.house_bots_ensure()
    main = Ladder.objects.get(slug="main")
    match = match_services.match_create(versions=[greedy, random], kind=Match.Kind.LADDER,
                                  conditions=main, ladder=main)
    page.goto(f"{live_server.url}/matches/{match.pk}/")
    expect(page.locator("#match-live")).to_be_visible()
    expect(page.get_by_role("link", name="Download the replay (JSON)")).to_have_count(0)
    assert match_services.match_play(match_id=match.pk, worker="browser-test") == "finished"
    expect(page.locator("#viewer")).to_have_class(test_browser.LOADED, timeout=20_000)
    expect(page.get_by_role("link", name="Download the replay (JSON)")).to_be_visible()


def test_the_navigation_is_one_line_on_a_phone(site: None, live_server: Any,
                                               page: Page) -> None:
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(live_server.url + "/")
    nav = page.locator("nav.nav")
    button = nav.locator("label", has_text="Menu")
    box, line = nav.bounding_box(), button.bounding_box()
    assert box is not None and line is not None
    # One row, the name and the Menu button (plus the padding), not three rows of links: the
    # links wait behind the button (tests/browser/test_phone_layout_browser.py opens it).
    assert box["height"] < line["height"] + 30, (box, line)
    expect(nav.get_by_role("link", name="Bots")).to_be_hidden()
    shot(page, "home-phone-nav")


@pytest.fixture
def refusing_page(browser: Any) -> Any:
    """A page like test_browser.page, except that the one console error a refused upload
    makes (Chromium logs the API's 400) is expected."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    yield page
    context.close()
    assert errors == ["Failed to load resource: the server responded with a status of 400 "
                      "(Bad Request)"]


def test_identical_bytes_are_refused_with_a_link_to_their_version(
    site: None, live_server: Any, refusing_page: Page, owner: Any, tmp_path: Path
) -> None:
    from django.test import Client

    from bots.services import bot_create, bot_version_upload

    program = test_browser.ROOT / "bots" / "examples" / "minimal_bot.py"
    bot = bot_create(owner=owner, name="twice")
    bot_version_upload(bot=bot, filename="minimal_bot.py", content=program.read_bytes())
    client = Client()
    client.force_login(owner)
    refusing_page.context.add_cookies([{"name": "sessionid", "url": live_server.url,
                                        "value": client.cookies["sessionid"].value}])
    refusing_page.goto(f"{live_server.url}/bots/{bot.pk}/upload/")
    refusing_page.set_input_files("input[type=file]", str(program))
    refusing_page.get_by_role("button", name="Upload").click()
    expect(refusing_page.locator("#u-status")).to_have_text("refused")
    expect(refusing_page.locator("#u-detail")).to_contain_text("these bytes are version 1")
    link = refusing_page.locator("#u-existing")
    expect(link).to_have_attribute("href", f"/bots/{bot.pk}/#v1")
    link.click()
    expect(refusing_page.locator("#v1")).to_be_visible()
    assert BotVersion.objects.filter(bot=bot).count() == 1
