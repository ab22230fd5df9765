"""Every page a visitor can reach speaks people's words (issue 34), not the protocol's: no bid
written "7N by B" or "7 C by A", no "11–-1", no "vperson", no "named trump: C". A visitor's
crawl from the leaderboards follows every link of the site's pages (both games' ladders,
finished matches and their boards, replays, tournaments, bots, games against people) and
reads each page's text; then Chromium draws the replays (a Kaiser match, a Sergeant Major
match, and each game's replay of a game against people) and their text is read the same way.

The data is real: both games' house bots, authors' bots, ladder matches and tournament
matches played by the engine, and two games against people (one of each game) played
through the play worker's service."""

from __future__ import annotations

import html
import re
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from playwright.sync_api import Browser, Page, expect

from bots.models import Bot, BotVersion
from bots.services import bot_builtin_add
from play.models import Table
from tests.browser import test_browser
from tests.browser.test_error_pages_browser import page_without_script_errors
from tests.play import conftest as play_fixtures
from tests.play.conftest import wait_view

browser = test_browser.browser
play_game = play_fixtures.play_game  # the play worker's service in a thread (a fixture)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True),
              pytest.mark.timeout(300)]

# The protocol's forms on people's pages, as issue 34 found them.
RAW = {
    "a bid by a side letter": re.compile(r"\b\d{1,2}[NL]?\b by [AB]\b"),
    "a suit letter after a bid": re.compile(r"\b\d{1,2} [CDHS] by\b"),
    "a hyphen for a minus after a dash": re.compile("\u2013-"),
    "a person as a version": re.compile(r"vperson"),
    "a trump as a letter": re.compile(r"named trump: [CDHS]\b"),
    "a hyphen for a minus": re.compile(r"(?<![\w\-\u2013/.:])-\d"),
    # and as issue 43 found them: teams and seats by number, no time ago, a nameless cup.
    "a team by number": re.compile(r"\b(?:team [01]\b|T[01]: seats)"),
    "a seat by number": re.compile(r"\b(?:South|West|North|East) \([0-3]\)"),
    "no time ago": re.compile("\\b0[ \u00a0]minutes ago"),
    "a tournament without its name": re.compile(r"\btournament r\d"),
    # issue 43: verdicts and Sergeant Major's table
    "a fault's bracket": re.compile(r"\[(?:crash|timeout|protocol|illegal) at seat"),
    "the clock's backstop": re.compile(r"past the backstop"),
    "a seat slot": re.compile(r"seat slot \d"),
    "a sandbox path": re.compile(r'"/bot/bot\.py"'),
    "a fault by seat number": re.compile(r"\((?:resign|crash|timeout|illegal), seat \d"),
    "tricks of a target": re.compile(r"\btricks \d+ of \d+"),
    "a team in Sergeant Major": re.compile(r"Your team"),
    "the repo's runner": re.compile(r"python -m engine validate"),
}
# The docs quote the protocol: its JSON's numbers, and its teams and seats by number.
DOCS_MAY_QUOTE = ("a hyphen for a minus", "a team by number", "a seat by number",
                  "the clock's backstop", "the repo's runner")
# Pages of the site that are not people's pages, or not pages: not crawled.
SKIPPED = ("/api/", "/admin/", "/static/", "/media/", "/accounts/", "/health", "/metrics",
           "/docs/runner/", "/docs/starter/")
DOWNLOADS = (".json", ".csv", ".pyz", ".zip", ".py", ".jsonl")
LIMIT = 400


@dataclass
class Site:
    kaiser_match: int
    sm_match: int
    kaiser_game: int
    sm_game: int


def _builtin(owner: User, name: str, spec: str, game: str = "kaiser") -> BotVersion:
    return bot_builtin_add(bot=Bot.objects.create(owner=owner, name=name, game=game),
                                   spec=spec)


def _game_against_people(person: User, play_game: Any, game: str) -> Table:
    """A one-deal (one-hand) game of `person` against the game's house players, the person
    answering each turn with its first legal move, played by the play worker's service."""
    from play import services

    seats = ["builtin:random"] * (3 if game == "kaiser" else 2)
    rules = "official" if game == "kaiser" else "952"
    played = services.game_create(owner=person, rules=rules, length="deal", seats=seats,
                                  game=game)
    worker, after = play_game(played), None
    while True:
        played = wait_view(played, seq=None if after is None else after + 1)
        if not played.is_open:
            break
        view = played.view
        legal, decision = view["legal"], view["decision"]
        if decision == "discard":
            action: Any = legal[:view.get("count") or view["kitty"]]
        elif decision in ("give", "return"):
            action = legal[:view["count"]]
        else:
            action = legal[0]
        services.move_submit(game=played, user=person, seq=played.seq, action=action)
        after = played.seq  # the next view to wait for comes after this move
    assert worker.join() == "finished"
    return played


