"""Password reset in headless Chromium: from the login page a person follows "Forgot your
password?", asks for the link, reads the mail that Django's file backend wrote (as under
run.sh, in a folder of the test's own), opens the link, sets a new password and logs in with
it; the old password no longer works."""

from __future__ import annotations

import re
from email import message_from_bytes
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.urls import reverse
from playwright.sync_api import Page, expect

from tests.browser import test_browser

# Chromium launched as the other browser tests launch it, and a page that fails the test on
# any JavaScript error.
browser, page = test_browser.browser, test_browser.page

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True),
              pytest.mark.timeout(120)]

OLD_PASSWORD = "a-long-browser-password-42"
NEW_PASSWORD = "another-long-password-for-ada-7"
LINK = re.compile(r"http://\S+/accounts/password/reset/\S+/")


def _the_one_mail(folder: Path) -> str:
    """The body of the only message the file backend wrote (one file a connection)."""
    [written] = list(folder.iterdir())
    message = message_from_bytes(written.read_bytes())
    payload = message.get_payload(decode=True)
    assert isinstance(payload, bytes)
    return payload.decode()


def _log_in(page: Page, base: str, password: str) -> None:
    page.goto(base + reverse("login"))
    page.fill("#id_username", "ada")
    page.fill("#id_password", password)
    page.get_by_role("button", name="Log in").click()


def test_a_forgotten_password_is_reset_from_the_mailed_link(
    live_server: Any, page: Page, settings: Any, tmp_path: Path
) -> None:
    mailbox = tmp_path / "mail"
    settings.EMAIL_BACKEND = "django.core.mail.backends.filebased.EmailBackend"
    settings.EMAIL_FILE_PATH = mailbox
    User.objects.create_user("ada", email="ada@example.com", password=OLD_PASSWORD)

    page.goto(live_server.url + reverse("login"))
    page.get_by_role("link", name="Forgot your password?").click()
    expect(page.locator("h1")).to_have_text("Reset your password")
    page.fill("#id_email", "ada@example.com")
    page.get_by_role("button", name="Send the link").click()
    expect(page.locator("h1")).to_have_text("Check your mail")

    body = _the_one_mail(mailbox)  # written before the redirect to the page above
    assert 'the account "ada" on Kaiser Arena' in body
    link = LINK.search(body)
    assert link, body
    assert link.group(0).startswith(live_server.url)

    page.goto(link.group(0))
    expect(page.locator("h1")).to_have_text("Set a new password")
    expect(page).to_have_url(re.compile(r"/set-password/$"))  # the token left the address
    page.fill("#id_new_password1", NEW_PASSWORD)
    page.fill("#id_new_password2", NEW_PASSWORD)
    page.get_by_role("button", name="Set password").click()
    expect(page.locator("h1")).to_have_text("Password set")

    _log_in(page, live_server.url, OLD_PASSWORD)
    expect(page.locator(".errors")).to_contain_text("Please enter a correct username")
    menu = page.get_by_role("navigation", name="main")
    expect(menu.get_by_role("link", name="Log in")).to_be_visible()

    _log_in(page, live_server.url, NEW_PASSWORD)
    expect(menu.get_by_role("link", name="ada", exact=True)).to_be_visible()
    expect(page).to_have_url(live_server.url + reverse("account"))

    page.goto(link.group(0))  # the link worked once
    expect(page.locator("h1")).to_have_text("This link does not work")
