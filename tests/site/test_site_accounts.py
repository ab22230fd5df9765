"""Sign up, log in and out, change password, the account page and its API token."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db
NEW_PASSWORD = "a-much-longer-new-secret-42"


def test_sign_up_creates_the_user_logs_in_and_shows_the_token(client: Client) -> None:
    response = client.post("/accounts/signup/", {
        "username": "newcomer", "email": "", "password1": NEW_PASSWORD,
        "password2": NEW_PASSWORD,
    }, follow=True)
    assert response.status_code == 200
    assert response.redirect_chain[-1][0] == "/accounts/"
    user = User.objects.get(username="newcomer")
    token = Token.objects.get(user=user)
    assert token.key in response.content.decode()
    assert response.context["user"] == user


def test_sign_up_refuses_a_weak_password_and_a_taken_name(client: Client, owner: User) -> None:
    response = client.post("/accounts/signup/", {
        "username": "olivia", "password1": "123", "password2": "123",
    })
    assert response.status_code == 200
    errors = response.context["form"].errors
    assert "A user with that username already exists." in errors["username"]
    assert any("too short" in e for e in errors["password2"])
    assert User.objects.count() == 1


def test_log_in_and_log_out(client: Client, owner: User, password: str) -> None:
    response = client.post("/accounts/login/", {"username": "olivia", "password": password})
    assert response.status_code == 302
    assert response["Location"] == "/accounts/"
    assert client.get("/accounts/").status_code == 200
    response = client.post("/accounts/logout/")
    assert response.status_code == 302
    assert client.get("/accounts/")["Location"] == "/accounts/login/?next=/accounts/"


def test_wrong_password_does_not_log_in(client: Client, owner: User) -> None:
    response = client.post("/accounts/login/", {"username": "olivia", "password": "nope"})
    assert response.status_code == 200
    assert "Please enter a correct username and password" in response.content.decode()


def test_change_password(client: Client, owner: User, password: str) -> None:
    client.force_login(owner)
    response = client.post("/accounts/password/", {
        "old_password": password, "new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD,
    })
    assert response.status_code == 302
    assert response["Location"] == "/accounts/password/done/"
    owner.refresh_from_db()
    assert owner.check_password(NEW_PASSWORD)


def test_account_page_needs_a_login(client: Client) -> None:
    response = client.get("/accounts/")
    assert response.status_code == 302
    assert response["Location"] == "/accounts/login/?next=/accounts/"


def test_regenerate_button_replaces_the_token_and_the_old_one_stops_working(
    client: Client, owner: User, owner_client: APIClient
) -> None:
    old = Token.objects.get(user=owner).key
    assert owner_client.get("/api/v1/auth/me/").status_code == 200
    client.force_login(owner)
    response = client.post("/accounts/token/regenerate/", follow=True)
    new = Token.objects.get(user=owner).key
    assert new != old
    page = response.content.decode()
    assert new in page and old not in page
    stale = owner_client.get("/api/v1/auth/me/")
    assert stale.status_code == 401
    assert stale.json() == {"detail": "Invalid token.", "code": "authentication_failed"}


def test_regenerate_is_post_only(client: Client, owner: User) -> None:
    client.force_login(owner)
    assert client.get("/accounts/token/regenerate/").status_code == 405


def test_api_token_from_username_and_password(
    anon_client: APIClient, owner: User, password: str
) -> None:
    response = anon_client.post("/api/v1/auth/token/", {"username": "olivia",
                                                        "password": password})
    assert response.status_code == 200
    assert response.json() == {"token": Token.objects.get(user=owner).key}
    response = anon_client.post("/api/v1/auth/token/", {"username": "olivia", "password": "x"})
    assert response.status_code == 400
    assert response.json()["detail"] == "Unable to log in with provided credentials."


@pytest.mark.parametrize(("role", "status"), [("anon", 401), ("owner", 200), ("staff", 200)])
def test_api_token_regenerate(role: str, status: int, clients: dict[str, APIClient]) -> None:
    client = clients[role]
    response = client.post("/api/v1/auth/token/regenerate/")
    assert response.status_code == status
    if status == 200:
        new = response.json()["token"]
        assert client.get("/api/v1/auth/me/").status_code == 401  # the old token is dead
        client.credentials(HTTP_AUTHORIZATION=f"Token {new}")
        assert client.get("/api/v1/auth/me/").status_code == 200


@pytest.mark.parametrize("role", ["anon", "owner", "other", "staff"])
def test_me_says_who_is_calling(role: str, clients: dict[str, APIClient]) -> None:
    response = clients[role].get("/api/v1/auth/me/")
    if role == "anon":
        assert response.status_code == 401
        return
    assert response.status_code == 200
    body = response.json()
    assert body["username"] == {"owner": "olivia", "other": "oscar", "staff": "stella"}[role]
    assert body["is_staff"] is (role == "staff")
