"""DRF's token authentication, refusing keys that cannot be tokens before the database sees
them: a key with a NUL character made PostgreSQL fail the lookup (a 500 instead of a 401)."""

from __future__ import annotations

from typing import Any

from rest_framework import authentication, exceptions


class TokenAuthentication(authentication.TokenAuthentication):
    def authenticate_credentials(self, key: str) -> Any:
        if not (key.isascii() and key.isalnum()):
            raise exceptions.AuthenticationFailed("Invalid token.")
        return super().authenticate_credentials(key)
