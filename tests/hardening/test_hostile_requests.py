"""Malformed credentials are no credentials, never a 500: found by fuzzing the API on
PostgreSQL, which cannot compare a text containing NUL (SQLite can, so these pass there
too and prove their worth in CI)."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client

pytestmark = pytest.mark.django_db
NUL_COOKIE = 'sessionid="\\000abcdefghijklmnop"'  # Django's cookie parser decodes \000


@pytest.mark.parametrize("path", ["/bots/", "/api/v1/bots/", "/accounts/login/"])
def test_a_session_cookie_with_a_nul_character_is_no_session(path: str) -> None:
    response = Client().get(path, HTTP_COOKIE=NUL_COOKIE)
    assert response.status_code == 200


@pytest.mark.parametrize("key", ["abc\x00def", "../../etc", "a" * 39 + "\u00e9", "' OR 1=1"])
def test_a_token_that_cannot_be_a_token_is_a_401(key: str) -> None:
    response = Client().get("/api/v1/auth/me/", HTTP_AUTHORIZATION=f"Token {key}")
    assert response.status_code == 401
    assert response.json()["code"] == "authentication_failed"


def test_a_real_session_still_signs_in(owner: User) -> None:
    client = Client()
    client.post("/accounts/login/", {"username": owner.username,
                                     "password": "correct-horse-battery-staple"})
    assert client.get("/api/v1/auth/me/").json()["username"] == owner.username


@pytest.mark.parametrize("path", ["/api/v1/matches/?ladder=a%00b", "/api/v1/bots/?owner=%00",
                                  "/api/v1/bots/?search=x%00", "/matches/?bot=%00",
                                  "/api/v1/bots/?%00=1"])
def test_a_nul_character_in_the_query_string_is_a_400(path: str) -> None:
    response = Client().get(path)
    assert response.status_code == 400
    if path.startswith("/api/"):
        assert response.json() == {"detail": "the URL contains a NUL character (%00)",
                                   "code": "invalid"}


def test_an_upload_named_with_a_nul_character_is_refused_or_stored_cleanly(
    owner: User,
) -> None:
    from django.core.files.uploadedfile import SimpleUploadedFile
    from rest_framework.test import APIClient

    from bots.services import bot_create

    bot = bot_create(owner=owner, name="nul-name")
    client = APIClient()
    client.force_authenticate(owner)
    response = client.post(f"/api/v1/bots/{bot.pk}/versions/",
                           {"file": SimpleUploadedFile("a\x00b.py", b"import sys\n")},
                           format="multipart")
    assert response.status_code in (201, 400)


HUGE = "9" * 30


@pytest.mark.parametrize("path", [
    f"/api/v1/versions/?bot={HUGE}", "/api/v1/versions/?bot=%C2%B2",
    f"/api/v1/matches/?bot={HUGE}", f"/api/v1/matches/?version={HUGE}",
    f"/api/v1/ladders/main/history/?version={HUGE}", f"/api/v1/replays/export/?version={HUGE}",
    f"/api/v1/bots/{HUGE}/", f"/bots/{HUGE}/", f"/matches/?bot={HUGE}", "/matches/?bot=%C2%B2",
])
def test_an_id_past_64_bits_or_a_superscript_digit_is_never_a_500(path: str) -> None:
    """SQLite cannot bind an integer past 64 bits; int("²") raises although "²".isdigit()."""
    response = Client().get(path)
    body = b"".join(response) if response.streaming else response.content
    assert response.status_code in (200, 400, 404), body[:200]
    assert b"Overflow" not in body
