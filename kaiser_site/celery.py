"""The Celery app: configured from Django settings (CELERY_* names), tasks found in each app."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "kaiser_site.settings")

app = Celery("kaiser_site")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
