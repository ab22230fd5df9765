"""Who may write what, for every write endpoint and form; CSRF on every form; a bot's stderr
shown to nobody but its owner (and staff).

The lists of endpoints and pages are not written by hand only: every write operation of the
OpenAPI schema must have a row in the matrix (a new endpoint without one fails here), and
every page URL of the site is posted to without a CSRF token and crawled for leaked stderr.
"""

from __future__ import annotations

import gzip
import json
import re
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver
from django.utils import timezone
from drf_spectacular.generators import SchemaGenerator
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from bots.models import Bot, BotVersion
from bots.services import bot_builtin_add, bot_create
from ladder.models import Ladder
from matches.models import Match
from play.models import Table as PlayGame
from tests.factories import match_make
from tournaments.models import OrganiserRequest, Tournament, TournamentEntrant

pytestmark = pytest.mark.django_db
ROLES = ["anon", "other", "owner", "staff"]
PASSWORD = "correct-horse-battery-staple"  # tests/conftest.py's users
GOOD_BOT = b"import sys\nfor line in sys.stdin:\n    pass\n"
SECRET = f"owner-secret-{uuid.uuid4().hex[:8]}"  # in the owner's bot's stderr
RIVAL_SECRET = f"rival-secret-{uuid.uuid4().hex[:8]}"  # in the other user's bot's stderr


@dataclass
class World:
    owner: User
    other: User
    staff: User
    bot: Bot  # the owner's
    rival: Bot  # the other user's
    version: BotVersion  # the owner's uploaded version, with a check stderr
    match: Match  # bot against rival, finished, both stderrs stored
    ladder: Ladder
    tournament: Tournament


@pytest.fixture
def world(owner: User, other: User, staff: User) -> World:
    bot = bot_create(owner=owner, name="Alpha")
    rival = bot_create(owner=other, name="Omega")
    a = bot_builtin_add(bot=bot, spec="builtin:greedy")
    b = bot_builtin_add(bot=rival, spec="builtin:random")
    version = BotVersion.objects.create(
        bot=bot, number=2, kind=BotVersion.Kind.PYTHON, filename="alpha.py",
        status=BotVersion.Status.REJECTED, reason="crash", check_stderr=f"Traceback {SECRET}")
    ladder = Ladder.objects.get(slug="main")
    replay = gzip.compress(json.dumps({"result": {"score": 1.0}}).encode())
    match = match_make(
        versions=[a, b], kind=Match.Kind.LADDER, ladder=ladder, status=Match.Status.FINISHED,
        score=1.0, games=[2, 0], replay_gz=replay, rated=False,
        stderr=[f"debug {SECRET}", f"debug {RIVAL_SECRET}"])
    # Open for entry until tomorrow: entering and cancelling are both possible.
    tournament = Tournament.objects.create(
        name="Cup", format=Tournament.Format.ROUND_ROBIN, status=Tournament.Status.OPEN,
        entry_deadline=timezone.now() + timedelta(days=1))
    for user in (owner, other, staff):  # made on first sight otherwise (the account page)
        Token.objects.get_or_create(user=user)
    return World(owner, other, staff, bot, rival, version, match, ladder, tournament)


def _api_client(world: World, role: str) -> APIClient:
    client = APIClient()
    user = _user(world, role)
    if user is not None:
        client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.get_or_create(user=user)[0]}")
    return client


def _user(world: World, role: str) -> User | None:
    return None if role == "anon" else getattr(world, role)


def _snapshot() -> tuple[Any, ...]:
    """What a refused write must leave exactly as it was."""
    return (
        list(Bot.objects.order_by("pk").values_list("name", "description", "retired",
                                                    "playing_version")),
        BotVersion.objects.count(), Match.objects.count(),
        list(Tournament.objects.order_by("pk").values_list("status", flat=True)),
        TournamentEntrant.objects.count(),
        sorted(Token.objects.values_list("key", flat=True)), PlayGame.objects.count(),
        list(OrganiserRequest.objects.order_by("pk").values_list("status", flat=True)),
    )


# --- The API: every write operation of the schema, for every role ----------------------------


@dataclass(frozen=True)
class Write:
    method: str
    path: str  # as in the schema
    body: Callable[[World, str], dict[str, Any]]
    expect: dict[str, int]  # role -> status
    multipart: bool = False


