"""Ratings from the boards on the real stack (issue 35): three authors upload Kaiser bots of a
known order (the example greedy, the same greedy playing a random legal card or bid half the
time, and the example random player) through the API; each passes the real upload check in the
sandbox. A real Celery worker plays the main ladder's matches, which the ladder schedules and
refills by itself. Once enough rated matches are finished, the leaderboard ranks the three in
their true order, and every rating change is exactly what a recount gives: each match's outcome
from its stored boards (ladder.ratings.match_outcome), Elo replayed in the order the changes
were written."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from rest_framework.test import APIClient

from ladder import ratings
from ladder import services as ladder_services
from ladder.models import Ladder, RatingChange
from matches.models import Match
from tests.ladder_stack import ladder_worker, upload_checked, wait_rated
from tests.processes import LoggedProcess

pytestmark = [pytest.mark.worker, pytest.mark.sandbox, pytest.mark.django_db(transaction=True),
              pytest.mark.timeout(500)]

EXAMPLES = Path(__file__).resolve().parents[2] / "bots" / "examples"
RATED_MATCHES = 15
HALF = '''
import random

_greedy_decide = decide


def decide(message):
    """Greedy, but a random legal bid or card half the time."""
    if message["decision"] in ("bid", "play") and random.random() < 0.5:
        return random.choice(message["legal"])
    return _greedy_decide(message)
'''


def half_greedy_zip() -> bytes:
    """The example greedy with HALF put in before its main block."""
    source = (EXAMPLES / "greedy" / "bot.py").read_text()
    head, main = source.split('if __name__ == "__main__":')
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("bot.py", head + HALF + '\n\nif __name__ == "__main__":' + main)
        archive.write(EXAMPLES / "kaiser_protocol.py", "kaiser_protocol.py")
    return buffer.getvalue()


# Strongest first: the true order the leaderboard must show.
BOTS = (("greedy-full", "greedy.zip", (EXAMPLES / "greedy.zip").read_bytes()),
        ("greedy-half", "half.zip", half_greedy_zip()),
        ("random-only", "random.zip", (EXAMPLES / "random.zip").read_bytes()))


@pytest.fixture
def worker(settings, tmp_path: Path) -> Iterator[LoggedProcess]:
    yield from ladder_worker(settings, tmp_path, "kaiser-boards")


def _recount(finished: list[Match]) -> None:
    """Every change again from the stored boards: outcome, then Elo in the changes' order."""
    elo: dict[int, float] = {}
    games: dict[int, int] = {}
    for match in sorted(finished, key=lambda m: min(c.pk for c in m.rating_changes.all())):
        outcome = ratings.match_outcome(swings=ratings.board_swings(match.board_comparison()),
                                        games_score=match.score,
                                        forfeit=match.fault_side is not None)
        assert match.outcome == pytest.approx(outcome, abs=1e-12)
        by_version = {c.entry.version_id: c for c in match.rating_changes.all()}
        va, vb = match.version_ids
        a, b = by_version[va], by_version[vb]
        for change, version in ((a, va), (b, vb)):
            assert change.before == pytest.approx(elo.get(version, change.before), abs=1e-9)
        delta_a, delta_b = ratings.elo_changes(
            rating_a=a.before, rating_b=b.before, score=outcome,
            played_a=games.get(va, 0), played_b=games.get(vb, 0))
        assert a.after - a.before == pytest.approx(delta_a, abs=1e-9)
        assert b.after - b.before == pytest.approx(delta_b, abs=1e-9)
        for change, version in ((a, va), (b, vb)):
            elo[version] = change.after
            games[version] = games.get(version, 0) + 1


def test_the_ladder_ranks_uploaded_bots_in_their_true_order_by_their_boards(
        worker: LoggedProcess) -> None:
    versions = [upload_checked(name, content, game="kaiser", filename=filename)
                for name, filename, content in BOTS]
    ladder = ladder_services.ladder_main_ensure()
    ladder.queue_depth = 2
    ladder.save(update_fields=["queue_depth"])
    Ladder.objects.exclude(pk=ladder.pk).update(active=False)

    assert ladder_services.ladder_schedule(ladder_id=ladder.pk) >= 1  # then it refills itself
    wait_rated(ladder, RATED_MATCHES, timeout=400)
    Ladder.objects.filter(pk=ladder.pk).update(active=False)  # no more scheduling

    finished = list(Match.objects.filter(ladder=ladder, rated=True,
                                         status=Match.Status.FINISHED))
    assert all(set(m.version_ids) <= set(versions) for m in finished)
    # the boards were rated
    assert any(ratings.board_swings(m.board_comparison()) for m in finished)
    # Each finished match rated its two entries exactly once, as the recount gives.
    assert RatingChange.objects.filter(match__in=finished).count() == 2 * len(finished)
    _recount(finished)

    board = APIClient().get("/api/v1/ladders/main/").json()
    ours = {name for name, _, _ in BOTS}
    names = [row["name"] for row in board["leaderboard"] if row["name"] in ours]
    assert names == [name for name, _, _ in BOTS], board["leaderboard"]
