"""The shared page cache (kaiser_site.page_cache, issue 21): anonymous visitors are served
the home page, the leaderboards, the bot and match lists and pages and their API twins from the
cache, with no query; a match played through the real services is on them at the next request;
a signed-in user's page is always built for them, never shared; and one request at a time
builds a page."""

from __future__ import annotations

import html
import re
import threading
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.cache import cache
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from rest_framework.test import APIClient

from accounts.services import user_token
from kaiser_site import page_cache
from ladder import selectors as ladder_selectors
from ladder.services import ladder_fits_refresh
from matches.stats import play_stats_fold
from tests.pages.conftest import Arena, play

pytestmark = pytest.mark.django_db


def _text(response: Any) -> str:
    return html.unescape(response.content.decode())


def _cell_of_games(body: str, bot: str) -> str:
    row = body.split(f'<tr data-bot="{bot}">')[1].split("</tr>")[0]
    return re.findall(r'<td class="num rated" data-label="Rated matches">(\d+)</td>', row)[0]


def _shared_urls(arena: Arena) -> list[str]:
    match = arena.matches[0]
    return [reverse("home"), reverse("ladder-detail", args=["main"]), reverse("bot-list"),
            reverse("bot-detail", args=[arena.mine.bot_id]), reverse("match-list"),
            reverse("match-detail", args=[match.pk]), reverse("tournament-list"),
            "/api/v1/ladders/", "/api/v1/ladders/main/",
            "/api/v1/matches/", f"/api/v1/matches/{match.pk}/", "/api/v1/bots/",
            f"/api/v1/bots/{arena.mine.bot_id}/"]


def test_a_second_anonymous_visit_makes_no_query(arena: Arena) -> None:
    client = Client()
    for url in _shared_urls(arena):
        first = client.get(url)
        assert (first.status_code, first[page_cache.HEADER]) == (200, "miss"), url
        with CaptureQueriesContext(connection) as queries:
            again = client.get(url)
        assert (again.status_code, again[page_cache.HEADER]) == (200, "hit"), url
        assert again.content == first.content, url
        assert [q["sql"] for q in queries] == [], url


def test_the_leaderboard_shows_a_finished_match_at_the_next_request(arena: Arena) -> None:
    client = Client()
    before = _text(client.get(reverse("home")))
    assert client.get(reverse("home"))[page_cache.HEADER] == "hit"
    games = int(_cell_of_games(before, "greedy"))

    match = play(arena.greedy, arena.random, ladder=arena.ladder)

    response = client.get(reverse("home"))
    after = _text(response)
    assert response[page_cache.HEADER] == "miss"
    assert int(_cell_of_games(after, "greedy")) == games + 1
    assert f'href="/matches/{match.pk}/"' in after and f'href="/matches/{match.pk}/"' not in before
    listed = _text(client.get(reverse("match-list")))
    assert f'href="/matches/{match.pk}/"' in listed


def test_the_api_twins_show_a_finished_match_at_the_next_request(arena: Arena) -> None:
    client = APIClient()

    def greedy_games() -> int:
        board = client.get("/api/v1/ladders/main/").json()["leaderboard"]
        return next(row["games"] for row in board if row["name"] == "greedy")

    games = greedy_games()
    newest = client.get("/api/v1/matches/").json()["results"][0]["id"]
    assert client.get("/api/v1/ladders/main/")[page_cache.HEADER] == "hit"

    match = play(arena.greedy, arena.random, ladder=arena.ladder)

    assert greedy_games() == games + 1
    listed = client.get("/api/v1/matches/").json()["results"]
    assert (listed[0]["id"], listed[0]["status"]) == (match.pk, "finished")
    assert match.pk != newest


def test_a_new_version_is_on_the_bot_list_and_its_api_twin_at_once(arena: Arena) -> None:
    from bots.services import bot_builtin_add

    bot_url = f"/api/v1/bots/{arena.mine.bot_id}/"
    assert APIClient().get(bot_url).json()["active_version"]["number"] == 1
    Client().get(reverse("bot-list"))
    version = bot_builtin_add(bot=arena.mine.bot, spec="builtin:random")
    assert APIClient().get(bot_url).json()["active_version"]["number"] == version.number == 2
    page = _text(Client().get(reverse("bot-detail", args=[arena.mine.bot_id])))
    assert "v2" in page


