"""The error pages (issue 20): 404, 403, 500 and 429 in the site's layout with its menu and a
way on, under DEBUG (scripts/run.sh) too; JSON {"detail", "code"} under /api/."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.contrib.auth.models import AnonymousUser, User
from django.test import Client, RequestFactory
from django.urls import include, path
from rest_framework.test import APIClient

from bots.models import Bot
from bots.services import bot_create
from kaiser_site import errors
from kaiser_site.urls import handler403, handler404, handler500  # noqa: F401 (this urlconf's)

MENU = 'aria-label="main"'  # the base template's <nav>: the page is in the site's layout


def boom(request: Any) -> None:
    raise RuntimeError("a bug in a view")


# A urlconf for the 500 test: the site's own patterns and handlers, and one view that fails.
urlpatterns = [path("boom/", boom), path("", include("kaiser_site.urls"))]


@pytest.fixture
def bot(owner: User) -> Bot:
    return bot_create(owner=owner, name="errorbot")


def _html(response: Any) -> str:
    assert response["Content-Type"].startswith("text/html")
    return response.content.decode()


@pytest.mark.django_db
@pytest.mark.parametrize("debug", [False, True], ids=["production", "run.sh"])
def test_an_unknown_url_is_the_sites_404_page_with_the_menu(
    client: Client, settings: Any, debug: bool
) -> None:
    settings.DEBUG = debug  # under DEBUG Django would show its technical page instead
    body = _html(response := client.get("/no-such-page/"))
    assert response.status_code == 404
    assert MENU in body and "Page not found" in body and "/no-such-page/" in body
    assert 'href="/bots/"' in body  # a way on
    assert "Django" not in body  # not the technical page


# Pages whose view looks an object up and finds none: each raises Http404 itself.
MISSING = ["/bots/9999/", "/bots/9999/upload/", "/matches/99999/", "/matches/99999/boards/",
           "/matches/99999/boards/1/1/", "/tournaments/999/", "/tournaments/999/results.csv",
           "/ladders/nope/", "/docs/nope/", "/docs/starter/nope.py", "/play/99999/",
           "/play/99999/replay/"]


@pytest.mark.django_db
@pytest.mark.parametrize("debug", [False, True], ids=["production", "run.sh"])
@pytest.mark.parametrize("url", MISSING)
def test_a_missing_object_is_the_sites_404_page_under_debug_too(
    client: Client, owner: User, settings: Any, debug: bool, url: str
) -> None:
    settings.DEBUG = debug  # run.sh's setting: Django would show its technical 404 page
    client.force_login(owner)  # (the upload page asks for a login first)
    body = _html(response := client.get(url))
    assert response.status_code == 404
    assert MENU in body and "Page not found" in body and 'href="/bots/"' in body
    assert "Django" not in body and "URLconf" not in body  # not the technical page


@pytest.mark.django_db
@pytest.mark.urls(__name__)
def test_a_failing_page_under_debug_is_the_sites_500_page_and_its_traceback_is_logged(
    settings: Any, caplog: pytest.LogCaptureFixture
) -> None:
    settings.DEBUG = True  # run.sh: Django would show its technical page, settings and all
    client = Client(raise_request_exception=False)
    body = _html(response := client.get("/boom/"))
    assert response.status_code == 500
    assert MENU in body and "Something went wrong" in body and "a bug in a view" not in body
    assert "Traceback" not in body and "SECRET_KEY" not in body
    logged = [r for r in caplog.records if r.name == "django.request"]
    assert logged and logged[0].exc_info is not None
    assert str(logged[0].exc_info[1]) == "a bug in a view"


@pytest.mark.django_db
def test_a_403_under_debug_is_the_sites_403_page(client: Client, other: User, bot: Bot,
                                                 settings: Any) -> None:
    settings.DEBUG = True
    client.force_login(other)
    body = _html(response := client.get(f"/bots/{bot.pk}/upload/"))
    assert response.status_code == 403
    assert MENU in body and "Only the bot&#x27;s owner may change it." in body


@pytest.mark.django_db
def test_a_missing_api_object_stays_a_json_404_under_debug(anon_client: APIClient,
                                                           settings: Any) -> None:
    settings.DEBUG = True
    response = anon_client.get("/api/v1/bots/9999/")
    assert response.status_code == 404
    assert set(response.json()) == {"detail", "code"}


@pytest.mark.django_db
def test_a_missing_slash_is_still_redirected_and_a_missing_page_is_not(client: Client) -> None:
    response = client.get("/bots?x=1")
    assert response.status_code == 301 and response["Location"] == "/bots/?x=1"
    assert client.get("/no-such-page").status_code == 404


@pytest.mark.django_db
def test_an_unknown_object_is_the_sites_404_page(client: Client) -> None:
    body = _html(response := client.get("/bots/999999/"))
    assert response.status_code == 404 and MENU in body and "Page not found" in body


@pytest.mark.django_db
@pytest.mark.parametrize("method", ["get", "post", "delete"])
def test_an_unknown_api_url_is_a_json_404(anon_client: APIClient, method: str) -> None:
    response = getattr(anon_client, method)("/api/v1/no-such-thing/x")
    assert response.status_code == 404
    assert response.json() == {"detail": "Not found.", "code": "not_found"}


@pytest.mark.django_db
def test_an_api_permission_refusal_stays_json(other_client: APIClient, bot: Bot) -> None:
    response = other_client.patch(f"/api/v1/bots/{bot.pk}/", {"description": "mine"})
    assert response.status_code == 403
    assert set(response.json()) == {"detail", "code"}


def test_uploading_to_someone_elses_bot_is_the_403_page_in_the_layout(
    client: Client, other: User, bot: Bot
) -> None:
    client.force_login(other)
    body = _html(response := client.get(f"/bots/{bot.pk}/upload/"))
    assert response.status_code == 403
    assert MENU in body and "Only the bot&#x27;s owner may change it." in body
    assert f"signed in as {other.username}" in body


def test_a_signed_in_author_opening_new_tournament_gets_the_403_page(
    client: Client, other: User
) -> None:
    client.force_login(other)
    body = _html(response := client.get("/tournaments/new/"))
    assert response.status_code == 403
    assert MENU in body and "Only organisers create tournaments" in body


@pytest.mark.django_db
def test_an_anonymous_visitor_opening_new_tournament_is_sent_to_log_in(client: Client) -> None:
    response = client.get("/tournaments/new/")
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/?next=/tournaments/new/")


@pytest.mark.django_db
def test_an_anonymous_403_offers_to_log_in(rf: RequestFactory) -> None:
    request = rf.get("/bots/1/edit/")
    request.user = AnonymousUser()
    body = errors.permission_denied(request).content.decode()
    assert MENU in body and 'href="/accounts/login/?next=/bots/1/edit/"' in body


@pytest.mark.django_db
@pytest.mark.urls(__name__)
def test_a_failing_page_is_the_sites_500_page(settings: Any) -> None:
    client = Client(raise_request_exception=False)
    body = _html(response := client.get("/boom/"))
    assert response.status_code == 500
    assert MENU in body and "Something went wrong" in body and "a bug in a view" not in body


def test_a_failing_api_view_is_a_json_500(rf: RequestFactory) -> None:
    response = errors.server_error(rf.get("/api/v1/bots/"))
    assert response.status_code == 500
    assert json.loads(response.content) == {"detail": "Internal server error.",
                                            "code": "server_error"}


@pytest.mark.django_db
def test_too_many_requests_is_the_429_page_with_retry_after(rf: RequestFactory) -> None:
    request = rf.get("/bots/")
    request.user = AnonymousUser()
    response = errors.too_many_requests(request, retry_after=30)
    body = _html(response)
    assert response.status_code == 429 and response["Retry-After"] == "30"
    assert MENU in body and "try again in 30 seconds" in body
