"""Password reset by mail: the login page links to it, a known address gets a one-use link
(mail.outbox: pytest-django's in-memory backend), an unknown one the very same page and no
mail, and requests are limited per email address and per client address
(accounts.login_limits.reset_requested)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core import mail
from django.test import Client

pytestmark = pytest.mark.django_db

NEW_PASSWORD = "a-much-longer-new-secret-42"
LINK = re.compile(r"https?://[^/\s]+(/accounts/password/reset/[^\s]+/)")


@pytest.fixture
def ada(password: str) -> User:
    return User.objects.create_user("ada", email="ada@example.com", password=password)


def _request_reset(client: Client, email: str, address: str = "10.0.0.1") -> Any:
    return client.post("/accounts/password/reset/", {"email": email}, REMOTE_ADDR=address,
                       follow=True)


def _link_in_mail(message: mail.EmailMessage) -> str:
    found = LINK.search(str(message.body))
    assert found, message.body
    return found.group(1)


def _set_password(client: Client, link: str, password: str) -> Any:
    """Open the link (Django moves the token into the session and redirects to
    .../set-password/) and post the new password there."""
    page = client.get(link, follow=True)
    form_url = page.redirect_chain[-1][0] if page.redirect_chain else link
    return client.post(form_url, {"new_password1": password, "new_password2": password},
                       follow=True)


def test_the_login_page_links_to_the_reset_page(client: Client) -> None:
    page = client.get("/accounts/login/").content.decode()
    assert '<a href="/accounts/password/reset/">Forgot your password?</a>' in page
    form = client.get("/accounts/password/reset/")
    assert form.status_code == 200
    assert "<h1>Reset your password</h1>" in form.content.decode()


def test_the_mailed_link_sets_a_new_password(client: Client, ada: User, password: str) -> None:
    response = _request_reset(client, "ADA@example.com")  # any case of the address
    assert response.redirect_chain == [("/accounts/password/reset/sent/", 302)]
    assert "<h1>Check your mail</h1>" in response.content.decode()
    assert len(mail.outbox) == 1
    message = mail.outbox[0]
    assert message.to == ["ada@example.com"]
    assert message.subject == "Reset your password on Kaiser Arena"
    assert '"ada" on Kaiser Arena' in message.body

    done = _set_password(Client(), _link_in_mail(message), NEW_PASSWORD)
    assert done.redirect_chain[-1][0] == "/accounts/password/reset/complete/"
    assert "<h1>Password set</h1>" in done.content.decode()
    assert Client().login(username="ada", password=NEW_PASSWORD)
    assert not Client().login(username="ada", password=password)


def test_an_unknown_address_gets_the_same_page_and_no_mail(client: Client, ada: User) -> None:
    known = _request_reset(Client(), "ada@example.com", address="10.0.0.1")
    unknown = _request_reset(Client(), "nobody@example.com", address="10.0.0.2")
    assert unknown.status_code == known.status_code == 200
    assert unknown.redirect_chain == known.redirect_chain
    # The pages differ only in their CSRF token (the menu's log-out form is not there).
    strip = re.compile(r'name="csrfmiddlewaretoken" value="[^"]*"')
    assert strip.sub("", unknown.content.decode()) == strip.sub("", known.content.decode())
    assert [m.to for m in mail.outbox] == [["ada@example.com"]]


def test_the_link_works_once(client: Client, ada: User) -> None:
    _request_reset(client, "ada@example.com")
    link = _link_in_mail(mail.outbox[0])
    first = _set_password(Client(), link, NEW_PASSWORD)
    assert "<h1>Password set</h1>" in first.content.decode()

    second_client = Client()
    again = second_client.get(link, follow=True)
    assert again.status_code == 200
    assert "<h1>This link does not work</h1>" in again.content.decode()
    assert 'id="reset-link-invalid"' in again.content.decode()
    # Posting a password through it anyway changes nothing.
    posted = _set_password(second_client, link, "yet-another-password-77")
    assert "<h1>This link does not work</h1>" in posted.content.decode()
    assert Client().login(username="ada", password=NEW_PASSWORD)
    assert not Client().login(username="ada", password="yet-another-password-77")


def test_requests_for_one_email_address_are_limited(settings: Any, ada: User) -> None:
    settings.KAISER_RESET_REQUESTS_PER_EMAIL = 2
    for address in ("10.0.0.1", "10.0.0.2"):  # from any client addresses
        assert _request_reset(Client(), "ada@example.com", address).status_code == 200
    refused = _request_reset(Client(), " Ada@Example.com", "10.0.0.3")
    assert refused.status_code == 429
    assert 0 < int(refused["Retry-After"]) <= settings.KAISER_LOGIN_WINDOW_SECONDS
    assert "Too many password reset requests for this email address" in (
        refused.content.decode())
    assert len(mail.outbox) == 2  # the refused request sent nothing
    # An address with no account is counted alike, so a refusal tells nothing.
    for address in ("10.0.0.1", "10.0.0.2"):
        assert _request_reset(Client(), "nobody@example.com", address).status_code == 200
    assert _request_reset(Client(), "nobody@example.com", "10.0.0.3").status_code == 429


def test_requests_from_one_client_address_are_limited(settings: Any, ada: User) -> None:
    settings.KAISER_RESET_REQUESTS_PER_ADDRESS = 3
    for n in range(3):
        assert _request_reset(Client(), f"someone{n}@example.com", "10.0.0.9").status_code == 200
    refused = _request_reset(Client(), "ada@example.com", "10.0.0.9")
    assert refused.status_code == 429
    assert "Too many password reset requests from your address" in refused.content.decode()
    assert mail.outbox == []
    assert _request_reset(Client(), "ada@example.com", "10.0.0.10").status_code == 200
    assert [m.to for m in mail.outbox] == [["ada@example.com"]]


def test_the_email_given_at_sign_up_receives_the_reset_link(client: Client) -> None:
    signup = client.get("/accounts/signup/").content.decode()
    assert "only for password resets" in signup
    client.post("/accounts/signup/", {
        "username": "newcomer", "email": "newcomer@example.com",
        "password1": NEW_PASSWORD, "password2": NEW_PASSWORD,
    })
    client.post("/accounts/logout/")
    _request_reset(client, "newcomer@example.com")
    [message] = mail.outbox
    assert message.to == ["newcomer@example.com"]
    assert '"newcomer"' in message.body
    done = _set_password(Client(), _link_in_mail(message), "newcomers-second-password-5")
    assert "<h1>Password set</h1>" in done.content.decode()
    assert Client().login(username="newcomer", password="newcomers-second-password-5")
