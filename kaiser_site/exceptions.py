"""The API's error body: every error is one JSON shape."""

from __future__ import annotations

import logging
from typing import Any

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import Http404
from rest_framework import exceptions
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

logger = logging.getLogger(__name__)


def _first_message(detail: Any) -> str:
    """The first human message inside DRF's nested error detail, prefixed by its field."""
    if isinstance(detail, list) and detail:
        return _first_message(detail[0])
    if isinstance(detail, dict) and detail:
        field, value = next(iter(detail.items()))
        message = _first_message(value)
        return message if field in ("non_field_errors", "detail") else f"{field}: {message}"
    return str(detail)


def _as_drf(exc: Exception) -> Exception:
    if isinstance(exc, DjangoValidationError):
        detail = exc.message_dict if hasattr(exc, "error_dict") else {"detail": exc.messages}
        return exceptions.ValidationError(detail)
    return exc


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """Every error is JSON: {"detail": one line, "code": a stable word, "fields": {...}?}."""
    exc = _as_drf(exc)
    response = drf_exception_handler(exc, context)
    if response is None:
        logger.exception("API error in %s", context.get("view"), exc_info=exc)
        return Response({"detail": "Internal server error.", "code": "server_error"}, status=500)
    if isinstance(exc, exceptions.ValidationError):
        fields = exc.detail if isinstance(exc.detail, dict) else {}
        body: dict[str, Any] = {"detail": _first_message(exc.detail), "code": "invalid"}
        if fields:
            body["fields"] = fields
        response.data = body
    elif isinstance(exc, exceptions.APIException):
        response.data = {"detail": str(exc.detail), "code": _code(exc)}
    elif isinstance(exc, Http404):
        response.data = {"detail": "Not found.", "code": "not_found"}
    elif isinstance(exc, DjangoPermissionDenied):
        response.data = {"detail": "You do not have permission.", "code": "permission_denied"}
    return response


def _code(exc: exceptions.APIException) -> str:
    codes = exc.get_codes()
    return codes if isinstance(codes, str) else exc.default_code
