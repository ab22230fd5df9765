"""Elo and the fitted ratings, against numbers worked out by hand."""

import random

import pytest

from ladder.ratings import (
    START,
    Result,
    elo_changes,
    elo_expected,
    elo_is_provisional,
    elo_replay,
    ratings_fit,
)


def test_expected_score_follows_the_logistic_formula():
    assert elo_expected(rating_a=1500, rating_b=1500) == 0.5
    # 1/(1+10^(-200/400)) = 1/(1+0.316228) = 0.759747
    assert elo_expected(rating_a=1600, rating_b=1400) == pytest.approx(0.759747, abs=1e-6)


def test_elo_sequence_worked_by_hand_with_provisional_k():
    # All three are provisional, so K = 64 throughout.
    # 1. A-B 1.0: expected 0.5, A +32 -> A 1532, B 1468.
    # 2. A-C 0.5: E_A = 1/(1+10^(-32/400)) = 0.545922, A -2.93901 -> A 1529.0610, C 1502.9390.
    # 3. B-C 0.0: E_B = 1/(1+10^(34.9390/400)) = 0.449891, B -28.7930 -> B 1439.2070,
    #    C 1531.7320.
    history = [Result("A", "B", 1.0, 2), Result("A", "C", 0.5, 2), Result("B", "C", 0.0, 2)]
    ratings = elo_replay(results=history)
    assert ratings["A"][0] == pytest.approx(1529.061, abs=0.01)
    assert ratings["B"][0] == pytest.approx(1439.207, abs=0.01)
    assert ratings["C"][0] == pytest.approx(1531.732, abs=0.01)
    assert {games for _, games in ratings.values()} == {2}


def test_established_players_move_by_k_32():
    # E_A = 0.759747; a draw costs A 32 * 0.259747 = 8.3119.
    da, db = elo_changes(rating_a=1600, rating_b=1400, score=0.5, played_a=30, played_b=25)
    assert da == pytest.approx(-8.3119, abs=1e-3)
    assert db == -da


def test_a_provisional_opponent_makes_the_match_use_the_larger_k():
    da, db = elo_changes(rating_a=1500, rating_b=1500, score=1.0, played_a=40, played_b=3)
    assert (da, db) == (32.0, -32.0)


def test_a_bot_is_provisional_for_its_first_20_games():
    assert elo_is_provisional(games=19)
    assert not elo_is_provisional(games=20)


def test_sum_of_ratings_is_constant_over_many_random_matches():
    rng = random.Random(5)
    players = [f"p{i}" for i in range(7)]
    history = []
    for _ in range(500):
        a, b = rng.sample(players, 2)
        history.append(Result(a, b, rng.choice([0.0, 0.25, 0.5, 0.75, 1.0]), 4))
    ratings = elo_replay(results=history)
    assert sum(r for r, _ in ratings.values()) == pytest.approx(START * len(players), abs=1e-6)
    assert len({round(r, 3) for r, _ in ratings.values()}) == len(players)


def test_an_anchor_keeps_its_pinned_rating():
    history = [Result("anchor", "x", 0.0, 2)] * 5
    ratings = elo_replay(results=history, pinned={"anchor": 1200.0})
    assert ratings["anchor"] == (1200.0, 5)
    assert ratings["x"][0] > START


def test_a_score_outside_zero_to_one_is_refused():
    with pytest.raises(ValueError, match="between 0 and 1"):
        elo_changes(rating_a=1500, rating_b=1500, score=1.5, played_a=0, played_b=0)


def _simulated(true, matches, seed, games=4):
    rng = random.Random(seed)
    keys = list(true)
    out = []
    for _ in range(matches):
        a, b = rng.sample(keys, 2)
        p = elo_expected(rating_a=true[a], rating_b=true[b])
        wins = sum(rng.random() < p for _ in range(games))
        out.append(Result(a, b, wins / games, games))
    return out


def test_fit_recovers_the_true_order_and_covers_the_true_gaps():
    true = {i: 1300 + 100 * i for i in range(5)}
    fitted = ratings_fit(results=_simulated(true, 800, seed=2))
    assert sorted(fitted, key=lambda k: fitted[k].rating) == sorted(true, key=true.get)
    mean = sum(f.rating for f in fitted.values()) / 5
    assert mean == pytest.approx(START, abs=1.0)
    for k, f in fitted.items():
        assert f.low < true[k] - 1500 + mean < f.high
        assert f.games > 0


def test_more_games_narrow_the_interval():
    true = {"a": 1500, "b": 1600, "c": 1400}
    few = ratings_fit(results=_simulated(true, 20, seed=3))
    many = ratings_fit(results=_simulated(true, 400, seed=3))
    assert many["a"].high - many["a"].low < (few["a"].high - few["a"].low) / 2


def test_even_results_fit_equal_ratings_at_the_start():
    fitted = ratings_fit(results=[Result("a", "b", 0.5, 2), Result("b", "a", 0.5, 2)])
    assert fitted["a"].rating == pytest.approx(START)
    assert fitted["b"].rating == pytest.approx(START)


