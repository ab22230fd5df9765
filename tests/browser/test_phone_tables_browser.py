"""Tables on a phone (issue 34), in headless Chromium at 390 px and 320 px: the leaderboard's
rows are cards with matches won and last played on screen; the board comparison's rows are
cards with the swing on screen, not 150 px tall; tournament standings put Points first
(after the bot), on screen; the play table's score table fits. Nothing is wider than the
screen, and a table that still must scroll says so (static/js/tables.js: a line above it,
its hidden edge faded). At 1280 px the same tables are plain tables with every column.

The data is real: the house bots, two authors' bots, a ladder match and a round robin's
match played by the engine, a Sergeant Major Swiss with a match played, and a one-deal game
of the author against three bots played through the play worker's own service."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import Browser, Locator, Page, expect

from bots.models import Bot, BotVersion
from bots.services import bot_builtin_add
from play.models import Table
from tests.browser import test_browser
from tests.browser.test_error_pages_browser import page_without_script_errors
from tests.browser.test_phone_layout_browser import (
    DESKTOP,
    NARROWEST,
    PHONE,
    assert_fits,
    sign_in,
)
from tests.browser.test_tournaments_browser import PASSWORD
from tests.play import conftest as play_fixtures
from tests.play.conftest import wait_view

browser = test_browser.browser
play_game = play_fixtures.play_game  # the play worker's service in a thread (a fixture)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True),
              pytest.mark.timeout(240)]

AUTHOR = "olivia"
PHONES = [PHONE, NARROWEST]


@dataclass
class Site:
    match_id: int
    round_robin_id: int
    swiss_id: int
    game_id: int


def _builtin(owner: User, name: str, spec: str, game: str = "kaiser") -> BotVersion:
    bot = Bot.objects.create(owner=owner, name=name, game=game)
    return bot_builtin_add(bot=bot, spec=spec)


def _finished_game(author: User, play_game: Any) -> Table:
    """A one-deal game of the author against three random bots, the author answering each
    turn with a legal move, played by the play worker's service in a thread."""
    from play import services

    game = services.game_create(owner=author, rules="official", length="deal",
                                seats=["builtin:random"] * 3)
    worker, after = play_game(game), None
    while True:
        game = wait_view(game, seq=None if after is None else after + 1)
        if not game.is_open:
            break
        view = game.view
        legal = view["legal"]
        action = legal[:view["kitty"]] if view["decision"] == "discard" else legal[0]
        services.move_submit(game=game, user=author, seq=game.seq, action=action)
        after = game.seq  # the next view to wait for comes after this move
    assert worker.join() == "finished"
    return game


@pytest.fixture
def site(settings: Any, play_game: Any) -> Site:
    from ladder import services as ladder_services
    from ladder.models import Ladder
    from matches import services as match_services
    from matches.models import Match
    from tournaments import services
    from tournaments.models import Tournament

    settings.KAISER_DISPATCH_DEPTH = 0
    random, greedy = ladder_services.house_bots_ensure()
    author = User.objects.create_user(AUTHOR, password=PASSWORD)
    oscar = User.objects.create_user("oscar", password=PASSWORD)
    mine = _builtin(author, "olivias-bot-with-a-rather-long-name", "builtin:greedy")
    theirs = _builtin(oscar, "oscars-bot", "builtin:random")
    ladder = Ladder.objects.get(slug="main")
    match = match_services.match_create(versions=[mine, theirs],
                                        kind=Match.Kind.LADDER, conditions=ladder,
                                        ladder=ladder, rated=True)
    assert match_services.match_play(match_id=match.pk, worker="phone-tables") == "finished"
    robin = services.tournament_create(name="Autumn cup", format=Tournament.Format.ROUND_ROBIN,
                                       versions=[mine, theirs, greedy])
    sm = [_builtin(u, f"{u.username}-sm", "builtin:greedy", "sergeant-major")
          for u in (author, oscar, User.objects.create_user("ines", password=PASSWORD))]
    swiss = services.tournament_create(name="Nine five two", format=Tournament.Format.SWISS,
                                       versions=sm, rounds=2, game="sergeant-major",
                                       rules="952-six-hands", games_per_match=3)
    for tournament in (robin, swiss):
        first = tournament.matches.order_by("id").first()
        assert first is not None
        assert match_services.match_play(match_id=first.pk, worker="phone-tables") == "finished"
    return Site(match.pk, robin.pk, swiss.pk, _finished_game(author, play_game).pk)


@pytest.fixture
def phone(browser: Browser) -> Iterator[Page]:
    yield from page_without_script_errors(browser, viewport=PHONE, has_touch=True)


def _at(page: Page, viewport: dict[str, int]) -> None:
    page.set_viewport_size(viewport)
    page.wait_for_function("w => window.innerWidth === w", arg=viewport["width"])


def _on_screen(page: Page, cell: Locator) -> dict[str, float]:
    expect(cell).to_be_visible()
    box = cell.bounding_box()
    width = page.evaluate("window.innerWidth")
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width + 0.5, \
        (cell, box, width)
    return box


