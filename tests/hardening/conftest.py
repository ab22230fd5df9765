"""Fixtures of the hardening tests: a closed ladder, and the real processes (workers,
a private redis-server, a sweeper) that the fault tests break on purpose."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings as django_settings
from hardening_support import Processes

from ladder.models import Ladder
from tests.processes import database_url_of_this_test

LEASE_SECONDS = 3


@pytest.fixture
def closed_ladder(db: None) -> Ladder:
    """A ladder the scheduler leaves alone, so the test decides every match on it."""
    return Ladder.objects.create(name="closed", slug=f"closed-{uuid.uuid4().hex[:6]}",
                                 active=False, games_per_match=2)


@pytest.fixture
def processes(settings: Any, tmp_path: Path) -> Iterator[Processes]:
    """Subprocesses on this test's database, their matches on a queue of their own. This
    process never dispatches (depth 0): the subprocesses do, on whatever broker they use."""
    queue = f"kaiser-hardening-{uuid.uuid4().hex[:10]}"
    shared = {"KAISER_MATCH_QUEUE": queue, "KAISER_MATCH_LEASE_SECONDS": LEASE_SECONDS,
              "KAISER_DISPATCH_DEPTH": 2, "KAISER_BOT_IN_FLIGHT": 2,
              "KAISER_DISPATCH_LOST_SECONDS": 6}
    for name, value in shared.items():
        setattr(settings, name, value)
    settings.KAISER_DISPATCH_DEPTH = 0
    env = {**os.environ, **{k: str(v) for k, v in shared.items()},
           "DATABASE_URL": database_url_of_this_test(),
           "KAISER_PROGRAM_DIR": str(django_settings.KAISER_PROGRAM_DIR),
           "DJANGO_SETTINGS_MODULE": "kaiser_site.settings", "PYTHONUNBUFFERED": "1"}
    started = Processes(folder=tmp_path, env=env, queue=queue)
    yield started
    started.stop_all()
