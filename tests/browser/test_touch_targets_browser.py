"""Touch targets on the play table (issue 43: cards were 32–37 × 26 px at 390 px, under the
44 × 44 px that touch guidelines ask): at 390 and 320 px, every card of the person's hand and every
button of the table's actions is at least 44 × 44 px, at both games, on a live table played by
the real play worker; the page is no wider than the screen."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.browser import test_browser
from tests.browser.test_phone_layout_browser import NARROWEST, PHONE, assert_fits
from tests.play.conftest import real_workers  # noqa: F401 (a fixture: the real play worker)
from tests.play.test_play_browser import READY, _log_in

pytestmark = [pytest.mark.browser, pytest.mark.worker,
              pytest.mark.django_db(transaction=True), pytest.mark.timeout(300)]

browser, page = test_browser.browser, test_browser.page
TOUCH = 44  # px, each way

SIZES = """sel => [...document.querySelectorAll(sel)].filter(e => e.offsetParent !== null)
  .map(e => { const b = e.getBoundingClientRect();
              return [e.textContent.trim() || e.id, Math.round(b.width),
                      Math.round(b.height)]; })"""


@pytest.mark.parametrize("game", ["kaiser", "sergeant-major"])
def test_cards_and_buttons_of_the_play_table_are_touch_sized_on_a_phone(
        live_server: Any, page: Page, real_workers: Any, owner: Any, password: str,  # noqa: F811
        game: str) -> None:
    real_workers("KAISER_PLAY_QUEUE", pool="threads", concurrency=1)
    _log_in(page, live_server.url, owner, password)
    page.set_viewport_size(PHONE)
    page.goto(live_server.url + f"/play/?game={game}")
    page.click("#start")
    page.wait_for_url(lambda url: url.rstrip("/").split("/")[-1].isdigit())
    page.wait_for_function(READY, timeout=60_000)
    expect(page.locator(".seat-0 .hand .card").first).to_be_visible()
    for size in (PHONE, NARROWEST):
        page.set_viewport_size(size)
        cards = page.evaluate(SIZES, ".seat-0 .hand .card")
        buttons = page.evaluate(SIZES, "#p-actions button")
        assert cards, cards  # the buttons of the moment (none while a bot acts): each measured
        small = [c for c in cards + buttons if c[1] < TOUCH or c[2] < TOUCH]
        assert small == [], f"under {TOUCH} px at {size['width']} px: {small}"
        assert_fits(page, f"the {game} table at {size['width']} px")
