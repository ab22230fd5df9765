"""Failed password checks are limited per account and per client address, on every path that
checks a password: the login form, the admin's login, POST /api/v1/auth/token/ and the password
change form (accounts.login_limits). The counts live in the Django cache (Redis under CI)."""

from __future__ import annotations

import re
import time
from typing import Any

import pytest
from django.test import Client
from rest_framework.test import APIClient

ALICE, EVE = "10.0.0.1", "10.0.0.66"


@pytest.fixture(autouse=True)
def _limits(settings: Any) -> None:
    settings.KAISER_LOGIN_FAILURES_PER_ACCOUNT = 3
    settings.KAISER_LOGIN_FAILURES_PER_ADDRESS = 5
    settings.KAISER_LOGIN_WINDOW_SECONDS = 900


def _form_login(username: str, password: str, address: str) -> Any:
    return Client().post("/accounts/login/", {"username": username, "password": password},
                         REMOTE_ADDR=address)


def _api_login(username: str, password: str, address: str) -> Any:
    return APIClient().post("/api/v1/auth/token/", {"username": username, "password": password},
                            format="json", REMOTE_ADDR=address)


def _text(response: Any) -> str:
    return response.content.decode()


def _signed_in(response: Any) -> bool:
    return response.status_code == 302 and response["Location"] == "/accounts/"


def test_the_login_form_refuses_an_account_after_its_failures(owner, password):
    for _ in range(3):
        wrong = _form_login("olivia", "guess", EVE)
        assert wrong.status_code == 200 and "correct username and password" in _text(wrong)
    refused = _form_login("olivia", password, EVE)  # the right password, too late
    assert refused.status_code == 429
    assert "Too many failed logins for this account: try again in" in _text(refused)
    assert 0 < int(refused["Retry-After"]) <= 900
    assert "_auth_user_id" not in refused.wsgi_request.session
    # The account is refused from any address: the limit is the account's.
    assert _form_login("olivia", password, ALICE).status_code == 429


def test_the_api_token_refuses_an_account_after_its_failures(owner, password):
    for _ in range(3):
        wrong = _api_login("olivia", "guess", EVE)
        assert wrong.status_code == 400 and wrong.json()["code"] == "invalid"
    refused = _api_login("olivia", password, ALICE)
    assert refused.status_code == 429
    body = refused.json()
    assert body["code"] == "throttled"
    assert re.fullmatch(r"Too many failed logins for this account: try again in "
                        r"\d+ (minutes|seconds)\.", body["detail"]), body["detail"]
    assert 0 < int(refused["Retry-After"]) <= 900


def test_the_form_and_the_api_share_one_count(owner, password):
    _form_login("olivia", "guess", EVE)
    _api_login("olivia", "guess", EVE)
    _form_login("OLIVIA ", "guess", EVE)  # the same account, however it is typed
    assert _api_login("olivia", password, ALICE).status_code == 429


def test_an_address_is_refused_after_its_failures_on_any_accounts(owner, other, password):
    for name in ("olivia", "oscar", "nobody-1", "nobody-2", "nobody-3"):
        assert _api_login(name, "guess", EVE).status_code == 400
    refused = _form_login("oscar", password, EVE)
    assert refused.status_code == 429 and "from your address" in _text(refused)
    assert _api_login("oscar", password, EVE).json()["detail"].startswith(
        "Too many failed logins from your address")


def test_other_accounts_and_addresses_are_not_blocked(owner, other, password):
    for name in ("olivia", "olivia", "olivia", "nobody", "nobody"):
        _form_login(name, "guess", EVE)  # olivia is refused, and so is Eve's address
    assert _form_login("olivia", password, ALICE).status_code == 429
    assert _form_login("oscar", password, EVE).status_code == 429
    # Oscar, from another address, signs in: neither Olivia's nor Eve's failures touch him.
    assert _signed_in(_form_login("oscar", password, ALICE))
    assert _api_login("oscar", password, ALICE).status_code == 200


def test_a_successful_login_starts_the_accounts_count_again(owner, password):
    for _ in range(2):
        _form_login("olivia", "typo", ALICE)
    assert _signed_in(_form_login("olivia", password, ALICE))
    for _ in range(2):
        _form_login("olivia", "typo", ALICE)
    assert _signed_in(_form_login("olivia", password, ALICE))  # 4 failures, never 3 in a row


