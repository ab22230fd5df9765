"""Playwright's sync API keeps an event loop running in the test's thread; Django's guard
against database calls from async code would then refuse every query the test makes. The
test's own calls are plain synchronous code, so the guard is lifted for the browser tests."""

import os

os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
