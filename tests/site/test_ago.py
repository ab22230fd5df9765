"""kaiser_site.ago: the same text as Django's timesince for every gap (seconds to years, the
four-week edge, the future, dates, naive times), in English and another language, though
most of the answers come from its per-minute cache."""

from __future__ import annotations

import random
from datetime import UTC, date, datetime, timedelta, timezone

import pytest
from django.template.defaultfilters import timesince_filter
from django.utils import translation
from django.utils.timesince import timesince

from kaiser_site.ago import FOUR_WEEKS, _minutes_ago, ago, ago_filter, ago_phrase, ago_phrase_filter

EDGES = [timedelta(0), timedelta(seconds=59), timedelta(seconds=60), timedelta(minutes=59,
         seconds=59), timedelta(hours=1), timedelta(days=1) - timedelta(microseconds=1),
         timedelta(days=7), FOUR_WEEKS - timedelta(seconds=1), FOUR_WEEKS,
         FOUR_WEEKS + timedelta(minutes=1), timedelta(days=31), timedelta(days=400),
         -timedelta(seconds=1), -timedelta(days=3)]


def _gaps(rng: random.Random) -> list[timedelta]:
    seconds = [rng.uniform(0, 60 * 60 * 24 * 40) for _ in range(2000)]
    return EDGES + [timedelta(seconds=s) for s in seconds]


@pytest.mark.parametrize("language", ["en", "fr"])
@pytest.mark.parametrize("zone", [UTC, timezone(timedelta(hours=-5))], ids=["utc", "minus5"])
def test_ago_is_timesince_for_every_gap(language: str, zone: timezone) -> None:
    rng = random.Random(7)
    nows = [datetime(2026, month, day, hour, 30, 15, 500, tzinfo=zone)
            for month, day, hour in ((1, 31, 23), (2, 28, 0), (3, 1, 12), (12, 2, 6))]
    with translation.override(language):
        for now in nows:
            for gap in _gaps(rng):
                when = now - gap
                assert ago(when, now) == timesince(when, now), (when, now)
    assert _minutes_ago.cache_info().hits > 0  # the cache answered (same minute counts)


def test_ago_takes_what_timesince_takes() -> None:
    now = datetime(2026, 12, 2, 10, 0)
    assert ago(now - timedelta(hours=3), now) == timesince(now - timedelta(hours=3), now)
    assert ago(date(2026, 11, 1), date(2026, 12, 2)) == timesince(date(2026, 11, 1),
                                                                  date(2026, 12, 2))
    recent = datetime.now(UTC) - timedelta(minutes=5, seconds=3)
    assert ago(recent) == timesince(recent) == "5\xa0minutes"


def test_the_filter_is_timesince_filter() -> None:
    aware = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
    naive = datetime(2026, 12, 2, 9, 0)
    for value, arg in ((None, None), (aware, aware + timedelta(days=2, hours=5)),
                       (aware, naive), (aware, None), ("", None)):
        assert ago_filter(value, arg) == timesince_filter(value, arg), (value, arg)


def test_under_a_minute_reads_just_now_and_later_times_read_ago() -> None:
    """Issue 43: "0 minutes ago" everywhere; a person reads "just now"."""
    now = datetime(2026, 12, 5, 12, 0, tzinfo=UTC)
    assert ago_phrase(now, now) == "just now"
    assert ago_phrase(now - timedelta(seconds=59), now) == "just now"
    assert ago_phrase(now + timedelta(seconds=5), now) == "just now"  # a clock a little off
    assert ago_phrase(now - timedelta(minutes=1), now) == "1\xa0minute ago"
    assert ago_phrase(now - timedelta(days=3, hours=4), now) == "3\xa0days, 4\xa0hours ago"
    assert ago_phrase_filter(None) == ""

