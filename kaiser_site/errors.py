"""Error pages: JSON under /api/ (the API's one shape, {"detail", "code"}), elsewhere the site's
own pages in its layout (templates/404.html, 403.html, 500.html, 429.html), with the menu and a
way on.

Why a catch-all URL pattern as well as handler404: with DEBUG on (scripts/run.sh, where
scripts/devserver.py runs uvicorn with DEBUG on) Django answers a URL that no pattern matches
with its technical "yellow" 404 page and never calls handler404. `unknown_url` is the last
pattern of kaiser_site/urls.py, so such a URL does resolve, to a view that answers the site's
404 page in every mode. Views that raise Http404 themselves (an unknown bot number) or fail
are answered by kaiser_site.middleware.ErrorPagesMiddleware, with the site's 404 and (under
DEBUG, where Django would show its technical page) 500 pages; the traceback goes to the log.
"""

from __future__ import annotations

import logging
from pathlib import Path

from django.conf import settings
from django.http import (
    Http404,
    HttpRequest,
    HttpResponse,
    HttpResponsePermanentRedirect,
    HttpResponseServerError,
    JsonResponse,
)
from django.shortcuts import render
from django.urls import Resolver404, resolve
from django.views.decorators.csrf import csrf_exempt

logger = logging.getLogger(__name__)

# The last resort when the 500 page itself fails: a file, no template engine involved.
PLAIN_500 = Path(settings.BASE_DIR) / "templates" / "500-plain.html"

UNKNOWN_URL = "unknown-url"  # the catch-all pattern's name


def _is_api(request: HttpRequest) -> bool:
    return request.path.startswith("/api/")


def not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    if _is_api(request):
        return JsonResponse({"detail": "Not found.", "code": "not_found"}, status=404)
    return render(request, "404.html", {"path": request.path}, status=404)


def permission_denied(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    if _is_api(request):
        return JsonResponse({"detail": "You do not have permission.",
                             "code": "permission_denied"}, status=403)
    return render(request, "403.html", {"reason": _reason(exception)}, status=403)


def _reason(exception: Exception | None) -> str:
    """The view's own sentence ("Only the bot's owner may change it."), if it gave one."""
    return str(exception) if exception is not None and exception.args else ""


def too_many_requests(request: HttpRequest, *, retry_after: int | None = None) -> HttpResponse:
    """A page's 429 (the API answers its own through DRF's Throttled)."""
    if _is_api(request):
        response: HttpResponse = JsonResponse(
            {"detail": "Request was throttled.", "code": "throttled"}, status=429)
    else:
        response = render(request, "429.html", {"retry_after": retry_after}, status=429)
    if retry_after is not None:
        response["Retry-After"] = str(retry_after)
    return response


def server_error(request: HttpRequest) -> HttpResponse:
    if _is_api(request):
        return JsonResponse({"detail": "Internal server error.", "code": "server_error"},
                            status=500)
    try:
        # The layout reads the session and the user: with the database down that fails too,
        # and then a plain page is better than none.
        return render(request, "500.html", status=500)
    except Exception:
        logger.exception("The 500 page itself failed; answering a plain one")
        return HttpResponseServerError(PLAIN_500.read_bytes())


@csrf_exempt  # it changes nothing; a POST to an unknown /api/ URL must answer JSON 404, not CSRF
def unknown_url(request: HttpRequest) -> HttpResponse:
    """Every URL no other pattern matches (see the module's docstring for why a pattern).

    Being a match, it stops CommonMiddleware's APPEND_SLASH redirect, so it makes that
    redirect itself: /bots → /bots/ as before."""
    path = request.path_info
    if settings.APPEND_SLASH and not path.endswith("/") and _is_a_page(path + "/", request):
        return HttpResponsePermanentRedirect(request.get_full_path(force_append_slash=True))
    return not_found(request, Http404())


def _is_a_page(path: str, request: HttpRequest) -> bool:
    try:
        match = resolve(path, getattr(request, "urlconf", None))
    except Resolver404:
        return False
    return match.url_name != UNKNOWN_URL


ADMIN_MOVED = {"match": "matches", "matchattempt": "matches", "playstats": "matches",
               "ladder": "ladder", "ladderentry": "ladder", "ratingchange": "ladder"}


def admin_moved(request: HttpRequest, model: str, rest: str) -> HttpResponse:
    """/admin/tournaments/<model>/... of a model now in the matches or ladder app: a permanent
    redirect to its page there (query string kept), so staff bookmarks still work."""
    target = f"/admin/{ADMIN_MOVED[model]}/{model}/{rest}"
    if request.META.get("QUERY_STRING"):
        target += "?" + request.META["QUERY_STRING"]
    return HttpResponsePermanentRedirect(target)
