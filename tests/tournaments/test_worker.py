"""Matches on a real Celery worker: a subprocess on the same broker (Redis when REDIS_URL is
set, else Kombu's filesystem broker) and the same test database (PostgreSQL when DATABASE_URL
is set, else the test run's SQLite file), consuming a queue of its own."""

from __future__ import annotations

import os
import re
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.db import transaction

from engine.clock import usable_cores
from engine.validate import validate_replay
from ladder import selectors
from ladder import services as ladder_services
from ladder.models import Ladder, LadderEntry, RatingChange
from matches import services as match_services
from matches.models import Match, MatchAttempt
from matches.tasks import run_match
from tests.processes import LoggedProcess, celery_worker_start, database_url_of_this_test

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True),
              pytest.mark.timeout(240)]

ROOT = Path(__file__).resolve().parents[2]
LEASE_SECONDS = 3
# Plays the first legal action after a pause: a match long enough to kill a worker in it.
SLOW_BOT = b"""import json, sys, time
for line in sys.stdin:
    m = json.loads(line)
    if m["type"] == "hello":
        print(json.dumps({"id": m["id"], "type": "ready"}), flush=True)
    elif m["type"] == "act":
        time.sleep(0.02)
        legal = m["legal"]
        action = legal[: len(m["state"]["hand"]) - 8] if m["decision"] == "discard" else legal[0]
        print(json.dumps({"id": m["id"], "action": action}), flush=True)
    elif m["type"] == "match_end":
        break
"""


Worker = LoggedProcess


@pytest.fixture
def start_worker(settings, tmp_path: Path) -> Iterator[Callable[..., Worker]]:
    queue = f"kaiser-test-{uuid.uuid4().hex[:10]}"
    overrides = {"KAISER_MATCH_QUEUE": queue, "KAISER_MATCH_LEASE_SECONDS": LEASE_SECONDS,
                 "KAISER_DISPATCH_DEPTH": 8, "KAISER_BOT_IN_FLIGHT": 8}
    for name, value in overrides.items():
        setattr(settings, name, value)
    env = {**os.environ, **{k: str(v) for k, v in overrides.items()},
           "DATABASE_URL": database_url_of_this_test(),
           "KAISER_PROGRAM_DIR": str(django_settings.KAISER_PROGRAM_DIR),
           "DJANGO_SETTINGS_MODULE": "kaiser_site.settings", "PYTHONUNBUFFERED": "1"}
    workers: list[Worker] = []

    def start(pool: str = "solo", concurrency: int = 1, **extra_env: str) -> Worker:
        worker = celery_worker_start(
            tmp_path / f"worker-{len(workers)}.log", queue=queue,
            name=f"{queue}-{len(workers)}", pool=pool, concurrency=concurrency,
            env={**env, **extra_env})
        workers.append(worker)
        worker.wait_for_log(r"ready\.")
        return worker

    yield start
    for worker in workers:  # what it still plays is not asserted: 3 s, then killed
        worker.stop(grace_s=3)


def _wait_status(match_id: int, status: str, timeout: float = 90) -> Match:
    deadline = time.monotonic() + timeout
    while True:
        match = Match.objects.get(pk=match_id)
        if match.status == status:
            return match
        assert time.monotonic() < deadline, f"match {match_id} still {match.status}"
        time.sleep(0.1)


def _closed_ladder(**fields) -> Ladder:
    """A ladder the scheduler leaves alone, so the test decides every match on it."""
    return Ladder.objects.create(name="closed", slug=f"closed-{uuid.uuid4().hex[:6]}",
                                 active=False, **fields)


def _queue(ladder: Ladder, a, b) -> Match:
    with transaction.atomic():  # dispatched to the worker's queue on commit
        for v in (a, b):
            LadderEntry.objects.get_or_create(ladder=ladder, version=v)
        return match_services.match_create(versions=[a, b], kind=Match.Kind.LADDER,
                                     conditions=ladder, ladder=ladder, rated=True)


def _state(match: Match) -> tuple:
    match.refresh_from_db()
    entries = tuple(LadderEntry.objects.order_by("pk").values_list("elo", "games"))
    return (match.status, match.attempts, (match.replay_key, match.replay_sha256), entries,
            RatingChange.objects.count(), MatchAttempt.objects.count())


def test_the_ladder_schedules_a_match_that_a_worker_plays_to_a_valid_replay_and_new_ratings(
    start_worker, make_builtin
):
    ladder = Ladder.objects.create(name="live", slug="live", queue_depth=1)
    greedy, rnd = (make_builtin("greedy-w", own=True),
                   make_builtin("random-w", "builtin:random", own=True))
    start_worker()
    assert ladder_services.ladder_schedule(ladder_id=ladder.pk) == 1
    first = Match.objects.get(ladder=ladder)
    match = _wait_status(first.pk, Match.Status.FINISHED)
    assert validate_replay(match.replay()) == []
    assert set(match.version_ids) == {greedy.pk, rnd.pk}
    changes = RatingChange.objects.filter(match=match)
    assert changes.count() == 2
    assert sum(c.delta for c in changes) == pytest.approx(0.0)
    assert all(c.delta != 0 for c in changes)
    attempt = MatchAttempt.objects.get(match=match)
    assert attempt.outcome == "finished" and "kaiser-test-" in attempt.worker


