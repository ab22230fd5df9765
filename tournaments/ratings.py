"""Ratings as plain functions: Elo per match, a maximum-likelihood fit over all results.

No Django here on purpose: the site, the benchmarks and the tests call the same code.

Elo: everyone starts at 1500; the expected score of A against B is 1/(1+10^((Rb-Ra)/400));
a match's score is A's share of its games (0..1). A match moves both ratings by the same
amount in opposite directions (zero-sum), with K = 32, or 64 while either side is provisional
(fewer than 20 games), so a newcomer finds its level quickly. An anchor has a pinned rating:
it never moves, which holds the scale still over time (matches against anchors are the only
ones that are not zero-sum, and that is their purpose).

The fitted rating is a Bradley-Terry model on the Elo scale (as BayesElo does): it uses every
game of the ladder at once, so it does not depend on the order of the results, and it comes
with a 95% interval from the curvature of the likelihood.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass

START = 1500.0
K = 32.0
K_PROVISIONAL = 64.0
PROVISIONAL_GAMES = 20
# Elo points per natural-log unit of odds: p = 1/(1+10^(-d/400)) = sigmoid(d * LOG_SCALE).
LOG_SCALE = math.log(10) / 400.0
# The fit's prior: ratings are N(mean, PRIOR_SD^2). Weak, but it keeps an unbeaten bot finite.
PRIOR_SD = 400.0
Z95 = 1.959964


@dataclass(frozen=True, slots=True)
class Result:
    """One match between a and b: `score` is a's share of the `games` games."""

    a: Hashable
    b: Hashable
    score: float
    games: int = 1


@dataclass(frozen=True, slots=True)
class Fitted:
    rating: float
    low: float
    high: float
    games: float


def elo_expected(*, rating_a: float, rating_b: float) -> float:
    """A's expected score against B."""
    return 1.0 / (1.0 + math.pow(10.0, (rating_b - rating_a) / 400.0))


def elo_k(*, games: int) -> float:
    """K for a player with `games` rated games behind it."""
    return K_PROVISIONAL if games < PROVISIONAL_GAMES else K


def elo_is_provisional(*, games: int) -> bool:
    return games < PROVISIONAL_GAMES


def elo_delta(
    *, rating_a: float, rating_b: float, score: float, games_a: int, games_b: int
) -> float:
    """The change to A's rating (B's is its negative). One K per match keeps it zero-sum."""
    if not 0.0 <= score <= 1.0:
        raise ValueError(f"score must be between 0 and 1, not {score}")
    k = max(elo_k(games=games_a), elo_k(games=games_b))
    return k * (score - elo_expected(rating_a=rating_a, rating_b=rating_b))


def elo_changes(
    *,
    rating_a: float,
    rating_b: float,
    score: float,
    games_a: int,
    games_b: int,
    pinned_a: bool = False,
    pinned_b: bool = False,
) -> tuple[float, float]:
    """The changes to A's and B's ratings after one match; a pinned (anchor) rating never moves."""
    delta = elo_delta(
        rating_a=rating_a, rating_b=rating_b, score=score, games_a=games_a, games_b=games_b
    )
    return (0.0 if pinned_a else delta, 0.0 if pinned_b else -delta)


def elo_replay(
    *, results: Iterable[Result], pinned: Mapping[Hashable, float] | None = None
) -> dict[Hashable, tuple[float, int]]:
    """Recompute Elo from the history, in order: {player: (rating, rated games)}.

    `games` counts matches here (the provisional rule counts rated matches, as the site does).
    """
    pinned = pinned or {}
    state: dict[Hashable, tuple[float, int]] = {p: (r, 0) for p, r in pinned.items()}
    for result in results:
        ra, ga = state.get(result.a, (START, 0))
        rb, gb = state.get(result.b, (START, 0))
        da, db = elo_changes(
            rating_a=ra, rating_b=rb, score=result.score, games_a=ga, games_b=gb,
            pinned_a=result.a in pinned, pinned_b=result.b in pinned,
        )
        state[result.a] = (ra + da, ga + 1)
        state[result.b] = (rb + db, gb + 1)
    return state


def _pair_tallies(
    results: Iterable[Result],
) -> tuple[list[Hashable], dict[tuple[int, int], tuple[float, float]]]:
    """Players in first-seen order, and per pair (i < j): (games, i's wins in games)."""
    index: dict[Hashable, int] = {}
    tallies: dict[tuple[int, int], tuple[float, float]] = {}
    for r in results:
        if r.a == r.b or r.games <= 0:
            continue
        i = index.setdefault(r.a, len(index))
        j = index.setdefault(r.b, len(index))
        wins_i = r.score * r.games
        key, wins = ((i, j), wins_i) if i < j else ((j, i), r.games - wins_i)
        n, w = tallies.get(key, (0.0, 0.0))
        tallies[key] = (n + r.games, w + wins)
    return list(index), tallies


