"""Sending a Celery task by its registered name.

A service that needs work done on a worker sends the task through here instead of importing
the tasks module, whose tasks call that same service: tasks depend on services, never the
other way round. The registry is Celery's own (the apps' `tasks` modules, autodiscovered),
so eager mode and the task's own options still apply.
"""

from __future__ import annotations

from typing import Any

from celery.result import AsyncResult

from kaiser_site.celery import app


def task_send(name: str, *args: Any, **options: Any) -> AsyncResult:
    """Queue the task called `name` with `args` (apply_async's `options`: queue, countdown)."""
    if name not in app.tasks:
        # The apps' tasks modules load when a worker starts; elsewhere (web, tests) on first use.
        app.loader.import_default_modules()
    return app.tasks[name].apply_async(args, **options)
