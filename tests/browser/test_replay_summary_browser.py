"""Issue 43: the replay's end-of-deal summary and a board's two tables, readable at 1280, 390
and 320 px in Chromium. The summary spans the table's middle (it was a column a word wide in
the trick's middle cell on a phone), each side a line of its own, numbers said in words ("1
trick"), and the game's score table stays inside its box; a board's tables (one above the
other on a phone) fit the screen, both in view one after the other with every hand's cards.

The match is played by the engine through the services the worker uses (greedy against mc)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from matches.models import BoardLoss
from tests.browser import test_browser
from tests.browser.test_boards_browser import lost_board  # noqa: F401 (a fixture)
from tests.browser.test_people_words_browser import _raw_found
from tests.browser.test_phone_layout_browser import NARROWEST, PHONE, assert_fits

browser, page = test_browser.browser, test_browser.page
pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True),
              pytest.mark.timeout(300)]
WIDTHS = [1280, PHONE["width"], NARROWEST["width"]]

# The box of an element, and of its nearest ancestor of a selector.
BOXES = """([inner, outer]) => {
  const box = e => {
    const r = e.getBoundingClientRect();
    return {left: r.left, right: r.right, width: r.width};
  };
  const node = document.querySelector(inner);
  return {inner: box(node), outer: box(node.closest(outer))};
}"""


def test_the_end_of_a_deal_is_said_across_the_table_at_every_width(
        live_server: Any, page: Page, lost_board: BoardLoss) -> None:  # noqa: F811
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 800})
        page.goto(f"{live_server.url}/matches/{lost_board.match_id}/")
        expect(page.locator("#viewer.loaded .seat .card").first).to_be_attached()
        page.keyboard.press("End")  # the deal's last step: the deal is over
        note = page.locator("#v-trick .deal-over")
        expect(note).to_be_visible()
        lines = note.locator("div").all_inner_texts()
        assert note.locator("strong").inner_text() == "Deal over"
        assert len(lines) == 2, lines  # one line a side
        for line in lines:
            said = r".+ \(.+\): \d+ tricks?, \u2212?\d+ points?, score [+\u2212]\d+"
            assert re.fullmatch(said, line), line
            assert not re.search(r"\b1 tricks\b|\b1 points\b", line), line
        assert not _raw_found(note.inner_text()), _raw_found(note.inner_text())
        # across the table's middle, not in a third of it; on a phone the middle is the
        # felt's whole width (West and East side by side above it)
        boxes = page.evaluate(BOXES, ["#v-trick .deal-over", "#v-trick"])
        assert boxes["inner"]["width"] >= 0.9 * boxes["outer"]["width"], (width, boxes)
        felt = page.evaluate(BOXES, ["#v-trick .deal-over", ".table-felt"])
        if width <= PHONE["width"]:
            assert felt["inner"]["width"] >= 0.8 * felt["outer"]["width"], (width, felt)
        score = page.evaluate(BOXES, ["#viewer .score-table", ".card"])
        assert score["inner"]["right"] <= score["outer"]["right"] + 0.5, (width, score)
        assert_fits(page, f"the replay's end of a deal at {width} px")


def test_a_boards_two_tables_fit_every_width(
        live_server: Any, page: Page, lost_board: BoardLoss) -> None:  # noqa: F811
    url = (f"{live_server.url}/matches/{lost_board.match_id}/boards/{lost_board.game + 1}/"
           f"{lost_board.deal + 1}/#s{lost_board.step}")
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 800})
        page.goto(url)
        expect(page.locator("#board")).to_have_class("board-view loaded")
        for table in (0, 1):
            felt = page.locator(f"#b-table-{table}")
            felt.scroll_into_view_if_needed()
            expect(felt).to_be_in_viewport()
            hands = felt.locator(".seat")
            expect(hands).to_have_count(4)
            for seat in hands.all():
                box = seat.bounding_box()
                assert box and box["x"] >= 0 and box["x"] + box["width"] <= width, (width, box)
        text = page.locator("#board").inner_text()
        assert not _raw_found(text), _raw_found(text)
        assert_fits(page, f"a board at {width} px")
