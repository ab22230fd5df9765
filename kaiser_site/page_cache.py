"""The public pages and their API twins, shared by every anonymous visitor through the cache.

The home page, the leaderboards, the bot, match and tournament lists, the bot and match pages,
and the API's reads of them are the same for every visitor who is not signed in. Each is
built once and kept in the cache (Redis in production, so every web process shares it) with
the *generations* of the topics it shows: counters that every write the pages show bumps
(`pages_changed`): "board" (the leaderboards and their fitted ratings), "matches" (the match
lists), "bots" (the bot list), "tournaments", "bot:<id>" and "match:<id>" (one bot's or match's
page), "stats" (the play statistics, folded every few seconds: on every bot page, beside all
bots' totals, and nowhere else), and "all", which every page shows (a ladder's entries added
or retired). A write moves only the topics whose pages show it: a fold of the statistics
every 10 s that moved "all" rebuilt every page of the site as often. A copy whose generations
moved is built again on the next request, so a result is on the pages at once, and a match
leaves the pages of the bots that did not play it alone.

Under load the counter moves many times a second (every finished match). So that anonymous
traffic never builds one page twice in a second, a copy less than
KAISER_PAGE_CACHE_REBUILD_SECONDS old is served though the generation moved on, and one
request at a time builds a page (a lock in the cache): the others are served the copy it
replaces, or, when there is none yet, wait for its build. Whatever no write announces
(a match's "N minutes ago", an admin's edit) shows after KAISER_PAGE_CACHE_SECONDS.

Signed-in users (their name in the menu, their bots' forms and logs) and requests with a
session or pending messages are never served a shared copy, nor stored as one: their pages are
built for them, from the fragments the pages cache themselves (kaiser_site.fragments).
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from functools import wraps
from typing import Any, TypeVar

from django.conf import settings
from django.core.cache import cache
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from rest_framework.request import Request
from rest_framework.response import Response

ALL = "all"
STATS = "stats"  # the play statistics (matches.stats): the bot pages
LOCK_SECONDS = 30  # a build that takes longer (or whose process died) lets another one start
WAIT_STEP = 0.01  # how often a request with no copy to serve looks for the one being built
HEADER = "X-Page-Cache"  # hit, recent (a moved generation, served within the rebuild interval),
# stale (another request is building it), miss (built by this request), off

T = TypeVar("T")
# (the topics' generations, built at (epoch seconds), value)
Copy = tuple[tuple[int, ...], float, Any]


def enabled() -> bool:
    return bool(getattr(settings, "KAISER_PAGE_CACHE", False))


# --- the generation --------------------------------------------------------------------------


def _generation_key(topic: str) -> str:
    return f"pages:generation:{topic}"


def _bump(topics: tuple[str, ...]) -> None:
    for key in map(_generation_key, topics):
        try:
            cache.incr(key)
        except ValueError:  # the first change since the cache started (or was emptied)
            if not cache.add(key, 1, timeout=None):
                cache.incr(key)


def pages_changed(*topics: str) -> None:
    """Something the shared pages of these topics show changed (none named: every page).
    Their generations move now and, inside a transaction, again after it commits: a page
    built meanwhile read the rows as they were before the commit, and must not outlive it."""
    if not enabled():
        return
    topics = topics or (ALL,)
    _bump(topics)
    if transaction.get_connection().in_atomic_block:
        transaction.on_commit(lambda: _bump(topics))


def match_topics(match_id: int, bot_ids: tuple[int, ...], *also: str) -> tuple[str, ...]:
    """The pages a match's change shows on: the match lists, its page, its bots' pages."""
    return ("matches", f"match:{match_id}", *(f"bot:{b}" for b in bot_ids), *also)


def bot_topics(bot_id: int) -> tuple[str, ...]:
    """The pages a bot's change (its name, retirement, versions) shows on."""
    return ("bots", "board", f"bot:{bot_id}")


# --- serving ---------------------------------------------------------------------------------


def _key(kind: str, request: HttpRequest) -> str:
    """One copy per scheme, host, path and query (its parameters in any order)."""
    query = sorted(request.GET.lists())
    raw = f"{kind}|{request.scheme}|{request.get_host()}|{request.path}|{query}"
    return f"pages:{kind}:{hashlib.sha256(raw.encode()).hexdigest()}"


def _seconds(name: str, default: float) -> float:
    return float(getattr(settings, name, default))


def shared(key: str, topics: tuple[str, ...], build: Callable[[], tuple[T, bool]]
           ) -> tuple[T, str]:
    """The value under `key` for the topics' current generations, and how it was found
    (HEADER's words). `build` returns the value and whether it may be shared (a 200, no
    cookie). One round trip to the cache when the copy is current."""
    max_age = _seconds("KAISER_PAGE_CACHE_SECONDS", 30)
    names = [_generation_key(t) for t in (ALL, *topics)]
    found = cache.get_many([*names, key])
    current = tuple(int(found.get(name) or 0) for name in names)
    copy: Copy | None = found.get(key)
    now = time.time()
    if copy is not None and now - copy[1] < max_age:
        if copy[0] == current:
            return copy[2], "hit"
        if now - copy[1] < _seconds("KAISER_PAGE_CACHE_REBUILD_SECONDS", 1):
            return copy[2], "recent"
    lock = f"{key}:lock"
    if cache.add(lock, 1, timeout=LOCK_SECONDS):
        try:
            # The build that held the lock may have ended since this request looked.
            latest: Copy | None = cache.get(key)
            if latest is not None and latest[0] == current and time.time() - latest[1] < max_age:
                return latest[2], "hit"
            return _build(key, current, build, max_age), "miss"
        finally:
            cache.delete(lock)
    if copy is not None:
        return copy[2], "stale"
    return _wait_for(key, lock, current, build, max_age)


