"""POST /api/v1/challenges/ as a signed-in browser (session and CSRF token) and with a token:
the service takes request.user as Django hands it (a lazy wrapper) in both cases."""

from __future__ import annotations

import pytest
from django.test import Client
from rest_framework.test import APIClient

from tournaments.models import Ladder, Match


@pytest.fixture
def challenge(make_builtin, make_program, owner, db):
    Ladder.objects.get_or_create(slug="main", defaults={"name": "Main"})
    mine = make_program("mine", b"print('x')\n", owner=owner)
    target = make_builtin("target")
    return {"bot": mine.bot_id, "opponent": target.bot_id, "rated": False}


def test_a_session_signed_in_author_challenges_with_the_csrf_token(challenge, owner):
    client = Client(enforce_csrf_checks=True)
    client.force_login(owner)
    token = client.get("/").cookies["csrftoken"].value
    refused = client.post("/api/v1/challenges/", challenge, content_type="application/json")
    assert refused.status_code == 403 and "CSRF" in refused.json()["detail"]
    created = client.post("/api/v1/challenges/", challenge, content_type="application/json",
                          HTTP_X_CSRFTOKEN=token)
    assert created.status_code == 201, created.content
    match = Match.objects.get(pk=created.json()["id"])
    assert (match.kind, match.requested_by_id) == (Match.Kind.CHALLENGE, owner.pk)


def test_a_token_author_challenges_without_csrf(challenge, owner):
    from accounts.services import user_token

    client = APIClient(enforce_csrf_checks=True)
    client.credentials(HTTP_AUTHORIZATION=f"Token {user_token(user=owner).key}")
    created = client.post("/api/v1/challenges/", challenge, format="json")
    assert created.status_code == 201, created.content
    assert Match.objects.get(pk=created.json()["id"]).requested_by_id == owner.pk
