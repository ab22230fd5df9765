"""Quartet, the test game of four players without partners, on the site (issue 42): its
finished match's page, its replay and its replay in words in the API, and a bot page that
says nothing of boards, partners or people's tables, none of which the game has."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client

from engine.games import Game
from matches.models import Match
from tests.games.quartet.stored import NAMES, quartet_replay, stored_quartet_match

pytestmark = pytest.mark.django_db


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


def _quartet_bots(game: Game) -> list[Any]:
    from django.contrib.auth.models import User

    from bots.models import Bot
    from bots.services import bot_builtin_add

    versions = []
    for name in ("q-me", "q-b", "q-c", "q-d"):
        owner = User.objects.create_user(username=f"author-of-{name}", password="not-a-secret-1")
        bot = Bot.objects.create(owner=owner, name=name, game=game.name)
        versions.append(bot_builtin_add(bot=bot, spec="builtin:random"))
    return versions


def test_a_challenge_names_three_opponents_in_a_game_of_four(quartet: Game) -> None:
    """Issue 42: a game of four or more players plays challenges too: one field per side past
    the second (opponent_c, opponent_d), by the API and from the bot page's form."""
    from rest_framework.test import APIClient

    from ladder.services import game_ladder_ensure

    game_ladder_ensure(quartet.name)
    me, b, c, d = _quartet_bots(quartet)
    api = APIClient()
    api.force_authenticate(me.bot.owner)
    short = api.post("/api/v1/challenges/", {"bot": me.bot_id, "opponent": b.bot_id,
                                             "opponent_c": c.bot_id}, format="json")
    assert short.status_code == 400
    assert "a game of 4 players: name 3 opponents, not 2" in str(short.json())
    made = api.post("/api/v1/challenges/", {"bot": me.bot_id, "opponent": b.bot_id,
                                            "opponent_c": c.bot_id, "opponent_d": d.bot_id},
                    format="json")
    assert made.status_code == 201, made.content
    assert Match.objects.get(pk=made.json()["id"]).version_ids == [me.pk, b.pk, c.pk, d.pk]

    client = Client()
    client.force_login(me.bot.owner)
    page = client.get(f"/bots/{b.bot_id}/").content.decode()
    assert 'name="opponent_c"' in page and 'name="opponent_d"' in page
    assert 'name="opponent_e"' not in page
    answer = client.post("/challenge/", {"bot": me.bot_id, "opponent": b.bot_id,
                                         "opponent_c": d.bot_id, "opponent_d": c.bot_id})
    match = Match.objects.order_by("-id").first()
    assert answer.status_code == 302 and answer["Location"] == f"/matches/{match.pk}/"
    assert match.version_ids == [me.pk, b.pk, d.pk, c.pk] and match.players == 4
