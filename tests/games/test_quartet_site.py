"""Quartet, the test game of four players without partners, on the site (issue 42): its
finished match's page, its replay and its replay in words in the API, and a bot page that
says nothing of boards, partners or people's tables, none of which the game has."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from django.test import Client

from engine.games import GAMES, Game
from matches.models import Match
from tests.games.quartet.stored import NAMES, quartet_replay, stored_quartet_match

pytestmark = pytest.mark.django_db
PLUGIN = "tests.games.quartet.plugin"


@pytest.fixture
def quartet() -> Iterator[Game]:
    before = set(GAMES)
    game = GAMES.register(PLUGIN)
    yield game
    if game.name not in before:
        GAMES.unregister(game.name)


@pytest.fixture
def match(quartet: Game, house: Any) -> Match:
    return stored_quartet_match(quartet_replay("site"), house)


def test_the_game_has_four_sides_and_no_boards_partners_or_table(quartet: Game) -> None:
    assert (quartet.seats, len(quartet.sides)) == (4, 4)
    assert not quartet.has_boards and not quartet.has_partners and not quartet.has_person_table


def test_its_match_page_shows_the_game_and_no_boards(quartet: Game, match: Match) -> None:
    answer = Client().get(f"/matches/{match.pk}/")
    assert answer.status_code == 200
    page = answer.content.decode()
    assert quartet.title in page and 'id="viewer"' in page and "js/viewers.js" in page
    assert 'id="boards-link"' not in page
    assert Client().get(f"/matches/{match.pk}/boards/").status_code == 404


def test_the_api_gives_its_four_sides_its_replay_and_its_replay_in_words(
        quartet: Game, match: Match) -> None:
    client = Client()
    data = client.get(f"/api/v1/matches/{match.pk}/").json()
    assert [side["name"] for side in data["sides"]] == list(NAMES)
    replay = client.get(f"/api/v1/matches/{match.pk}/replay/").json()
    assert replay["format"] == quartet.replay_format and quartet.validate_replay(replay) == []
    answer = client.get(f"/api/v1/matches/{match.pk}/replay-text/")
    assert answer.status_code == 200
    text = answer.json()
    assert text["match"] == match.pk and text["format"] == quartet.replay_format
    steps = text["steps"]
    assert steps == quartet.replay_steps(replay)
    assert {step["game"] for step in steps} == {None, *range(len(replay["games"]))}
    assert steps[0]["game"] is None and "Quartet, rules short" in steps[0]["text"]
    assert any("trick 1:" in step["text"] for step in steps)
    assert client.get("/api/v1/matches/999999/replay-text/").status_code == 404


def test_its_bot_page_says_nothing_of_boards_partners_or_people(quartet: Game,
                                                                match: Match) -> None:
    page = Client().get(f"/bots/{match.side_list[0].version.bot_id}/").content.decode()
    assert "q-north" in page
    assert "Costliest boards" not in page and 'id="people-games"' not in page
    assert "partner" not in page.lower()


def test_a_stored_replay_its_game_cannot_read_is_said_so_not_a_server_error(
        quartet: Game, match: Match) -> None:
    from matches.replay_store import replay_gzip, replay_put

    text = json.dumps({"format": quartet.replay_format, "games": []}).encode()
    stored = replay_put(match_id=match.pk, blob=replay_gzip(text))
    Match.objects.filter(pk=match.pk).update(replay_key=stored.key, replay_sha256=stored.sha256,
                                             replay_size=len(text))
    answer = Client().get(f"/api/v1/matches/{match.pk}/replay-text/")
    assert answer.status_code == 409
    assert "cannot put this replay in words" in answer.json()["detail"]
