"""Each ladder's tallies per pair (PairTally), which the fit reads instead of every match: they
equal a recount from the matches once matches of both games are rated, a match counts once,
the migration fills them on a populated database, and the site's fit from them is the previous
fit from every result."""

from __future__ import annotations

import random
from collections.abc import Callable
from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command
from django.db import IntegrityError, connection, transaction
from django.db.migrations.executor import MigrationExecutor
from django.db.models import F
from django.db.models.functions import Coalesce

from bots.models import Bot
from ladder import ratings, selectors, services
from ladder.models import Ladder, LadderEntry, PairTally
from matches import services as match_services
from matches.models import Match, MatchAttempt
from tests.tournaments import sides
from tests.tournaments.previous_fit import previous_ratings_fit

Pairs = dict[tuple[int, int], tuple[float, float]]


def _results(ladder: Ladder) -> list[ratings.Result | ratings.MultiResult]:
    """The ladder's rated results as the fit read them before the tallies: every finished
    rated match, oldest first, a two-player one by its rated outcome (issue 35)."""
    out: list[ratings.Result | ratings.MultiResult] = []
    for match in (Match.objects.filter(ladder=ladder, rated=True, status=Match.Status.FINISHED)
                  .annotate(rated_score=Coalesce("outcome", "score")).order_by("finished", "id")):
        rows = sides.sides(match)
        if len(rows) == 2:
            out.append(ratings.Result(rows[0].version_id, rows[1].version_id,
                                      match.rated_score, match.games_per_match))
            continue
        ups = {s.version_id: match.ups[s.letter] for s in rows} if match.ups else None
        out.append(ratings.MultiResult({s.version_id: s.points for s in rows},
                                       match.games_per_match, ups))
    return out


def _recount(ladder: Ladder) -> Pairs:
    """The results tallied in Python (ratings.pair_tallies), by (low version, high version):
    (games, the low version's wins)."""
    t = ratings.pair_tallies(_results(ladder))
    out = {}
    for i, j, games, wins in zip(t.a, t.b, t.games, t.wins, strict=True):
        x, y = t.players[i], t.players[j]
        out[min(x, y), max(x, y)] = (games, wins if x < y else games - wins)
    return out


def _kept(ladder: Ladder) -> Pairs:
    return {(t.low_id, t.high_id): (t.games, t.low_wins)
            for t in PairTally.objects.filter(ladder=ladder)}


def _assert_equal(kept: Pairs, recount: Pairs) -> None:
    assert kept.keys() == recount.keys()
    for pair, (games, wins) in recount.items():
        assert kept[pair][0] == games
        assert kept[pair][1] == pytest.approx(wins, abs=1e-9)


def _sm_bots(make: Callable[..., Any], count: int) -> None:
    for i in range(count):
        make(f"sm-{i}", "builtin:greedy" if i % 2 else "builtin:random")


@pytest.fixture
def rated_ladders(ladder: Ladder, make_builtin: Callable[..., Any],
                  make_sm_builtin: Callable[..., Any],
                  play_queued: Callable[[], int]) -> tuple[Ladder, Ladder]:
    """A Kaiser ladder and the Sergeant Major ladder, each with a few rated matches played."""
    for name, spec in (("alpha", "builtin:greedy"), ("beta", "builtin:greedy"),
                       ("gamma", "builtin:random")):
        make_builtin(name, spec, own=True)
    _sm_bots(make_sm_builtin, 4)
    Ladder.objects.filter(slug="main").update(active=False)
    sm = services.game_ladder_ensure("sergeant-major")
    for seed in range(2):
        services.ladder_schedule(rng=random.Random(seed))
        play_queued()
    return ladder, sm


def test_the_tallies_equal_a_recount_of_both_games_rated_matches(rated_ladders) -> None:
    kaiser, sm = rated_ladders
    for ladder in (kaiser, sm):
        recount = _recount(ladder)
        assert recount, f"no rated match on {ladder.slug}"
        _assert_equal(_kept(ladder), recount)
    assert Match.objects.filter(ladder=sm, sides__order=2, rated=True,
                                status=Match.Status.FINISHED).exists()
    games = {ladder.slug: sum(g for g, _ in _kept(ladder).values()) for ladder in rated_ladders}
    assert games == {"test": 2 * Match.objects.filter(ladder=kaiser).count(),
                     "sergeant-major": 3 * 3 * Match.objects.filter(ladder=sm).count()}


def test_a_match_counts_once_in_the_tallies(rated_ladders) -> None:
    for ladder in rated_ladders:
        before = _kept(ladder)
        match = Match.objects.filter(ladder=ladder, status=Match.Status.FINISHED).first()
        attempt = MatchAttempt.objects.filter(match=match).latest("started")
        # The result sent again by the attempt that stored it: refused, nothing counted.
        assert match_services.match_finish(match_id=match.pk, token=attempt.token,
                                           replay=match.replay()) is False
        assert _kept(ladder) == before
        # The ratings applied again to a match already counted: the rating changes refuse it,
        # and the tallies, written after them in the same transaction, are left as they were.
        with pytest.raises(IntegrityError), transaction.atomic():
            services.ratings_apply(match)
        assert _kept(ladder) == before
        _assert_equal(before, _recount(ladder))


