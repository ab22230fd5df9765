"""The database session engine, refusing session keys Django never makes.

A cookie like `sessionid="\\000..."` is decoded by Django's cookie parser into a NUL
character, which PostgreSQL cannot even compare: every page answered 500 to such a cookie.
Django's own keys are 32 lowercase letters and digits; anything else is no session at all.
"""

from __future__ import annotations

from django.contrib.sessions.backends.db import SessionStore as DatabaseSessionStore


class SessionStore(DatabaseSessionStore):
    def _validate_session_key(self, key: str | None) -> bool:
        return bool(super()._validate_session_key(key)) and key is not None and (
            key.isascii() and key.isalnum())
