"""Ratings as plain functions: Elo per match, a maximum-likelihood fit over all results.

No Django here on purpose: the site, the benchmarks and the tests call the same code.

Elo: everyone starts at 1500; the expected score of A against B is 1/(1+10^((Rb-Ra)/400));
a match's score is A's share of its games (0..1). A match moves both ratings by the same
amount in opposite directions (zero-sum), with K = 32, or 64 while either side is provisional
(fewer than 20 games), so a newcomer finds its level quickly. An anchor has a pinned rating:
it never moves, which holds the scale still over time (matches against anchors are the only
ones that are not zero-sum, and that is their purpose).

A three-player match (Sergeant Major) is rated as its three pairwise outcomes
(`elo_changes_multi`): for each pair X, Y of the match, X's actual score is
points_X / (points_X + points_Y) (0.5 when both took none) and its expected score is Elo's;
each player's change is the sum over its two pairs, each with K halved, so that one
three-player match moves a rating about as much as one two-player match. The fit counts each
pair of a three-player match as a result with the match's games (`pairwise_results`).

The fitted rating is a Bradley-Terry model on the Elo scale (as BayesElo does): it uses every
game of the ladder at once, so it does not depend on the order of the results, and it comes
with a 95% interval from the curvature of the likelihood.
"""

from __future__ import annotations

import math
import operator
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
# The largest Newton step (Elo points) the fit takes at once, far from the optimum.
MAX_STEP = 400.0


@dataclass(frozen=True, slots=True)
class Result:
    """One match between a and b: `score` is a's share of the `games` games."""

    a: Hashable
    b: Hashable
    score: float
    games: int = 1


@dataclass(frozen=True, slots=True)
class MultiResult:
    """One match of three (or more) players: each player's points of the `games` games."""

    points: Mapping[Hashable, float]
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


def pairwise_scores(points: Mapping[Hashable, float]) -> list[tuple[Hashable, Hashable, float]]:
    """Each pair (x, y) of a multi-player result, in the given order, with x's actual score
    against y: its share of the two players' points, 0.5 when neither took any."""
    players = list(points)
    out = []
    for i, x in enumerate(players):
        for y in players[i + 1:]:
            both = points[x] + points[y]
            out.append((x, y, 0.5 if both <= 0 else points[x] / both))
    return out


def elo_changes_multi(
    *,
    ratings: Mapping[Hashable, float],
    points: Mapping[Hashable, float],
    games: Mapping[Hashable, int],
    pinned: Iterable[Hashable] = (),
) -> dict[Hashable, float]:
    """The rating changes of a match of three (or more) players, rated as pairwise outcomes:
    each pair with K halved (K per pair as for two players: the larger of the two players'),
    a player's change the sum over its pairs. Zero-sum over the unpinned players unless an
    anchor is among them, as for two players."""
    fixed = set(pinned)
    changes = dict.fromkeys(points, 0.0)
    for x, y, score in pairwise_scores(points):
        delta = 0.5 * elo_delta(rating_a=ratings[x], rating_b=ratings[y], score=score,
                                games_a=games[x], games_b=games[y])
        changes[x] += delta
        changes[y] -= delta
    return {p: (0.0 if p in fixed else change) for p, change in changes.items()}


def pairwise_results(*, points: Mapping[Hashable, float], games: int) -> list[Result]:
    """A multi-player match as two-player Results (one per pair), for the fit."""
    return [Result(a=x, b=y, score=score, games=games)
            for x, y, score in pairwise_scores(points)]


def elo_replay(
    *, results: Iterable[Result | MultiResult], pinned: Mapping[Hashable, float] | None = None
) -> dict[Hashable, tuple[float, int]]:
    """Recompute Elo from the history, in order: {player: (rating, rated games)}.

    `games` counts matches here (the provisional rule counts rated matches, as the site does).
    """
    pinned = pinned or {}
    state: dict[Hashable, tuple[float, int]] = {p: (r, 0) for p, r in pinned.items()}
    for result in results:
        if isinstance(result, MultiResult):
            _replay_multi(state, result, pinned)
            continue
        ra, ga = state.get(result.a, (START, 0))
        rb, gb = state.get(result.b, (START, 0))
        da, db = elo_changes(
            rating_a=ra, rating_b=rb, score=result.score, games_a=ga, games_b=gb,
            pinned_a=result.a in pinned, pinned_b=result.b in pinned,
        )
        state[result.a] = (ra + da, ga + 1)
        state[result.b] = (rb + db, gb + 1)
    return state