def _build(key: str, current: tuple[int, ...], build: Callable[[], tuple[T, bool]],
           max_age: float) -> T:
    value, shareable = build()
    if shareable:
        # Kept twice its age: an old copy is still served while its successor is built.
        cache.set(key, (current, time.time(), value), timeout=int(2 * max_age) + 1)
    return value


def _wait_for(key: str, lock: str, current: tuple[int, ...], build: Callable[[], tuple[T, bool]],
              max_age: float) -> tuple[T, str]:
    """No copy at all, and another request is building one: wait for it rather than build
    the same page at the same time (the first visit after a start, or after a quiet spell)."""
    deadline = time.monotonic() + LOCK_SECONDS
    while time.monotonic() < deadline:
        time.sleep(WAIT_STEP)
        copy: Copy | None = cache.get(key)
        if copy is not None:  # the lock holder's build, for these generations or one before
            return copy[2], "stale"
        if cache.get(lock) is None:  # the build ended: with a copy, or none (not shareable)
            copy = cache.get(key)
            if copy is not None:
                return copy[2], "stale"
            break
    return build()[0], "miss"


# --- Django pages ----------------------------------------------------------------------------


def _anonymous_page_request(request: HttpRequest) -> bool:
    """A GET with no session and no messages waiting: nothing on its page is the visitor's
    own (a session cookie may hold a login, a CSRF token or a message)."""
    return (request.method == "GET" and enabled()
            and settings.SESSION_COOKIE_NAME not in request.COOKIES
            and "messages" not in request.COOKIES
            and not request.user.is_authenticated)


def _page_shareable(request: HttpRequest, response: HttpResponse) -> bool:
    return (response.status_code == 200 and not response.streaming and not response.cookies
            and not request.META.get("CSRF_COOKIE_NEEDS_UPDATE")
            and "private" not in response.get("Cache-Control", ""))


def shared_page(*topics: str) -> Callable[[Callable[..., HttpResponse]],
                                          Callable[..., HttpResponse]]:
    """A page view whose answer to anonymous visitors is served from the shared cache, built
    again when one of its topics changes. A topic may name the view's arguments: "bot:{pk}"."""
    def decorate(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
        return _shared_view(view, topics)
    return decorate


def _shared_view(view: Callable[..., HttpResponse], topics: tuple[str, ...]
                 ) -> Callable[..., HttpResponse]:
    @wraps(view)
    def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if not _anonymous_page_request(request):
            return view(request, *args, **kwargs)
        built: list[HttpResponse] = []

        def build() -> tuple[tuple[int, bytes, list[tuple[str, str]]], bool]:
            response = view(request, *args, **kwargs)
            if hasattr(response, "render"):
                response.render()
            built.append(response)
            return ((response.status_code, response.content, list(response.items())),
                    _page_shareable(request, response))

        named = tuple(t.format(**kwargs) for t in topics)
        (status, content, headers), how = shared(_key("html", request), named, build)
        if built:  # this request built it: its own response, cookies and all
            response = built[0]
        else:
            response = HttpResponse(content, status=status)
            for name, value in headers:
                response[name] = value
        response[HEADER] = how
        return response

    return wrapper


# --- the API's twins -------------------------------------------------------------------------


def _api_shared(request: Request, topics: tuple[str, ...], respond: Callable[[], Response]
                ) -> Response:
    """The answer of a read for anonymous callers from the shared cache: the serialized data,
    rendered for each caller (JSON, or the browsable API) as any answer is."""
    if request.method != "GET" or not enabled() or request.user.is_authenticated:
        return respond()
    built: list[Response] = []

    def build() -> tuple[tuple[int, Any], bool]:
        response = respond()
        built.append(response)
        return (response.status_code, response.data), response.status_code == 200

    (status, data), how = shared(_key("api", request), topics, build)  # type: ignore[arg-type]
    response = built[0] if built else Response(data, status=status)
    response[HEADER] = how
    return response


class AnonymousSharedReads:
    """A viewset's list and retrieve, for anonymous callers, from the shared cache, built
    again when one of `shared_list_topics` / `shared_item_topics` changes (these may name the
    URL's arguments: "bot:{pk}"). They run after authentication, permissions and throttling:
    a cached answer counts against the caller's rate like any other."""

    shared_list_topics: tuple[str, ...] = ()
    shared_item_topics: tuple[str, ...] = ()

    def list(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        parent = super()
        return _api_shared(request, self.shared_list_topics,
                           lambda: parent.list(request, *args, **kwargs))  # type: ignore[misc]

    def retrieve(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        parent = super()
        topics = tuple(t.format(**kwargs) for t in self.shared_item_topics)
        return _api_shared(request, topics,
                           lambda: parent.retrieve(request, *args, **kwargs))  # type: ignore[misc]
