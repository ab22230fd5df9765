"""Password guessing is throttled per client address, and per account from that address,
never per account alone: a guesser waits growing delays, an address spraying many accounts
is refused, and the owner's correct password from her own address is always checked. On
every path that checks a password: the login form, the admin's login, POST
/api/v1/auth/token/ and the password change form (accounts.login_limits). The counts live
in the Django cache (Redis under CI); time moves by login_limits.clock, never by sleeping."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client
from rest_framework.test import APIClient

from accounts import login_limits

ALICE, EVE = "10.0.0.1", "10.0.0.66"
WINDOW = 900


class Clock:
    def __init__(self) -> None:
        self.now = 2_000_000 * WINDOW + 1.0  # just after a window starts

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture(autouse=True)
def clock(settings: Any, monkeypatch: pytest.MonkeyPatch) -> Clock:
    settings.KAISER_LOGIN_FAILURES_PER_ACCOUNT = 3
    settings.KAISER_LOGIN_FAILURES_PER_ADDRESS = 5
    settings.KAISER_LOGIN_WINDOW_SECONDS = WINDOW
    fake = Clock()
    monkeypatch.setattr(login_limits, "clock", fake)
    return fake


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


def _wait(response: Any) -> int:
    assert response.status_code == 429
    return int(response["Retry-After"])


def test_the_owner_signs_in_from_her_address_while_an_attacker_hammers(owner, password,
                                                                        settings, clock):
    settings.KAISER_LOGIN_FAILURES_PER_ADDRESS = 1000  # only the account's delays for Eve
    for attempt in range(40):
        guess = (_form_login if attempt % 2 else _api_login)("olivia", f"guess-{attempt}", EVE)
        assert guess.status_code in (200, 400, 429)
        clock.advance(0.5)
        assert _signed_in(_form_login("olivia", password, ALICE))
        assert _api_login("olivia", password, ALICE).json()["token"]
    # Eve, meanwhile, is refused, even with the right password.
    refused = _api_login("olivia", password, EVE)
    assert refused.json()["code"] == "throttled" and _wait(refused) > 1


def test_the_guessers_address_waits_growing_delays(owner, password, settings, clock):
    settings.KAISER_LOGIN_FAILURES_PER_ADDRESS = 1000
    for _ in range(3):  # free
        wrong = _form_login("olivia", "guess", EVE)
        assert wrong.status_code == 200 and "correct username and password" in _text(wrong)
    delays = []
    for _ in range(5):
        refused = _api_login("olivia", password, EVE)  # the right password, refused unchecked
        delays.append(_wait(refused))
        assert re.fullmatch(r"Too many failed logins for this account from your address: "
                            r"try again in \d+ seconds?\.", refused.json()["detail"])
        clock.advance(delays[-1])
        assert _api_login("olivia", "guess", EVE).status_code == 400  # checked again
    assert delays == [1, 2, 4, 8, 16]
    page = _form_login("olivia", password, EVE)
    assert _wait(page) == 32 and "try again in 32 seconds" in _text(page)
    assert "_auth_user_id" not in page.wsgi_request.session


def test_the_delays_stop_growing_at_their_cap(owner, settings, clock):
    settings.KAISER_LOGIN_FAILURES_PER_ADDRESS = 1000
    for _ in range(20):
        clock.advance(login_limits.MAX_DELAY_SECONDS)
        assert _api_login("olivia", "guess", EVE).status_code == 400
    refused = _api_login("olivia", "guess", EVE)
    assert _wait(refused) == login_limits.MAX_DELAY_SECONDS
    assert "try again in 5 minutes" in refused.json()["detail"]


def test_spraying_many_accounts_from_one_address_is_refused(owner, other, password):
    for name in ("olivia", "oscar", "nobody-1", "nobody-2", "nobody-3"):
        assert _api_login(name, "guess", EVE).status_code == 400
    page = _form_login("nobody-4", "guess", EVE)
    assert "Too many failed logins from your address" in _text(page)
    assert 0 < _wait(page) <= WINDOW
    api = _api_login("oscar", password, EVE)  # oscar never failed from here: still refused
    assert api.json()["detail"].startswith("Too many failed logins from your address")
    assert _wait(api) == WINDOW - 1  # until the window ends
    # Nobody else is touched: Oscar signs in from his own address.
    assert _signed_in(_form_login("oscar", password, ALICE))


def test_the_counts_expire_with_their_window(owner, password, clock):
    for name in ("olivia", "olivia", "olivia", "nobody-1", "nobody-2"):
        _api_login(name, "guess", EVE)
    assert _wait(_api_login("olivia", password, EVE)) == WINDOW - 1
    clock.advance(WINDOW + 1)
    # A quiet window later: the address and the account's free failures are Eve's again.
    for _ in range(3):
        assert _api_login("olivia", "guess", EVE).status_code == 400
    assert _wait(_api_login("olivia", password, EVE)) == 1
    clock.advance(1)
    assert _api_login("olivia", password, EVE).status_code == 200


def test_the_owners_own_typos_delay_her_by_seconds(owner, password, clock):
    for _ in range(3):
        _form_login("olivia", "typo", ALICE)
    assert _wait(_form_login("olivia", password, ALICE)) == 1
    clock.advance(1)
    assert _signed_in(_form_login("olivia", password, ALICE))


def test_a_success_with_its_address_clears_only_that_addresss_count(owner, clock):
    for address in (ALICE, EVE):
        for _ in range(3):
            login_limits.login_failed(username="olivia", address=address)
    login_limits.login_succeeded(username="olivia", address=ALICE)
    login_limits.login_check(username="olivia", address=ALICE)  # not refused
    with pytest.raises(login_limits.LoginLimited):
        login_limits.login_check(username="Olivia ", address=EVE)


def test_the_form_and_the_api_share_one_count(owner, password):
    _form_login("olivia", "guess", EVE)
    _api_login("olivia", "guess", EVE)
    _form_login("OLIVIA ", "guess", EVE)  # the same account, however it is typed
    assert _wait(_api_login("olivia", password, EVE)) == 1
    assert _api_login("olivia", password, ALICE).status_code == 200


def test_refused_attempts_are_not_counted(owner, password):
    for _ in range(3):
        _api_login("olivia", "guess", EVE)
    for _ in range(10):
        assert _wait(_api_login("olivia", "guess", EVE)) == 1  # the delay does not grow
    # Eve's address was charged only its three failures: two more accounts are checked.
    assert _api_login("nobody-1", "guess", EVE).status_code == 400
    assert _api_login("nobody-2", "guess", EVE).status_code == 400


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
    assert _wait(refused) == 1 and "Too many failed logins" in _text(refused)
    owner.refresh_from_db()
    assert owner.check_password(password)  # unchanged
    assert _wait(_form_login("olivia", password, EVE)) == 1  # one count per account+address
    assert _signed_in(_form_login("olivia", password, ALICE))


def test_the_admin_login_is_limited_too(staff, password):
    for _ in range(3):
        Client().post("/admin/login/", {"username": "stella", "password": "guess"},
                      REMOTE_ADDR=EVE)
    refused = Client().post("/admin/login/", {"username": "stella", "password": password},
                            REMOTE_ADDR=EVE)
    assert "Too many failed logins for this account from your address" in _text(refused)
    assert refused.status_code == 429 and int(refused["Retry-After"]) > 0
    assert "_auth_user_id" not in refused.wsgi_request.session
    owner = Client().post("/admin/login/", {"username": "stella", "password": password},
                          REMOTE_ADDR=ALICE)
    assert owner.status_code == 302 and "_auth_user_id" in owner.wsgi_request.session


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
    assert len(keys) == 2  # one for the address, one for the account from that address


def _cache_keys(cache: Any) -> list[str]:
    """Every key of the test's cache namespace (locmem or Redis)."""
    if hasattr(cache, "_cache") and isinstance(cache._cache, dict):
        return [str(k) for k in cache._cache]
    client = cache._cache.get_client(None, write=False)
    return [k.decode() for k in client.scan_iter(match=f"{cache.key_prefix}*")]
