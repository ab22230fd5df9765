"""WSGI entry point (gunicorn kaiser_site.wsgi)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "kaiser_site.settings")
application = get_wsgi_application()
