"""Each decision's times are kept beside the replay (matches.times_store): a sandboxed match
stores them, per side in the engine's order, as an object of the replay store whose key and
hash the row keeps (about 110 bytes of the row); they come back to a tenth of a millisecond;
the orphan sweep leaves them alone while their match names them, and a pruned replay takes
them with it."""

from __future__ import annotations

import gzip
import hashlib
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.db import connection
from django.utils import timezone

from engine.clock import DecisionTime
from engine.fairplay import side_decisions
from ladder.models import Ladder
from matches import services
from matches.models import Match
from matches.times_store import match_times, times_decode, times_encode

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[2]
MINIMAL = ROOT / "bots" / "examples" / "minimal_bot.py"


def test_times_come_back_to_a_tenth_of_a_millisecond_in_the_order_given() -> None:
    times = {"A": [DecisionTime(2.0, 1.234, 5.678, None), DecisionTime(1.0, 0.0, 1.02, 0.5),
                   DecisionTime(3.0, 12.0, 40.04, None)],
             "B": [DecisionTime(0.5, 3.0, 3.3, None)], "C": []}

    stored = times_decode(times_encode(times) or b"")

    assert set(stored) == {"A", "B"}  # a side without times is left out
    a = stored["A"]
    assert a.counted_ms == pytest.approx([1.2, 0.0, 12.0]) and a.wall_ms == pytest.approx(
        [5.7, 1.0, 40.0])
    assert a.sleep_ms == [None, pytest.approx(0.5), None]
    assert stored["B"].sleep_ms is None  # no pressure figure at all
    assert times_encode({"A": []}) is None and times_encode(None) is None
    assert times_encode(times) == times_encode(times)  # the same bytes: one object per attempt


def test_a_thousand_decisions_take_a_few_kilobytes_in_the_store() -> None:
    rows = [DecisionTime(i, 0.5 + (i % 7), 1.5 + (i * 37 % 50), i % 3 * 0.3)
            for i in range(1000)]

    blob = times_encode({"A": rows[:500], "B": rows[500:]})

    assert blob is not None and len(blob) < 4 * 1000  # under 4 bytes a decision, 3 figures
    assert len(gzip.decompress(blob)) > 3 * len(blob)


@pytest.fixture
def sandboxed_match(make_program: Callable[..., Any], make_builtin: Callable[..., Any],
                    ) -> Callable[[], Match]:
    """play(): a ladder match of the minimal example bot (sandboxed) against builtin:random."""
    ladder = Ladder.objects.create(name="Times", slug="times", games_per_match=2)
    program = make_program("times-minimal", MINIMAL.read_bytes())
    house = make_builtin("times-random", "builtin:random", own=True)

    def play() -> Match:
        match = services.match_create(versions=[program, house],
                                      kind=Match.Kind.LADDER, conditions=ladder, ladder=ladder,
                                      rated=True)
        assert services.match_play(match_id=match.pk, worker="test") == "finished"
        return Match.objects.get(pk=match.pk)

    return play


def _decisions(match: Match, side: str) -> int:
    """The side's decisions in its replay, as the detector walks them."""
    replay = match.replay()
    assert replay is not None
    return len(side_decisions(replay, side) or [])


@pytest.mark.sandbox
def test_a_sandboxed_match_keeps_each_decisions_times_beside_its_replay(
        sandboxed_match: Callable[[], Match], _replay_store: Path) -> None:
    match = sandboxed_match()

    assert match.times_key.endswith(".times.json.gz") and len(match.times_sha256) == 64
    blob = (_replay_store / match.times_key).read_bytes()
    assert hashlib.sha256(blob).hexdigest() == match.times_sha256
    times = match_times(match)
    assert times is not None and set(times) == {"A"}  # the built-in side has none
    side = times["A"]
    assert len(side.wall_ms) == len(side.counted_ms) == _decisions(match, "A")
    assert all(w >= 0 for w in side.wall_ms) and sum(side.wall_ms) > 0
    assert len(match.times_key) + len(match.times_sha256) < 1024
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_column_size(times_key) + pg_column_size(times_sha256) "
                           "FROM tournaments_match WHERE id = %s", [match.pk])
            assert cursor.fetchone()[0] < 1024


@pytest.mark.sandbox
def test_the_sweep_keeps_a_matchs_times_and_a_prune_takes_them_with_the_replay(
        sandboxed_match: Callable[[], Match], _replay_store: Path, settings: Any) -> None:
    match = sandboxed_match()

    assert services.replays_orphans(min_age=timedelta(0)) == []
    settings.KAISER_REPLAY_RETENTION_DAYS = 1
    assert services.replays_prune(now=timezone.now() + timedelta(days=2)) == 1

    pruned = Match.objects.get(pk=match.pk)
    assert (pruned.replay_key, pruned.times_key, pruned.times_sha256) == ("", "", "")
    assert not (_replay_store / match.times_key).exists()
    assert match_times(pruned) is None