def test_the_same_task_delivered_twice_changes_nothing_the_second_time(
    start_worker, make_builtin
):
    ladder = _closed_ladder()
    worker = start_worker()
    match = _queue(ladder, make_builtin("twice-a"), make_builtin("twice-b", "builtin:random"))
    run_match.apply_async((match.pk,), queue=django_settings.KAISER_MATCH_QUEUE)  # duplicate
    _wait_status(match.pk, Match.Status.FINISHED)
    worker.wait_for_log(r"run_match\[[^\]]+\] succeeded in [\d.]+s: 'skipped'")
    assert len(re.findall(r"succeeded in [\d.]+s: 'finished'", worker.text())) == 1
    before = _state(match)
    run_match.apply_async((match.pk,), queue=django_settings.KAISER_MATCH_QUEUE)
    worker.wait_for_log(r"succeeded in [\d.]+s: 'skipped'", count=2)
    assert _state(match) == before
    assert before[1] == 1 and before[4] == 2  # one attempt, two rating changes


@pytest.mark.sandbox
def test_a_worker_killed_in_the_middle_of_a_match_and_the_match_finishes_exactly_once(
    start_worker, make_builtin, make_program
):
    ladder = _closed_ladder(games_per_match=4)
    slow = make_program("slowpoke", SLOW_BOT)
    greedy = make_builtin("greedy-k")
    doomed = start_worker()
    match = _queue(ladder, slow, greedy)
    _wait_status(match.pk, Match.Status.RUNNING)
    time.sleep(1.0)  # well inside the match (it takes several seconds)
    assert Match.objects.get(pk=match.pk).status == Match.Status.RUNNING
    doomed.kill()
    start_worker()
    deadline = time.monotonic() + 60
    while match_services.matches_requeue_stale()["requeued"] == 0:  # once the dead lease runs out
        assert time.monotonic() < deadline, "the dead worker's match was never requeued"
        time.sleep(0.5)
    match = _wait_status(match.pk, Match.Status.FINISHED, timeout=120)
    assert validate_replay(match.replay()) == []
    assert match.attempts == 2
    assert sorted(MatchAttempt.objects.filter(match=match).values_list("outcome", flat=True)
                  ) == ["finished", "lost"]
    assert RatingChange.objects.filter(match=match).count() == 2
    assert sorted(LadderEntry.objects.values_list("games", flat=True)) == [1, 1]


def test_matches_of_the_same_bot_finishing_together_lose_no_rating_update(
    start_worker, make_builtin
):
    ladder = _closed_ladder(games_per_match=60)  # long enough for both workers to take some
    hub = make_builtin("hub")
    rivals = [make_builtin(f"rival{i}", "builtin:random" if i % 2 else "builtin:greedy")
              for i in range(8)]
    start_worker()
    start_worker()  # two worker processes finishing the hub's matches side by side
    with transaction.atomic():
        matches = [_queue(ladder, hub, r) for r in rivals]
    for m in matches:
        _wait_status(m.pk, Match.Status.FINISHED)
    entry = LadderEntry.objects.get(ladder=ladder, version=hub)
    chain = list(RatingChange.objects.filter(entry=entry).order_by("id"))
    assert entry.games == len(chain) == 8
    # Each change starts where the previous one ended: a lost update would break the chain.
    assert all(b.before == pytest.approx(a.after) for a, b in zip(chain, chain[1:], strict=False))
    assert chain[0].before == 1500.0
    assert sum(c.after != c.before for c in chain) >= 4  # the random rivals move it
    assert entry.elo == pytest.approx(chain[-1].after)
    recomputed = selectors.ratings_recomputed(ladder=ladder)
    assert recomputed[hub.pk][0] == pytest.approx(entry.elo)
    workers = {a.split(":")[0] for a in MatchAttempt.objects.values_list("worker", flat=True)}
    assert len(workers) == 2


def test_a_worker_that_plays_matches_runs_no_more_of_them_at_once_than_it_has_cores(
    start_worker
):
    cores = usable_cores()
    capped = start_worker(pool="prefork", concurrency=cores + 3)
    uncapped = start_worker(pool="prefork", concurrency=cores + 1, KAISER_WORKER_CAP_TO_CORES="0")

    assert re.search(rf"concurrency capped at {cores} \(requested {cores + 3}\)", capped.text())
    assert f"concurrency: {cores} (prefork)" in capped.text()  # the pool Celery started
    assert "capped" not in uncapped.text()
    assert f"concurrency: {cores + 1} (prefork)" in uncapped.text()
