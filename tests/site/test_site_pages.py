"""The minimal pages render for anonymous and signed-in visitors, and guard what they change."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from bots.models import Bot
from bots.services import bot_create

pytestmark = pytest.mark.django_db


@pytest.fixture
def bot(owner: User) -> Bot:
    return bot_create(owner=owner, name="pagebot", description="plays the first card")


@pytest.mark.parametrize("path", ["/", "/bots/", "/accounts/login/", "/accounts/signup/",
                                  "/health/", "/api/docs/"])
def test_public_pages_render_for_anonymous_visitors(client: Client, path: str, bot: Bot) -> None:
    response = client.get(path)
    assert response.status_code == 200


def test_bot_page_shows_versions_and_owner_actions_only_to_the_owner(
    client: Client, bot: Bot, owner: User, other: User
) -> None:
    page = client.get(f"/bots/{bot.pk}/").content.decode()
    assert "plays the first card" in page
    assert "No versions yet." in page
    assert "Upload a version" not in page
    client.force_login(other)
    assert "Upload a version" not in client.get(f"/bots/{bot.pk}/").content.decode()
    client.force_login(owner)
    assert "Upload a version" in client.get(f"/bots/{bot.pk}/").content.decode()


def test_create_a_bot_and_upload_a_version_through_the_forms(
    client: Client, owner: User
) -> None:
    client.force_login(owner)
    response = client.post("/bots/new/", {"name": "formbot", "description": "x"})
    bot = Bot.objects.get(name="formbot")
    assert response["Location"] == f"/bots/{bot.pk}/upload/"
    file = SimpleUploadedFile("bot.py", b"print('hi')\n")
    response = client.post(f"/bots/{bot.pk}/upload/", {"file": file}, follow=True)
    assert response.status_code == 200
    assert "Version 1 uploaded; its check is queued." in response.content.decode()
    assert bot.versions.get().status == "pending"


def test_upload_form_shows_the_reason_of_a_refusal(client: Client, owner: User, bot: Bot) -> None:
    client.force_login(owner)
    file = SimpleUploadedFile("bot.zip", b"not a zip")
    response = client.post(f"/bots/{bot.pk}/upload/", {"file": file})
    assert response.status_code == 200
    assert "the file is not a valid zip archive" in response.content.decode()
    assert not bot.versions.exists()


def test_other_users_cannot_edit_upload_or_retire(client: Client, other: User, bot: Bot) -> None:
    client.force_login(other)
    assert client.get(f"/bots/{bot.pk}/edit/").status_code == 403
    assert client.get(f"/bots/{bot.pk}/upload/").status_code == 403
    assert client.post(f"/bots/{bot.pk}/retire/").status_code == 403
    bot.refresh_from_db()
    assert not bot.retired


def test_owner_retires_a_bot_from_its_page(client: Client, owner: User, bot: Bot) -> None:
    client.force_login(owner)
    response = client.post(f"/bots/{bot.pk}/retire/", follow=True)
    assert "pagebot is retired" in response.content.decode()
    bot.refresh_from_db()
    assert bot.retired


def test_duplicate_name_in_the_form_is_an_error_on_the_field(
    client: Client, other: User, bot: Bot
) -> None:
    client.force_login(other)
    response = client.post("/bots/new/", {"name": "PAGEBOT"})
    assert response.status_code == 200
    assert response.context["form"].errors["name"] == ["the name 'PAGEBOT' is taken"]


def test_owner_renames_and_describes_a_bot_through_the_edit_form(
    client: Client, owner: User, bot: Bot
) -> None:
    client.force_login(owner)
    form = client.get(f"/bots/{bot.pk}/edit/")
    assert form.context["form"].initial == {"name": "pagebot",
                                            "description": "plays the first card"}
    response = client.post(f"/bots/{bot.pk}/edit/", {"name": "pagebot2", "description": "new"})
    assert response["Location"] == f"/bots/{bot.pk}/"
    bot.refresh_from_db()
    assert (bot.name, bot.description) == ("pagebot2", "new")


@pytest.mark.parametrize("model", ["bot", "botversion", "botprogram"])
def test_admin_lists_and_opens_every_bots_model(
    client: Client, staff: User, bot: Bot, model: str
) -> None:
    from bots.services import bot_version_upload

    version = bot_version_upload(bot=bot, filename="a.py", content=b"print(1)\n")
    staff.is_superuser = True
    staff.save(update_fields=["is_superuser"])
    client.force_login(staff)
    assert client.get(f"/admin/bots/{model}/").status_code == 200
    pk = {"bot": bot.pk, "botversion": version.pk, "botprogram": version.program_id}[model]
    assert client.get(f"/admin/bots/{model}/{pk}/change/").status_code == 200
