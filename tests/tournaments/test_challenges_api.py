"""POST /api/v1/challenges/ as a signed-in browser (session and CSRF token) and with a token:
the service takes request.user as Django hands it (a lazy wrapper) in both cases."""

from __future__ import annotations

import pytest
from django.test import Client
from rest_framework.test import APIClient

from ladder import services as ladder_services
from ladder.models import Ladder
from matches.models import Match
from tests.tournaments import sides


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


# --- Rated challenges only between bots of different owners (no Elo farming) ----------------


@pytest.fixture
def two_of_mine(make_program, owner, db):
    Ladder.objects.get_or_create(slug="main", defaults={"name": "Main"})
    main = make_program("main-bot", b"print('main')\n", owner=owner)
    feeder = make_program("feeder-bot", b"print('feeder')\n", owner=owner)
    return main, feeder


def test_a_rated_challenge_between_two_bots_of_one_owner_is_refused(two_of_mine, owner_client):
    main, feeder = two_of_mine
    refused = owner_client.post("/api/v1/challenges/", {
        "bot": main.bot_id, "opponent": feeder.bot_id, "rated": True}, format="json")
    assert refused.status_code == 400, refused.content
    body = refused.json()
    assert body["code"] == "invalid"
    assert body["detail"].startswith("rated: a rated challenge needs an opponent of another owner")
    assert list(body["fields"]) == ["rated"]
    assert not Match.objects.exists()


def test_the_same_challenge_unrated_is_accepted(two_of_mine, owner_client):
    main, feeder = two_of_mine
    created = owner_client.post("/api/v1/challenges/", {
        "bot": main.bot_id, "opponent": feeder.bot_id, "rated": False}, format="json")
    assert created.status_code == 201, created.content
    match = Match.objects.get(pk=created.json()["id"])
    assert (match.rated, sides.versions(match)) == (False, [main.pk, feeder.pk])


def test_a_rated_challenge_against_another_owner_is_accepted(challenge, owner_client):
    created = owner_client.post("/api/v1/challenges/", {**challenge, "rated": True},
                                format="json")
    assert created.status_code == 201, created.content
    assert Match.objects.get(pk=created.json()["id"]).rated is True


def test_staff_have_no_exception_for_their_own_bots(make_program, staff, staff_client, db):
    Ladder.objects.get_or_create(slug="main", defaults={"name": "Main"})
    a = make_program("staff-a", b"print('a')\n", owner=staff)
    b = make_program("staff-b", b"print('b')\n", owner=staff)
    refused = staff_client.post("/api/v1/challenges/", {
        "bot": a.bot_id, "opponent": b.bot_id, "rated": True}, format="json")
    assert refused.status_code == 400 and refused.json()["fields"]["rated"]


def test_the_service_refuses_it_for_every_caller(two_of_mine, owner):
    from django.core.exceptions import ValidationError


    main, feeder = two_of_mine
    ladder = Ladder.objects.get(slug="main")
    with pytest.raises(ValidationError) as refused:
        ladder_services.challenge_create(user=owner, version=main, opponent=feeder, rated=True,
                                  ladder=ladder)
    assert "another owner" in refused.value.message_dict["rated"][0]
    assert not Match.objects.exists()


def test_the_admin_cannot_make_a_queued_own_bots_challenge_rated(two_of_mine, owner, staff):

    staff.is_superuser = True
    staff.save(update_fields=["is_superuser"])
    main, feeder = two_of_mine
    ladder = Ladder.objects.get(slug="main")
    match = ladder_services.challenge_create(user=owner, version=main, opponent=feeder, rated=False,
                                      ladder=ladder)
    client = Client()
    client.force_login(staff)
    page = client.get(f"/admin/matches/match/{match.pk}/change/")
    form = page.context["adminform"].form
    data = {name: form[name].value() for name in form.fields if form[name].value() is not None}
    data["rated"] = "on"
    response = client.post(f"/admin/matches/match/{match.pk}/change/",
                            {**data, **_inline_management(page)})
    assert response.status_code == 200  # the form again, with the error
    assert "another owner" in response.content.decode()
    match.refresh_from_db()
    assert match.rated is False


def _inline_management(page) -> dict[str, str]:
    """The inlines' management forms as the change page rendered them."""
    data: dict[str, str] = {}
    for formset in page.context["inline_admin_formsets"]:
        management = formset.formset.management_form
        for name in management.fields:
            data[management.add_prefix(name)] = str(management[name].value())
    return data