OWNER_OR_STAFF = {"anon": 401, "other": 403, "owner": 200, "staff": 200}
API_WRITES = [
    Write("POST", "/api/v1/bots/", lambda w, r: {"name": f"new-{r}"},
          {"anon": 401, "other": 201, "owner": 201, "staff": 201}),
    Write("PATCH", "/api/v1/bots/{id}/", lambda w, r: {"description": f"by {r}"}, OWNER_OR_STAFF),
    Write("POST", "/api/v1/bots/{id}/retire/", lambda w, r: {}, OWNER_OR_STAFF),
    Write("POST", "/api/v1/bots/{id}/unretire/", lambda w, r: {}, OWNER_OR_STAFF),
    Write("POST", "/api/v1/bots/{id}/play/", lambda w, r: {"version": w.match.version_ids[0]},
          OWNER_OR_STAFF),
    Write("POST", "/api/v1/bots/{id}/versions/",
          lambda w, r: {"file": SimpleUploadedFile("b.py", GOOD_BOT)},
          {"anon": 401, "other": 403, "owner": 201, "staff": 201}, multipart=True),
    Write("POST", "/api/v1/auth/token/",
          lambda w, r: {"username": getattr(_user(w, r), "username", "nobody"),
                        "password": PASSWORD},
          {"anon": 400, "other": 200, "owner": 200, "staff": 200}),
    Write("POST", "/api/v1/auth/token/regenerate/", lambda w, r: {},
          {"anon": 401, "other": 200, "owner": 200, "staff": 200}),
    # Only the author of a bot may challenge with it: staff included.
    Write("POST", "/api/v1/challenges/",
          lambda w, r: {"bot": w.bot.pk, "opponent": w.rival.pk, "ladder": w.ladder.slug},
          {"anon": 401, "other": 400, "owner": 201, "staff": 400}),
    Write("POST", "/api/v1/tournaments/",
          lambda w, r: {"name": "Open", "format": "round_robin",
                        "bots": [w.bot.pk, w.rival.pk]},
          {"anon": 401, "other": 403, "owner": 403, "staff": 201}),
    # Entering takes one's own bot: the world's tournament is open for entry, so the owner
    # (and staff) are let in and anyone else's attempt is refused.
    Write("POST", "/api/v1/tournaments/{id}/enter/", lambda w, r: {"bot": w.bot.pk},
          {"anon": 401, "other": 400, "owner": 201, "staff": 400}),
    # Withdrawing takes one's own bot too; the world's bot is not entered, so the owner and
    # staff get past the permission check to "not entered" (400); anyone else is refused.
    Write("POST", "/api/v1/tournaments/{id}/withdraw/", lambda w, r: {"bot": w.bot.pk},
          {"anon": 401, "other": 403, "owner": 400, "staff": 400}),
    Write("POST", "/api/v1/tournaments/{id}/cancel/", lambda w, r: {},
          {"anon": 401, "other": 403, "owner": 403, "staff": 200}),
    # Any account asks to organise; staff organise already (400, in words).
    Write("POST", "/api/v1/organiser-request/", lambda w, r: {"reason": "cups"},
          {"anon": 401, "other": 201, "owner": 201, "staff": 400}),
    # Only staff answer a request (this one does not exist: staff get past the permission).
    Write("POST", "/api/v1/organiser-requests/{id}/grant/", lambda w, r: {},
          {"anon": 401, "other": 403, "owner": 403, "staff": 400}),
    Write("POST", "/api/v1/organiser-requests/{id}/refuse/", lambda w, r: {},
          {"anon": 401, "other": 403, "owner": 403, "staff": 400}),
]


def _schema() -> dict[str, Any]:
    return SchemaGenerator().get_schema(request=None, public=True)  # type: ignore[no-any-return]


def test_every_write_operation_of_the_api_has_a_row_in_the_matrix() -> None:
    writes = {(method.upper(), path) for path, operations in _schema()["paths"].items()
              for method in operations if method in ("post", "put", "patch", "delete")}
    assert writes == {(w.method, w.path) for w in API_WRITES}


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("write", API_WRITES, ids=lambda w: f"{w.method} {w.path}")
def test_an_api_write_is_allowed_exactly_to_the_roles_that_may_make_it(
    write: Write, role: str, world: World
) -> None:
    client = _api_client(world, role)
    target = world.tournament if write.path.startswith("/api/v1/tournaments/") else world.bot
    path = write.path.replace("{id}", str(target.pk))
    before = _snapshot()
    response = getattr(client, write.method.lower())(
        path, write.body(world, role), format="multipart" if write.multipart else "json")
    assert response.status_code == write.expect[role], response.content[:300]
    if response.status_code >= 400:
        assert _snapshot() == before, "a refused write changed something"
        assert set(response.json()) >= {"detail", "code"}


