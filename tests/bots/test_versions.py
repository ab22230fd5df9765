"""Versions a person can manage: identical bytes are refused with a link to the version that
has them; the owner chooses which checked version plays (and goes back); a newly checked
version plays; retiring asks first and can be undone. Web and API give the same outcomes."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from rest_framework.test import APIClient

from bots.models import Bot, BotVersion
from bots.selectors import active_versions, bot_active_version
from bots.services import bot_create, bot_version_upload
from ladder import services as ladder_services
from ladder.models import Ladder, LadderEntry

pytestmark = pytest.mark.django_db
GOOD_BOT = (Path(__file__).parent / "programs" / "good_bot.py").read_bytes()


@pytest.fixture
def bot(owner: User) -> Bot:
    return bot_create(owner=owner, name="versioned")


def _version(bot: Bot, content: bytes, status: str = BotVersion.Status.ACTIVE) -> BotVersion:
    """An uploaded version with its verdict set directly (the check itself is covered in
    test_bot_uploads.py)."""
    version = bot_version_upload(bot=bot, filename="bot.py", content=content)
    BotVersion.objects.filter(pk=version.pk).update(status=status)
    version.refresh_from_db()
    return version


def _versions(bot: Bot, count: int) -> list[BotVersion]:
    return [_version(bot, GOOD_BOT + f"\n# {n}\n".encode()) for n in range(count)]


def test_identical_bytes_are_refused_by_the_api_with_the_existing_version(
    owner_client: APIClient, bot: Bot
) -> None:
    first = _version(bot, GOOD_BOT)
    response = owner_client.post(f"/api/v1/bots/{bot.pk}/versions/",
                                 {"file": SimpleUploadedFile("again.py", GOOD_BOT)},
                                 format="multipart")
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "duplicate"
    assert body["existing_version"]["id"] == first.pk
    assert body["existing_version"]["number"] == 1
    assert body["existing_version"]["url"].endswith(f"/api/v1/versions/{first.pk}/")
    assert bot.versions.count() == 1


def test_identical_bytes_are_refused_on_the_page_with_a_link_to_the_version(
    client: Client, owner: User, bot: Bot
) -> None:
    _version(bot, GOOD_BOT)
    client.force_login(owner)
    response = client.post(f"/bots/{bot.pk}/upload/",
                           {"file": SimpleUploadedFile("again.py", GOOD_BOT)})
    page = response.content.decode()
    assert response.status_code == 200
    assert f'<a href="/bots/{bot.pk}/#v1">version 1</a> of versioned already' in page
    assert bot.versions.count() == 1


def test_the_same_bytes_may_be_another_bots_version(owner: User, bot: Bot) -> None:
    _version(bot, GOOD_BOT)
    twin = bot_create(owner=owner, name="twin")
    assert _version(twin, GOOD_BOT).number == 1


def test_the_newest_checked_version_plays_until_the_owner_chooses(bot: Bot) -> None:
    v1, v2, v3 = _versions(bot, 3)
    BotVersion.objects.filter(pk=v3.pk).update(status=BotVersion.Status.REJECTED)
    assert bot_active_version(bot=bot) == v2
    assert list(active_versions().filter(bot=bot)) == [v2]


def test_owner_goes_back_to_an_older_version_then_forward_again_through_the_api(
    owner_client: APIClient, bot: Bot
) -> None:
    v1, v2 = _versions(bot, 2)
    back = owner_client.post(f"/api/v1/bots/{bot.pk}/play/", {"version": v1.pk}, format="json")
    assert back.status_code == 200
    assert back.json()["active_version"] == {"id": v1.pk, "number": 1}
    bot.refresh_from_db()
    assert bot_active_version(bot=bot) == v1
    assert list(active_versions().filter(bot=bot)) == [v1]
    forward = owner_client.post(f"/api/v1/bots/{bot.pk}/play/", {"version": v2.pk},
                                format="json")
    assert forward.json()["active_version"] == {"id": v2.pk, "number": 2}


def test_the_chosen_version_is_the_one_on_the_ladder(bot: Bot) -> None:
    ladder = Ladder.objects.create(name="Versions", slug="versions")
    v1, v2 = _versions(bot, 2)
    ladder_services.ladder_entries_sync(ladder=ladder)
    assert set(LadderEntry.objects.filter(ladder=ladder, active=True)
               .values_list("version_id", flat=True)) == {v2.pk}
    from bots.services import bot_version_play

    bot_version_play(bot=bot, version=v1)
    ladder_services.ladder_entries_sync(ladder=ladder)
    assert set(LadderEntry.objects.filter(ladder=ladder, active=True)
               .values_list("version_id", flat=True)) == {v1.pk}


@pytest.mark.parametrize("status", [BotVersion.Status.REJECTED, BotVersion.Status.PENDING,
                                    BotVersion.Status.CHECKING])
def test_only_a_checked_version_may_be_chosen(owner_client: APIClient, bot: Bot,
                                              status: str) -> None:
    v1 = _version(bot, GOOD_BOT)
    v2 = _version(bot, GOOD_BOT + b"\n# 2\n", status=status)
    response = owner_client.post(f"/api/v1/bots/{bot.pk}/play/", {"version": v2.pk},
                                 format="json")
    assert response.status_code == 400
    assert "only a checked version plays" in response.json()["detail"]
    assert bot_active_version(bot=bot) == v1


def test_a_version_of_another_bot_cannot_be_chosen(owner_client: APIClient, owner: User,
                                                   bot: Bot) -> None:
    other_version = _version(bot_create(owner=owner, name="elsewhere"), GOOD_BOT)
    _version(bot, GOOD_BOT + b"\n# mine\n")
    response = owner_client.post(f"/api/v1/bots/{bot.pk}/play/", {"version": other_version.pk},
                                 format="json")
    assert response.status_code == 400
    assert "is not a version of versioned" in response.json()["detail"]


def test_only_the_owner_chooses(other_client: APIClient, client: Client, other: User,
                                bot: Bot) -> None:
    v1, v2 = _versions(bot, 2)
    api = other_client.post(f"/api/v1/bots/{bot.pk}/play/", {"version": v1.pk}, format="json")
    assert api.status_code == 403
    client.force_login(other)
    assert client.post(f"/bots/{bot.pk}/play/", {"version": v1.pk}).status_code == 403
    assert bot_active_version(bot=bot) == v2


def test_owner_chooses_on_the_bot_page_which_says_which_version_plays(
    client: Client, owner: User, bot: Bot
) -> None:
    v1, v2 = _versions(bot, 2)
    client.force_login(owner)
    page = client.get(f"/bots/{bot.pk}/").content.decode()
    assert '<span id="bot-playing">version 2 plays</span>' in page
    assert f'name="version" value="{v1.pk}"' in page  # "Play this version" for v1
    assert f'name="version" value="{v2.pk}"' not in page
    response = client.post(f"/bots/{bot.pk}/play/", {"version": v1.pk}, follow=True)
    page = response.content.decode()
    assert "Version 1 of versioned plays from now on" in page
    assert '<span id="bot-playing">version 1 plays</span> (chosen by its owner)' in page


def test_a_newly_checked_version_plays_after_a_choice(bot: Bot) -> None:
    from bots.services import _record_verdict, bot_version_play

    v1, v2 = _versions(bot, 2)
    bot_version_play(bot=bot, version=v1)
    v3 = _version(bot, GOOD_BOT + b"\n# 3\n", status=BotVersion.Status.CHECKING)
    _record_verdict(v3, verdict={"status": BotVersion.Status.ACTIVE, "reason": "fine",
                                 "summary": {}}, replay={}, stderr="")
    bot.refresh_from_db()
    assert bot.playing_version_id is None
    assert bot_active_version(bot=bot) == v3


def test_bot_list_says_which_version_plays_and_how_many_are_checked(
    client: Client, bot: Bot
) -> None:
    v1, v2, v3 = _versions(bot, 3)
    from bots.services import bot_version_play

    bot_version_play(bot=bot, version=v2)
    page = client.get("/bots/").content.decode()
    assert f'versioned</a> <small class="muted">#{bot.pk}</small>' in page
    assert 'v2 <small class="muted">of 3 checked</small>' in page


def test_retire_asks_for_a_confirmation_then_retires_and_can_be_undone(
    client: Client, owner: User, bot: Bot
) -> None:
    _, v2 = _versions(bot, 2)
    client.force_login(owner)
    confirm = client.get(f"/bots/{bot.pk}/retire/")
    assert confirm.status_code == 200
    assert "Bring it back" in confirm.content.decode()
    bot.refresh_from_db()
    assert bot.retired is False  # asking is not retiring
    page = client.post(f"/bots/{bot.pk}/retire/", follow=True).content.decode()
    bot.refresh_from_db()
    assert bot.retired is True
    assert "retired: plays no more" in page
    assert f'action="/bots/{bot.pk}/unretire/"' in page
    assert "version 2 plays" not in page
    assert bot_active_version(bot=bot) is None
    page = client.post(f"/bots/{bot.pk}/unretire/", follow=True).content.decode()
    bot.refresh_from_db()
    assert bot.retired is False
    assert "versioned is back: version 2 plays again." in page
    assert bot_active_version(bot=bot) == v2


def test_unretire_through_the_api_is_the_owners(owner_client: APIClient,
                                               other_client: APIClient, bot: Bot) -> None:
    owner_client.post(f"/api/v1/bots/{bot.pk}/retire/")
    assert other_client.post(f"/api/v1/bots/{bot.pk}/unretire/").status_code == 403
    response = owner_client.post(f"/api/v1/bots/{bot.pk}/unretire/")
    assert response.status_code == 200
    assert response.json()["retired"] is False


def test_a_retired_bot_cannot_choose_a_version(owner_client: APIClient, bot: Bot) -> None:
    v1, _ = _versions(bot, 2)
    owner_client.post(f"/api/v1/bots/{bot.pk}/retire/")
    response = owner_client.post(f"/api/v1/bots/{bot.pk}/play/", {"version": v1.pk},
                                 format="json")
    assert response.status_code == 400
    assert "is retired: bring it back first" in response.json()["detail"]