def test_the_rebuild_from_the_matches_gives_the_tallies_kept_match_by_match(
        rated_ladders) -> None:
    """manage.py pair_tallies_rebuild: tallies that missed a match or counted one twice are
    made again from the matches, the same as those kept match by match."""
    kept = {ladder.pk: _kept(ladder) for ladder in rated_ladders}
    missed = PairTally.objects.filter(ladder=rated_ladders[0]).first()
    PairTally.objects.filter(pk=missed.pk).delete()
    PairTally.objects.filter(ladder=rated_ladders[1]).update(games=F("games") * 2)
    out = StringIO()
    call_command("pair_tallies_rebuild", stdout=out)
    assert out.getvalue() == (
        f"pair tallies rebuilt: {sum(len(pairs) for pairs in kept.values())} pairs\n")
    for ladder in rated_ladders:
        _assert_equal(_kept(ladder), kept[ladder.pk])


def test_the_sites_fit_from_the_tallies_is_the_previous_fit_from_every_result(
        rated_ladders) -> None:
    for ladder in rated_ladders:
        pins = dict(LadderEntry.objects.filter(ladder=ladder, pinned=True)
                    .values_list("version_id", "elo"))
        previous = previous_ratings_fit(results=_results(ladder), pinned=pins)
        fitted = selectors.ladder_fit(ladder=ladder, compute=True)
        assert fitted.keys() == previous.keys() and previous
        for version, want in previous.items():
            assert fitted[version].rating == pytest.approx(want.rating, abs=1e-6)
            assert fitted[version].high == pytest.approx(want.high, abs=1e-6)
            assert fitted[version].games == want.games


def _executor() -> MigrationExecutor:
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    return executor


@pytest.mark.django_db(transaction=True)
def test_the_migration_fills_the_tallies_of_a_populated_database(
        make_builtin: Callable[..., Any], make_sm_builtin: Callable[..., Any],
        match_made: Callable[..., Match]) -> None:
    """Matches finished before the table existed: migrating to it tallies each ladder's rated
    results, from the matches, and nothing else."""
    kaiser = Ladder.objects.create(name="Old ladder", slug="old", games_per_match=4)
    sm = services.game_ladder_ensure("sergeant-major")
    k = [make_builtin(f"k{i}", own=True) for i in range(3)]
    _sm_bots(make_sm_builtin, 3)
    s = [bot.versions.get() for bot in Bot.objects.filter(game="sergeant-major")]
    made = [((k[0], k[1]), {"score": 0.75}), ((k[1], k[0]), {"score": 1.0}),
            ((k[2], k[0]), {"score": 0.0}), ((k[1], k[2]), {"score": 0.5, "rated": False}),
            ((k[1], k[2]), {"score": None, "status": Match.Status.QUEUED}),
            ((s[0], s[1], s[2]), {"points": [2.5, 0.5, 0.0]}),
            ((s[2], s[1], s[0]), {"points": [0.0, 0.0, 3.0]})]
    executor = _executor()
    try:
        executor.migrate([("ladder", "0005_board_indexes")])
        for versions, fields in made:
            match_made(versions, conditions=sm if len(versions) == 3 else kaiser,
                       ladder=sm if len(versions) == 3 else kaiser,
                       **{"status": Match.Status.FINISHED, "rated": True, "score": 0.5,
                          **fields})
    finally:
        executor = _executor()
        executor.migrate(executor.loader.graph.leaf_nodes())
    assert len(_kept(kaiser)) == 2 and len(_kept(sm)) == 3
    for ladder in (kaiser, sm):
        _assert_equal(_kept(ladder), _recount(ladder))


def test_the_tallies_read_packed_by_postgresql_are_the_rows(rated_ladders) -> None:
    """The fit reads each column packed by the server (PostgreSQL); row by row elsewhere
    (SQLite, the embedded default: the row-by-row read is all it has)."""
    for ladder in rated_ladders:
        rows = selectors.tally_columns(ladder_id=ladder.pk)  # as the site reads them here
        assert len(rows[0]) == len(_kept(ladder)) > 0
        if connection.vendor != "postgresql":
            continue
        packed = selectors.tally_columns(ladder_id=ladder.pk, packed=True)
        rows = selectors.tally_columns(ladder_id=ladder.pk, packed=False)
        assert len(packed[0]) == len(_kept(ladder))
        order, plain = packed[0] * 10**6 + packed[1], rows[0] * 10**6 + rows[1]
        for mine, theirs in zip(packed, rows, strict=True):
            assert mine.dtype == theirs.dtype
            assert mine[order.argsort()].tolist() == theirs[plain.argsort()].tolist()
    assert [len(c) for c in selectors.tally_columns(ladder_id=0)] == [0] * 4


def test_a_refit_from_the_last_fit_is_the_fit_from_every_result(
        rated_ladders, play_queued: Callable[[], int]) -> None:
    """A stale fit is the next fit's start (a few results behind); the answer is the same."""
    for ladder in rated_ladders:
        selectors.ladder_fit(ladder=ladder, compute=True)
    services.ladder_schedule(rng=random.Random(7))
    play_queued()
    for ladder in rated_ladders:
        assert not selectors.ladder_fit_is_current(ladder=ladder)
        previous = previous_ratings_fit(results=_results(ladder))
        fitted = selectors.ladder_fit(ladder=ladder, compute=True)
        assert fitted.keys() == previous.keys()
        for version, want in previous.items():
            assert fitted[version].rating == pytest.approx(want.rating, abs=1e-6)
            assert fitted[version].low == pytest.approx(want.low, abs=1e-6)
