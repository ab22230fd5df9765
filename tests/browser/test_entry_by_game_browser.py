"""Issue 43: an open Sergeant Major tournament offered Kaiser authors an Enter button with their
Kaiser bots (the entry then refused), and said it "starts by itself with whoever entered" before
cancelling for too few. In Chromium at 1280, 390 and 320 px: a Kaiser-only author is offered no
Enter (the tournament's page says why in words, the home page's box and the bot's page offer
none), an author of both games is offered only her Sergeant Major bots, and the page says the
fewest entrants it starts with before the deadline. Her entry goes through."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.utils import timezone
from playwright.sync_api import Page, expect

from bots.models import Bot, BotVersion
from engine.games import get_game
from tests.browser import test_browser
from tests.browser.test_phone_layout_browser import DESKTOP, NARROWEST, PHONE, assert_fits
from tests.browser.test_tournaments_browser import PASSWORD, log_in
from tournaments import services
from tournaments.models import Tournament, TournamentEntrant

browser, page = test_browser.browser, test_browser.page
pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True),
              pytest.mark.timeout(300)]
SIZES = [DESKTOP, PHONE, NARROWEST]


def _bot(owner: User, name: str, game: str) -> BotVersion:
    return BotVersion.objects.create(
        bot=Bot.objects.create(owner=owner, name=name, game=game), number=1,
        kind=BotVersion.Kind.BUILTIN, builtin="builtin:greedy",
        status=BotVersion.Status.ACTIVE, reason="built-in player", checked=timezone.now())


def _as(page: Page, base: str, username: str, size: dict[str, int]) -> None:
    """Signed in at a desktop's width (log_in reads the menu's row), then at `size`."""
    page.context.clear_cookies()
    page.set_viewport_size(DESKTOP)
    log_in(page, base, username)
    page.set_viewport_size(size)


@pytest.mark.parametrize("size", SIZES, ids=["1280", "390", "320"])
def test_an_open_tournament_offers_entry_only_with_bots_of_its_game(
        live_server: Any, page: Page, size: dict[str, int]) -> None:
    base = live_server.url
    kai = User.objects.create_user("kai", password=PASSWORD)
    sam = User.objects.create_user("sam", password=PASSWORD)
    kaiser_bot = _bot(kai, "kai-kaiser", "kaiser")
    _bot(sam, "sam-kaiser", "kaiser")
    sm_bots = [_bot(sam, name, "sergeant-major") for name in ("sam-triple", "sam-second")]
    cup = services.tournament_create(
        name="Open triples", format=Tournament.Format.ROUND_ROBIN, game="sergeant-major",
        games_per_match=3, rules="952", entry_deadline=timezone.now() + timedelta(hours=1))
    assert cup.status == Tournament.Status.OPEN

    _as(page, base, "kai", size)
    page.goto(base + f"/tournaments/{cup.pk}/")
    entry = page.locator("#entry")
    expect(entry).to_contain_text("then it starts by itself if at least 3 bots have entered; "
                                  "with fewer it is cancelled")
    title = get_game("sergeant-major").title  # "Sergeant Major (9-5-2)"
    expect(entry).to_contain_text(f"A {title} tournament: you have no {title} bot with an "
                                  "active version to enter.")
    expect(entry.get_by_role("button", name="Enter")).to_have_count(0)
    assert_fits(page, f"the open tournament at {size['width']} px")
    page.goto(base + "/")
    row = page.locator(f'#open-tournaments li[data-tournament="{cup.pk}"]')
    expect(row).to_be_visible()
    expect(row.get_by_role("button", name="Enter")).to_have_count(0)
    page.goto(base + f"/bots/{kaiser_bot.bot_id}/")
    expect(page.locator("#bot-tournaments")).to_be_attached()
    expect(page.locator(f'#bot-tournaments li[data-tournament="{cup.pk}"]')).to_have_count(0)

    _as(page, base, "sam", size)
    page.goto(base + f"/tournaments/{cup.pk}/")
    offered = page.locator("#entry select[name=bot] option").all_inner_texts()
    assert sorted(offered) == sorted(f"{v.bot.name} v1" for v in sm_bots), offered
    page.locator("#entry select[name=bot]").select_option(label="sam-triple v1")
    page.locator("#entry").get_by_role("button", name="Enter").click()
    expect(page.locator("#my-entries")).to_contain_text("sam-triple v1 is entered.")
    assert list(TournamentEntrant.objects.filter(tournament=cup).values_list(
        "version__bot__name", flat=True)) == ["sam-triple"]
    assert_fits(page, f"the entered tournament at {size['width']} px")
