"""The play statistics keep up on a busy host (issue 42): at load 20 to 30 the beat's
`play_stats_fold` ticks expired after 10 s, every one, and a bot's statistics stayed at zero.
Here a real Celery worker on a host loaded by busy loops gets a tick sent as the beat sends
it (its schedule's options) that can only run 12 s later, later than the old expiry: the
fold still happens, late, and the versions' totals appear."""

from __future__ import annotations

import multiprocessing
import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings as django_settings

from ladder import services as ladder_services
from matches.models import Match, MatchSide
from matches.stats import version_stats
from tests.ladder_stack import ladder_worker
from tests.processes import LoggedProcess

pytestmark = pytest.mark.django_db(transaction=True)
DELAY_S = 12  # longer than the expiry the tick had (10 s)


def _spin() -> None:
    while True:
        pass


@pytest.fixture
def busy_host() -> Iterator[int]:
    """Busy loops, two for each core: the load the issue saw, in proportion."""
    loops = [multiprocessing.Process(target=_spin, daemon=True)
             for _ in range(2 * (os.cpu_count() or 1))]
    for loop in loops:
        loop.start()
    yield len(loops)
    for loop in loops:
        loop.kill()
        loop.join(5)


@pytest.fixture
def worker(settings: Any, tmp_path: Path, busy_host: int) -> Iterator[LoggedProcess]:
    yield from ladder_worker(settings, tmp_path, "kaiser-fold")


def test_a_late_fold_tick_still_folds_on_a_loaded_worker(
        worker: LoggedProcess, make_sm_builtin: Callable[..., Any]) -> None:
    from kaiser_site.celery import app

    ladder = ladder_services.game_ladder_ensure("sergeant-major")
    ladder.queue_depth = 1
    ladder.save(update_fields=["queue_depth"])
    for name in ("g1", "r1", "r2"):
        make_sm_builtin(name, "builtin:greedy" if name == "g1" else "builtin:random")
    assert ladder_services.ladder_schedule(ladder_id=ladder.pk) == 1  # the worker plays it
    Match.objects.exclude(ladder=ladder).delete()
    ladder.active = False  # (no more after it: the fold below has one match to count)
    ladder.save(update_fields=["active"])
    match = Match.objects.get(ladder=ladder)
    deadline = time.monotonic() + 300
    while Match.objects.filter(pk=match.pk, status=Match.Status.FINISHED).count() == 0:
        assert time.monotonic() < deadline, worker.text()[-3000:]
        assert not Match.objects.filter(pk=match.pk, status__in=["failed", "void"]).exists()
        time.sleep(0.2)  # (a poll of the row the worker writes, not a measure)
    versions = list(MatchSide.objects.filter(match=match).values_list("version_id", flat=True))
    assert all(version_stats(version_id=v) is None for v in versions)  # not folded yet

    entry = django_settings.CELERY_BEAT_SCHEDULE["play-stats-fold"]
    app.send_task(entry["task"], queue=django_settings.KAISER_MATCH_QUEUE,
                  countdown=DELAY_S, **entry.get("options", {}))
    deadline = time.monotonic() + DELAY_S + 120
    while version_stats(version_id=versions[0]) is None:
        assert time.monotonic() < deadline, worker.text()[-3000:]
        time.sleep(0.2)  # (a poll of the row the worker writes, not a measure)
    assert "expired" not in worker.text().lower()
    for version in versions:
        assert version_stats(version_id=version)["hands"] == 18  # three games of six hands
