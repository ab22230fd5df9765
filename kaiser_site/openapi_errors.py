"""The OpenAPI schema lists the error responses the API really gives (one JSON shape, see
kaiser_site.exceptions), found missing by fuzzing the API against its own schema with
schemathesis (tests/hardening/test_api_fuzz.py): a 401, 404 or 429 was "undocumented"."""

from __future__ import annotations

from typing import Any

ERROR = {
    "type": "object",
    "properties": {
        "detail": {"type": "string", "description": "One line a person can act on"},
        "code": {"type": "string", "description": "A stable word: invalid, not_found, ..."},
        "fields": {"type": "object", "description": "Per-field messages (invalid input)"},
    },
    "required": ["detail", "code"],
}
READ_ERRORS = {"400": "Bad query parameter", "401": "Bad or expired token",
               "404": "Not found", "429": "Too many requests"}
WRITE_ERRORS = {**READ_ERRORS, "400": "Invalid input", "403": "Not the owner or staff",
                "413": "Request body over the upload limit"}


def _error(description: str, media_types: set[str]) -> dict[str, Any]:
    """An error answer, in JSON or in whatever the operation itself renders (JSON Lines)."""
    body = {"schema": {"$ref": "#/components/schemas/Error"}}
    return {"description": description,
            "content": {media: body for media in sorted(media_types | {"application/json"})}}


def postprocess_error_responses(
    result: dict[str, Any], generator: Any, request: Any, public: bool
) -> dict[str, Any]:
    """drf-spectacular postprocessing hook: every operation documents its error answers."""
    result.setdefault("components", {}).setdefault("schemas", {})["Error"] = ERROR
    for path, operations in result.get("paths", {}).items():
        for method, operation in operations.items():
            responses = operation.setdefault("responses", {})
            media = set(responses.get("200", {}).get("content", {}))
            for status, description in (READ_ERRORS if method == "get" else WRITE_ERRORS).items():
                responses.setdefault(status, _error(description, media))
            if path.endswith("/health/") and "200" in responses:
                down = {**responses["200"], "description": "Failing: the database or the "
                        "broker is unreachable, or no worker can sandbox a bot"}
                responses.setdefault("503", down)
    return result
