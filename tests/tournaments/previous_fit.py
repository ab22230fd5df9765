"""The fit as it was before it was vectorised: ladder/ratings.py's pure-Python ratings_fit of
commit b6e58f3, copied unchanged but for its name (previous_ratings_fit) and imports. It is the
oracle of tests/tournaments/test_fit_vectorised.py, which checks that the vectorised fit gives
its answers; the site never runs it."""

from __future__ import annotations

import math
import operator
from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass

from ladder.ratings import (
    LOG_SCALE,
    PRIOR_SD,
    START,
    Z95,
    Fitted,
    MultiResult,
    Result,
    elo_replay,
    pairwise_results,
)

# The largest Newton step (Elo points) the fit takes at once, far from the optimum.
MAX_STEP = 400.0


def _as_pairs(results: Iterable[Result | MultiResult]) -> list[Result]:
    """Two-player results as they are, a multi-player one as its pairs (pairwise_results)."""
    out: list[Result] = []
    for r in results:
        if isinstance(r, MultiResult):
            out += pairwise_results(points=r.points, games=r.games, ups=r.ups)
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


def previous_ratings_fit(
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
