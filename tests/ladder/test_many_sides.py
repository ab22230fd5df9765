"""A match of any number of sides (issue 42): four here, the columns' old cap was three. The
rows of the lists name every side and its winner, a bot's newest matches and head to head
find it from any side, and the ladder rates it: a rating change a side that sums to zero, its
pairs added to the tallies as their rebuild in SQL counts them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.db import transaction

from ladder import services
from ladder.models import Ladder, PairTally, RatingChange
from matches import selectors
from matches.models import Match
from tests.factories import match_make

pytestmark = pytest.mark.django_db


@pytest.fixture
def four(make_builtin: Callable[..., Any]) -> list[Any]:
    return [make_builtin(f"four-{n}", own=True) for n in "wxyz"]


@pytest.fixture
def ladder() -> Ladder:
    return Ladder.objects.create(name="Four", slug="four", games_per_match=4)


def _finished(ladder: Ladder, versions: list[Any], **sides: Any) -> Match:
    return match_make(versions=versions, ladder=ladder, rated=True, games_per_match=4,
                      status=Match.Status.FINISHED, score=0.5, **sides)


def test_the_rows_name_all_four_sides_and_the_one_with_the_most_games(
        ladder: Ladder, four: list[Any]) -> None:
    match = _finished(ladder, four, games=[1, 2, 0, 1], points=[1.0, 2.0, 0.0, 1.0])
    [row] = selectors.match_rows(Match.objects.filter(pk=match.pk))
    assert [(s["letter"], s["name"], s["games"]) for s in row["sides"]] == [
        ("A", "four-w", 1), ("B", "four-x", 2), ("C", "four-y", 0), ("D", "four-z", 1)]
    assert [s["letter"] for s in row["sides"] if s["won"]] == ["B"] and not row["shared"]
    for version in four:
        assert selectors.newest_match_ids(version_ids=[version.pk], limit=3) == [match.pk]
    records, opponents = selectors.head_to_head_many(version_ids=[four[3].pk], limit=10)
    assert opponents == 3
    by_name = {r["name"]: r for r in records}
    assert by_name["four-x"]["losses"] == 1 and by_name["four-w"]["draws"] == 1
    assert by_name["four-y"]["share"] == 1.0  # all of the pair's points


def test_a_rated_match_of_four_changes_four_ratings_and_tallies_its_six_pairs_once(
        ladder: Ladder, four: list[Any]) -> None:
    two = _finished(ladder, four[:2], games=[3, 1])
    Match.objects.filter(pk=two.pk).update(score=0.75)
    many = _finished(ladder, four, games=[1, 2, 0, 1], points=[1.0, 2.0, 0.0, 1.0],
                     ups=[3.0, 5.0, -6.0, -2.0])
    with transaction.atomic():
        for match in (Match.objects.get(pk=two.pk), Match.objects.get(pk=many.pk)):
            services.ratings_apply(match)
    changes = list(RatingChange.objects.filter(match=many))
    assert len(changes) == 4 and sum(c.after - c.before for c in changes) == pytest.approx(0)
    best = max(changes, key=lambda c: c.after - c.before)
    assert best.entry.version_id == four[1].pk  # the most points and ups
    kept = {(t.low_id, t.high_id): (t.games, t.low_wins) for t in PairTally.objects.all()}
    assert len(kept) == 6  # every pair of four, A and B's two matches in one
    assert services.pair_tallies_rebuild() == 6
    rebuilt = {(t.low_id, t.high_id): (t.games, t.low_wins) for t in PairTally.objects.all()}
    assert rebuilt.keys() == kept.keys()
    for pair, (games, wins) in kept.items():
        assert rebuilt[pair][0] == games and rebuilt[pair][1] == pytest.approx(wins), pair
