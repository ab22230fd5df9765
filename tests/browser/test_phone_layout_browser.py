"""The site on a phone, in headless Chromium: at 390 px (an iPhone's width) and at 320 px (the
narrowest phones) no page is wider than the screen (wide tables, code and the replay table
scroll inside their own box), every page shows the menu behind its "Menu" button, and every
link of the menu, once opened, is on the screen and goes where it says.

The data is real: the house bots, two authors' bots, a ladder match and a tournament match
played by the engine through the same services the worker uses."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import Browser, Locator, Page, expect

from bots.models import Bot, BotVersion
from bots.services import bot_builtin_add
from tests.browser import test_browser
from tests.browser.test_error_pages_browser import page_without_script_errors
from tests.browser.test_tournaments_browser import PASSWORD, log_in

browser = test_browser.browser  # Chromium, launched as the other browser tests launch it

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True),
              pytest.mark.timeout(180)]

PHONE = {"width": 390, "height": 844}
NARROWEST = {"width": 320, "height": 640}
DESKTOP = {"width": 1280, "height": 900}
DOCS = sorted(p.stem for p in (Path(__file__).resolve().parents[2] / "docs").glob("*.md"))

# The menu's links and where each goes, signed out and signed in ("Log out" is a button).
MENU = {"Leaderboard": r"/$", "Bots": r"/bots/$", "Matches": r"/matches/$",
        "Tournaments": r"/tournaments/$", "Play": r"/play/$", "Write a bot": r"/docs/$"}
SIGNED_OUT = {"Log in": r"/accounts/login/$", "Sign up": r"/accounts/signup/$"}
AUTHOR = "olivia"
SIGNED_IN = {AUTHOR: r"/accounts/$"}

WIDER_THAN_THE_SCREEN = """() => {
  const width = window.innerWidth;
  const classes = e => typeof e.className === 'string' ? e.className.trim().split(/ +/) : [];
  const name = e => [e.tagName.toLowerCase() + (e.id ? '#' + e.id : ''), ...classes(e)]
    .filter(Boolean).join('.');
  const wide = [...document.querySelectorAll('body *')].filter(e => {
    const box = e.getBoundingClientRect();
    return box.width > 0 && (box.right > width + 0.5 || box.left < -0.5);
  }).map(e => name(e) + ' ' + Math.round(e.getBoundingClientRect().right) + 'px');
  return {scroll: document.documentElement.scrollWidth, inner: width, wide: wide.slice(0, 8)};
}"""


@dataclass
class Arena:
    author: User
    bot: Bot
    others_bot: Bot
    match_id: int
    tournament_id: int


def _builtin(owner: User, name: str, spec: str) -> BotVersion:
    bot = Bot.objects.create(owner=owner, name=name, description=f"{name} plays {spec}.")
    return bot_builtin_add(bot=bot, spec=spec)


@pytest.fixture
def arena(settings: Any) -> Arena:
    """Two authors' bots, one finished ladder match with its replay, a round robin of three
    with its first match played; nothing goes to a broker."""
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
    assert match_services.match_play(match_id=match.pk, worker="phone-tests") == "finished"
    tournament = services.tournament_create(name="Autumn cup", format=Tournament.Format.ROUND_ROBIN,
                                            versions=[mine, theirs, greedy])
    first = tournament.matches.order_by("id").first()
    assert first is not None
    assert match_services.match_play(match_id=first.pk, worker="phone-tests") == "finished"
    return Arena(author, mine.bot, theirs.bot, match.pk, tournament.pk)


@pytest.fixture
def phone(browser: Browser) -> Iterator[Page]:
    """A page at 390 x 844 that fails the test on JavaScript errors (the error pages' own
    status is expected: Chromium logs it as "Failed to load resource")."""
    yield from page_without_script_errors(browser, viewport=PHONE, has_touch=True)


# --- The pages ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Spec:
    path: Callable[[Arena], str]
    drawn: str = "h1"  # what shows once the page is drawn (scripts included)
    status: int = 200
    signed_in: bool = False
    then: Callable[[Page], None] | None = None  # brings the page to its widest state


def _mid_deal(page: Page) -> None:
    """The replay a few tricks in: hands, the trick on the table, bids, the score table."""
    for _ in range(14):
        page.keyboard.press("ArrowRight")
    expect(page.locator("#v-trick .card").first).to_be_visible()


def _doc(slug: str) -> Spec:
    return Spec(lambda a: f"/docs/{slug}/", ".doc h1")


PAGES: dict[str, Spec] = {
    "leaderboard": Spec(lambda a: "/", "table.leaderboard"),
    "matches": Spec(lambda a: "/matches/", "table.matches"),
    "match": Spec(lambda a: f"/matches/{a.match_id}/", "#viewer.loaded .seat .card",
                  then=_mid_deal),
    "replay-viewer": Spec(lambda a: "/replay/", "#viewer"),
    "bots": Spec(lambda a: "/bots/", "table"),
    "bot": Spec(lambda a: f"/bots/{a.bot.pk}/", "#versions"),
    "tournaments": Spec(lambda a: "/tournaments/", "table"),
    "tournament": Spec(lambda a: f"/tournaments/{a.tournament_id}/", "#standings tbody tr"),
    "play": Spec(lambda a: "/play/"),
    "docs": Spec(lambda a: "/docs/"),
    **{f"docs-{slug}": _doc(slug) for slug in DOCS},
    "login": Spec(lambda a: "/accounts/login/", "#id_username"),
    "signup": Spec(lambda a: "/accounts/signup/", "#id_username"),
    "account": Spec(lambda a: "/accounts/", "#api-token", signed_in=True),
    "new-bot": Spec(lambda a: "/bots/new/", "#id_name", signed_in=True),
    "upload": Spec(lambda a: f"/bots/{a.bot.pk}/upload/", "input[type=file]", signed_in=True),
    "404": Spec(lambda a: "/no-such-page/", "#error-404", status=404),
    "403": Spec(lambda a: f"/bots/{a.others_bot.pk}/upload/", "#error-403", status=403,
                signed_in=True),
}


def menu(page: Page) -> Locator:
    return page.get_by_role("navigation", name="main")


def open_menu(page: Page) -> None:
    """On a phone the links wait behind the "Menu" button; it opens them."""
    links = menu(page).locator("#nav-menu")
    expect(links).to_be_hidden()
    menu(page).locator("label", has_text="Menu").click()
    expect(links).to_be_visible()


def sign_in(page: Page, base: str) -> None:
    """log_in checks the menu for the author's name, so it signs in on a wide screen."""
    size = page.viewport_size
    page.set_viewport_size(DESKTOP)
    log_in(page, base, AUTHOR)
    assert size is not None
    page.set_viewport_size(size)


