"""Strict matches on a real Celery worker (issue 41): a strict match waits out every decision's
slot, so strict matches go to a queue of their own (KAISER_STRICT_QUEUE) whose worker plays
several at once in one process (-P threads, not capped to the cores). Here: that worker plays
two strict matches at once; a tournament created on the site with strict time plays to the end
on it, and its match pages say so; a thread's soft time limit is raised in it as a prefork
child's would be; the sandbox gate covers the strict queue."""

from __future__ import annotations

import os
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings as django_settings
from django.contrib.auth.models import User
from django.db import transaction
from django.test import Client
from django.urls import reverse

from engine.validate import validate_replay
from kaiser_site.celery import app
from kaiser_site.worker_cores import strict_only
from kaiser_site.worker_sandbox import gated_queues
from ladder.models import Ladder
from matches import services as match_services
from matches.models import Match, MatchAttempt
from matches.tasks import limits_in_thread
from tests.ladder_stack import upload_checked
from tests.processes import LoggedProcess, celery_worker_start, database_url_of_this_test
from tournaments.models import Tournament

ROOT = Path(__file__).resolve().parents[2]
MINIMAL_BOT = ROOT / "bots" / "examples" / "minimal_bot.py"
STRICT_THREADS = 3


@pytest.fixture
def strict_worker(settings: Any, tmp_path: Path) -> Iterator[LoggedProcess]:
    """A strict worker as scripts/devserver.py starts one (a pool of threads on the strict
    queue alone), on this test's database. Other matches go to a queue no worker reads: a
    strict match sent there would never be played."""
    tag = uuid.uuid4().hex[:10]
    overrides = {"KAISER_STRICT_QUEUE": f"kaiser-strict-{tag}",
                 "KAISER_MATCH_QUEUE": f"kaiser-unread-{tag}",
                 "KAISER_DISPATCH_DEPTH": 8, "KAISER_BOT_IN_FLIGHT": 8}
    for name, value in overrides.items():
        setattr(settings, name, value)
    env = {**os.environ, **{k: str(v) for k, v in overrides.items()},
           "DATABASE_URL": database_url_of_this_test(),
           "KAISER_PROGRAM_DIR": str(django_settings.KAISER_PROGRAM_DIR),
           "DJANGO_SETTINGS_MODULE": "kaiser_site.settings", "PYTHONUNBUFFERED": "1"}
    worker = celery_worker_start(tmp_path / "strict-worker.log",
                                 queue=overrides["KAISER_STRICT_QUEUE"], name=f"strict-{tag}",
                                 pool="threads", concurrency=STRICT_THREADS, env=env)
    try:
        worker.wait_for_log(r"ready\.")
        yield worker
    finally:
        worker.stop()


def _wait(done: Any, what: str, timeout: float) -> None:
    """Until done() is true; polls the database the worker writes."""
    deadline = time.monotonic() + timeout
    while not done():
        assert time.monotonic() < deadline, f"{what}: not within {timeout} s"
        time.sleep(0.5)


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
@pytest.mark.timeout(240)
def test_one_strict_worker_process_plays_two_strict_matches_at_once(
    strict_worker: LoggedProcess, make_builtin: Any
) -> None:
    # Not capped to this machine's cores: a strict match mostly sleeps.
    assert f"concurrency: {STRICT_THREADS} (thread)" in strict_worker.text()
    ladder = Ladder.objects.create(name="quiet", slug="quiet", active=False, strict_ms=10)
    pairs = [(make_builtin(f"g{i}", own=True), make_builtin(f"r{i}", "builtin:random", own=True))
             for i in range(2)]
    with transaction.atomic():  # dispatched on commit: both at once
        ids = [match_services.match_create(versions=[a, b], kind=Match.Kind.LADDER,
                                           conditions=ladder, ladder=ladder, rated=False).pk
               for a, b in pairs]
    finished = Match.objects.filter(pk__in=ids, status=Match.Status.FINISHED)
    _wait(lambda: finished.count() == 2, "two strict matches finished", 180)
    first, second = sorted(finished, key=lambda m: m.started)
    assert first.strict_ms == second.strict_ms == 10
    assert second.started < first.finished  # the second began while the first still played
    workers = {w.split(":")[0] for w in MatchAttempt.objects.filter(match_id__in=ids)
               .values_list("worker", flat=True)}
    assert len(workers) == 1 and workers.pop().startswith("strict-")  # one worker process
    assert all(validate_replay(m.replay()) == [] for m in (first, second))
    assert strict_worker.text().count("succeeded") >= 2


