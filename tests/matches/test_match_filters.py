"""One filter vocabulary (tournaments/match_filters.py) for the /matches/ page and the API:
the same query gives the same matches on both; bots by name or id; `mine`; an unknown
parameter is a 400 on both; an unknown bot lists no matches on both."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from bots.models import Bot, BotVersion
from ladder.models import Ladder
from matches.models import Match
from matches.services import match_create

pytestmark = pytest.mark.django_db


class World:
    def __init__(self, ladder: Ladder, versions: dict[str, BotVersion], matches: list[Match]):
        self.ladder, self.versions, self.matches = ladder, versions, matches


@pytest.fixture
def world(make_builtin: Callable[..., BotVersion], make_program: Callable[..., BotVersion],
          owner: User, match_made: Callable[..., Match]) -> World:
    ladder = Ladder.objects.create(name="Filters", slug="filters")
    versions = {name: make_builtin(name) for name in ("alpha", "beta", "gamma")}
    versions["mybot"] = make_program("mybot", b"print()\n", owner=owner)
    plays = [("alpha", "beta", 1.0, ""), ("beta", "alpha", 0.5, ""), ("gamma", "alpha", 0.0, "B"),
             ("mybot", "beta", 1.0, ""), ("alpha", "gamma", None, ""), ("gamma", "mybot", None, "")]
    matches = []
    for a, b, score, fault in plays:
        players = [versions[a], versions[b]]
        if score is None:
            matches.append(match_create(versions=players, kind=Match.Kind.LADDER,
                                        conditions=ladder, ladder=ladder))
            continue
        matches.append(match_made(players, conditions=ladder, ladder=ladder, score=score,
                                  won=[int(2 * score), 2 - int(2 * score)],
                                  fault=(fault, "crash" if fault else "")))
    return World(ladder, versions, matches)


def _page_ids(client: Client, query: str) -> tuple[int, list[int]]:
    response = client.get(f"/matches/?{query}")
    return response.status_code, [int(i) for i in re.findall(
        r'<tr class="match-row[^"]*"><td><a href="/matches/(\d+)/">', response.content.decode())]


def _api_ids(client: APIClient, query: str) -> tuple[int, list[int]]:
    response = client.get(f"/api/v1/matches/?{query}")
    body: Any = response.json()
    return response.status_code, [m["id"] for m in body.get("results", [])]


def _ids(world: World, *indexes: int) -> list[int]:
    return sorted(world.matches[i].pk for i in indexes)


QUERIES = {
    "": (0, 1, 2, 3, 4, 5),
    "bot=alpha": (0, 1, 2, 4),
    "bot=ALPHA": (0, 1, 2, 4),
    "bot=alpha&opponent=beta": (0, 1),
    "bot=alpha&result=won": (0, 2),
    "bot=alpha&result=lost": (),
    "bot=gamma&result=lost": (2,),
    "result=draw": (1,),
    "result=decisive": (0, 2, 3),
    "status=queued": (4, 5),
    "status=finished&faults=1": (2,),
    "ladder=filters&bot=mybot": (3, 5),
}


@pytest.mark.parametrize("query", list(QUERIES))
def test_the_page_and_the_api_list_the_same_matches(world: World, client: Client,
                                                    anon_client: APIClient, query: str) -> None:
    expected = _ids(world, *QUERIES[query])
    page_status, page = _page_ids(client, query)
    api_status, api = _api_ids(anon_client, query)
    assert (page_status, api_status) == (200, 200)
    assert sorted(page) == expected
    assert sorted(api) == expected


def test_a_bot_is_named_or_numbered_the_same_way(world: World, client: Client,
                                                 anon_client: APIClient) -> None:
    bot_id = world.versions["gamma"].bot_id
    assert sorted(_page_ids(client, f"bot={bot_id}")[1]) == _ids(world, 2, 4, 5)
    assert sorted(_api_ids(anon_client, f"bot={bot_id}")[1]) == _ids(world, 2, 4, 5)
    assert sorted(_api_ids(anon_client, "bot=gamma")[1]) == _ids(world, 2, 4, 5)


def test_mine_lists_the_signed_in_users_matches_on_both(
    world: World, client: Client, owner: User, owner_client: APIClient, anon_client: APIClient
) -> None:
    client.force_login(owner)
    assert sorted(_page_ids(client, "mine=1")[1]) == _ids(world, 3, 5)
    assert sorted(_api_ids(owner_client, "mine=1")[1]) == _ids(world, 3, 5)
    assert _api_ids(anon_client, "mine=1") == (200, [])


@pytest.mark.parametrize("query", ["owner=someone", "bot=alpha&colour=red", "status=lost",
                                   "result=maybe", "version=x", "since=yesterday",
                                   "result=won", "faults=maybe"])
def test_unknown_or_malformed_filters_are_a_400_on_both(world: World, client: Client,
                                                        anon_client: APIClient,
                                                        query: str) -> None:
    page = client.get(f"/matches/?{query}")
    api = anon_client.get(f"/api/v1/matches/?{query}")
    assert page.status_code == 400
    assert api.status_code == 400
    name = query.split("&")[-1].split("=")[0]
    assert f"<code>{name}</code>" in page.content.decode()
    assert name in api.json()["fields"]
    assert 'class="match-row' not in page.content.decode()


def test_unknown_bot_says_so_and_lists_nothing(world: World, client: Client) -> None:
    page = client.get("/matches/?bot=nosuchbot").content.decode()
    assert "No bot is called “nosuchbot”: no matches." in page
    assert 'class="match-row' not in page


def test_the_page_keeps_paging_and_the_api_its_page_size(world: World, client: Client,
                                                         anon_client: APIClient) -> None:
    assert client.get("/matches/?bot=alpha&page=1").status_code == 200
    response = anon_client.get("/api/v1/matches/?bot=alpha&page_size=2")
    assert response.status_code == 200
    assert len(response.json()["results"]) == 2


def test_the_version_filter_and_the_time_filters_are_shared(
        world: World, client: Client, anon_client: APIClient) -> None:
    version = world.versions["mybot"].pk
    today = timezone.now().date().isoformat()
    for query, expected in ((f"version={version}", _ids(world, 3, 5)),
                            (f"since={today}&bot=mybot", _ids(world, 3)),
                            (f"until={today}", [])):
        assert sorted(_page_ids(client, query)[1]) == expected
        assert sorted(_api_ids(anon_client, query)[1]) == expected


def test_bot_ids_show_on_the_bot_page(world: World, client: Client) -> None:
    bot = Bot.objects.get(name="alpha")
    assert f'bot #<span id="bot-id">{bot.pk}</span>' in client.get(
        f"/bots/{bot.pk}/").content.decode()


@pytest.mark.parametrize("query, name", [("bot=nosuchbot", "bot"),
                                         ("ladder=nosuchladder", "ladder"),
                                         ("opponent=nosuchbot", "opponent"),
                                         ("tournament=no-such-cup", "tournament"),
                                         ("bot=alpha&version=v99", "version")])
def test_a_named_thing_that_does_not_exist_is_an_error_in_the_api_and_said_on_the_page(
        world: World, client: Client, anon_client: APIClient, query: str, name: str) -> None:
    api = anon_client.get(f"/api/v1/matches/?{query}")
    assert api.status_code == 400
    assert name in api.json()["fields"]
    page = client.get(f"/matches/?{query}").content.decode()
    assert 'id="filter-unknown"' in page and 'class="match-row' not in page


def test_a_version_number_is_of_the_bot_named_beside_it(world: World, client: Client,
                                                        anon_client: APIClient) -> None:
    """version=2&bot=x is x's version 2, never the version whose id is 2 (another bot's)."""
    alpha = world.versions["alpha"]
    for version in (str(alpha.number), f"v{alpha.number}"):
        query = f"bot=alpha&version={version}"
        assert sorted(_api_ids(anon_client, query)[1]) == _ids(world, 0, 1, 2, 4)
        assert sorted(_page_ids(client, query)[1]) == _ids(world, 0, 1, 2, 4)
    other = world.versions["gamma"]
    assert sorted(_api_ids(anon_client, f"version={other.pk}")[1]) == _ids(world, 2, 4, 5)
    response = anon_client.get("/api/v1/matches/?version=v2")
    assert response.status_code == 400 and "give bot too" in response.json()["fields"]["version"]


def test_a_tournament_is_named_or_numbered(world: World, anon_client: APIClient) -> None:
    response = anon_client.get("/api/v1/matches/?tournament=12345")
    assert response.status_code == 200 and response.json()["results"] == []
