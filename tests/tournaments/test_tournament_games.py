"""Tournaments of a game of four players a match (Quartet, tests/games/quartet): the formats
seat two or three a match, so every format is said to be "not offered", in words, by the
service, the organisers' form and the API, and no tournament is made. (A two-player test
game's tournament runs in tests/games/test_duel_stack.py; the rules for any number of sides
are test_standings'.)"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.utils import timezone

from bots.models import Bot
from bots.services import bot_builtin_add
from engine.games import Game
from tournaments import services
from tournaments.models import Tournament

pytestmark = pytest.mark.django_db
NOT_OFFERED = ("tournaments of Quartet (a test game) are not offered: their formats play "
               "matches of two or of three players, and a Quartet (a test game) match has 4")
FORMATS = [value for value, _ in Tournament.Format.choices]


@pytest.fixture
def four_bots(quartet: Game, house: User) -> list[Any]:
    return [bot_builtin_add(bot=Bot.objects.create(owner=house, name=f"q-{n}", game=quartet.name),
                            spec="builtin:random") for n in range(4)]


@pytest.mark.parametrize("format", FORMATS)
def test_the_service_says_a_game_of_four_is_not_offered(quartet: Game, four_bots: list[Any],
                                                       format: str) -> None:
    for versions, deadline in ((four_bots, None), ([], timezone.now() + timedelta(days=1))):
        problems = services.tournament_problems(
            format=format, versions=versions, rounds=1, game=quartet.name,
            entry_deadline=deadline)
        assert problems == {"game": [NOT_OFFERED]}


@pytest.mark.parametrize("format", FORMATS)
def test_the_form_says_not_offered_and_makes_nothing(quartet: Game, four_bots: list[Any],
                                                     staff: User, format: str) -> None:
    browser = Client()
    browser.force_login(staff)
    page = browser.post("/tournaments/new/", {
        "name": "Four a table", "format": format, "game": quartet.name, "rounds": 1,
        "rules": quartet.default_preset, "games_per_match": quartet.games_per_set,
        "move_ms": 1000, "bank_ms": 10000, "strict_ms": 0, "seeding": "hand",
        "entry": "chosen", "entrants": "\n".join(v.bot.name for v in four_bots[:3]),
        "entry_deadline": ""})
    assert page.status_code == 200
    text = page.content.decode()
    assert NOT_OFFERED[:1].upper() + NOT_OFFERED[1:] + "." in text
    # Three entrants are too few for a match of four, but the game is the whole answer: the
    # form asks for no more bots (nor says "at least three", wrong for a game of four).
    assert "Choose at least" not in text
    assert not Tournament.objects.exists()


@pytest.mark.parametrize("format", FORMATS)
@pytest.mark.parametrize("entry", ["bots", "open"])
def test_the_api_says_not_offered_with_a_400(quartet: Game, four_bots: list[Any],
                                             clients: dict[str, Any], format: str,
                                             entry: str) -> None:
    request: dict[str, Any] = {"name": "Four a table", "format": format, "game": quartet.name}
    if entry == "bots":
        request["bots"] = [v.bot_id for v in four_bots]
    else:
        request["entry_deadline"] = (timezone.now() + timedelta(days=1)).isoformat()
    answer = clients["staff"].post("/api/v1/tournaments/", request, format="json")
    assert answer.status_code == 400, answer.content
    body = answer.json()
    assert body["fields"] == {"game": [NOT_OFFERED]} and body["detail"] == f"game: {NOT_OFFERED}"
    assert not Tournament.objects.exists()
