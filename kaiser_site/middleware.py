"""Refuse oversized request bodies before Django reads them."""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse

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