def test_signed_in_users_get_their_own_pages_never_a_shared_copy(
    arena: Arena, logged_in: Client, other: User,
) -> None:
    url = reverse("bot-detail", args=[arena.theirs.bot_id])
    anonymous = Client().get(url)
    assert anonymous[page_cache.HEADER] == "miss" and "Log out" not in _text(anonymous)

    olivia = logged_in.get(url)
    body = _text(olivia)
    assert page_cache.HEADER not in olivia
    assert ">olivia</a>" in body and "Log out" in body
    assert "Challenge" in body and 'name="csrfmiddlewaretoken"' in body  # her own bot's form
    oscar = Client()
    oscar.force_login(other)
    theirs = _text(oscar.get(url))
    assert ">oscar</a>" in theirs and ">olivia</a>" not in theirs

    again = Client().get(url)  # the anonymous copy stayed anonymous
    assert again[page_cache.HEADER] == "hit"
    assert "Log out" not in _text(again) and "csrfmiddlewaretoken" not in _text(again)


def test_a_bots_owner_reads_its_stderr_through_the_api_while_others_share_a_copy(
    arena: Arena, other: User,
) -> None:
    url = f"/api/v1/matches/{arena.matches[-1].pk}/"  # B (oscar's bot) logged a line
    assert APIClient().get(url).json()["sides"][1]["stderr"] is None
    owner = APIClient()
    owner.credentials(HTTP_AUTHORIZATION=f"Token {user_token(user=other).key}")
    mine = owner.get(url)
    assert mine.json()["sides"][1]["stderr"] == "B's secret log line"
    assert page_cache.HEADER not in mine
    shared = APIClient().get(url)
    assert (shared[page_cache.HEADER], shared.json()["sides"][1]["stderr"]) == ("hit", None)


def test_a_visitor_with_a_session_or_a_message_is_served_a_page_of_their_own(
        arena: Arena) -> None:
    Client().get(reverse("home"))
    for cookie in ("sessionid", "messages"):
        client = Client()
        client.cookies[cookie] = "anything"
        response = client.get(reverse("home"))
        assert response.status_code == 200 and page_cache.HEADER not in response, cookie


def test_a_copy_younger_than_the_rebuild_interval_is_served_after_a_change(
    arena: Arena, settings: Any,
) -> None:
    settings.KAISER_PAGE_CACHE_REBUILD_SECONDS = 3600
    client = Client()
    client.get(reverse("home"))
    match = play(arena.greedy, arena.random, ladder=arena.ladder)

    recent = client.get(reverse("home"))
    assert recent[page_cache.HEADER] == "recent"
    assert f'href="/matches/{match.pk}/"' not in _text(recent)

    settings.KAISER_PAGE_CACHE_REBUILD_SECONDS = 0
    fresh = client.get(reverse("home"))
    assert fresh[page_cache.HEADER] == "miss"
    assert f'href="/matches/{match.pk}/"' in _text(fresh)


def test_a_copy_older_than_its_lifetime_is_built_again_without_a_change(
    arena: Arena, settings: Any,
) -> None:
    client = Client()
    assert client.get(reverse("bot-list"))[page_cache.HEADER] == "miss"
    assert client.get(reverse("bot-list"))[page_cache.HEADER] == "hit"
    settings.KAISER_PAGE_CACHE_SECONDS = 0
    assert client.get(reverse("bot-list"))[page_cache.HEADER] == "miss"


def test_an_error_page_is_never_shared(db: None) -> None:
    client = Client()
    assert client.get(reverse("match-list") + "?status=nonsense").status_code == 400
    refused = client.get(reverse("match-list") + "?status=nonsense")
    assert (refused.status_code, refused[page_cache.HEADER]) == (400, "miss")
    assert client.get(reverse("home") + "?page=0").status_code == 404