def assert_on_screen(page: Page, item: Locator) -> None:
    expect(item).to_be_visible()
    box = item.bounding_box()
    width = page.evaluate("window.innerWidth")
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width, (box, width)


def assert_fits(page: Page, name: str) -> None:
    found = page.evaluate(WIDER_THAN_THE_SCREEN)
    assert found["scroll"] <= found["inner"], (
        f"{name} is {found['scroll']} px wide on a {found['inner']} px screen; "
        f"wider elements: {found['wide']}")


@pytest.mark.parametrize("name", list(PAGES))
def test_no_page_is_wider_than_a_phone_and_each_shows_the_menu(
    live_server: Any, phone: Page, arena: Arena, name: str
) -> None:
    spec = PAGES[name]
    if spec.signed_in:
        sign_in(phone, live_server.url)
    response = phone.goto(live_server.url + spec.path(arena))
    assert response is not None and response.status == spec.status
    expect(phone.locator(spec.drawn).first).to_be_attached()
    if spec.then:
        spec.then(phone)
    for viewport in (PHONE, NARROWEST):
        phone.set_viewport_size(viewport)
        phone.wait_for_function("w => window.innerWidth === w", arg=viewport["width"])
        assert_fits(phone, f"{name} at {viewport['width']} px")
    phone.set_viewport_size(PHONE)
    open_menu(phone)
    assert_fits(phone, f"{name} with the menu open")
    for link in {**MENU, **(SIGNED_IN if spec.signed_in else SIGNED_OUT)}:
        assert_on_screen(phone, menu(phone).get_by_role("link", name=link, exact=True))


@pytest.mark.parametrize("width", [NARROWEST["width"], PHONE["width"]])
@pytest.mark.parametrize("who", ["signed out", "signed in"])
def test_every_menu_link_opens_its_page_on_a_phone(
    live_server: Any, phone: Page, arena: Arena, who: str, width: int
) -> None:
    phone.set_viewport_size({"width": width, "height": 700})
    links = {**MENU, **(SIGNED_IN if who == "signed in" else SIGNED_OUT)}
    if who == "signed in":
        sign_in(phone, live_server.url)
    start = live_server.url + f"/bots/{arena.bot.pk}/"
    for link, url in links.items():
        phone.goto(start)
        open_menu(phone)
        item = menu(phone).get_by_role("link", name=link, exact=True)
        assert_on_screen(phone, item)
        item.click()
        expect(phone).to_have_url(re.compile(url))
        expect(menu(phone)).to_be_visible()
    if who == "signed in":
        open_menu(phone)
        log_out = menu(phone).get_by_role("button", name="Log out")
        assert_on_screen(phone, log_out)
        log_out.click()
        open_menu(phone)
        expect(menu(phone).get_by_role("link", name="Log in")).to_be_visible()


def test_on_a_wide_screen_the_menu_is_one_row_without_a_button(
    live_server: Any, phone: Page, arena: Arena
) -> None:
    phone.set_viewport_size(DESKTOP)
    phone.goto(live_server.url + "/")
    expect(menu(phone).locator("label", has_text="Menu")).to_be_hidden()
    tops = set()
    for link in {**MENU, **SIGNED_OUT}:
        item = menu(phone).get_by_role("link", name=link, exact=True)
        expect(item).to_be_visible()
        box = item.bounding_box()
        assert box is not None
        tops.add(round(box["y"] + box["height"] / 2))
    assert max(tops) - min(tops) <= 4, f"the menu's links are not on one row: {sorted(tops)}"
