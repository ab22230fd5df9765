"""A bot is made for a game (form and API); its upload check plays a short match of that
game against the game's built-in random players, in the sandbox, and a bot whose ready line
declares another game is rejected with a verdict that says so. The starter kit passes."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from rest_framework.test import APIClient

from bots.models import Bot, BotVersion

PROGRAMS = Path(__file__).parent / "programs"
STARTER = Path(__file__).resolve().parents[2] / "bots" / "examples" / "sergeant_major_bot.py"
KAISER_BOT = Path(__file__).resolve().parents[1] / "bots" / "programs" / "good_bot.py"
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.sandbox]


def _create(client: APIClient, name: str, game: str | None) -> dict:
    data = {"name": name} | ({"game": game} if game else {})
    response = client.post("/api/v1/bots/", data, format="json")
    assert response.status_code == 201, response.content
    return response.json()


def _upload(client: APIClient, bot_id: int, path: Path) -> BotVersion:
    response = client.post(f"/api/v1/bots/{bot_id}/versions/",
                           {"file": SimpleUploadedFile("bot.py", path.read_bytes())},
                           format="multipart")
    assert response.status_code == 201, response.content
    return BotVersion.objects.get(pk=response.json()["id"])


def test_the_api_makes_a_bot_of_the_game_asked_for_and_kaiser_by_default(
        owner_client: APIClient) -> None:
    assert _create(owner_client, "sm-one", "sergeant-major")["game"] == "sergeant-major"
    assert _create(owner_client, "plain-one", None)["game"] == "kaiser"
    response = owner_client.post("/api/v1/bots/", {"name": "chess-one", "game": "chess"},
                                 format="json")
    assert response.status_code == 400 and "game" in response.json()["fields"]


def test_the_game_cannot_be_changed_afterwards(owner_client: APIClient) -> None:
    bot = _create(owner_client, "sm-one", "sergeant-major")
    response = owner_client.patch(f"/api/v1/bots/{bot['id']}/", {"game": "kaiser"},
                                  format="json")
    assert response.status_code == 200
    assert Bot.objects.get(pk=bot["id"]).game == "sergeant-major"


def test_the_form_makes_a_sergeant_major_bot(owner: object, password: str) -> None:
    client = Client()
    client.force_login(owner)
    page = client.get("/bots/new/")
    assert b"Sergeant Major" in page.content
    response = client.post("/bots/new/", {"name": "formed", "description": "",
                                          "game": "sergeant-major"})
    assert response.status_code == 302
    assert Bot.objects.get(name="formed").game == "sergeant-major"


def test_the_starter_kit_is_accepted_after_a_sergeant_major_check(
        owner_client: APIClient, celery_eager: None) -> None:
    bot = _create(owner_client, "starter", "sergeant-major")
    version = _upload(owner_client, bot["id"], STARTER)
    version.refresh_from_db()
    assert version.status == "active", (version.reason, version.check_stderr)
    replay = version.check_replay
    assert replay["format"] == "sergeant-major-replay"
    assert replay["players"]["A"]["name"] == "starter"
    assert {replay["players"][s]["name"] for s in "BC"} == {"random"}
    assert sum(version.check_summary["games"].values()) <= 3
    assert "played" in version.reason


def test_a_kaiser_bot_uploaded_for_sergeant_major_is_rejected_saying_so(
        owner_client: APIClient, celery_eager: None) -> None:
    bot = _create(owner_client, "mixed-up", "sergeant-major")
    version = _upload(owner_client, bot["id"], PROGRAMS / "sm_kaiser_declared_bot.py")
    version.refresh_from_db()
    assert version.status == "rejected"
    assert version.reason.startswith(
        "This is a Kaiser bot (its ready answer declares \u201cgame\u201d: \u201ckaiser\u201d), "
        "but this bot was created for Sergeant Major (9-5-2)")


def test_a_sergeant_major_bot_uploaded_for_kaiser_is_rejected_saying_so(
        owner_client: APIClient, celery_eager: None) -> None:
    bot = _create(owner_client, "other-way", None)
    version = _upload(owner_client, bot["id"], STARTER)
    version.refresh_from_db()
    assert version.status == "rejected"
    assert version.reason.startswith(
        "This is a Sergeant Major (9-5-2) bot (its ready answer declares \u201cgame\u201d: "
        "\u201csergeant-major\u201d), but this bot was created for Kaiser")


def test_a_kaiser_bot_still_passes_the_kaiser_check(owner_client: APIClient,
                                                     celery_eager: None) -> None:
    bot = _create(owner_client, "kaiser-one", "kaiser")
    version = _upload(owner_client, bot["id"], KAISER_BOT)
    version.refresh_from_db()
    assert version.status == "active", version.reason
    assert set(version.check_replay["players"]) == {"A", "B"}
