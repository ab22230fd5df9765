"""A worker that cannot sandbox a bot takes no match and no upload check, and spends none of
their attempts: real Celery workers (tests/tournaments/test_worker.py's start_worker), one on a
host without bubblewrap, one whose sandbox breaks and heals while it runs."""

from __future__ import annotations

import shutil
import tempfile
import time
from pathlib import Path

import pytest
from django.conf import settings as django_settings

from bots.models import BotVersion
from bots.tasks import bot_upload_check
from ladder.models import RatingChange
from matches.models import Match, MatchAttempt
from tests.tournaments.test_worker import (  # noqa: F401 - start_worker is a fixture
    SLOW_BOT,
    _closed_ladder,
    _queue,
    _wait_status,
    start_worker,
)

# What a worker says when gVisor is missing: its seats run on the production default.
pytestmark = [pytest.mark.production_kernel, pytest.mark.worker, pytest.mark.sandbox,
              pytest.mark.django_db(transaction=True), pytest.mark.timeout(240)]
REFUSED = r"stops taking matches and upload checks"


@pytest.mark.parametrize("pool", ["solo", "prefork"])
def test_a_worker_without_a_sandbox_takes_no_match_and_another_plays_it_once(
    pool: str, start_worker, make_builtin, make_program, tmp_path: Path  # noqa: F811
):
    ladder = _closed_ladder()
    match = _queue(ladder, make_program("boxed", SLOW_BOT), make_builtin("greedy-i"))
    empty = tmp_path / "no-bwrap-here"
    empty.mkdir()
    broken = start_worker(pool, PATH=str(empty))  # the worker's host has lost its sandbox
    broken.wait_for_log(REFUSED)
    assert "sandbox broken: runsc (gVisor) is not installed" in broken.text()
    if "put back" in broken.text():  # it had taken the task before it stopped consuming
        # The pool's child logs "put back" before the task's end is logged: wait for that
        # line rather than read the log once (it failed so at a host load of 15).
        broken.wait_for_log(r"run_match\[[^\]]+\] succeeded in [\d.]+s: 'deferred'")
    match.refresh_from_db()
    assert (match.status, match.attempts) == (Match.Status.QUEUED, 0)
    assert not MatchAttempt.objects.filter(match=match).exists()
    broken.stop()  # as in the upload-check test below: its put-back countdown goes back too

    start_worker()  # a worker that can sandbox takes the match put back
    match = _wait_status(match.pk, Match.Status.FINISHED)
    assert match.attempts == 1
    attempt = MatchAttempt.objects.get(match=match)
    assert attempt.outcome == "finished"
    assert attempt.worker.split("@")[0].endswith("-1")  # the second worker, not the broken one
    assert RatingChange.objects.filter(match=match).count() == 2


def test_a_worker_whose_sandbox_heals_takes_matches_again_without_spending_attempts(
    start_worker, make_builtin, make_program, request: pytest.FixtureRequest  # noqa: F811
):
    folder = Path(tempfile.mkdtemp(prefix="kaiser-state-"))  # seats must traverse it, and
    folder.chmod(0o755)  # pytest's tmp_path is 0700 all the way up
    request.addfinalizer(lambda: shutil.rmtree(folder, ignore_errors=True))
    blocker = folder / "state"
    blocker.write_text("a file where the sandbox's state folder should be\n")
    worker = start_worker(KAISER_SANDBOX_STATE_DIR=str(blocker),
                          KAISER_SANDBOX_PROBE_SECONDS="1")
    worker.wait_for_log(REFUSED)
    match = _queue(_closed_ladder(), make_program("patient", SLOW_BOT), make_builtin("greedy-h"))
    blocker.unlink()  # the operator fixes the host: the next probe passes
    worker.wait_for_log(r"works again: \S+ takes matches again")
    match = _wait_status(match.pk, Match.Status.FINISHED)
    assert match.attempts == 1
    assert list(MatchAttempt.objects.filter(match=match).values_list("outcome", flat=True)
                ) == ["finished"]
    assert RatingChange.objects.filter(match=match).count() == 2


def test_an_upload_check_is_put_back_by_a_worker_without_a_sandbox_and_counted_once(
    start_worker, make_program, tmp_path: Path  # noqa: F811
):
    version = make_program("fresh", SLOW_BOT)
    BotVersion.objects.filter(pk=version.pk).update(status=BotVersion.Status.PENDING)
    bot_upload_check.apply_async((version.pk,), queue=django_settings.KAISER_MATCH_QUEUE)
    empty = tmp_path / "no-bwrap-here"
    empty.mkdir()
    broken = start_worker(PATH=str(empty))
    broken.wait_for_log(REFUSED)
    version.refresh_from_db()
    assert (version.status, version.check_attempts, version.reason) == ("pending", 0, "")
    # The broken worker goes (the operator's fix): a check it put back holds a countdown, and
    # a worker keeps such a message to itself until it is due, so while it lived it could take
    # its own put-back again and again; stopping it returns the message to the queue.
    broken.stop()

    start_worker()
    deadline = time.monotonic() + 90
    while version.status != BotVersion.Status.ACTIVE:
        assert time.monotonic() < deadline, f"still {version.status}: {version.reason}"
        time.sleep(0.2)
        version.refresh_from_db()
    assert version.check_attempts == 1
