"""A Sergeant Major match on the pages and the API: the third player (C) on the match page,
in the rows of the match list and of each player's bot page, and in the API's match."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from matches.models import Match
from matches.selectors import match_rows, newest_match_ids
from tests.factories import games_of, side_rows
from tests.matches.sm_matches import sm_replay, stored_sm_match

pytestmark = pytest.mark.django_db


@pytest.fixture
def sm_match(house: Any) -> Match:
    return stored_sm_match(sm_replay("7"), house)


def test_the_api_match_names_c_and_its_games(sm_match: Match) -> None:
    answer = Client().get(f"/api/v1/matches/{sm_match.pk}/")
    assert answer.status_code == 200
    body = answer.json()
    assert body["game"] == "sergeant-major"
    c = side_rows(sm_match)[2]
    assert body["sides"][2] == {"side": "C", "version": c.version_id, "bot": c.version.bot_id,
                                "name": "sm-gamma", "number": 1, "games": c.games,
                                "points": c.points, "ups": None, "fault": "",
                                "stderr": None}  # not the owner's
    assert [s["games"] for s in body["sides"]] == games_of(sm_match)


def test_a_kaiser_match_in_the_api_has_no_c(play_match: Any) -> None:
    match = play_match()
    body = Client().get(f"/api/v1/matches/{match.pk}/").json()
    assert body["game"] == "kaiser" and [s["side"] for s in body["sides"]] == ["A", "B"]


def test_the_row_names_c_and_the_winner_by_games_won(sm_match: Match) -> None:
    [row] = match_rows(Match.objects.filter(pk=sm_match.pk))
    c = row["sides"][2]
    assert (c["letter"], c["name"], c["number"]) == ("C", "sm-gamma", 1)
    games = dict(zip("ABC", games_of(sm_match), strict=True))
    top = [s for s, g in games.items() if g == max(games.values())]
    assert [s["letter"] for s in row["sides"] if s["won"]] == (top if len(top) == 1 else [])
    assert row["shared"] == (len(top) > 1)


def test_a_bots_newest_matches_include_those_it_played_as_c(sm_match: Match) -> None:
    assert newest_match_ids(version_ids=[sm_match.version_ids[2]], limit=5) == [sm_match.pk]


def test_the_match_page_and_list_show_three_players(sm_match: Match) -> None:
    page = Client().get(f"/matches/{sm_match.pk}/").content.decode()
    assert 'class="match-head card three"' in page
    score = " \u2013 ".join(map(str, games_of(sm_match)))
    assert score in page and "sm-gamma" in page
    assert "js/sm.js" in page
    listed = Client().get("/matches/").content.decode()
    assert 'side-c">sm-gamma</a>' in listed
    assert "\u2013".join(map(str, games_of(sm_match))) in listed
