"""Password guessing, limited: failed password checks are counted per account and per client
address in the cache (Redis in production, so every web process shares the counts), and once
either count reaches its limit in the current window, password checks for that account, or
from that address, are refused until the window ends.

Every path that checks a password goes through here: the login form, the admin's login,
`POST /api/v1/auth/token/` and the password change form (accounts.forms, accounts.api).

- An account's count holds whatever the address, so guessing one password from many
  addresses is slow; an address's count holds whatever the account, so trying one password
  on many accounts is slow too. Counts are kept for any name typed, existing or not, so the
  refusal tells nothing about which accounts exist.
- A refused attempt is not checked at all (no password hashing) and not counted.
- A successful login clears its account's count, so an author who mistyped a few times starts
  afresh. Another address's failures on another account never block it.
- Windows are fixed (aligned on the clock): a limit of 10 lets at most 20 guesses through
  around a window's edge, and the refusal says when its window ends.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest
from rest_framework.throttling import BaseThrottle


class LoginLimited(Exception):
    """Too many failed password checks for this account or from this address."""

    def __init__(self, *, wait: int, scope: str) -> None:
        self.wait = wait
        self.scope = scope
        super().__init__(f"Too many failed logins {scope}: try again in {_duration(wait)}.")


@dataclass(frozen=True)
class _Counter:
    key: str
    limit: int
    scope: str


def client_address(request: HttpRequest | None) -> str:
    """The client's address as the API's throttles see it (REMOTE_ADDR, or the address
    KAISER_PROXIES trusted proxies put in X-Forwarded-For); "" without a request."""
    if request is None:
        return ""
    return BaseThrottle().get_ident(request) or ""  # it reads only request.META


def login_check(*, username: str, address: str) -> None:
    """Raise LoginLimited if this account or this address has no attempts left."""
    window, now = _window(), time.time()
    for counter in _counters(username, address, now):
        if (cache.get(counter.key) or 0) >= counter.limit:
            wait = max(1, int(window - now % window))
            raise LoginLimited(wait=wait, scope=counter.scope)


def login_failed(*, username: str, address: str) -> None:
    """Count one failed password check against the account and the address."""
    for counter in _counters(username, address, time.time()):
        if not cache.add(counter.key, 1, timeout=_window() + 60):
            try:
                cache.incr(counter.key)
            except ValueError:  # expired between add and incr: this is its first failure
                cache.set(counter.key, 1, timeout=_window() + 60)


def login_succeeded(*, username: str) -> None:
    """The account's password was right: its count starts again."""
    account = _account_counter(username, time.time())
    if account is not None:
        cache.delete(account.key)


def _window() -> int:
    return max(1, int(settings.KAISER_LOGIN_WINDOW_SECONDS))


def _counters(username: str, address: str, now: float) -> list[_Counter]:
    window = int(now // _window())
    counters = [counter] if (counter := _account_counter(username, now)) else []
    if address:  # unknown without a request (a form used outside a view)
        counters.append(_Counter(f"login-failures:address:{_digest(address)}:{window}",
                                 int(settings.KAISER_LOGIN_FAILURES_PER_ADDRESS),
                                 "from your address"))
    return counters


def _account_counter(username: str, now: float) -> _Counter | None:
    name = username.strip().casefold()  # "Alice" and "alice " share one count
    if not name:
        return None
    window = int(now // _window())
    return _Counter(f"login-failures:account:{_digest(name)}:{window}",
                    int(settings.KAISER_LOGIN_FAILURES_PER_ACCOUNT), "for this account")


def _digest(text: str) -> str:
    """A fixed-size key part for any text (cache keys have a length and character limit)."""
    return hashlib.sha256(text.encode(errors="replace")).hexdigest()[:32]


def _duration(seconds: int) -> str:
    if seconds < 90:
        return f"{seconds} seconds"
    return f"{-(-seconds // 60)} minutes"