def test_regenerating_a_token_replaces_only_the_callers_own(world: World) -> None:
    keys = {u.pk: Token.objects.get_or_create(user=u)[0].key
            for u in (world.owner, world.other)}
    assert _api_client(world, "other").post("/api/v1/auth/token/regenerate/").status_code == 200
    assert Token.objects.get(user=world.owner).key == keys[world.owner.pk]
    assert Token.objects.get(user=world.other).key != keys[world.other.pk]


# --- The pages: forms for every role, CSRF on every form --------------------------------------


def _page_client(world: World, role: str, *, csrf: bool = False) -> Client:
    client = Client(enforce_csrf_checks=csrf)
    if (user := _user(world, role)) is not None:
        client.force_login(user)
    return client


PAGE_WRITES: list[tuple[str, Callable[[World], dict[str, Any]], dict[str, str]]] = [
    # path, form data, role -> "login" (sent to sign in) / "denied" (403) / "done" (redirect)
    ("/bots/new/", lambda w: {"name": "Fresh"},
     {"anon": "login", "other": "done", "owner": "done", "staff": "done"}),
    ("/bots/{bot}/edit/", lambda w: {"name": "Alpha", "description": "changed"},
     {"anon": "login", "other": "denied", "owner": "done", "staff": "done"}),
    ("/bots/{bot}/upload/", lambda w: {"file": SimpleUploadedFile("b.py", GOOD_BOT)},
     {"anon": "login", "other": "denied", "owner": "done", "staff": "done"}),
    ("/bots/{bot}/retire/", lambda w: {},
     {"anon": "login", "other": "denied", "owner": "done", "staff": "done"}),
    ("/bots/{bot}/unretire/", lambda w: {},  # the bot is retired first (PAGE_SETUP)
     {"anon": "login", "other": "denied", "owner": "done", "staff": "done"}),
    ("/bots/{bot}/play/", lambda w: {"version": w.match.version_ids[0]},
     {"anon": "login", "other": "denied", "owner": "done", "staff": "done"}),
    ("/accounts/token/regenerate/", lambda w: {},
     {"anon": "login", "other": "done", "owner": "done", "staff": "done"}),
    # Only the author of a bot may challenge with it (404 for anyone else's bot).
    ("/challenge/", lambda w: {"bot": w.bot.pk, "opponent": w.rival.pk},
     {"anon": "login", "other": "denied", "owner": "done", "staff": "denied"}),
    # Staff run tournaments; authors enter their own bots (404 for anyone else's bot).
    ("/tournaments/new/", lambda w: {
        "name": "Spring cup", "format": "round_robin", "rounds": 1, "rules": "official",
        "games_per_match": 2, "move_ms": 1000, "bank_ms": 10000, "seeding": "hand",
        "entry": "chosen", "entrants": f"{w.bot.name}\n{w.rival.name}", "entry_deadline": ""},
     {"anon": "login", "other": "denied", "owner": "denied", "staff": "done"}),
    # Staff-only pages send anonymous visitors to log in; a signed-in non-staff user gets the
    # 403 page (issue 20; it was a redirect to the login form, which could not help them).
    # Any account asks to organise (a redirect back, in words); only staff answer.
    ("/tournaments/organise/", lambda w: {"reason": "cups"},
     {"anon": "login", "other": "done", "owner": "done", "staff": "status 400"}),
    ("/tournaments/organisers/", lambda w: {"request": _pending_request(w), "decision": "grant"},
     {"anon": "login", "other": "denied", "owner": "denied", "staff": "done"}),
    ("/tournaments/{tournament}/cancel/", lambda w: {},
     {"anon": "login", "other": "denied", "owner": "denied", "staff": "done"}),
    ("/tournaments/{tournament}/enter/", lambda w: {"bot": w.bot.pk},
     {"anon": "login", "other": "denied", "owner": "done", "staff": "denied"}),
    # Withdrawing too (PAGE_SETUP enters the bot); staff may withdraw anyone's entry.
    ("/tournaments/{tournament}/withdraw/", lambda w: {"bot": w.bot.pk},
     {"anon": "login", "other": "denied", "owner": "done", "staff": "done"}),
    # Anyone signed in may sit down with the bots (the game is their own).
    ("/play/", lambda w: {"rules": "official", "length": "deal", "seat1": "builtin:random",
                          "seat2": str(w.match.version_ids[0]), "seat3": "builtin:greedy"},
     {"anon": "login", "other": "done", "owner": "done", "staff": "done"}),
]
# What a form needs to find before it can change anything.
PAGE_SETUP: dict[str, Callable[[World], Any]] = {
    "/tournaments/organisers/": lambda w: _pending_request(w),  # one for staff to answer
    "/bots/{bot}/unretire/": lambda w: Bot.objects.filter(pk=w.bot.pk).update(retired=True),
    # The owner's bot is entered first, so that there is something to withdraw.
    "/tournaments/{tournament}/withdraw/": lambda w: TournamentEntrant.objects.create(
        tournament=w.tournament, version=w.bot.versions.order_by("-number").first()),
}
# Forms about the signed-in user's own account (django.contrib.auth's views and sign-up).
# The password reset pages too: anyone may ask, and only the mailed link sets a password.
SELF_SERVICE = {"/accounts/login/", "/accounts/logout/", "/accounts/signup/",
                "/accounts/password/", "/accounts/password/reset/",
                "/accounts/password/reset/x/x/"}


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("page", PAGE_WRITES, ids=lambda p: p[0])
def test_a_form_is_accepted_exactly_from_the_roles_that_may_use_it(
    page: tuple[str, Callable[[World], dict[str, Any]], dict[str, str]], role: str,
    world: World,
) -> None:
    path, data, expect = page
    if setup := PAGE_SETUP.get(path):
        setup(world)
    before = _snapshot()
    response = _page_client(world, role).post(
        path.format(bot=world.bot.pk, tournament=world.tournament.pk), data(world))
    outcome = ("denied" if response.status_code in (403, 404) else
               "login" if response.status_code == 302 and "/login/" in response["Location"]
               else "done" if response.status_code == 302 else f"status {response.status_code}")
    assert outcome == expect[role]
    assert (_snapshot() == before) == (outcome != "done")