def _solve(matrix: list[list[float]], vector: list[float]) -> list[float]:
    """Solve matrix @ x = vector (Gauss-Jordan with partial pivoting; matrix is SPD here)."""
    n = len(vector)
    aug = [row[:] + [vector[i]] for i, row in enumerate(matrix)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(aug[r][col]))
        aug[col], aug[pivot] = aug[pivot], aug[col]
        p = aug[col][col]
        for r in range(n):
            if r != col and aug[r][col] != 0.0:
                f = aug[r][col] / p
                row_r, row_c = aug[r], aug[col]
                for c in range(col, n + 1):
                    row_r[c] -= f * row_c[c]
    return [aug[i][n] / aug[i][i] for i in range(n)]


def _inverse(matrix: list[list[float]]) -> list[list[float]]:
    """matrix^-1 by one Gauss-Jordan pass over [matrix | I]."""
    n = len(matrix)
    aug = [row[:] + [1.0 if k == i else 0.0 for k in range(n)] for i, row in enumerate(matrix)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(aug[r][col]))
        aug[col], aug[pivot] = aug[pivot], aug[col]
        row_c = aug[col]
        p = row_c[col]
        for c in range(2 * n):
            row_c[c] /= p
        for r in range(n):
            f = aug[r][col]
            if r != col and f != 0.0:
                row_r = aug[r]
                for c in range(2 * n):
                    row_r[c] -= f * row_c[c]
    return [row[n:] for row in aug]


def _centred_variances(cov: list[list[float]]) -> list[float]:
    """Variance of each r_i - mean(r): with no anchor only differences are measured, and the
    common level is set by the prior alone, so it must not widen every interval."""
    n = len(cov)
    if n == 0:  # nobody to rate yet (a new ladder without results or anchors)
        return []
    row_means = [sum(row) / n for row in cov]
    grand = sum(row_means) / n
    return [cov[i][i] - 2.0 * row_means[i] + grand for i in range(n)]


def _information(
    ratings: list[float], tallies: dict[tuple[int, int], tuple[float, float]]
) -> tuple[list[float], list[list[float]]]:
    """Gradient of the log-posterior and the information matrix (minus the Hessian)."""
    n = len(ratings)
    grad = [0.0] * n
    info = [[0.0] * n for _ in range(n)]
    for (i, j), (games, wins_i) in tallies.items():
        p = 1.0 / (1.0 + math.exp(-LOG_SCALE * (ratings[i] - ratings[j])))
        g = LOG_SCALE * (wins_i - games * p)
        h = LOG_SCALE * LOG_SCALE * games * p * (1.0 - p)
        grad[i] += g
        grad[j] -= g
        info[i][i] += h
        info[j][j] += h
        info[i][j] -= h
        info[j][i] -= h
    return grad, info


def ratings_fit(
    *,
    results: Iterable[Result],
    pinned: Mapping[Hashable, float] | None = None,
    mean: float = START,
    iterations: int = 50,
) -> dict[Hashable, Fitted]:
    """Maximum a posteriori Bradley-Terry ratings on the Elo scale with 95% intervals.

    Every game counts as one observation (a match's score times its games are A's wins).
    Pinned players (anchors) hold their rating and carry no interval of their own.
    """
    pinned = pinned or {}
    players, tallies = _pair_tallies(results)
    players += [p for p in pinned if p not in players]
    n = len(players)
    ratings = [float(pinned.get(p, mean)) for p in players]
    free_idx = [i for i, p in enumerate(players) if p not in pinned]
    info_free: list[list[float]] = []
    for _ in range(iterations):
        grad, info = _information(ratings, tallies)
        prior = 1.0 / (PRIOR_SD * PRIOR_SD)
        g_free = [grad[i] - (ratings[i] - mean) * prior for i in free_idx]
        info_free = [[info[i][j] for j in free_idx] for i in free_idx]
        for k in range(len(free_idx)):
            info_free[k][k] += prior
        if not free_idx:
            break
        step = _solve(info_free, g_free)
        for k, i in enumerate(free_idx):
            ratings[i] += step[k]
        if max(abs(s) for s in step) < 1e-6:
            break
    cov = _inverse(info_free) if free_idx else []
    variances = [cov[k][k] for k in range(len(cov))] if pinned else _centred_variances(cov)
    var_of = {i: variances[k] for k, i in enumerate(free_idx)}
    played = [0.0] * n
    for (i, j), (games, _) in tallies.items():
        played[i] += games
        played[j] += games
    out = {}
    for i, p in enumerate(players):
        half = Z95 * math.sqrt(var_of[i]) if i in var_of else 0.0
        out[p] = Fitted(rating=ratings[i], low=ratings[i] - half, high=ratings[i] + half,
                        games=played[i])
    return out