def test_an_unbeaten_bot_gets_a_finite_rating_and_anchors_set_the_scale():
    fitted = ratings_fit(results=[Result("x", "y", 1.0, 2)] * 3, pinned={"y": 1000.0})
    assert fitted["y"].rating == 1000.0
    assert (fitted["y"].low, fitted["y"].high) == (1000.0, 1000.0)
    assert 1000.0 < fitted["x"].rating < 2500.0
    assert fitted["x"].low < fitted["x"].rating < fitted["x"].high


def test_a_ladder_without_results_fits_nobody_or_only_its_anchors():
    assert ratings_fit(results=[]) == {}
    fitted = ratings_fit(results=[], pinned={"anchor": 1500.0})
    assert fitted["anchor"].rating == 1500.0 and fitted["anchor"].games == 0


def _posterior_optimum_dense(results, pinned, mean=START):
    """A careful reference: the log-posterior's gradient and full Hessian built per player,
    Newton steps solved by Gaussian elimination with partial pivoting, iterated to 1e-12."""
    import math

    from ladder.ratings import LOG_SCALE, PRIOR_SD

    players = sorted({p for r in results for p in (r.a, r.b)} | set(pinned))
    free = [p for p in players if p not in pinned]
    rating = {p: float(pinned.get(p, mean)) for p in players}
    for _ in range(100):
        grad = {p: -(rating[p] - mean) / PRIOR_SD**2 for p in free}
        hess = {(p, q): (1 / PRIOR_SD**2 if p == q else 0.0) for p in free for q in free}
        for r in results:
            prob = 1 / (1 + math.exp(-LOG_SCALE * (rating[r.a] - rating[r.b])))
            g = LOG_SCALE * r.games * (r.score - prob)
            h = LOG_SCALE**2 * r.games * prob * (1 - prob)
            for p, q, sign in ((r.a, r.b, 1), (r.b, r.a, -1)):
                if p in grad:
                    grad[p] += sign * g
                    hess[p, p] += h
                    if q in grad:
                        hess[p, q] -= h
        rows = [[hess[p, q] for q in free] + [grad[p]] for p in free]
        for c in range(len(free)):
            pivot = max(range(c, len(free)), key=lambda k: abs(rows[k][c]))
            rows[c], rows[pivot] = rows[pivot], rows[c]
            for k in range(len(free)):
                if k != c:
                    f = rows[k][c] / rows[c][c]
                    rows[k] = [x - f * y for x, y in zip(rows[k], rows[c], strict=True)]
        step = [rows[k][-1] / rows[k][k] for k in range(len(free))]
        for p, s in zip(free, step, strict=True):
            rating[p] += s
        if max(map(abs, step), default=0.0) < 1e-12:
            break
    return rating, {p: hess[p, p] for p in free}


@pytest.mark.parametrize("pinned", [{}, {3: 1400.0}], ids=["free", "one anchor"])
def test_fit_agrees_with_a_dense_newton_reference(pinned):
    true = {i: 1200 + 90 * i for i in range(7)}
    results = _simulated(true, 120, seed=5)
    results += [Result(0, 6, 0.0, 4), Result(5, 6, 0.25, 4)]
    want, information = _posterior_optimum_dense(results, pinned)
    fitted = ratings_fit(results=results, pinned=pinned)
    for player, rating in want.items():
        assert fitted[player].rating == pytest.approx(rating, abs=1e-6)
        if player in pinned:
            assert (fitted[player].low, fitted[player].high) == (rating, rating)
        else:  # 95% interval from the diagonal of the observed information
            half = 1.959964 / information[player] ** 0.5
            assert fitted[player].high - rating == pytest.approx(half, rel=1e-6)
            assert rating - fitted[player].low == pytest.approx(half, rel=1e-6)


def test_an_unbeaten_bot_gets_a_finite_rating_above_everyone():
    results = [Result("champ", "x", 1.0, 4)] * 10 + [Result("x", "y", 0.5, 4)] * 10
    fitted = ratings_fit(results=results)
    assert fitted["champ"].rating > fitted["x"].rating + 300
    assert fitted["champ"].high < 4000


def test_a_thousand_bot_ladder_fits_every_bot_with_a_sane_interval():
    rng = random.Random(11)
    true = {i: rng.gauss(1500, 250) for i in range(1000)}
    order = sorted(true, key=true.get)
    results = []
    for _ in range(100_000):  # pairings between near ratings, as the ladder makes them
        k = rng.randrange(1000)
        m = min(999, max(0, k + rng.choice([-1, 1]) * rng.randint(1, 40)))
        a, b = order[k], order[m if m != k else k ^ 1]
        wins = sum(rng.random() < elo_expected(rating_a=true[a], rating_b=true[b])
                   for _ in range(4))
        results.append(Result(a, b, wins / 4, 4))
    fitted = ratings_fit(results=results, pinned={order[500]: true[order[500]]})
    assert set(fitted) == set(true)
    assert sum(f.games for f in fitted.values()) == 2 * 4 * 100_000
    for key, f in fitted.items():
        assert f.low <= f.rating <= f.high
        if key != order[500]:
            assert 10 < f.high - f.low < 300
    errors = sorted(abs(f.rating - true[k]) for k, f in fitted.items())
    assert errors[len(errors) // 2] < 150  # near the truth (errors add up along the pairings)
    top = sorted(fitted, key=lambda k: fitted[k].rating)[-100:]
    assert len(set(top) & set(order[-150:])) > 90
