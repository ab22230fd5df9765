"""What the real-stack ladder tests share: a real Celery worker on a queue of its own, an
author's upload through the API with the real check, and the wait for rated matches."""

from __future__ import annotations

import os
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings as django_settings
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from ladder.models import Ladder
from matches.models import Match
from tests.processes import LoggedProcess, celery_worker_start, database_url_of_this_test


def ladder_worker(settings: Any, tmp_path: Path, prefix: str) -> Iterator[LoggedProcess]:
    """A solo worker on a queue of its own, on this test's database (a fixture's body)."""
    queue = f"{prefix}-{uuid.uuid4().hex[:10]}"
    overrides = {"KAISER_MATCH_QUEUE": queue, "KAISER_DISPATCH_DEPTH": 2,
                 "KAISER_BOT_IN_FLIGHT": 2}
    for name, value in overrides.items():
        setattr(settings, name, value)
    env = {**os.environ, **{k: str(v) for k, v in overrides.items()},
           "DATABASE_URL": database_url_of_this_test(),
           "KAISER_PROGRAM_DIR": str(django_settings.KAISER_PROGRAM_DIR),
           "DJANGO_SETTINGS_MODULE": "kaiser_site.settings", "PYTHONUNBUFFERED": "1"}
    process = celery_worker_start(tmp_path / "worker.log", queue=queue, name=queue,
                                  pool="solo", concurrency=1, env=env)
    process.wait_for_log(r"ready\.")
    yield process
    process.stop()


def upload_verdict(name: str, content: bytes, *, game: str,
                   filename: str = "bot.py") -> dict[str, Any]:
    """A new author makes a bot of `game` and uploads `content`; the real check runs (in this
    process, eagerly). The version as the API shows it, with the check's verdict."""
    from kaiser_site.celery import app

    client = APIClient()
    client.force_authenticate(User.objects.create_user(username=f"author-of-{name}"))
    bot = client.post("/api/v1/bots/", {"name": name, "game": game}, format="json")
    assert bot.status_code == 201, bot.content
    app.conf.task_always_eager = True
    try:
        upload = client.post(f"/api/v1/bots/{bot.json()['id']}/versions/",
                             {"file": SimpleUploadedFile(filename, content)}, format="multipart")
    finally:
        app.conf.task_always_eager = False
    assert upload.status_code == 201, upload.content
    return client.get(f"/api/v1/versions/{upload.json()['id']}/").json()  # type: ignore[no-any-return]


def upload_checked(name: str, content: bytes, *, game: str, filename: str = "bot.py") -> int:
    """upload_verdict, which must accept the program. Returns the version's id."""
    version = upload_verdict(name, content, game=game, filename=filename)
    assert version["status"] == "active", version
    return int(version["id"])


def wait_rated(ladder: Ladder, count: int, timeout: float) -> None:
    """Until `count` rated matches of the ladder are finished; fails on a failed match."""
    deadline = time.monotonic() + timeout
    done = Match.objects.none()
    while time.monotonic() < deadline:
        done = Match.objects.filter(ladder=ladder, rated=True, status=Match.Status.FINISHED)
        if done.count() >= count:
            return
        failed = Match.objects.filter(ladder=ladder, status__in=["failed", "void"]).first()
        assert failed is None, failed.error
        time.sleep(0.5)  # polling the database for the rows this test waits for
    pytest.fail(f"only {done.count()} of {count} rated matches finished in {timeout} s")


def wait_settled(ladder: Ladder, timeout: float) -> None:
    """Until no match of the ladder is still to be played: one made before the ladder was
    stopped still plays (each match's end sends the next waiting one), and changes what was
    played; a stopped ladder makes no more."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not Match.objects.filter(ladder=ladder, status__in=[
                Match.Status.QUEUED, Match.Status.RUNNING]).exists():
            return
        time.sleep(0.5)  # polling the database for the rows this test waits for
    pytest.fail(f"the ladder's matches still play after {timeout} s")