def _pending_request(world: World) -> int:
    """A request to organise, waiting for staff (made once for the world)."""
    return OrganiserRequest.objects.get_or_create(
        user=world.other, status=OrganiserRequest.Status.PENDING,
        defaults={"reason": "cups"})[0].pk


def _example_path(route: str, world: World) -> str | None:
    """A concrete URL for a route like 'bots/<int:pk>/edit/' (None if it cannot be filled)."""
    def fill(m: re.Match[str]) -> str:
        converter, name = (m.group(1) or "str"), m.group(2)
        if converter == "int":
            ids = {"bots": world.bot.pk, "matches": world.match.pk,
                   "versions": world.version.pk, "tournaments": world.tournament.pk}
            return str(next((v for k, v in ids.items() if route.startswith(k)), world.bot.pk))
        return world.ladder.slug if name in ("slug", "ladder") else "x"

    if "(?P" in route or "<path:" in route:
        return None
    return "/" + re.sub(r"<(?:(\w+):)?(\w+)>", fill, route)


def _page_routes(patterns: list[Any] | None = None, prefix: str = "") -> Iterator[str]:
    for entry in get_resolver().url_patterns if patterns is None else patterns:
        route = prefix + str(entry.pattern)
        if route.startswith(("admin/", "api/", "media/", "static/", "^")):
            continue
        if isinstance(entry, URLResolver):
            yield from _page_routes(entry.url_patterns, route)
        elif isinstance(entry, URLPattern):
            yield route


def _page_paths(world: World) -> list[str]:
    paths = [_example_path(route, world) for route in _page_routes()]
    return sorted({p for p in paths if p is not None})


