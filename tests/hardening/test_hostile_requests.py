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
