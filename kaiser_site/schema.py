"""The OpenAPI schema generator: says which operations anonymous callers may use."""

from __future__ import annotations

from typing import Any

from drf_spectacular.openapi import AutoSchema as SpectacularAutoSchema
from rest_framework.permissions import SAFE_METHODS


class AutoSchema(SpectacularAutoSchema):
    def get_auth(self) -> list[dict[str, Any]]:
        auths: list[dict[str, Any]] = super().get_auth()
        open_reads = any(
            getattr(permission, "anonymous_reads", False)
            for permission in self.view.get_permissions()
        )
        if open_reads and self.method in SAFE_METHODS and {} not in auths:
            auths.append({})  # no credentials needed
        return auths