@pytest.mark.worker
@pytest.mark.sandbox
@pytest.mark.django_db(transaction=True)
@pytest.mark.timeout(500)
def test_a_strict_tournament_created_on_the_site_plays_to_the_end_and_its_pages_say_so(
    strict_worker: LoggedProcess, staff: User
) -> None:
    source = MINIMAL_BOT.read_bytes()
    names = ["quiet-a", "quiet-b", "quiet-c"]
    for name in names:
        upload_checked(name, source, game="kaiser")
    browser = Client()
    browser.force_login(staff)
    response = browser.post(reverse("tournament-new"), {
        "name": "Quiet cup", "format": "round_robin", "rounds": 1, "rules": "official",
        "games_per_match": 2, "move_ms": 1000, "bank_ms": 10000, "strict_ms": 40,
        "seeding": "hand", "entry": "chosen", "entrants": "\n".join(names),
        "entry_deadline": ""})
    assert response.status_code == 302, response.content.decode()[:3000]
    tournament = Tournament.objects.get(name="Quiet cup")
    _wait(lambda: Tournament.objects.get(pk=tournament.pk).status == Tournament.Status.FINISHED,
          "the strict tournament finished", 420)
    matches = list(tournament.matches.all())
    assert len(matches) == 3
    assert {(m.status, m.strict_ms) for m in matches} == {(Match.Status.FINISHED, 40)}
    for match in matches:
        page = Client().get(reverse("match-detail", args=[match.pk])).content.decode()
        assert "strict time: 40 ms a decision" in page
        assert validate_replay(match.replay()) == []
    assert "strict time: 40 ms a decision" in Client().get(response["Location"]).content.decode()
    # Played on the strict worker's threads, in one process.
    assert MatchAttempt.objects.filter(match__tournament=tournament).exclude(
        worker__startswith="strict-").count() == 0


def test_a_threads_soft_time_limit_is_raised_in_it_and_withdrawn_once_it_is_done() -> None:
    seen: list[str] = []

    def play(limit: float, work_s: float) -> None:
        try:
            with limits_in_thread(soft=limit, hard=limit * 10, match_id=0):
                deadline = time.monotonic() + work_s
                while time.monotonic() < deadline:  # Python instructions: the limit lands
                    time.sleep(0.01)
            time.sleep(0.3)  # past the limit, once the match is over: nothing raised
            seen.append("done")
        except SoftTimeLimitExceeded:
            seen.append("cut")

    for limit, work_s in ((0.2, 5.0), (0.2, 0.05)):
        thread = threading.Thread(target=play, args=(limit, work_s))
        thread.start()
        thread.join(10)
    assert seen == ["cut", "done"]


def test_the_main_thread_is_left_to_celery() -> None:
    """A prefork child (or solo) runs its task in its main thread: Celery's own limits."""
    with limits_in_thread(soft=0.01, hard=0.02, match_id=0):
        time.sleep(0.1)


def test_the_strict_queue_is_gated_by_the_sandbox_and_its_worker_not_capped(
    settings: Any
) -> None:
    settings.KAISER_MATCH_QUEUE, settings.KAISER_STRICT_QUEUE = "matches", "strict"
    default = app.conf.task_default_queue
    assert gated_queues(app, ["strict", "play"]) == ["strict"]
    assert gated_queues(app, ["matches", "strict", default]) == ["matches", "strict", default]
    assert strict_only(["strict"])
    assert not strict_only(["matches", "strict"])
    settings.KAISER_STRICT_QUEUE = None
    assert not strict_only([default])
