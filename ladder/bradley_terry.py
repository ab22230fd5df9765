"""The fitted rating's arithmetic (ladder.ratings.ratings_fit): the mode of a Bradley-Terry
posterior over per-pair tallies, by Newton's method, vectorised.

Arrays in, arrays out: nothing of Django or of the ladder here. numpy does the per-pair work
(np.bincount sums each pair's terms onto its two players). scipy holds the information matrix
as a sparse matrix, solves each Newton step by its conjugate gradients, and gives the
preconditioner its graph orderings (reverse Cuthill-McKee, connected components) and its
sparse LU. Why scipy and not numpy alone: its sparse product is one pass in C, 0.44 ms at
367,000 pairs where the same product in numpy (gathers and bincounts) took 2.2 ms, and with
the preconditioner a fit of 10,000 bots needs about 90 such products instead of 400
(bench/scale_sim.py; docs/scale.md).

Only ladder.ratings imports this module, inside ratings_fit: every process of the site imports
ladder.ratings (the models' defaults), few of them fit, and numpy with scipy take 0.3 s and
some 40 MB to load.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.sparse import csc_matrix, csr_matrix
from scipy.sparse.csgraph import connected_components, reverse_cuthill_mckee
from scipy.sparse.linalg import LinearOperator, cg, splu

# A full Newton step can overshoot far from the optimum: there the step is halved until the
# log-posterior rises by at least this fraction of what its slope promises (Armijo's rule).
ARMIJO = 1e-4
# Far from the optimum, a Newton step can ask a rating to move by tens of thousands of points
# along a flat ridge of the posterior: no step moves one by more than this many of the prior's
# standard deviations (2,000 Elo points; the cut that took fewest steps at 10,000 bots).
LONGEST_STEP = 5.0
# Within this many Elo points of the optimum the full step is taken unchecked: a probability
# moves by under 0.6% there, and a change in a sum of a million log-likelihood terms is
# smaller than the sum's own rounding.
UNCHECKED_STEP = 1.0
# The conjugate gradients' relative residual: FIRST_TOLERANCE at the start (a step that far
# out needs no precision), then falling with the gradient's norm, never below SOLVE_TOLERANCE.
FIRST_TOLERANCE = 0.1
SOLVE_TOLERANCE = 1e-10
# The preconditioner's coarse groups (_groups): runs of this many players, or more to make at
# most RUNS runs; each run's connected parts a group.
RUN = 64
RUNS = 256


@dataclass(frozen=True)
class Mode:
    """The posterior's mode: each player's rating, the diagonal of the information matrix
    there (the prior's included), and the games each played."""

    rating: list[float]
    information: list[float]
    games: list[float]


@dataclass(slots=True)
class _Posterior:
    """The log-posterior at some ratings, as Newton's method needs it: the gradient by player,
    each pair's weight in the information matrix (log_scale^2 n p (1 - p)), and what its value
    is computed from when the line search asks (_Fit.value, which keeps it): each pair's
    log-odds, each free player's distance from the prior's mean."""

    gradient: np.ndarray
    weight: np.ndarray
    odds: np.ndarray
    away: np.ndarray
    value: float | None = None


def posterior_mode(*, a: Sequence[int], b: Sequence[int], games: Sequence[float],
                   wins: Sequence[float], rating: Sequence[float], free: Sequence[bool],
                   mean: float, prior_sd: float, log_scale: float, iterations: int,
                   tolerance: float) -> Mode:
    """The mode of the posterior of ratings (one a player, indices 0..len(rating) - 1) given
    pair k: players a[k] and b[k] played games[k] games and a[k] won wins[k] of them, where
    a game is won with probability 1 / (1 + exp(-log_scale (r_a - r_b))) and each free
    player's rating has the prior N(mean, prior_sd^2). A player not `free` keeps its rating.
    Newton's method from `rating` (_Fit.maximise), until no rating would move by more than
    `tolerance`."""
    fit = _Fit(a, b, games, wins, free, mean, prior_sd, log_scale)
    ratings = np.array(rating, dtype=float)
    ratings, posterior = fit.maximise(ratings, iterations, tolerance)
    played = fit.per_player(fit.games)
    return Mode(ratings.tolist(), (fit.per_player(posterior.weight) + fit.prior).tolist(),
                played.tolist())


def _groups(graph: csr_matrix, first: np.ndarray,
            second: np.ndarray) -> tuple[np.ndarray, int]:
    """The preconditioner's coarse groups of the players (newton_step): runs of RUN players
    in reverse Cuthill-McKee's order of the pairings' graph, which keeps players who meet
    near each other (a ladder pairs near ratings: its graph is long and thin). A run can
    still join players far apart (a breadth-first level goes both ways round a loop), so each
    run's connected parts are the groups, unless that makes more than 2 * RUNS (a graph
    without a long shape, where the runs are as good as any grouping). The group of each
    player, and how many groups."""
    size = graph.shape[0]
    walk = reverse_cuthill_mckee(graph, symmetric_mode=True) if size else []
    run = np.empty(size, dtype=np.intp)
    run[walk] = np.arange(size) // max(RUN, -(-size // RUNS))
    inside = run[first] == run[second]
    parts, part = connected_components(csr_matrix(
        (np.ones(int(inside.sum())), (first[inside], second[inside])), shape=graph.shape),
        directed=False)
    if parts <= 2 * RUNS:
        return part.astype(np.intp), int(parts)
    return run, int(run.max(initial=-1)) + 1


class _Fit:
    """One ladder's tallies as arrays, and the information matrix's pattern over the free
    players, built once: each Newton step only refills its values."""

    def __init__(self, a: Sequence[int], b: Sequence[int], games: Sequence[float],
                 wins: Sequence[float], free: Sequence[bool], mean: float, prior_sd: float,
                 log_scale: float) -> None:
        self.a, self.b = np.asarray(a, dtype=np.intp), np.asarray(b, dtype=np.intp)
        self.games, self.wins = np.asarray(games, dtype=float), np.asarray(wins, dtype=float)
        self.free = np.asarray(free, dtype=bool)
        self.mean, self.prior, self.scale = mean, 1.0 / (prior_sd * prior_sd), log_scale
        self.longest = LONGEST_STEP * prior_sd
        # The pairs of two free players, both ways, as a sparse matrix over the free players
        # (the information matrix's off-diagonal part): built once, its values refilled by
        # each Newton step from the pairs' weights (`entries`: the pair of each value).
        position = np.cumsum(self.free) - 1
        self.coupled = np.flatnonzero(self.free[self.a] & self.free[self.b])
        first, second = position[self.a[self.coupled]], position[self.b[self.coupled]]
        rows = np.concatenate([first, second])
        order = np.argsort(rows, kind="stable")
        self.entries = np.concatenate([self.coupled, self.coupled])[order]
        size = int(self.free.sum())
        starts = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=size))])
        self.coupling = csr_matrix((np.ones(len(rows)), np.concatenate([second, first])[order],
                                    starts), shape=(size, size))
        self.group, self.groups = _groups(self.coupling, first, second)
        self.group_cells = self.group * (self.groups + 1)  # each player's diagonal cell
        self.pair_cells = self.group[first] * self.groups + self.group[second]

    def per_player(self, per_pair: np.ndarray) -> np.ndarray:
        """Each pair's value added to both of its players."""
        n = len(self.free)
        return np.bincount(self.a, per_pair, n) + np.bincount(self.b, per_pair, n)

    def posterior(self, rating: np.ndarray) -> _Posterior:
        n = len(rating)
        odds = self.scale * (rating[self.a] - rating[self.b])
        p = 0.5 + 0.5 * np.tanh(0.5 * odds)  # a's chance in a game: the logistic, overflow-free
        surplus = self.wins - self.games * p  # a's wins above the expected
        away = np.where(self.free, rating - self.mean, 0.0)
        gradient = (self.scale * (np.bincount(self.a, surplus, n)
                                  - np.bincount(self.b, surplus, n)) - self.prior * away)
        weight = self.scale * self.scale * self.games * p * (1.0 - p)
        return _Posterior(gradient, weight, odds, away)

    def value(self, posterior: _Posterior) -> float:
        """The log-posterior (up to a constant): sum over pairs of w log p + (n - w) log(1 - p),
        which is w x - n log(1 + e^x) in the log-odds x, less the prior's penalty."""
        if posterior.value is None:
            odds, away = posterior.odds, posterior.away
            softplus = np.maximum(odds, 0.0) + np.log1p(np.exp(-np.abs(odds)))
            posterior.value = (float(self.wins @ odds) - float(self.games @ softplus)
                               - 0.5 * self.prior * float(away @ away))
        return posterior.value

    def newton_step(self, posterior: _Posterior, tolerance: float) -> np.ndarray:
        """Solve information @ step = gradient over the free players by conjugate gradients to
        `tolerance` (relative residual): each product is one pass over the pairs. The
        preconditioner has two levels: the diagonal (Jacobi), plus an exact solve of the
        problem coarsened to groups of players (_groups; the information summed over each pair
        of groups, at most 2 * RUNS of them, factorised by a sparse LU). The diagonal alone
        leaves the slow, smooth errors along a ladder's long chain of near ratings: 216
        rounds for one solve at 10,000 bots, where the groups, which take those out at once,
        need 24."""
        diagonal = (self.per_player(posterior.weight) + self.prior)[self.free]
        self.coupling.data[:] = posterior.weight[self.entries]
        m, group, coupling = self.groups, self.group, self.coupling
        between = np.bincount(self.pair_cells, posterior.weight[self.coupled], m * m)
        between = between.reshape(m, m)
        coarse = splu(csc_matrix(np.bincount(self.group_cells, diagonal, m * m).reshape(m, m)
                                 - between - between.T))
        size = len(diagonal)
        information = LinearOperator((size, size), dtype=float,
                                     matvec=lambda x: diagonal * x - coupling @ x)
        two_level = LinearOperator((size, size), dtype=float, matvec=lambda r: (
            r / diagonal + coarse.solve(np.bincount(group, r, m))[group]))
        step, _ = cg(information, posterior.gradient[self.free], rtol=tolerance, atol=0.0,
                     M=two_level, maxiter=10 * size + 10)
        return np.asarray(step)

    def maximise(self, rating: np.ndarray, iterations: int,
                 tolerance: float) -> tuple[np.ndarray, _Posterior]:
        """Newton's method with a line search (`ascend`), each step's solve as loose as the
        gradient allows (inexact Newton: the tolerance falls with the gradient's norm)."""
        posterior = self.posterior(rating)
        first = 0.0
        for _ in range(iterations):
            gradient = posterior.gradient[self.free]
            if not gradient.size or self.settled(gradient, tolerance):
                break
            norm = float(np.sqrt(gradient @ gradient))
            first = first or norm
            step = self.newton_step(posterior, max(SOLVE_TOLERANCE,
                                                   FIRST_TOLERANCE * min(1.0, norm / first)))
            rating, posterior, moved = self.ascend(rating, posterior, step)
            if moved <= tolerance:
                break
        return rating, posterior

    def settled(self, gradient: np.ndarray, tolerance: float) -> bool:
        """No Newton step from here would move a rating by more than `tolerance`, without
        solving for it: the information matrix over the free players is a weighted graph
        Laplacian plus at least the prior on its diagonal, each row summing to at least the
        prior, so its inverse's largest row sum is at most prior_sd^2 and no entry of
        information^-1 @ gradient exceeds prior_sd^2 times the gradient's largest."""
        return float(np.abs(gradient).max()) <= tolerance * self.prior

    def ascend(self, rating: np.ndarray, posterior: _Posterior,
               step: np.ndarray) -> tuple[np.ndarray, _Posterior, float]:
        """Take the step, cut to move no rating by more than LONGEST_STEP prior deviations,
        then halved while it is long and raises the log-posterior by less than Armijo's
        fraction of its promise. The new ratings, their posterior, the farthest any rating
        moved."""
        slope = float(posterior.gradient[self.free] @ step)
        longest = float(np.abs(step).max())
        fraction = min(1.0, self.longest / longest) if longest > 0 else 1.0
        while True:
            moved = rating.copy()
            moved[self.free] += fraction * step
            trial = self.posterior(moved)
            if (longest * fraction <= UNCHECKED_STEP or self.value(trial)
                    >= self.value(posterior) + ARMIJO * fraction * slope):
                return moved, trial, longest * fraction
            fraction /= 2
