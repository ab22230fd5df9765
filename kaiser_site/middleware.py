"""Refuse oversized request bodies before Django reads them, and URLs with NUL in them."""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest, JsonResponse

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