def test_refused_attempts_are_not_counted(owner, password):
    for _ in range(3):
        _api_login("olivia", "guess", EVE)
    for _ in range(5):
        assert _api_login("olivia", "guess", ALICE).status_code == 429
    # Alice's address was never charged for the refused attempts above.
    assert _api_login("nobody", "guess", ALICE).status_code == 400
    assert _api_login("oscar-unknown", "guess", ALICE).status_code == 400


def test_a_refusal_ends_with_its_window(owner, password, settings):
    settings.KAISER_LOGIN_WINDOW_SECONDS = 2

    def locked_out() -> bool:
        for _ in range(3):
            _api_login("olivia", "guess", EVE)
        return _api_login("olivia", password, ALICE).status_code == 429

    assert locked_out() or locked_out()  # (a window may end between the failures)
    deadline = time.monotonic() + 20
    while (response := _api_login("olivia", password, ALICE)).status_code == 429:
        assert time.monotonic() < deadline, "the refusal outlived its window"
        time.sleep(0.2)
    assert response.status_code == 200 and response.json()["token"]


def test_the_password_change_form_counts_a_wrong_old_password(owner, password):
    client = Client()
    client.force_login(owner)

    def change(old: str) -> Any:
        return client.post("/accounts/password/", {
            "old_password": old, "new_password1": "a-new-long-passphrase",
            "new_password2": "a-new-long-passphrase"}, REMOTE_ADDR=EVE)

    for _ in range(3):
        assert "incorrectly" in _text(change("guess"))
    refused = change(password)
    assert refused.status_code == 429 and "Too many failed logins" in _text(refused)
    owner.refresh_from_db()
    assert owner.check_password(password)  # unchanged
    assert _form_login("olivia", password, ALICE).status_code == 429  # one count per account


def test_the_admin_login_is_limited_too(staff, password):
    for _ in range(3):
        Client().post("/admin/login/", {"username": "stella", "password": "guess"},
                      REMOTE_ADDR=EVE)
    refused = Client().post("/admin/login/", {"username": "stella", "password": password},
                            REMOTE_ADDR=ALICE)
    assert "Too many failed logins for this account" in _text(refused)
    assert "_auth_user_id" not in refused.wsgi_request.session


def test_a_clients_own_forwarded_for_header_is_not_trusted(owner, password):
    for n in range(5):
        _api_login(f"nobody-{n}", "guess", EVE)
    spoofed = APIClient().post("/api/v1/auth/token/", {"username": "olivia",
                                                       "password": password},
                               format="json", REMOTE_ADDR=EVE, HTTP_X_FORWARDED_FOR=ALICE)
    assert spoofed.status_code == 429


def test_behind_a_trusted_proxy_the_forwarded_address_counts(owner, password, settings):
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": 1}
    proxy = "10.9.9.9"
    for n in range(5):
        APIClient().post("/api/v1/auth/token/", {"username": f"nobody-{n}", "password": "x"},
                         format="json", REMOTE_ADDR=proxy, HTTP_X_FORWARDED_FOR=EVE)
    eve = APIClient().post("/api/v1/auth/token/", {"username": "olivia", "password": password},
                           format="json", REMOTE_ADDR=proxy, HTTP_X_FORWARDED_FOR=EVE)
    alice = APIClient().post("/api/v1/auth/token/", {"username": "olivia",
                                                     "password": password},
                             format="json", REMOTE_ADDR=proxy, HTTP_X_FORWARDED_FOR=ALICE)
    assert (eve.status_code, alice.status_code) == (429, 200)


def test_a_body_that_is_not_an_object_is_a_400_not_a_500(db):
    response = APIClient().post("/api/v1/auth/token/", ["olivia", "x"], format="json")
    assert response.status_code == 400


def test_the_counts_are_in_the_shared_cache(owner):
    from django.core.cache import cache

    _api_login("olivia", "guess", EVE)
    keys = [k for k in _cache_keys(cache) if "login-failures" in k]
    assert len(keys) == 2  # one for the account, one for the address


def _cache_keys(cache: Any) -> list[str]:
    """Every key of the test's cache namespace (locmem or Redis)."""
    if hasattr(cache, "_cache") and isinstance(cache._cache, dict):
        return [str(k) for k in cache._cache]
    client = cache._cache.get_client(None, write=False)
    return [k.decode() for k in client.scan_iter(match=f"{cache.key_prefix}*")]
