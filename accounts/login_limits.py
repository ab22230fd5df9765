"""Password guessing, limited without locking the owner out: failed password checks are
counted in the cache (Redis in production, so every web process shares the counts) per
(account, client address) and per client address, never per account alone.

Every path that checks a password goes through here: the login form, the admin's login,
`POST /api/v1/auth/token/` and the password change form (accounts.forms, accounts.api).

- One address guessing one account: the first KAISER_LOGIN_FAILURES_PER_ACCOUNT failures in
  a window are free, then that address waits before its next try on that account: 1 s after
  the last free failure, then 2 s, 4 s, ... at most MAX_DELAY_SECONDS. The delay is
  forgotten a window after it ended (so a guesser who keeps going stays at the cap).
- One address trying many accounts (spraying): after KAISER_LOGIN_FAILURES_PER_ADDRESS
  failures in a window, on any accounts, the address is refused until the window ends.
- No count is kept per account alone: whatever any number of other addresses do, the owner's
  correct password from her own address is checked. A ceiling per account would refuse her
  along with the guessers, which is the lockout this module exists to prevent; a guesser
  spread over many addresses is bounded per address by the two limits above, and beyond
  that by the password validators (settings.AUTH_PASSWORD_VALIDATORS).
- Counts are kept for any name typed, existing or not, so a refusal tells nothing about
  which accounts exist. A refused attempt is not checked at all (no password hashing) and
  not counted.
- Windows are fixed (aligned on the clock), so the refusal says when its window ends. The
  check and the count are two steps: guesses sent in parallel within one password hash's
  time all pass the check, and are all counted after.

Password reset requests (reset_requested) are counted in the same windows, every request and
not only failures (a request checks no password): KAISER_RESET_REQUESTS_PER_EMAIL per email
address typed, so no one is sent a flood of mail, and KAISER_RESET_REQUESTS_PER_ADDRESS per
client address. Addresses with no account are counted like the others, so a refusal tells
nothing about which exist. The limit per email address cannot lock its owner out: the
requests it counts each sent her a working link.
"""

from __future__ import annotations

import hashlib
import math
import time
from collections.abc import Callable

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest
from rest_framework.throttling import BaseThrottle

MAX_DELAY_SECONDS = 300
clock: Callable[[], float] = time.time  # the tests move time here instead of sleeping


class LoginLimited(Exception):
    """Too many failed password checks from this address (for this account, or for any)."""

    def __init__(self, *, wait: int, scope: str, what: str = "failed logins") -> None:
        self.wait = wait
        self.scope = scope
        super().__init__(f"Too many {what} {scope}: try again in {_duration(wait)}.")


def client_address(request: HttpRequest | None) -> str:
    """The client's address as the API's throttles see it (REMOTE_ADDR, or the address
    KAISER_PROXIES trusted proxies put in X-Forwarded-For); "" without a request."""
    if request is None:
        return ""
    return BaseThrottle().get_ident(request) or ""  # it reads only request.META


def login_check(*, username: str, address: str) -> None:
    """Raise LoginLimited if this address has no attempts left, for this account or any."""
    now = clock()
    if address and _count(_address_key(address, now)) >= _per_address():
        raise LoginLimited(wait=_seconds(_window() - now % _window()), scope="from your address")
    until, _ = _last_delay(username, address, now)
    if until > now:
        raise LoginLimited(wait=_seconds(until - now), scope="for this account from your address")


def login_failed(*, username: str, address: str) -> None:
    """Count one failed password check against the address, and against the account from
    this address; past the free failures, that address waits before its next try."""
    now = clock()
    if address:  # unknown without a request (a form used outside a view)
        _increment(_address_key(address, now))
    if not _name(username):
        return
    failures = _increment(_pair_key(username, address, now))
    past_free = failures - int(settings.KAISER_LOGIN_FAILURES_PER_ACCOUNT)
    delay = _next_delay(past_free, _last_delay(username, address, now)[1])
    if delay:
        cache.set(
            _delay_key(username, address), (now + delay, delay), timeout=delay + _window() + 60
        )


