"""Faults in the middle of matches, on real processes: a worker killed with SIGKILL, the
broker's Redis restarted (its queue lost), the database connection cut at the moment a result
is stored. After each, every match finishes exactly once, the ratings agree with the history,
and no bot process is left running.

The sweeper subprocess plays celery beat's part (matches_requeue_stale every half second) so
that recovery does not wait for beat's minute; the test process itself never dispatches.
"""

from __future__ import annotations

import time
import uuid

import pytest
from django.db import connection
from hardening_support import (
    assert_each_match_counted_once,
    free_port,
    processes_with,
    queue_matches,
    slow_bot_zip,
    wait_until_gone,
)

from matches.models import Match, MatchAttempt

pytestmark = [pytest.mark.worker, pytest.mark.sandbox,
              pytest.mark.django_db(transaction=True), pytest.mark.timeout(240)]


def _wait_for(condition, what: str, timeout: float = 150) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.2)


def _statuses(matches: list[Match]) -> list[str]:
    ids = [m.pk for m in matches]
    return list(Match.objects.filter(pk__in=ids).values_list("status", flat=True))


def _all_finished(matches: list[Match]) -> bool:
    return all(s == Match.Status.FINISHED for s in _statuses(matches))


def _slow_pairs(make_program, make_builtin, marker: str):  # type: ignore[no-untyped-def]
    """Four matches, each with a sandboxed slow bot in it."""
    content = slow_bot_zip(marker, pause=0.005)
    slow = [make_program(f"slow{i}", content, kind="zip") for i in range(2)]
    rivals = [make_builtin(f"rival{i}", "builtin:random" if i % 2 else "builtin:greedy")
              for i in range(4)]
    return [(slow[i % 2], rival) for i, rival in enumerate(rivals)]


def test_a_worker_killed_with_sigkill_in_the_middle_of_matches_loses_nothing(
    processes, closed_ladder, make_program, make_builtin
):
    marker = f"kaiser-marker-{uuid.uuid4().hex}"
    matches = queue_matches(closed_ladder, _slow_pairs(make_program, make_builtin, marker))
    doomed = processes.worker(pool="prefork", concurrency=2)
    processes.sweeper()
    _wait_for(lambda: _statuses(matches).count(Match.Status.RUNNING) == 2 and processes_with(
        marker), "two matches running with their bots")
    assert processes_with(marker), "the sandboxed bots were running when the worker died"
    doomed.kill_group()  # the worker and its pool children, as the OOM killer would
    killed = [m.pk for m in matches if Match.objects.get(pk=m.pk).status == "running"]
    assert killed
    processes.worker(pool="prefork", concurrency=2)
    _wait_for(lambda: _all_finished(matches), "every match finished after the kill")
    assert_each_match_counted_once(closed_ladder, matches)
    lost = set(MatchAttempt.objects.filter(outcome=MatchAttempt.Outcome.LOST)
               .values_list("match_id", flat=True))
    assert lost == set(killed)
    assert wait_until_gone(marker) == []


def test_a_redis_restart_that_empties_the_queue_loses_no_match(
    processes, closed_ladder, make_program, make_builtin
):
    """A private redis-server (no persistence): the shared one is never touched."""
    port = free_port()
    broker = {"REDIS_URL": f"redis://127.0.0.1:{port}/0"}
    redis = processes.redis(port)
    marker = f"kaiser-marker-{uuid.uuid4().hex}"
    matches = queue_matches(closed_ladder, _slow_pairs(make_program, make_builtin, marker))
    worker = processes.worker(env=broker)
    processes.sweeper(env=broker)
    _wait_for(lambda: Match.Status.RUNNING in _statuses(matches), "a match running")
    redis.stop()  # every message in the broker, waiting or unacknowledged, is gone
    time.sleep(2)
    processes.redis(port)
    _wait_for(lambda: _all_finished(matches), "every match finished after the restart")
    assert worker.proc.poll() is None, "the worker survived the broker's restart"
    assert "Connection to broker lost" in worker.text() or "Cannot connect" in worker.text()
    assert_each_match_counted_once(closed_ladder, matches)
    assert wait_until_gone(marker) == []


def _install_store_fault() -> str:
    """A trigger that breaks the store of a finished match: on PostgreSQL the storing backend
    terminates itself (what a restart looks like to the worker), on SQLite the write fails."""
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(
                "CREATE OR REPLACE FUNCTION kaiser_store_fault() RETURNS trigger AS $$ BEGIN "
                "PERFORM pg_terminate_backend(pg_backend_pid()); PERFORM pg_sleep(10); "
                "RETURN NEW; END $$ LANGUAGE plpgsql")
            cursor.execute(
                "CREATE TRIGGER kaiser_store_fault BEFORE UPDATE ON tournaments_match "
                "FOR EACH ROW WHEN (NEW.status = 'finished') "
                "EXECUTE FUNCTION kaiser_store_fault()")
            return "terminating connection due to administrator command"
        cursor.execute(
            "CREATE TRIGGER kaiser_store_fault BEFORE UPDATE ON tournaments_match "
            "WHEN NEW.status = 'finished' BEGIN "
            "SELECT RAISE(ABORT, 'injected fault: the database went away'); END")
        return "injected fault: the database went away"


def _remove_store_fault() -> None:
    with connection.cursor() as cursor:
        cursor.execute("DROP TRIGGER IF EXISTS kaiser_store_fault"
                       + (" ON tournaments_match" if connection.vendor == "postgresql" else ""))


def test_the_database_lost_while_a_result_is_stored_and_the_match_still_counts_once(
    processes, closed_ladder, make_builtin
):
    pairs = [(make_builtin("store-a"), make_builtin("store-b", "builtin:random")),
             (make_builtin("store-c"), make_builtin("store-d", "builtin:random"))]
    symptom = _install_store_fault()
    try:
        matches = queue_matches(closed_ladder, pairs)
        worker = processes.worker()
        processes.sweeper()
        worker.wait_for_log(symptom, timeout=120)
        assert _statuses(matches).count(Match.Status.FINISHED) == 0
    finally:
        _remove_store_fault()
    _wait_for(lambda: _all_finished(matches), "every match finished after the fault")
    assert worker.proc.poll() is None
    assert_each_match_counted_once(closed_ladder, matches)
    outcomes = list(MatchAttempt.objects.values_list("outcome", flat=True))
    assert MatchAttempt.Outcome.LOST in outcomes  # the attempt whose store was cut