def test_without_the_cache_every_page_is_built_per_request(arena: Arena, settings: Any) -> None:
    settings.KAISER_PAGE_CACHE = False
    client = Client()
    client.get(reverse("home"))
    with CaptureQueriesContext(connection) as queries:
        response = client.get(reverse("home"))
    assert page_cache.HEADER not in response and len(queries) > 0


def test_concurrent_requests_for_a_missing_page_build_it_once(db: None) -> None:
    builds: list[int] = []
    building, release = threading.Event(), threading.Event()
    answers: list[tuple[str, str]] = []

    def build() -> tuple[str, bool]:
        builds.append(1)
        building.set()
        assert release.wait(30)
        return "the page", True

    def request() -> None:
        answers.append(page_cache.shared("pages:test:concurrent", ("board",), build))

    first = threading.Thread(target=request)
    first.start()
    assert building.wait(30)  # the first request holds the lock and builds
    others = [threading.Thread(target=request) for _ in range(7)]
    for thread in others:
        thread.start()
    release.set()
    for thread in [first, *others]:
        thread.join(30)
    assert len(builds) == 1
    assert len(answers) == 8 and all(value == "the page" for value, _ in answers)
    hows = sorted(how for _, how in answers)
    # The builder's "miss"; each other one waited for its build ("stale") or came after it.
    assert hows.count("miss") == 1 and set(hows) <= {"miss", "stale", "hit"}


def test_a_match_leaves_the_pages_of_the_bots_that_did_not_play_it_cached(arena: Arena) -> None:
    client = Client()
    bystander = reverse("bot-detail", args=[arena.mine.bot_id])
    player = reverse("bot-detail", args=[arena.greedy.bot_id])
    for url in (bystander, player, reverse("tournament-list")):
        client.get(url)

    match = play(arena.greedy, arena.random, ladder=arena.ladder)

    assert client.get(bystander)[page_cache.HEADER] == "hit"
    assert client.get(reverse("tournament-list"))[page_cache.HEADER] == "hit"
    fresh = client.get(player)
    assert fresh[page_cache.HEADER] == "miss"
    assert f'href="/matches/{match.pk}/"' in _text(fresh)


def test_a_fold_of_the_statistics_rebuilds_the_bot_pages_only(arena: Arena) -> None:
    """The play statistics show on the bot pages (beside all bots' totals), nowhere else: a
    fold (every 10 s under the beat) rebuilds those, and leaves the leaderboard, the lists
    and the match pages cached."""
    match = play(arena.greedy, arena.random, ladder=arena.ladder)
    client = Client()
    bot_page = reverse("bot-detail", args=[arena.mine.bot_id])
    others = [reverse("home"), reverse("match-list"), reverse("match-detail", args=[match.pk]),
              reverse("tournament-list"), "/api/v1/ladders/main/"]
    before = _text(client.get(bot_page))
    for url in others:
        client.get(url)

    assert play_stats_fold() >= 1

    for url in others:
        assert client.get(url)[page_cache.HEADER] == "hit", url
    after = client.get(bot_page)
    assert after[page_cache.HEADER] == "miss"
    assert _everyone_matches(_text(after)) > _everyone_matches(before)


def _everyone_matches(body: str) -> int:
    """The bot page's "all bots" matches (0 while no statistics are shown)."""
    found = re.search(r'<th>Matches</th>.*?<td class="num muted">(\d*)</td></tr>', body)
    return int(found.group(1) or 0) if found else 0


def test_a_refit_rebuilds_the_leaderboards_and_leaves_the_bot_pages_cached(arena: Arena) -> None:
    play(arena.greedy, arena.random, ladder=arena.ladder)
    client = Client()
    board, bot_page = reverse("home"), reverse("bot-detail", args=[arena.mine.bot_id])
    for url in (board, bot_page):
        client.get(url)
    cache.delete(ladder_selectors._fit_key(arena.ladder.pk))  # as if only the beat fits it

    assert ladder_fits_refresh() >= 1

    assert client.get(bot_page)[page_cache.HEADER] == "hit"
    assert client.get(board)[page_cache.HEADER] == "miss"