def login_succeeded(*, username: str, address: str | None = None) -> None:
    """The account's password was right: from this address its count starts again. Without
    the address nothing is cleared (another address's count is a guesser's, never cleared)."""
    if address is None or not _name(username):
        return
    cache.delete_many([_pair_key(username, address, clock()), _delay_key(username, address)])


def reset_requested(*, email: str, address: str) -> None:
    """Count one password reset request for this email address from this client address;
    raise LoginLimited, counting nothing, if either has made its requests in this window."""
    now = clock()
    window = int(now // _window())
    limits = [(f"reset-requests:email:{_digest(_name(email))}:{window}",
               int(settings.KAISER_RESET_REQUESTS_PER_EMAIL), "for this email address")]
    if address:  # unknown without a request (a form used outside a view)
        limits.append((f"reset-requests:address:{_digest(address)}:{window}",
                       int(settings.KAISER_RESET_REQUESTS_PER_ADDRESS), "from your address"))
    for key, limit, scope in limits:
        if _count(key) >= limit:
            raise LoginLimited(wait=_seconds(_window() - now % _window()), scope=scope,
                               what="password reset requests")
    for key, _, _ in limits:
        _increment(key)


def _window() -> int:
    return max(1, int(settings.KAISER_LOGIN_WINDOW_SECONDS))


def _per_address() -> int:
    return int(settings.KAISER_LOGIN_FAILURES_PER_ADDRESS)


def _name(username: str) -> str:
    return username.strip().casefold()  # "Alice" and "alice " share one count


def _address_key(address: str, now: float) -> str:
    return f"login-failures:address:{_digest(address)}:{int(now // _window())}"


def _pair_key(username: str, address: str, now: float) -> str:
    return f"login-failures:pair:{_pair(username, address)}:{int(now // _window())}"


def _delay_key(username: str, address: str) -> str:
    return f"login-delay:pair:{_pair(username, address)}"


def _pair(username: str, address: str) -> str:
    return _digest(_name(username) + "\n" + address)


def _last_delay(username: str, address: str, now: float) -> tuple[float, int]:
    """When this address may next try this account, and the delay that ended then; (0, 0)
    if there is none or it ended more than a window ago."""
    if not _name(username):
        return 0.0, 0
    until, delay = cache.get(_delay_key(username, address)) or (0.0, 0)
    return (until, delay) if now < until + _window() else (0.0, 0)


def _next_delay(past_free: int, last: int) -> int:
    """1, 2, 4, ... seconds from the first failure past the free ones, capped. A delay still
    remembered keeps doubling across windows: a guesser at the cap gets no free failures
    back when a window ends, only after a quiet window."""
    by_count = 2 ** min(past_free, 20) if past_free >= 0 else 0
    return min(max(by_count, 2 * last), MAX_DELAY_SECONDS)


def _count(key: str) -> int:
    return int(cache.get(key) or 0)


def _increment(key: str) -> int:
    """Add one to a count that the cache forgets a little after its window ends."""
    timeout = _window() + 60
    if cache.add(key, 1, timeout=timeout):
        return 1
    try:
        return int(cache.incr(key))
    except ValueError:  # expired between add and incr: this is its first failure
        cache.set(key, 1, timeout=timeout)
        return 1


def _digest(text: str) -> str:
    """A fixed-size key part for any text (cache keys have a length and character limit)."""
    return hashlib.sha256(text.encode(errors="replace")).hexdigest()[:32]


def _seconds(wait: float) -> int:
    return max(1, math.ceil(wait))


def _duration(seconds: int) -> str:
    if seconds == 1:
        return "1 second"
    if seconds < 90:
        return f"{seconds} seconds"
    return f"{-(-seconds // 60)} minutes"
