"""ASGI entry point (uvicorn kaiser_site.asgi:application; gunicorn with uvicorn's workers)."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "kaiser_site.settings")
# Under ASGI each request's sync code runs in a context of its own, so a connection kept for
# reuse (CONN_MAX_AGE) is never reused and stays open: hundreds of requests would exhaust
# PostgreSQL's connections (Django's docs: disable persistent connections under ASGI). A
# connection a request; DATABASE_CONN_MAX_AGE still decides where it is set explicitly.
os.environ.setdefault("DATABASE_CONN_MAX_AGE", "0")
application = get_asgi_application()