def _replay_multi(state: dict[Hashable, tuple[float, int]], result: MultiResult,
                  pinned: Mapping[Hashable, float]) -> None:
    now = {p: state.get(p, (START, 0)) for p in result.points}
    changes = elo_changes_multi(ratings={p: r for p, (r, _) in now.items()},
                                points=result.points, games={p: g for p, (_, g) in now.items()},
                                pinned=[p for p in result.points if p in pinned])
    for p, (r, g) in now.items():
        state[p] = (r + changes[p], g + 1)


def _as_pairs(results: Iterable[Result | MultiResult]) -> list[Result]:
    """Two-player results as they are, a multi-player one as its pairs (pairwise_results)."""
    out: list[Result] = []
    for r in results:
        if isinstance(r, MultiResult):
            out += pairwise_results(points=r.points, games=r.games)
        else:
            out.append(r)
    return out


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


def _dot(a: Iterable[float], b: Iterable[float]) -> float:
    return float(sum(map(operator.mul, a, b)))


@dataclass(slots=True)
class _Graph:
    """Per-pair tallies as adjacency lists: each player's opponents, games against each, wins."""

    opponents: list[list[int]]
    games: list[list[float]]
    wins: list[float]
    played: list[float]


def _graph(n: int, tallies: dict[tuple[int, int], tuple[float, float]]) -> _Graph:
    graph = _Graph([[] for _ in range(n)], [[] for _ in range(n)], [0.0] * n, [0.0] * n)
    for (i, j), (games, wins_i) in tallies.items():
        graph.opponents[i].append(j)
        graph.opponents[j].append(i)
        graph.games[i].append(games)
        graph.games[j].append(games)
        graph.wins[i] += wins_i
        graph.wins[j] += games - wins_i
        graph.played[i] += games
        graph.played[j] += games
    return graph


@dataclass(slots=True)
class _System:
    """The Newton system at the current ratings, over the free players only: gradient of the
    log-posterior, the information's diagonal, and each row's off-diagonal weights (toward
    free opponents at positions `coupled`)."""

    grad: list[float]
    diag: list[float]
    off: list[list[float]]
    coupled: list[list[int]]


def _system(ratings: list[float], graph: _Graph, free: list[int], coupled: list[list[int]],
            entries: list[list[int]], mean: float) -> _System:
    prior = 1.0 / (PRIOR_SD * PRIOR_SD)
    scale, scale2, exp = LOG_SCALE, LOG_SCALE * LOG_SCALE, math.exp
    grad, diag, off = [], [], []
    for k, i in enumerate(free):
        r_i = ratings[i]
        ps = [1.0 / (1.0 + exp(scale * (ratings[j] - r_i))) for j in graph.opponents[i]]
        hs = [scale2 * n * p * (1.0 - p) for n, p in zip(graph.games[i], ps, strict=True)]
        grad.append(scale * (graph.wins[i] - _dot(graph.games[i], ps)) - (r_i - mean) * prior)
        diag.append(sum(hs) + prior)
        off.append([hs[m] for m in entries[k]])
    return _System(grad, diag, off, coupled)


def _times(system: _System, x: list[float]) -> list[float]:
    """The information matrix times x: O(pairs), no matrix is ever built."""
    at = x.__getitem__
    return [d * x_k - _dot(o, map(at, nb))
            for d, x_k, o, nb in zip(system.diag, x, system.off, system.coupled, strict=True)]


