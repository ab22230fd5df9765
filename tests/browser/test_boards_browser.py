"""From a bot's page to its costliest board, in Chromium: the bot page lists the boards it lost
most on, the first one opens both tables of that board side by side at the first decision
where they differ, and the two tables step together."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import Page, expect

from bots.models import Bot
from bots.services import bot_builtin_add
from engine import words
from ladder.models import Ladder
from matches import services
from matches.models import BoardLoss, Match
from tests.browser import test_browser

browser, page = test_browser.browser, test_browser.page  # Chromium; JavaScript errors fail
pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True),
              pytest.mark.timeout(300)]


@pytest.fixture
def lost_board(settings: Any) -> BoardLoss:
    """A finished match of two close players (the same bids often, then a different card):
    the costliest board of the side that lost most."""
    settings.KAISER_DISPATCH_DEPTH = 0
    ladder = Ladder.objects.create(name="Boards", slug="boards-browser", games_per_match=2)
    versions = [bot_builtin_add(
        bot=Bot.objects.create(owner=User.objects.create_user(f"owner-{name}"), name=name),
        spec=f"builtin:{name.split('-')[0]}") for name in ("greedy-b", "mc-b")]
    match = services.match_create(versions=[versions[0], versions[1]],
                                  kind=Match.Kind.LADDER, conditions=ladder, ladder=ladder)
    assert services.match_play(match_id=match.pk, worker="browser-test") == "finished"
    worst = BoardLoss.objects.select_related("version").order_by("swing").first()
    assert worst is not None, "one side lost a board"
    return worst


def test_from_a_bots_page_to_both_tables_at_the_first_difference(
        live_server: Any, page: Page, lost_board: BoardLoss) -> None:
    page.goto(f"{live_server.url}/bots/{lost_board.version.bot_id}/")
    first_row = page.locator("#costliest tbody tr").first
    expect(first_row.locator("td.num")).to_have_text(words.signed(lost_board.swing))  # "−34"

    first_row.get_by_role("link").click()

    board = page.locator("#board")
    expect(board).to_have_class("board-view loaded")
    expect(page).to_have_url(
        f"{live_server.url}/matches/{lost_board.match_id}/boards/{lost_board.game + 1}/"
        f"{lost_board.deal + 1}/#s{lost_board.step}")
    expect(board).to_have_attribute("data-step", str(lost_board.step))
    tables = [page.locator(f"#b-table-{t}") for t in (0, 1)]
    said = []
    for table in tables:
        expect(table).to_have_attribute("data-step", str(lost_board.step))
        last = table.locator(".board-last")
        expect(last).to_have_class("board-last differs")
        said.append(last.inner_text())
    assert said[0] != said[1], f"the two tables did the same at the first difference: {said}"
    expect(page.locator("#b-step")).to_contain_text("the first difference")
    test_browser.shot(page, "board-first-difference")

    page.locator("#b-next").click()  # both tables move on together
    expect(board).to_have_attribute("data-step", str(lost_board.step + 1))
    for table in tables:
        expect(table.locator(".board-last")).to_have_class("board-last")
    page.locator("#b-diff").click()
    expect(board).to_have_attribute("data-step", str(lost_board.step))
