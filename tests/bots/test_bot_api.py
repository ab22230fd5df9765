"""Every endpoint of /api/v1/bots/ and /api/v1/versions/, for anonymous, owner, other and staff.

Uploads here do not run the check (no eager Celery): the version stays pending, which is what
the uploader sees at first. tests/bots/test_bot_uploads.py covers the verdicts."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from bots.models import Bot, BotVersion
from bots.services import bot_create

GOOD_BOT = b"import sys\nfor line in sys.stdin:\n    pass\n"
ROLES = ["anon", "owner", "other", "staff"]
pytestmark = pytest.mark.django_db


@pytest.fixture
def bot(owner: object) -> Bot:
    return bot_create(owner=owner, name="Alpha", description="first try")


@pytest.fixture
def version(bot: Bot) -> BotVersion:
    from bots.services import bot_version_upload

    version = bot_version_upload(bot=bot, filename="alpha.py", content=GOOD_BOT)
    BotVersion.objects.filter(pk=version.pk).update(
        status="rejected", reason="crash at seat 0: exited", check_stderr="secret trace"
    )
    return version


@pytest.mark.parametrize("role", ROLES)
def test_anyone_may_list_bots(role: str, clients: dict[str, APIClient], bot: Bot) -> None:
    response = clients[role].get("/api/v1/bots/")
    assert response.status_code == 200
    body = response.json()
    assert body["count"] == 1
    assert body["results"][0] == {
        "id": bot.pk, "name": "Alpha", "game": "kaiser", "description": "first try",
        "owner": "olivia", "retired": False, "created": body["results"][0]["created"],
        "active_version": None,
    }


def test_bot_list_filters_by_owner_retired_and_search(
    owner_client: APIClient, owner: object, other: object
) -> None:
    bot_create(owner=owner, name="keeper")
    bot_create(owner=other, name="stranger")
    retired = bot_create(owner=owner, name="oldie")
    owner_client.post(f"/api/v1/bots/{retired.pk}/retire/")

    def names(query: str) -> list[str]:
        return [b["name"] for b in owner_client.get(f"/api/v1/bots/?{query}").json()["results"]]

    assert names("owner=olivia") == ["keeper", "oldie"]
    assert names("owner=olivia&retired=false") == ["keeper"]
    assert names("search=rang") == ["stranger"]


@pytest.mark.parametrize("role", ROLES)
def test_anyone_may_read_one_bot(role: str, clients: dict[str, APIClient], bot: Bot) -> None:
    response = clients[role].get(f"/api/v1/bots/{bot.pk}/")
    assert response.status_code == 200
    assert response.json()["name"] == "Alpha"


def test_missing_bot_is_a_json_404(anon_client: APIClient) -> None:
    response = anon_client.get("/api/v1/bots/999999/")
    assert response.status_code == 404
    assert response.json() == {"detail": "Not found.", "code": "not_found"}


@pytest.mark.parametrize(
    ("role", "status"), [("anon", 401), ("owner", 201), ("other", 201), ("staff", 201)]
)
def test_any_signed_in_user_may_create_a_bot(
    role: str, status: int, clients: dict[str, APIClient], db: None
) -> None:
    response = clients[role].post("/api/v1/bots/", {"name": f"new-{role}", "description": "d"})
    assert response.status_code == status
    if status == 201:
        body = response.json()
        assert body["name"] == f"new-{role}"
        assert body["owner"] == {"owner": "olivia", "other": "oscar", "staff": "stella"}[role]
        assert Bot.objects.get(pk=body["id"]).description == "d"
    else:
        assert response.json() == {
            "detail": "Authentication credentials were not provided.",
            "code": "not_authenticated",
        }


def test_bot_names_are_unique_whatever_their_case(other_client: APIClient, bot: Bot) -> None:
    response = other_client.post("/api/v1/bots/", {"name": "ALPHA"})
    assert response.status_code == 400
    assert response.json() == {
        "detail": "name: the name 'ALPHA' is taken", "code": "invalid",
        "fields": {"name": ["the name 'ALPHA' is taken"]},
    }


@pytest.mark.parametrize("name", ["x", "has space", "-dash-first", "a" * 41, "ünïcode"])
def test_bad_bot_names_are_refused_with_the_rule(owner_client: APIClient, name: str) -> None:
    response = owner_client.post("/api/v1/bots/", {"name": name})
    assert response.status_code == 400
    assert response.json()["detail"].startswith("name: ")
    assert not Bot.objects.exists()


@pytest.mark.parametrize(
    ("role", "status"), [("anon", 401), ("owner", 200), ("other", 403), ("staff", 200)]
)
def test_only_owner_and_staff_may_rename_or_describe(
    role: str, status: int, clients: dict[str, APIClient], bot: Bot
) -> None:
    response = clients[role].patch(
        f"/api/v1/bots/{bot.pk}/", {"name": "Beta", "description": "better"}
    )
    assert response.status_code == status
    bot.refresh_from_db()
    if status == 200:
        assert response.json()["name"] == "Beta"
        assert (bot.name, bot.description) == ("Beta", "better")
    else:
        assert (bot.name, bot.description) == ("Alpha", "first try")
    if status == 403:
        assert response.json() == {
            "detail": "Only the owner or staff may change this.", "code": "permission_denied"
        }


def test_put_and_delete_are_not_offered(owner_client: APIClient, bot: Bot) -> None:
    assert owner_client.delete(f"/api/v1/bots/{bot.pk}/").status_code == 405
    response = owner_client.put(f"/api/v1/bots/{bot.pk}/", {"name": "x"})
    assert response.status_code == 405
    assert response.json()["code"] == "method_not_allowed"


@pytest.mark.parametrize(
    ("role", "status"), [("anon", 401), ("owner", 200), ("other", 403), ("staff", 200)]
)
def test_only_owner_and_staff_may_retire(
    role: str, status: int, clients: dict[str, APIClient], bot: Bot
) -> None:
    response = clients[role].post(f"/api/v1/bots/{bot.pk}/retire/")
    assert response.status_code == status
    bot.refresh_from_db()
    assert bot.retired is (status == 200)
    if status == 200:
        assert response.json()["retired"] is True


@pytest.mark.parametrize(
    ("role", "status"), [("anon", 401), ("owner", 201), ("other", 403), ("staff", 201)]
)
def test_only_owner_and_staff_may_upload(
    role: str, status: int, clients: dict[str, APIClient], bot: Bot
) -> None:
    response = clients[role].post(
        f"/api/v1/bots/{bot.pk}/versions/",
        {"file": SimpleUploadedFile("alpha.py", GOOD_BOT)}, format="multipart",
    )
    assert response.status_code == status
    if status == 201:
        body = response.json()
        assert body["number"] == 1
        assert body["status"] == "pending"
        assert body["kind"] == "py"
        assert body["size"] == len(GOOD_BOT)
        assert len(body["sha256"]) == 64
        assert body["filename"] == "alpha.py"
    else:
        assert not bot.versions.exists()


def test_retired_bot_takes_no_uploads(owner_client: APIClient, bot: Bot) -> None:
    owner_client.post(f"/api/v1/bots/{bot.pk}/retire/")
    response = owner_client.post(
        f"/api/v1/bots/{bot.pk}/versions/",
        {"file": SimpleUploadedFile("alpha.py", GOOD_BOT)}, format="multipart",
    )
    assert response.status_code == 400
    assert response.json()["detail"] == "file: this bot is retired and takes no new versions"


def test_upload_without_a_file_says_so(owner_client: APIClient, bot: Bot) -> None:
    response = owner_client.post(f"/api/v1/bots/{bot.pk}/versions/", {}, format="multipart")
    assert response.status_code == 400
    assert response.json()["detail"] == "file: No file was submitted."


@pytest.mark.parametrize("role", ROLES)
def test_anyone_may_list_a_bots_versions_but_only_owner_and_staff_see_stderr(
    role: str, clients: dict[str, APIClient], version: BotVersion
) -> None:
    response = clients[role].get(f"/api/v1/bots/{version.bot_id}/versions/")
    assert response.status_code == 200
    [body] = response.json()
    assert body["reason"] == "crash at seat 0: exited"
    expected = "secret trace" if role in ("owner", "staff") else None
    assert body["check_stderr"] == expected


@pytest.mark.parametrize("role", ROLES)
def test_version_endpoints_show_stderr_only_to_owner_and_staff(
    role: str, clients: dict[str, APIClient], version: BotVersion
) -> None:
    listed = clients[role].get("/api/v1/versions/")
    assert listed.status_code == 200
    assert listed.json()["count"] == 1
    one = clients[role].get(f"/api/v1/versions/{version.pk}/")
    assert one.status_code == 200
    body = one.json()
    assert (body["bot_name"], body["number"], body["status"]) == ("Alpha", 1, "rejected")
    assert body["check_stderr"] == ("secret trace" if role in ("owner", "staff") else None)


def test_versions_filter_by_bot_and_status(
    anon_client: APIClient, version: BotVersion, owner: object
) -> None:
    from bots.services import bot_version_upload

    other_bot = bot_create(owner=owner, name="Gamma")
    pending = bot_version_upload(bot=other_bot, filename="g.py", content=GOOD_BOT + b"#")

    def ids(query: str) -> list[int]:
        return [v["id"] for v in anon_client.get(f"/api/v1/versions/?{query}").json()["results"]]

    assert ids(f"bot={other_bot.pk}") == [pending.pk]
    assert ids("status=rejected") == [version.pk]
    assert sorted(ids("")) == sorted([version.pk, pending.pk])


@pytest.mark.parametrize("method", ["post", "patch", "put", "delete"])
def test_versions_are_read_only(method: str, staff_client: APIClient, version: BotVersion) -> None:
    response = getattr(staff_client, method)(f"/api/v1/versions/{version.pk}/")
    assert response.status_code == 405


def test_check_replay_is_404_until_the_check_ran(
    anon_client: APIClient, version: BotVersion
) -> None:
    response = anon_client.get(f"/api/v1/versions/{version.pk}/check-replay/")
    assert response.status_code == 404
    assert response.json() == {
        "detail": "This version has no check replay yet.", "code": "not_found"
    }
    BotVersion.objects.filter(pk=version.pk).update(check_replay={"format": "kaiser-replay"})
    response = anon_client.get(f"/api/v1/versions/{version.pk}/check-replay/")
    assert response.status_code == 200
    assert response.json() == {"format": "kaiser-replay"}


def test_upload_stands_when_the_broker_is_down(
    owner_client: APIClient, bot: Bot, dead_broker: None,
    django_capture_on_commit_callbacks: Any,
) -> None:
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        response = owner_client.post(
            f"/api/v1/bots/{bot.pk}/versions/",
            {"file": SimpleUploadedFile("alpha.py", GOOD_BOT)}, format="multipart",
        )
    # the enqueue ran, and failed quietly (beside it: the page cache's after-commit bump)
    assert len([c for c in callbacks if "bot_version_upload" in c.__qualname__]) == 1
    assert response.status_code == 201
    assert bot.versions.get().status == "pending"


def test_lists_are_paginated(anon_client: APIClient, owner: object) -> None:
    for i in range(3):
        bot_create(owner=owner, name=f"bot-{i}")
    body = anon_client.get("/api/v1/bots/?page_size=2").json()
    assert body["count"] == 3
    assert len(body["results"]) == 2
    assert body["next"].endswith("page=2&page_size=2")
    assert len(anon_client.get(body["next"]).json()["results"]) == 1
