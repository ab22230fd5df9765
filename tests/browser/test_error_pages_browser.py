"""The error pages in headless Chromium (issue 20): a wrong URL shows the site's 404 page with
its menu, with DEBUG off and on (as under scripts/run.sh); a signed-in author who opens "New
tournament" sees the 403 page with the menu and the reason, and the menu still takes them on."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import Browser, Page, expect

from tests.browser import test_browser
from tests.browser.test_tournaments_browser import PASSWORD, log_in

browser = test_browser.browser  # Chromium, launched as the other browser tests launch it

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True),
              pytest.mark.timeout(120)]


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    """test_browser's page, except that the error status of the page itself is expected:
    Chromium logs it as a console error ("Failed to load resource: ... 404")."""
    yield from page_without_script_errors(browser, viewport={"width": 1280, "height": 900})


def page_without_script_errors(browser: Browser, **context: Any) -> Iterator[Page]:
    """A page in a new context that fails the test on JavaScript errors. An error status of
    the page itself is expected (Chromium logs it as "Failed to load resource")."""
    context_ = browser.new_context(**context)
    page = context_.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error"
            and "Failed to load resource" not in m.text else None)
    yield page
    context_.close()
    assert errors == [], f"JavaScript errors in the pages: {errors}"


@pytest.mark.parametrize("debug", [False, True], ids=["production", "run.sh"])
def test_a_wrong_url_shows_the_404_page_with_the_menu(
    live_server: Any, page: Page, settings: Any, debug: bool
) -> None:
    settings.DEBUG = debug
    response = page.goto(live_server.url + "/no-such-page/")
    assert response is not None and response.status == 404
    expect(page.locator("h1")).to_have_text("Page not found")
    menu = page.get_by_role("navigation", name="main")
    expect(menu.get_by_role("link", name="Tournaments")).to_be_visible()
    expect(menu.get_by_role("link", name="Log in")).to_be_visible()
    page.locator("#error-404").get_by_role("link", name="All bots").click()
    expect(page).to_have_url(re.compile(r"/bots/$"))


def test_a_signed_in_author_sees_the_403_page_for_new_tournament(
    live_server: Any, page: Page
) -> None:
    User.objects.create_user("author", password=PASSWORD)
    log_in(page, live_server.url, "author")
    response = page.goto(live_server.url + "/tournaments/new/")
    assert response is not None and response.status == 403
    expect(page.locator("h1")).to_have_text("Not allowed")
    expect(page.locator("#error-403")).to_contain_text("Only organisers create tournaments")
    menu = page.get_by_role("navigation", name="main")
    expect(menu.get_by_role("link", name="author", exact=True)).to_be_visible()
    menu.get_by_role("link", name="Tournaments").click()
    expect(page.locator("h1")).to_be_visible()
    expect(page).to_have_url(re.compile(r"/tournaments/$"))