@pytest.fixture
def site(settings: Any, play_game: Any) -> Site:
    from ladder import services as ladder_services
    from ladder.models import Ladder
    from matches import services as match_services
    from matches.models import Match
    from play.models import Table
    from tournaments import services
    from tournaments.models import Tournament

    settings.KAISER_DISPATCH_DEPTH = 0
    random, greedy = ladder_services.house_bots_ensure()
    ladder_services.house_bots_ensure("sergeant-major")
    walker, oscar = (User.objects.create_user(n, password="a-long-password-42")
                     for n in ("walker", "oscar"))
    mine, theirs = (_builtin(walker, "walkers-bot", "builtin:greedy"),
                    _builtin(oscar, "oscars-bot", "builtin:random"))
    sm = [_builtin(u, f"{u.username}-sm", spec, "sergeant-major")
          for u, spec in ((walker, "builtin:greedy"), (oscar, "builtin:random"))]

    def play(match: Any) -> int:
        assert match_services.match_play(match_id=match.pk, worker="words") == "finished"
        return int(match.pk)

    main, smladder = Ladder.objects.get(slug="main"), Ladder.objects.get(slug="sergeant-major")
    kaiser = play(match_services.match_create(
        versions=[mine, theirs], kind=Match.Kind.LADDER, conditions=main,
        ladder=main, rated=True))
    house_sm = BotVersion.objects.get(bot__name="sm-greedy")
    three = play(match_services.match_create(
        versions=[sm[0], sm[1], house_sm], kind=Match.Kind.LADDER,
        conditions=smladder, ladder=smladder, rated=True))
    swiss = services.tournament_create(name="One round", format=Tournament.Format.SWISS,
                                       versions=[mine, theirs, greedy, random], rounds=1)
    sm_swiss = services.tournament_create(
        name="Three of them", format=Tournament.Format.SWISS, versions=[*sm, house_sm],
        rounds=1, game="sergeant-major", rules="952-six-hands", games_per_match=3)
    for tournament in (swiss, sm_swiss):
        for match in tournament.matches.all():
            play(match)
    kaiser_game = _game_against_people(walker, play_game, "kaiser")
    sm_game = _game_against_people(walker, play_game, "sergeant-major")
    assert Table.objects.filter(status=Table.Status.FINISHED).count() == 2
    return Site(kaiser, three, kaiser_game.pk, sm_game.pk)


def _text(body: str) -> str:
    body = re.sub(r"<(script|style)\b.*?</\1>", " ", body, flags=re.S | re.I)
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", body)))


def _links(body: str) -> list[str]:
    out = []
    for href in re.findall(r'href="([^"]+)"', body):
        url = html.unescape(href).split("#")[0]
        if not url.startswith("/") or url.startswith("//") or url.startswith(SKIPPED):
            continue
        if url.split("?")[0].endswith(DOWNLOADS):
            continue
        out.append(url)
    return out


def _raw_found(text: str, *, docs: bool = False) -> list[str]:
    """The protocol's forms found in a page's text. The docs quote the protocol's JSON, whose
    numbers have their hyphen-minus ("score": [12, -3]): only that is allowed there."""
    return [f"{what}: {m.group(0)!r} in ...{text[max(0, m.start() - 60):m.end() + 40]}..."
            for what, pattern in RAW.items() for m in [pattern.search(text)]
            if m and not (docs and what in DOCS_MAY_QUOTE)]


def test_a_visitor_meets_no_protocol_text_on_any_page_of_either_game(site: Site) -> None:
    client = Client()
    start = ["/", "/ladders/sergeant-major/", f"/matches/{site.kaiser_match}/",
             f"/matches/{site.sm_match}/", f"/play/{site.kaiser_game}/replay/",
             f"/play/{site.sm_game}/replay/", "/tournaments/", "/bots/", "/matches/"]
    seen, queue, problems = set(start), deque(start), []
    while queue and len(seen) <= LIMIT:
        url = queue.popleft()
        response = client.get(url)
        assert response.status_code in (200, 301, 302), f"{url}: {response.status_code}"
        if response.status_code != 200 or "html" not in response.get("Content-Type", ""):
            continue
        body = response.content.decode()
        problems += [f"{url}: {found}"
                     for found in _raw_found(_text(body), docs=url.startswith("/docs/"))]
        for link in _links(body):
            if link not in seen:
                seen.add(link)
                queue.append(link)
    assert not problems, "\n".join(problems)
    # The crawl reached what the issue names: both games, boards, replays, tournaments.
    reached = " ".join(seen)
    for part in (f"/matches/{site.kaiser_match}/boards/", f"/play/{site.sm_game}/replay/",
                 "/tournaments/", "/ladders/sergeant-major/"):
        assert part in reached, part
    assert any(re.fullmatch(r"/matches/\d+/boards/\d+/\d+/", u) for u in seen)
    assert any(re.fullmatch(r"/bots/\d+/", u) for u in seen)


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    yield from page_without_script_errors(browser, viewport={"width": 1280, "height": 900})


WIDTHS = (1280, 390, 320)  # a desktop's, a phone's, the narrowest phone's


def test_the_replay_viewers_speak_peoples_words_of_either_game(
        live_server: Any, page: Page, site: Site) -> None:
    """Every step of each viewer's first deal (the bidding, trump, each trick, its end) and the
    match's last step, at each width: no protocol form in the viewer's text, nothing wider
    than the screen."""
    from tests.browser.test_phone_layout_browser import assert_fits

    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 900})
        for path in (f"/matches/{site.kaiser_match}/", f"/matches/{site.sm_match}/",
                     f"/play/{site.kaiser_game}/replay/", f"/play/{site.sm_game}/replay/"):
            page.goto(live_server.url + path)
            expect(page.locator("#viewer.loaded")).to_be_visible()
            steps = page.locator("#v-step")
            for _ in range(60):  # step by step through the first deal
                text = page.locator("main").inner_text()
                assert not _raw_found(text), (width, path, steps.inner_text(), _raw_found(text))
                if "over" in steps.inner_text():  # "deal over", "hand over"
                    break
                page.keyboard.press("ArrowRight")
            page.keyboard.press("End")
            text = page.locator("main").inner_text()
            assert not _raw_found(text), (width, path, "the last step", _raw_found(text))
            assert_fits(page, f"{path} at {width} px")
            if path == f"/play/{site.sm_game}/replay/":
                # A Sergeant Major game against people names its person as a person.
                assert "walker (person)" in text
