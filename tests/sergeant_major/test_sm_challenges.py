"""A Sergeant Major challenge names two opponents (API and the bot page's form), all bots of
the game; it plays on the Sergeant Major ladder's conditions."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client
from rest_framework.test import APIClient

from bots.models import Bot, BotVersion
from bots.services import bot_builtin_add
from matches.models import Match

pytestmark = pytest.mark.django_db


@pytest.fixture
def mine(owner: Any) -> BotVersion:
    bot = Bot.objects.create(owner=owner, name="my-sm", game="sergeant-major")
    return bot_builtin_add(bot=bot, spec="builtin:greedy")


def test_a_challenge_names_two_opponents_and_plays_the_games_ladder(
        owner_client: APIClient, mine: BotVersion, make_sm_builtin: Callable[..., Any]) -> None:
    b, c = make_sm_builtin("rival-b", "builtin:random"), make_sm_builtin("rival-c")
    response = owner_client.post("/api/v1/challenges/", {
        "bot": mine.bot_id, "opponent": b.bot_id, "opponent_c": c.bot_id, "rated": True},
        format="json")
    assert response.status_code == 201, response.content
    match = Match.objects.get(pk=response.json()["id"])
    assert (match.game, match.ladder.slug, match.rules, match.games_per_match) == (
        "sergeant-major", "sergeant-major", "952-six-hands", 3)
    assert match.version_ids == [mine.pk, b.pk, c.pk]
    assert match.kind == "challenge" and match.rated


def test_a_challenge_without_the_second_opponent_is_refused(
        owner_client: APIClient, mine: BotVersion, make_sm_builtin: Callable[..., Any]) -> None:
    b = make_sm_builtin("rival-b")
    response = owner_client.post("/api/v1/challenges/", {"bot": mine.bot_id,
                                                         "opponent": b.bot_id}, format="json")
    assert response.status_code == 400
    assert "a game of 3 players: name 2 opponents, not 1" in str(response.json())
    assert not Match.objects.exists()


def test_a_bot_of_another_game_cannot_sit_at_the_table(
        owner_client: APIClient, mine: BotVersion, make_sm_builtin: Callable[..., Any],
        make_builtin: Callable[..., Any]) -> None:
    b = make_sm_builtin("rival-b")
    kaiser = make_builtin("kaiser-bot", own=True)
    response = owner_client.post("/api/v1/challenges/", {
        "bot": mine.bot_id, "opponent": b.bot_id, "opponent_c": kaiser.bot_id}, format="json")
    assert response.status_code == 400
    assert "kaiser-bot plays kaiser" in str(response.json())
    response = owner_client.post("/api/v1/challenges/", {
        "bot": mine.bot_id, "opponent": kaiser.bot_id, "ladder": "main"}, format="json")
    assert response.status_code == 400
    assert "my-sm plays sergeant-major" in str(response.json())
    assert not Match.objects.exists()


def test_the_bot_page_form_challenges_with_a_third_player(
        owner: Any, mine: BotVersion, make_sm_builtin: Callable[..., Any]) -> None:
    b, c = make_sm_builtin("rival-b", "builtin:random"), make_sm_builtin("rival-c")
    client = Client()
    client.force_login(owner)
    page = client.get(f"/bots/{b.bot_id}/").content.decode()
    assert 'name="opponent_c"' in page and "rival-c" in page
    response = client.post("/challenge/", {"bot": mine.bot_id, "opponent": b.bot_id,
                                           "opponent_c": c.bot_id})
    match = Match.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/matches/{match.pk}/"
    assert match.version_ids == [mine.pk, b.pk, c.pk] and not match.rated
