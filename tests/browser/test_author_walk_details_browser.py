"""The upload page's live panel in headless Chromium (issue 20): the check's state in the bot
page's words, and a rejected upload's traceback shown, unfolded, under its verdict."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.test import Client
from playwright.sync_api import Page, expect

from tests.browser import test_browser

browser, page, site = test_browser.browser, test_browser.page, test_browser.site

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True),
              pytest.mark.timeout(300)]

GOOD = test_browser.ROOT / "bots" / "examples" / "minimal_bot.py"


def _upload(page: Page, base: str, bot_pk: int, program: Path) -> None:
    page.goto(f"{base}/bots/{bot_pk}/upload/")
    page.set_input_files("input[type=file]", str(program))
    page.get_by_role("button", name="Upload").click()


def test_the_live_panel_says_checked_or_rejected_with_the_traceback(
    site: None, live_server: Any, page: Page, owner: Any, tmp_path: Path
) -> None:
    from bots.services import bot_create

    bot = bot_create(owner=owner, name="live-words")
    client = Client()
    client.force_login(owner)
    page.context.add_cookies([{"name": "sessionid", "url": live_server.url,
                               "value": client.cookies["sessionid"].value}])

    _upload(page, live_server.url, bot.pk, GOOD)
    panel = page.locator("#upload-progress")
    expect(panel).to_have_attribute("data-status", "active", timeout=120_000)
    expect(page.locator("#u-status")).to_have_text("checked")

    broken = tmp_path / "typo.py"
    broken.write_text("def decide(message:\n    return 1\n")
    _upload(page, live_server.url, bot.pk, broken)
    expect(panel).to_have_attribute("data-status", "rejected", timeout=120_000)
    expect(page.locator("#u-status")).to_have_text("rejected")
    expect(page.locator("#u-stderr-text")).to_be_visible()
    expect(page.locator("#u-stderr-text")).to_contain_text("SyntaxError")
