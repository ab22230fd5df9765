"""A Sergeant Major ladder on the real stack with uploaded bots, ranked in their true order.

Three authors upload Sergeant Major programs of clearly different strength through the API
(each passes the real upload check, in the sandbox): the starter kit, the starter playing a
random legal action a quarter of the time, and a random player. A real Celery worker (a
subprocess on the test's broker and database) plays the Sergeant Major ladder's matches of
three, which the ladder schedules and refills by itself; once enough rated matches are
finished, the ladder's leaderboard (API and page) ranks the three in their true order, by Elo
and by the fitted rating."""

from __future__ import annotations

import os
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from engine.games import get_game
from ladder import services as ladder_services
from ladder.models import Ladder, LadderEntry, RatingChange
from matches.models import Match
from tests.processes import LoggedProcess, celery_worker_start, database_url_of_this_test

sys.path.insert(0, str(Path(__file__).parent / "programs"))
from skill import skilled_program  # noqa: E402

pytestmark = [pytest.mark.worker, pytest.mark.sandbox, pytest.mark.django_db(transaction=True),
              pytest.mark.timeout(400)]

STARTER = Path(__file__).resolve().parents[2] / "bots" / "examples" / "sergeant_major_bot.py"
RANDOM = Path(__file__).parent / "programs" / "sm_random_bot.py"
# Strongest first: the true order the leaderboard must show.
BOTS = (("sm-starter", STARTER.read_bytes()), ("sm-three-quarters", skilled_program(0.75)),
        ("sm-random", RANDOM.read_bytes()))
RATED_MATCHES = 12


@pytest.fixture
def worker(settings, tmp_path: Path) -> Iterator[LoggedProcess]:
    queue = f"kaiser-sm-{uuid.uuid4().hex[:10]}"
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


def _upload_checked(name: str, content: bytes) -> int:
    """A new author makes a Sergeant Major bot and uploads `content`; the real check runs (in
    this process, eagerly) and must accept it. Returns the version's id."""
    from kaiser_site.celery import app

    client = APIClient()
    client.force_authenticate(User.objects.create_user(username=f"author-of-{name}"))
    bot = client.post("/api/v1/bots/", {"name": name, "game": "sergeant-major"}, format="json")
    assert bot.status_code == 201, bot.content
    app.conf.task_always_eager = True
    try:
        upload = client.post(f"/api/v1/bots/{bot.json()['id']}/versions/",
                             {"file": SimpleUploadedFile("bot.py", content)}, format="multipart")
    finally:
        app.conf.task_always_eager = False
    assert upload.status_code == 201, upload.content
    version = client.get(f"/api/v1/versions/{upload.json()['id']}/").json()
    assert version["status"] == "active", version
    return int(upload.json()["id"])


def _wait_rated(ladder: Ladder, count: int, timeout: float = 300) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        done = Match.objects.filter(ladder=ladder, rated=True, status=Match.Status.FINISHED)
        if done.count() >= count:
            return
        failed = Match.objects.filter(ladder=ladder, status__in=["failed", "void"]).first()
        assert failed is None, failed.error
        time.sleep(0.5)  # polling the database for the rows this test waits for
    pytest.fail(f"only {done.count()} of {count} rated matches finished in {timeout} s")


def test_a_sergeant_major_ladder_ranks_uploaded_bots_in_their_true_order(
        worker: LoggedProcess) -> None:
    versions = [_upload_checked(name, content) for name, content in BOTS]
    ladder = Ladder.objects.get(slug="sergeant-major")
    ladder.queue_depth = 2
    ladder.save(update_fields=["queue_depth"])
    # Kaiser's ladder is left alone, and never takes a Sergeant Major bot.
    Ladder.objects.filter(slug="main").update(active=False)

    assert ladder_services.ladder_schedule(ladder_id=ladder.pk) == 2  # then it refills itself
    _wait_rated(ladder, RATED_MATCHES)
    Ladder.objects.filter(pk=ladder.pk).update(active=False)  # no more scheduling

    finished = Match.objects.filter(ladder=ladder, status=Match.Status.FINISHED)
    game = get_game("sergeant-major")
    for match in finished[:3]:
        assert {match.version_a_id, match.version_b_id, match.version_c_id} == set(versions)
        assert game.validate_replay(match.replay()) == []
    # Each finished match rated its three entries exactly once.
    assert RatingChange.objects.filter(match__in=finished).count() == 3 * finished.count()
    assert not LadderEntry.objects.filter(ladder__slug="main", version_id__in=versions).exists()

    board = APIClient().get("/api/v1/ladders/sergeant-major/").json()
    assert board["game"] == "sergeant-major"
    names = [row["name"] for row in board["leaderboard"]]
    assert names == [name for name, _ in BOTS], board["leaderboard"]
    fitted = [row["fitted"] for row in board["leaderboard"]]
    assert fitted == sorted(fitted, reverse=True), board["leaderboard"]
    page = APIClient().get("/ladders/sergeant-major/").content.decode()
    positions = [page.index(name) for name, _ in BOTS]
    assert positions == sorted(positions)
