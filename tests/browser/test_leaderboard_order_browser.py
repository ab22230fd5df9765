"""The leaderboard says which rating orders it (issue 43: "people read the order first"): one
line over the table, the fitted rating's column first and marked as the order, Elo beside it,
provisional bots marked, at a desktop's and two phones' widths, in headless Chromium."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from ladder import selectors as ladder_selectors
from ladder import services as ladder_services
from ladder.models import Ladder
from tests.browser import test_browser
from tests.browser import test_phone_layout_browser as phone_layout
from tests.browser.test_error_pages_browser import page_without_script_errors
from tests.browser.test_phone_layout_browser import DESKTOP, NARROWEST, PHONE, assert_fits

browser = test_browser.browser
arena = phone_layout.arena  # two authors' bots and a played ladder match (a fixture)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True),
              pytest.mark.timeout(120)]


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    yield from page_without_script_errors(browser, viewport=DESKTOP)


@pytest.mark.parametrize("size", [DESKTOP, PHONE, NARROWEST], ids=["1280", "390", "320"])
def test_the_board_says_the_fitted_rating_orders_it_with_elo_beside(
        live_server: Any, page: Page, arena: Any, size: dict[str, int]) -> None:
    ladder_services.ladder_fits_refresh()
    ladder = Ladder.objects.get(slug="main")
    fitted = ladder_selectors.ladder_fit(ladder=ladder)
    page.set_viewport_size(size)
    page.goto(live_server.url + "/")
    line = page.locator("#board-order")
    expect(line).to_contain_text("Ordered by the fitted rating, Elo beside it")
    expect(line).to_be_in_viewport()
    rows = page.locator("table.leaderboard tbody tr")
    expect(rows.first).to_be_visible()
    shown = [float(text) for text in rows.locator("td.fitted strong").all_inner_texts()]
    assert len(shown) == rows.count() == len(fitted) and shown == sorted(shown, reverse=True)
    assert all(text.strip() for text in rows.locator("td.elo").all_inner_texts())  # beside
    provisional = rows.filter(has=page.locator(".badge", has_text="provisional"))
    expect(provisional.first).to_be_visible()  # every bot here has played under 20 matches
    assert_fits(page, "/")
