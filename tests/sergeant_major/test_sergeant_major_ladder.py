"""A Sergeant Major ladder on the real stack with uploaded bots, ranked in their true order.

Three authors upload Sergeant Major programs of clearly different strength through the API
(each passes the real upload check, in the sandbox): the starter kit, the starter playing a
random legal action a quarter of the time, and a random player. A real Celery worker (a
subprocess on the test's broker and database) plays the Sergeant Major ladder's matches of
three, which the ladder schedules and refills by itself; once enough rated matches are
finished, the ladder's leaderboard (API and page) ranks the three in their true order, by Elo
and by the fitted rating."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from rest_framework.test import APIClient

from engine.games import get_game
from ladder import services as ladder_services
from ladder.models import Ladder, LadderEntry, RatingChange
from matches.models import Match
from tests.ladder_stack import ladder_worker, upload_checked, wait_rated
from tests.processes import LoggedProcess

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
    yield from ladder_worker(settings, tmp_path, "kaiser-sm")


def test_a_sergeant_major_ladder_ranks_uploaded_bots_in_their_true_order(
        worker: LoggedProcess) -> None:
    versions = [upload_checked(name, content, game="sergeant-major") for name, content in BOTS]
    ladder = ladder_services.game_ladder_ensure("sergeant-major")
    ladder.queue_depth = 2
    ladder.save(update_fields=["queue_depth"])
    # Kaiser's ladder is left alone, and never takes a Sergeant Major bot.
    Ladder.objects.filter(slug="main").update(active=False)

    assert ladder_services.ladder_schedule(ladder_id=ladder.pk) == 2  # then it refills itself
    wait_rated(ladder, RATED_MATCHES, timeout=300)
    Ladder.objects.filter(pk=ladder.pk).update(active=False)  # no more scheduling

    finished = Match.objects.filter(ladder=ladder, status=Match.Status.FINISHED)
    game = get_game("sergeant-major")
    for match in finished[:3]:
        assert set(match.version_ids) == set(versions) and len(match.version_ids) == 3
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