def test_every_page_that_changes_something_on_a_post_has_a_row_in_the_matrix(
    world: World,
) -> None:
    client = _page_client(world, "owner")
    known = {path.format(bot=world.bot.pk, tournament=world.tournament.pk)
             for path, _, _ in PAGE_WRITES} | SELF_SERVICE
    for path in _page_paths(world):
        if path in known:
            continue
        before = _snapshot()
        response = client.post(path, {"name": "Sneaky", "bot": world.bot.pk})
        assert response.status_code in (200, 404, 405), f"{path} takes posts: add it above"
        assert _snapshot() == before, path


def test_every_page_refuses_a_post_without_its_csrf_token(world: World) -> None:
    client = _page_client(world, "owner", csrf=True)
    paths = _page_paths(world)
    assert "/bots/new/" in paths and len(paths) >= 8
    before = _snapshot()
    for path in paths:
        response = client.post(path, {"name": "Sneaky", "description": "csrf"})
        assert response.status_code == 403, path
        assert b"CSRF" in response.content, path
    assert _snapshot() == before


def test_a_form_posted_with_its_csrf_token_goes_through(world: World) -> None:
    client = _page_client(world, "owner", csrf=True)
    client.get(f"/bots/{world.bot.pk}/edit/")
    token = client.cookies["csrftoken"].value
    response = client.post(f"/bots/{world.bot.pk}/edit/",
                           {"name": "Alpha", "description": "signed", "csrfmiddlewaretoken": token})
    assert response.status_code == 302
    assert Bot.objects.get(pk=world.bot.pk).description == "signed"


def test_the_api_signed_in_by_session_needs_the_csrf_token_too(world: World) -> None:
    client = APIClient(enforce_csrf_checks=True)
    client.force_login(world.owner)
    refused = client.post("/api/v1/bots/", {"name": "ByCookie"}, format="json")
    assert refused.status_code == 403 and "CSRF" in refused.json()["detail"]
    client.get(f"/bots/{world.bot.pk}/edit/")
    accepted = client.post("/api/v1/bots/", {"name": "ByCookie"}, format="json",
                           HTTP_X_CSRFTOKEN=client.cookies["csrftoken"].value)
    assert accepted.status_code == 201


# --- stderr: its owner's only, on every page and every API read --------------------------------


def _api_read_paths(world: World) -> list[str]:
    fill = {"bots": world.bot.pk, "versions": world.version.pk, "matches": world.match.pk,
            "tournaments": world.tournament.pk}
    paths = []
    for path, operations in _schema()["paths"].items():
        if "get" not in operations:
            continue
        section = path.split("/")[3]
        concrete = path.replace("{id}", str(fill.get(section, 1))).replace(
            "{slug}", world.ladder.slug)
        paths.append(concrete + ("?version=1" if concrete.endswith("/history/") else ""))
    bot_ids = f"?bot={world.bot.pk}"
    return [*paths, f"/api/v1/matches/{bot_ids}", f"/api/v1/versions/{bot_ids}",
            f"/api/v1/bots/{world.bot.pk}/versions/", f"/api/v1/replays/export/{bot_ids}"]


def _everything_readable(world: World, role: str) -> str:
    """Every API read and every page as this role, concatenated."""
    api, pages = _api_client(world, role), _page_client(world, role)
    bodies = []
    for path in _api_read_paths(world):
        if "/health/" in path:  # asks the workers, shows no bot: slow and beside the point
            continue
        response = api.get(path)
        assert response.status_code < 500, path
        bodies.append(b"".join(response) if response.streaming else response.content)
    for path in _page_paths(world):
        if path == "/health/":
            continue
        response = pages.get(path)
        assert response.status_code < 500, path
        bodies.append(response.content)
    return b"\n".join(bodies).decode(errors="replace")


@pytest.mark.parametrize("role", ["anon", "other"])
def test_nobody_but_the_owner_sees_the_stderr_of_a_bot_anywhere(role: str, world: World) -> None:
    seen = _everything_readable(world, role)
    assert SECRET not in seen
    if role == "anon":
        assert RIVAL_SECRET not in seen


def test_the_owner_sees_the_stderr_of_their_bots_not_the_opponents(world: World) -> None:
    seen = _everything_readable(world, "owner")
    assert SECRET in seen  # the crawl does reach the places stderr is shown
    assert RIVAL_SECRET not in seen


def test_staff_see_every_stderr(world: World) -> None:
    seen = _everything_readable(world, "staff")
    assert SECRET in seen and RIVAL_SECRET in seen

