"""A new account becomes an organiser and runs a Sergeant Major round robin from the site alone
(issue 43: "a new account cannot run a tournament and the site never says how"), in headless
Chromium, played by a real Celery worker: it signs up, asks to organise on /tournaments/, a
staff account grants the request on its own page, and the new organiser makes a round robin
of four Sergeant Major bots on the form with its defaults (only the Game changed: the form
follows it). The tournament runs to its end and its standings show. At phone widths, the
way to become an organiser is on the screen too, and the form's 403 says how."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import Browser, Page, expect

from bots.models import Bot
from bots.services import bot_builtin_add
from ladder import services as ladder_services
from tests.browser import test_browser
from tests.browser.test_error_pages_browser import page_without_script_errors
from tests.browser.test_phone_layout_browser import DESKTOP, NARROWEST, PHONE, assert_fits
from tests.browser.test_tournaments_browser import PASSWORD, log_in, run_to_the_end
from tests.tournaments import test_worker
from tournaments.models import OrganiserRequest, Tournament

browser, start_worker = test_browser.browser, test_worker.start_worker

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True),
              pytest.mark.timeout(300)]

NEWCOMER = "new-organiser"
SM_BOTS = ("sm-ada", "sm-bea", "sm-cy", "sm-dot")


def _sign_up(page: Page, base: str, name: str) -> None:
    page.goto(base + "/accounts/signup/")
    page.fill("#id_username", name)
    page.fill("#id_password1", PASSWORD)
    page.fill("#id_password2", PASSWORD)
    page.get_by_role("button", name="Create account").click()
    expect(page.locator(".nav").get_by_role("link", name=name, exact=True)).to_be_visible()


def _ask_to_organise(page: Page, base: str) -> None:
    page.goto(base + "/tournaments/")
    expect(page.locator("#organisers")).to_contain_text("Any account can ask to become one")
    page.fill("#organise-reason", "A Sergeant Major round robin for our club")
    page.get_by_role("button", name="Ask to organise tournaments").click()
    expect(page.locator("#organiser-state")).to_contain_text("waiting for staff")


@pytest.mark.worker
def test_a_new_account_becomes_an_organiser_and_runs_a_sergeant_major_round_robin(
        live_server: Any, browser: Browser, start_worker: Any) -> None:
    for page in page_without_script_errors(browser, viewport=DESKTOP):  # a 403 on the way
        _organiser_path(live_server.url, browser, page, start_worker)


def _organiser_path(base: str, browser: Browser, page: Page, start_worker: Any) -> None:
    ladder_services.house_bots_ensure()
    start_worker()
    for name in SM_BOTS:
        owner = User.objects.create_user(f"author-of-{name}")
        bot_builtin_add(bot=Bot.objects.create(owner=owner, name=name, game="sergeant-major"),
                        spec="builtin:greedy")
    User.objects.create_user("stella", password=PASSWORD, is_staff=True)

    _sign_up(page, base, NEWCOMER)
    page.goto(base + "/tournaments/new/")
    expect(page.locator("#error-403")).to_contain_text("Only organisers create tournaments")
    _ask_to_organise(page, base)

    staff = browser.new_page()
    try:
        log_in(staff, base, "stella")
        staff.goto(base + "/tournaments/")
        staff.get_by_role("link", name="Requests to organise").click()
        row = staff.locator("#organiser-requests tbody tr", has_text=NEWCOMER)
        expect(row).to_contain_text("A Sergeant Major round robin for our club")
        row.get_by_role("button", name="Grant").click()
        expect(staff.locator(".messages")).to_contain_text(
            f"{NEWCOMER} can now organise tournaments")
    finally:
        staff.close()
    assert OrganiserRequest.objects.get().status == OrganiserRequest.Status.GRANTED

    page.goto(base + "/tournaments/")
    page.get_by_role("link", name="New tournament").click()
    page.fill("#id_name", "Club triples")
    page.select_option("#id_game", "sergeant-major")
    # The form follows its Game: Sergeant Major's default rule set and whole sets of 3 games.
    expect(page.locator("#id_rules")).to_have_value("952")
    expect(page.locator("#id_rules option")).to_have_count(4)
    expect(page.locator("#id_games_per_match")).to_have_value("3")
    suggested = page.locator("#bot-names option")  # the game's bots only
    expect(suggested).to_have_count(Bot.objects.filter(game="sergeant-major").count())
    assert set(SM_BOTS) <= set(suggested.evaluate_all("os => os.map(o => o.value)"))
    for name in SM_BOTS:
        page.fill("#entrant-search", name)
        page.click("#entrant-add")
    page.get_by_role("button", name="Create the tournament").click()
    expect(page.locator("h1")).to_have_text("Club triples")
    tournament = Tournament.objects.get(name="Club triples")
    assert (tournament.game, tournament.created_by.username) == ("sergeant-major", NEWCOMER)
    expect(page.locator(".meta")).to_contain_text("so each pair meets 2×")
    run_to_the_end(page, tournament)
    expect(page.locator("#standings tbody tr")).to_have_count(len(SM_BOTS))


@pytest.mark.parametrize("size", [PHONE, NARROWEST], ids=["390", "320"])
def test_on_a_phone_the_way_to_organise_is_on_the_screen(
        live_server: Any, browser: Browser, size: dict[str, int]) -> None:
    User.objects.create_user("phone-author", password=PASSWORD)
    for page in page_without_script_errors(browser, viewport=size, has_touch=True):
        page.set_viewport_size({"width": 1280, "height": 900})
        log_in(page, live_server.url, "phone-author")
        page.set_viewport_size(size)
        page.goto(live_server.url + "/tournaments/new/")
        expect(page.locator("#error-403")).to_contain_text("Ask to organise on the Tournaments")
        assert_fits(page, "the 403 page")
        _ask_to_organise(page, live_server.url)
        assert_fits(page, "/tournaments/")
