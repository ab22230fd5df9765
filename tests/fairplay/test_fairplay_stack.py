"""The detector on the site, through the real stack (issue 41): a user uploads the
repository's signalling pair (tests/engine/fairplay/think_time.py with its helpers, as a zip)
and another user an honest bot (the greedy example); a real Celery worker plays their ladder
matches in gVisor and keeps each decision's times beside the replay; the beat's fair-play task
checks both versions; the staff report (page and API) lists the pair as flagged, with its bits
a move and the matches behind it, and not the honest bot; each owner reads one sentence on
their bot's page, and nobody else does."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.test import Client
from rest_framework.test import APIClient

from bots.models import BotVersion
from fairplay import tasks
from fairplay.models import FairPlayCheck
from ladder import services as ladder_services
from ladder.models import Ladder
from matches.models import Match
from tests.ladder_stack import ladder_worker, upload_checked, wait_rated, wait_settled
from tests.processes import LoggedProcess

pytestmark = [pytest.mark.worker, pytest.mark.sandbox, pytest.mark.django_db(transaction=True),
              pytest.mark.timeout(900)]

ROOT = Path(__file__).resolve().parents[2]
PROBES = ROOT / "tests" / "engine" / "fairplay"
GREEDY = ROOT / "bots" / "examples" / "greedy.zip"
GAME = "kaiser"
# The pair's setting: 4 bits a move, in 4 ms steps, by sleeping (up to 60 ms a move), the
# setting tests/engine/test_think_time_channel.py reads and flags in the engine.
PAIR_SETTING = "4 4.0 sleep\n"
RATED_MATCHES = 2  # two full two-game matches: some 300 decisions of each side


def pair_zip() -> bytes:
    """The signalling pair as its author would upload it: bot.py and its helpers."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.write(PROBES / "think_time.py", "bot.py")
        for helper in ("_channel.py", "_play.py"):
            archive.write(PROBES / helper, helper)
        archive.writestr("think_time.txt", PAIR_SETTING)
    return buffer.getvalue()


@pytest.fixture
def worker(settings, tmp_path: Path) -> Iterator[LoggedProcess]:
    yield from ladder_worker(settings, tmp_path, "kaiser-fairplay")


def _ladder() -> Ladder:
    """A ladder of its own, full games at the ladder's clock, one match queued at a time."""
    Ladder.objects.update(active=False)
    return Ladder.objects.create(name="Fair play", slug="fair-play", game=GAME,
                                 games_per_match=2, queue_depth=1)


def _owner_client(version_id: int) -> Client:
    client = Client()
    client.force_login(BotVersion.objects.get(pk=version_id).bot.owner)
    return client


def test_a_signalling_pair_is_flagged_in_the_staff_report_and_an_honest_bot_is_not(
        worker: LoggedProcess) -> None:
    pair = upload_checked("signal-pair", pair_zip(), game=GAME, filename="pair.zip")
    honest = upload_checked("honest-greedy", GREEDY.read_bytes(), game=GAME,
                            filename="greedy.zip")
    ladder = _ladder()
    assert ladder_services.ladder_schedule(ladder_id=ladder.pk) == 1  # then it refills itself
    wait_rated(ladder, RATED_MATCHES, timeout=600)
    Ladder.objects.filter(pk=ladder.pk).update(active=False)
    wait_settled(ladder, timeout=600)  # a match in flight finishes before the checks read
    played = list(Match.objects.filter(ladder=ladder, status=Match.Status.FINISHED))
    assert all(m.times_key for m in played)  # the worker kept each decision's times

    assert tasks.fairplay_check_recent() == 2  # the beat's task: both versions checked
    assert tasks.fairplay_check_recent() == 0  # run again: nothing new, nothing written
    flagged = FairPlayCheck.objects.get(version_id=pair)
    passed = FairPlayCheck.objects.get(version_id=honest)
    assert flagged.flagged and not flagged.error, flagged.figures
    assert not passed.flagged and not passed.error, passed.figures
    assert set(flagged.match_ids) <= {m.pk for m in played} and flagged.bits is not None

    staff = User.objects.create_user(username="fair-play-staff", is_staff=True)
    page = Client()
    page.force_login(staff)
    text = page.get("/fairplay/").content.decode()
    flagged_part = text.partition('id="flagged"')[2].partition("</table>")[0]
    assert "signal-pair" in flagged_part and "honest-greedy" not in flagged_part
    assert f"{flagged.bits:.2f}" in flagged_part
    assert f'href="/matches/{flagged.match_ids[0]}/"' in flagged_part
    assert "honest-greedy" in text  # among every checked version

    api = APIClient()
    api.force_authenticate(staff)
    report = api.get("/api/v1/fairplay/").json()
    assert [row["name"] for row in report["flagged"]] == ["signal-pair"]
    assert report["flagged"][0]["bits"] == pytest.approx(flagged.bits)
    assert {row["name"] for row in report["checked"]} == {"signal-pair", "honest-greedy"}

    # Each owner reads the one sentence on their bot's page; the other owner does not.
    pair_bot = BotVersion.objects.get(pk=pair).bot_id
    mine = _owner_client(pair).get(f"/bots/{pair_bot}/").content.decode()
    assert "Think-time check of v1 over its last" in mine and "flagged" in mine
    theirs = _owner_client(honest).get(f"/bots/{pair_bot}/").content.decode()
    assert "Think-time check" not in theirs
    honest_bot = BotVersion.objects.get(pk=honest).bot_id
    assert "passes (at most" in _owner_client(honest).get(f"/bots/{honest_bot}/").content.decode()
