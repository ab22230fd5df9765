"""The small dead ends of a new author's path: unrated bots listed apart from the ranking,
leaderboard columns that say what they count, queued match pages that follow their match and
offer no replay until there is one."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.test import Client

from bots.models import BotVersion
from tournaments import services
from tournaments.models import Ladder, LadderEntry, Match

pytestmark = pytest.mark.django_db


@pytest.fixture
def ladder() -> Ladder:
    return Ladder.objects.update_or_create(slug="main", defaults={"name": "Main"})[0]


def test_a_bot_without_a_rated_match_is_listed_apart_not_ranked(
    client: Client, ladder: Ladder, make_builtin: Callable[..., BotVersion]
) -> None:
    rated, fresh = make_builtin("veteran"), make_builtin("newcomer")
    LadderEntry.objects.create(ladder=ladder, version=rated, elo=1400, games=3)
    LadderEntry.objects.create(ladder=ladder, version=fresh, elo=1500, games=0)
    page = client.get("/").content.decode()
    board = page.split('<table class="leaderboard">')[1].split("</table>")[0]
    assert 'data-bot="veteran"' in board
    assert "newcomer" not in board  # its start rating would rank it first
    unrated = page.split('<ul class="plain" id="unrated-list">')[1].split("</ul>")[0]
    assert ">newcomer</a>" in unrated and "veteran" not in unrated


def test_leaderboard_columns_say_what_they_count(
    client: Client, ladder: Ladder, make_builtin: Callable[..., BotVersion]
) -> None:
    LadderEntry.objects.create(ladder=ladder, version=make_builtin("counted"), games=1)
    page = client.get("/").content.decode()
    assert ">Rated matches</th>" in page and ">Games</th>" not in page
    assert f"each of {ladder.games_per_match} games" in page
    assert ">Matches won</th>" in page


def test_a_queued_match_page_follows_the_match_and_offers_no_replay_yet(
    client: Client, ladder: Ladder, make_builtin: Callable[..., BotVersion]
) -> None:
    match = services.match_create(version_a=make_builtin("qa"), version_b=make_builtin("qb"),
                                  kind=Match.Kind.LADDER, conditions=ladder, ladder=ladder)
    page = client.get(f"/matches/{match.pk}/").content.decode()
    assert f'id="match-live" data-api="/api/v1/matches/{match.pk}/" data-status="queued"' in page
    assert "js/match_live.js" in page
    assert "/replay/" not in page.split("<main")[1].split("</main>")[0]
    assert services.match_play(match_id=match.pk, worker="test") == "finished"
    page = client.get(f"/matches/{match.pk}/").content.decode()
    assert 'id="match-live"' not in page
    assert f'href="/api/v1/matches/{match.pk}/replay/"' in page
