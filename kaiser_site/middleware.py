"""Refuse oversized request bodies before Django reads them, and URLs with NUL in them; answer
a view's missing object and, under DEBUG, its failure with the site's own error pages."""

from __future__ import annotations

import logging
from collections.abc import Callable

from django.conf import settings
from django.core.exceptions import PermissionDenied
from django.core.signals import got_request_exception
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBadRequest, JsonResponse

logger = logging.getLogger("django.request")

# Room for multipart headers and the other form fields around the file itself.
BODY_SLACK = 256 * 1024


class UploadSizeLimitMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        limit = settings.KAISER_UPLOAD_MAX_BYTES
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = 0
        if length > limit + BODY_SLACK:
            message = f"the request is {length // (1024 * 1024)} MB; uploads are limited to " \
                      f"{limit // (1024 * 1024)} MB"
            return JsonResponse({"detail": message, "code": "too_large"}, status=413)
        return self.get_response(request)


class NulCharacterMiddleware:
    """Refuse a URL or query string containing a NUL character (%00) with a 400.

    PostgreSQL cannot store or compare a text with NUL in it: a filter such as
    `?ladder=%00` reached the database and answered 500 (found by schemathesis). Forms and
    serializers refuse NUL themselves; the query string is read by views directly.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if "\x00" in request.path or any(
            "\x00" in key or any("\x00" in value for value in values)
            for key, values in request.GET.lists()
        ):
            message = "the URL contains a NUL character (%00)"
            if request.path.startswith("/api/"):
                return JsonResponse({"detail": message, "code": "invalid"}, status=400)
            return HttpResponseBadRequest(message, content_type="text/plain")
        return self.get_response(request)


class ErrorPagesMiddleware:
    """The site's 404 page for a view's Http404 (an unknown bot, match, tournament, ladder or
    docs page), and under DEBUG its 500 page for a view's failure too: with DEBUG on
    (scripts/run.sh) Django answers both with its technical pages, which list every URL
    pattern and the settings, instead of calling handler404 and handler500. The traceback
    of a failure still goes to the log (the console under run.sh), as without DEBUG.
    PermissionDenied is left to Django, which calls handler403 in every mode."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        from kaiser_site import errors

        if isinstance(exception, Http404):
            return errors.not_found(request, exception)
        if not settings.DEBUG or isinstance(exception, PermissionDenied):
            return None  # Django's own handling: handler403, or handler500 without DEBUG
        got_request_exception.send(sender=None, request=request)
        logger.error("Internal Server Error: %s", request.path, exc_info=exception,
                     extra={"status_code": 500, "request": request})
        return errors.server_error(request)