def _newton_step(system: _System, tolerance: float = 1e-10) -> list[float]:
    """Solve information @ step = gradient by conjugate gradients, preconditioned by the
    diagonal: each round is one O(pairs) product, and a few dozen rounds reach `tolerance`
    (relative residual) even on a ladder whose pairings form a long chain of near ratings."""
    b, diag = system.grad, system.diag
    x = [0.0] * len(b)
    residual = list(b)
    z = [r / d for r, d in zip(residual, diag, strict=True)]
    direction = list(z)
    rz = _dot(residual, z)
    stop = tolerance * tolerance * _dot(b, b)
    for _ in range(10 * len(b) + 10):
        if _dot(residual, residual) <= stop:
            break
        product = _times(system, direction)
        alpha = rz / _dot(direction, product)
        x = [x_k + alpha * p_k for x_k, p_k in zip(x, direction, strict=True)]
        residual = [r - alpha * q for r, q in zip(residual, product, strict=True)]
        z = [r / d for r, d in zip(residual, diag, strict=True)]
        rz, rz_old = _dot(residual, z), rz
        direction = [z_k + (rz / rz_old) * p_k for z_k, p_k in zip(z, direction, strict=True)]
    return x


def ratings_fit(
    *,
    results: Iterable[Result | MultiResult],
    pinned: Mapping[Hashable, float] | None = None,
    mean: float = START,
    iterations: int = 50,
) -> dict[Hashable, Fitted]:
    """Maximum a posteriori Bradley-Terry ratings on the Elo scale with 95% intervals.

    Every game counts as one observation (a match's score times its games are A's wins); a
    three-player match counts as its three pairs, each with the match's games.
    Pinned players (anchors) hold their rating and carry no interval of their own.

    How, and what it costs: the results are first tallied per pair (games, wins), then
    Newton's method runs from the Elo replay's ratings, each step solved by diagonally
    preconditioned conjugate gradients, so every operation is O(pairs) and no matrix is built
    or inverted (1,000 bots and 100,000 matches fit in seconds in pure Python, where the dense
    solve took cubic time). It converges to the same optimum as a dense Newton solve.

    The interval is +-1.96 / sqrt(I_ii), from the diagonal of the observed Fisher information
    (with the prior): I_ii = sum_j n_ij p_ij (1 - p_ij) (on the Elo scale, times LOG_SCALE^2)
    + 1/PRIOR_SD^2. That is the uncertainty of a player's rating with its opponents' ratings
    taken as known: close to the full inverse's (centred) interval when the opponents are many
    and well measured, narrower when they are few or themselves uncertain (a sparse ladder).
    """
    pinned = pinned or {}
    results = list(results)
    players, tallies = _pair_tallies(_as_pairs(results))
    players += [p for p in pinned if p not in players]
    graph = _graph(len(players), tallies)
    start = elo_replay(results=results, pinned=pinned)  # a good start: few Newton steps
    ratings = [float(pinned.get(p, start.get(p, (mean, 0))[0])) for p in players]
    free = [i for i, p in enumerate(players) if p not in pinned]
    position = {i: k for k, i in enumerate(free)}
    entries = [[m for m, j in enumerate(graph.opponents[i]) if j in position] for i in free]
    coupled = [[position[graph.opponents[i][m]] for m in ms]
               for i, ms in zip(free, entries, strict=True)]
    system = _System([], [], [], coupled)
    for _ in range(iterations):
        system = _system(ratings, graph, free, coupled, entries, mean)
        if not free:
            break
        step = _newton_step(system)
        biggest = max(map(abs, step))
        if biggest > MAX_STEP:  # far from the optimum: damp the step to stay in the basin
            step = [s * MAX_STEP / biggest for s in step]
        for k, i in enumerate(free):
            ratings[i] += step[k]
        if biggest < 1e-6:
            break
    else:
        system = _system(ratings, graph, free, coupled, entries, mean)
    out = {}
    for i, p in enumerate(players):
        at = position.get(i)
        half = 0.0 if at is None else Z95 / math.sqrt(system.diag[at])
        out[p] = Fitted(rating=ratings[i], low=ratings[i] - half, high=ratings[i] + half,
                        games=graph.played[i])
    return out
