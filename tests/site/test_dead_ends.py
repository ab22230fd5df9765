"""The small dead ends of a new author's path: unrated bots listed apart from the ranking,
leaderboard columns that say what they count, queued match pages that follow their match and
offer no replay until there is one."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.test import Client
from django.utils import timezone

from bots.models import BotVersion
from ladder.models import Ladder, LadderEntry
from matches import services
from matches.models import Match

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
    board = page.split('<table class="leaderboard')[1].split("</table>")[0]
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
    match = services.match_create(versions=[make_builtin("qa"), make_builtin("qb")],
                                  kind=Match.Kind.LADDER, conditions=ladder, ladder=ladder)
    page = client.get(f"/matches/{match.pk}/").content.decode()
    assert f'id="match-live" data-api="/api/v1/matches/{match.pk}/" data-status="queued"' in page
    assert "js/match_live.js" in page
    assert "/replay/" not in page.split("<main")[1].split("</main>")[0]
    assert services.match_play(match_id=match.pk, worker="test") == "finished"
    page = client.get(f"/matches/{match.pk}/").content.decode()
    assert 'id="match-live"' not in page
    assert f'href="/api/v1/matches/{match.pk}/replay/"' in page


def test_rating_chart_has_a_time_axis_and_marks_where_each_version_started(
    client: Client, ladder: Ladder, make_builtin: Callable[..., BotVersion]
) -> None:
    from bots.services import bot_builtin_add

    first, rival = make_builtin("charted"), make_builtin("rival", "builtin:random")
    for version in (first, first, None, None):
        if version is None:  # the bot's second version plays from here on
            version = BotVersion.objects.filter(bot=first.bot).order_by("-number").first()
            if version == first:
                version = bot_builtin_add(bot=first.bot, spec="builtin:greedy")
        match = services.match_create(versions=[version, rival],
                                      kind=Match.Kind.LADDER, conditions=ladder, ladder=ladder,
                                      rated=True)
        assert services.match_play(match_id=match.pk, worker="test") == "finished"
    page = client.get(f"/bots/{first.bot_id}/").content.decode()
    chart = page.split('<svg class="chart"')[1].split("</svg>")[0]
    assert chart.count('<g class="version-mark">') == 2
    assert ">v1</text>" in chart and ">v2</text>" in chart
    finished = Match.objects.get(pk=match.pk).finished
    assert finished is not None
    day = timezone.localtime(finished).strftime("%Y-%m-%d")  # spans minutes: with the hour
    assert chart.count('<text class="time"') == 2 and f">{day} " in chart
