"""The fitted ratings on the site: the beat's task fits, requests on large ladders only read."""

from __future__ import annotations

import random

import pytest

from ladder import ratings, selectors, services, tasks


@pytest.fixture
def played_ladder(ladder, make_builtin, play_queued):
    for name in ("alpha", "beta", "gamma"):
        make_builtin(name, "builtin:greedy" if name != "gamma" else "builtin:random", own=True)
    services.ladder_schedule(ladder_id=ladder.pk, rng=random.Random(3))
    play_queued()
    return ladder


def _refuse_to_fit(monkeypatch):
    def refuse(**kwargs):
        raise AssertionError("a request fitted a large ladder")

    monkeypatch.setattr(ratings, "ratings_fit", refuse)


def test_the_beat_task_fits_and_a_large_ladders_request_reads_that_fit(
    played_ladder, monkeypatch
):
    assert tasks.ladder_fits_refresh() >= 1
    assert selectors.ladder_fit_is_current(ladder=played_ladder)
    fitted = selectors.ladder_fit(ladder=played_ladder, compute=True)
    monkeypatch.setattr(selectors, "FIT_INLINE_MAX", 1)
    _refuse_to_fit(monkeypatch)
    rows = selectors.ladder_leaderboard(ladder=played_ladder)
    assert rows and all(r.fitted == fitted[r.entry.version_id].rating for r in rows)
    assert tasks.ladder_fits_refresh() == 0  # nothing changed: nothing refitted


def test_a_large_ladder_shows_its_last_fit_until_the_task_refits(
    played_ladder, play_queued, monkeypatch
):
    services.ladder_fits_refresh()
    before = selectors.ladder_fit(ladder=played_ladder, compute=False)
    services.ladder_schedule(ladder_id=played_ladder.pk, rng=random.Random(4))
    play_queued()
    assert not selectors.ladder_fit_is_current(ladder=played_ladder)
    monkeypatch.setattr(selectors, "FIT_INLINE_MAX", 1)
    real_fit = ratings.ratings_fit
    _refuse_to_fit(monkeypatch)
    assert selectors.ladder_fit(ladder=played_ladder) == before  # a few results behind
    monkeypatch.setattr(ratings, "ratings_fit", real_fit)
    assert services.ladder_fits_refresh() == 1
    after = selectors.ladder_fit(ladder=played_ladder, compute=False)
    assert after != before
    assert max(f.games for f in after.values()) > max(f.games for f in before.values())


def test_a_large_ladder_never_fitted_has_no_fit_yet(played_ladder, monkeypatch):
    monkeypatch.setattr(selectors, "FIT_INLINE_MAX", 1)
    _refuse_to_fit(monkeypatch)
    rows = selectors.ladder_leaderboard(ladder=played_ladder)
    assert rows and all(r.fitted is None for r in rows)