def _cue_where_it_scrolls(page: Page) -> list[str]:
    """Every table that scrolls sideways shows its cue; the ones that fit show none. Returns
    how each table stands: 'fits' or 'scrolls'."""
    states = []
    for wrap in page.locator(".table-wrap").all():
        if not wrap.is_visible():
            continue
        scrolls = wrap.evaluate("w => w.scrollWidth - w.clientWidth > 1")
        cue = wrap.locator("xpath=preceding-sibling::*[1][contains(@class, 'scroll-cue')]")
        if scrolls:
            expect(cue).to_be_visible()
            expect(cue).to_have_text("Scroll the table sideways for more columns \u2192")
            expect(wrap).to_have_attribute("data-scrolls", "right")
        else:
            expect(cue).to_be_hidden()
            assert wrap.get_attribute("data-scrolls") is None
        states.append("scrolls" if scrolls else "fits")
    return states


def test_the_leaderboards_rows_are_cards_with_matches_won_and_last_played_on_a_phone(
        live_server: Any, phone: Page, site: Site) -> None:
    phone.goto(live_server.url + "/")
    rows = phone.locator("table.leaderboard tbody tr")
    expect(rows.first).to_be_visible()
    for viewport in PHONES:
        _at(phone, viewport)
        assert_fits(phone, f"the leaderboard at {viewport['width']} px")
        for row in rows.all():
            for cell, label in (("td.elo", "Elo"), ("td.won", "Won"),
                                ("td.last", "Last played"), ("td.rated", "Rated matches")):
                _on_screen(phone, row.locator(cell))
                assert phone.evaluate(
                    "c => getComputedStyle(c, '::before').content", row.locator(
                        cell).element_handle()) == f'"{label} "'
            assert row.evaluate("r => getComputedStyle(r).display") == "grid"
        assert set(_cue_where_it_scrolls(phone)) <= {"fits"}
    _at(phone, DESKTOP)
    header = phone.locator("table.leaderboard thead")
    for column in ("Elo", "Fitted (95%) ↓", "Rated matches", "Matches won", "Last played",
                   "Owner", "Trend"):
        expect(header.get_by_role("columnheader", name=column, exact=True)).to_be_visible()
    assert rows.first.evaluate("r => getComputedStyle(r).display") == "table-row"


def test_the_board_comparison_shows_each_boards_swing_in_a_short_card_on_a_phone(
        live_server: Any, phone: Page, site: Site) -> None:
    phone.goto(live_server.url + f"/matches/{site.match_id}/boards/")
    rows = phone.locator("#boards tbody tr")
    expect(rows.first).to_be_visible()
    for viewport in PHONES:
        _at(phone, viewport)
        assert_fits(phone, f"the boards at {viewport['width']} px")
        for row in rows.all():
            _on_screen(phone, row.locator("td.swing"))
            for contract in row.locator("td.contract").all():
                _on_screen(phone, contract)
            height = row.bounding_box()["height"]  # type: ignore[index]
            if viewport is PHONE:
                assert height < 150, f"a board's row is {height:.0f} px tall at 390 px"
        expect(phone.locator(".show-sm", has_text="On a narrow screen")).to_be_visible()
        assert set(_cue_where_it_scrolls(phone)) <= {"fits"}
    _at(phone, DESKTOP)
    expect(phone.get_by_role("columnheader", name="First difference")).to_be_visible()
    expect(phone.locator(".show-sm", has_text="On a narrow screen")).to_be_hidden()
    _on_screen(phone, rows.first.locator("td.swing"))


@pytest.mark.parametrize("which", ["round robin", "Sergeant Major Swiss"])
def test_tournament_standings_put_points_on_screen_and_say_when_they_scroll(
        live_server: Any, phone: Page, site: Site, which: str) -> None:
    tournament = site.round_robin_id if which == "round robin" else site.swiss_id
    phone.goto(live_server.url + f"/tournaments/{tournament}/")
    rows = phone.locator("#standings tbody tr")
    expect(rows.first).to_be_visible()
    header = phone.locator("#standings thead th")
    assert header.nth(2).inner_text() == "Points"  # the column that matters, after the bot
    for viewport in PHONES:
        _at(phone, viewport)
        assert_fits(phone, f"the {which} at {viewport['width']} px")
        for row in rows.all():
            _on_screen(phone, row.locator("td.points"))
        _cue_where_it_scrolls(phone)
    _at(phone, DESKTOP)
    for column in ("Buchholz", "Games won", "Seed"):
        expect(phone.get_by_role("columnheader", name=column, exact=True)).to_be_visible()
    assert set(_cue_where_it_scrolls(phone)) == {"fits"}


def test_the_play_tables_score_fits_a_phone_and_explains_the_last_deal(
        live_server: Any, phone: Page, site: Site) -> None:
    sign_in(phone, live_server.url)
    phone.goto(live_server.url + f"/play/{site.game_id}/")
    scores = phone.locator("#p-scores table.score-table")
    expect(scores.locator("tr").nth(1)).to_be_visible()
    for viewport in PHONES:
        _at(phone, viewport)
        assert_fits(phone, f"the play table at {viewport['width']} px")
        for cell in scores.locator("tr").last.locator("td").all():
            _on_screen(phone, cell)
        _on_screen(phone, phone.locator("#p-deal-outcome"))
    expect(phone.locator("#p-deal-outcome")).to_contain_text(
        "Deal 1: ")
    expect(phone.locator("#p-deal-outcome")).to_contain_text(" and took ")
