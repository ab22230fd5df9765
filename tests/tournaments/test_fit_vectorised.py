"""The vectorised fit gives the previous pure-Python fit's answers (tests/tournaments/
previous_fit.py) on random ladders, from any start, and from per-pair tallies as from the
results themselves."""

from __future__ import annotations

import random
from collections.abc import Hashable

import pytest

from ladder.ratings import (
    START,
    MultiResult,
    Result,
    elo_expected,
    elo_replay,
    pair_tallies,
    ratings_fit,
)
from tests.tournaments.previous_fit import previous_ratings_fit


def _random_ladder(seed: int) -> tuple[list[Result | MultiResult], dict[Hashable, float]]:
    """Bots of random strength, each match between near ones (as the ladder pairs them) or
    now and then any two; some three-player matches; an anchor or none; a bot that only ever
    beats its one opponent."""
    rng = random.Random(seed)
    n = rng.randint(2, 60)
    true = {f"bot{i}": rng.gauss(START, 300) for i in range(n)}
    order = sorted(true, key=true.get)
    results: list[Result | MultiResult] = []
    for _ in range(rng.randint(1, 25 * n)):
        k = rng.randrange(n)
        m = rng.randrange(n) if rng.random() < 0.2 else min(n - 1, max(0, k + rng.randint(-4, 4)))
        a, b = order[k], order[m if m != k else (k + 1) % n]
        if n >= 3 and rng.random() < 0.15:
            c = rng.choice([p for p in order if p not in (a, b)])
            results.append(MultiResult({p: rng.choice([0.0, 0.5, 1.0, 1.5, 3.0])
                                        for p in (a, b, c)}, games=3))
            continue
        games = rng.choice([1, 2, 4])
        wins = sum(rng.random() < elo_expected(rating_a=true[a], rating_b=true[b])
                   for _ in range(games))
        results.append(Result(a, b, wins / games, games))
    if rng.random() < 0.3:
        results += [Result("unbeaten", order[0], 1.0, 2)] * rng.randint(1, 5)
    pinned = {order[rng.randrange(n)]: rng.uniform(1000, 2000)} if rng.random() < 0.5 else {}
    if rng.random() < 0.2:
        pinned["idle anchor"] = 1500.0  # an anchor that has not played yet
    return results, pinned


def _assert_same(fitted: dict, previous: dict) -> None:
    assert fitted.keys() == previous.keys()
    for player, want in previous.items():
        got = fitted[player]
        assert got.rating == pytest.approx(want.rating, abs=1e-6)
        assert got.low == pytest.approx(want.low, abs=1e-6)
        assert got.high == pytest.approx(want.high, abs=1e-6)
        assert got.games == pytest.approx(want.games, abs=1e-9)


@pytest.mark.parametrize("seed", range(40))
def test_the_fit_gives_the_previous_fits_answers_on_a_random_ladder(seed: int) -> None:
    results, pinned = _random_ladder(seed)
    _assert_same(ratings_fit(results=results, pinned=pinned),
                 previous_ratings_fit(results=results, pinned=pinned))


@pytest.mark.parametrize("seed", range(40, 50))
def test_the_answer_is_the_same_from_any_start(seed: int) -> None:
    """The site starts from the entries' Elo; any start reaches the same optimum."""
    results, pinned = _random_ladder(seed)
    previous = previous_ratings_fit(results=results, pinned=pinned)
    elo = {p: r for p, (r, _) in elo_replay(results=results, pinned=pinned).items()}
    far = {p: (3500.0 if i % 2 else -500.0) for i, p in enumerate(previous)}
    for start in (elo, far):
        _assert_same(ratings_fit(results=results, pinned=pinned, start=start), previous)


@pytest.mark.parametrize("seed", range(50, 55))
def test_the_fit_from_tallies_is_the_fit_from_the_results(seed: int) -> None:
    results, pinned = _random_ladder(seed)
    tallies = pair_tallies(results)
    assert sum(tallies.games) == sum(
        r.games * (3 if isinstance(r, MultiResult) else 1) for r in results)
    _assert_same(ratings_fit(tallies=tallies, pinned=pinned),
                 previous_ratings_fit(results=results, pinned=pinned))


@pytest.mark.parametrize("loop", [False, True], ids=["chain", "loop"])
def test_a_long_chain_of_near_ratings_fits_as_before(loop: bool) -> None:
    """The hard case for the solver: 1,000 bots each meeting only its 10 nearest, so that the
    top and the bottom are 100 pairings apart and some 2,400 points, far from the start (all
    at 1500); or the same round a loop, the top meeting the bottom (bench/scale_sim.py's
    pairings)."""
    rng = random.Random(21)
    results = []
    for _ in range(20_000):
        k = rng.randrange(1000)
        m = k + rng.choice([-1, 1]) * rng.randint(1, 10)
        m = m % 1000 if loop else min(999, max(0, m))
        m = m if m != k else k ^ 1
        results.append(Result(k, m, 0.75 if k < m else 0.25, 2))
    pinned = {500: 1500.0}
    _assert_same(ratings_fit(results=results, pinned=pinned),
                 previous_ratings_fit(results=results, pinned=pinned))
