"""Ratings as plain functions: Elo per match, a maximum-likelihood fit over all results.

No Django here on purpose: the site, the benchmarks and the tests call the same code.

Elo: everyone starts at 1500; the expected score of A against B is 1/(1+10^((Rb-Ra)/400));
a match's score is A's outcome (0..1): from its boards (match_outcome), or its share of the
games won for a forfeit. A match moves both ratings by the same
amount in opposite directions (zero-sum), with K = 32, or 64 while either side is provisional
(fewer than 20 games), so a newcomer finds its level quickly. An anchor has a pinned rating:
it never moves, which holds the scale still over time (matches against anchors are the only
ones that are not zero-sum, and that is their purpose).

A three-player match (Sergeant Major) is rated as its three pairwise outcomes
(`elo_changes_multi`): for each pair X, Y of the match, X's actual score is read from the
two players' ups and downs (`pairwise_scores`; without them, points_X / (points_X + points_Y),
0.5 when both took none) and its expected score is Elo's;
each player's change is the sum over its two pairs, each with K halved (divided by its
opponents, `elo_changes_pairwise`, which rates a match of any number of players), so that
one three-player match moves a rating about as much as one two-player match. The fit counts each
pair of a three-player match as a result with the match's games (`pairwise_results`).

The fitted rating is a Bradley-Terry model on the Elo scale (as BayesElo does): it uses every
game of the ladder at once, so it does not depend on the order of the results, and it comes
with a 95% interval from the curvature of the likelihood. It reads the results added up per
pair (`Tallies`), which a ladder keeps as its matches are rated (ladder.models.PairTally), and
its arithmetic is vectorised in ladder.bradley_terry (numpy and scipy, loaded only by a fit).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

START = 1500.0
K = 32.0
K_PROVISIONAL = 64.0
PROVISIONAL_GAMES = 20
# Elo points per natural-log unit of odds: p = 1/(1+10^(-d/400)) = sigmoid(d * LOG_SCALE).
LOG_SCALE = math.log(10) / 400.0
# The fit's prior: ratings are N(mean, PRIOR_SD^2). Weak, but it keeps an unbeaten bot finite.
PRIOR_SD = 400.0
Z95 = 1.959964


# A duplicate match's outcome from its boards (match_outcome): each board's swing (points A
# gained over B with the same cards) damped on an IMP-like scale, imps(s) = IMP_POINTS *
# log(1 + |s| / IMP_POINTS) with the swing's sign (about linear under IMP_POINTS, a log above
# it: one wild board cannot decide a match), the match's imps summed and squashed,
# 1 / (1 + exp(-imps / OUTCOME_IMPS)), and that averaged with the share of games won
# (GAMES_WEIGHT). All three chosen by measurement (bench/rating_convergence.py,
# docs/ratings.md).
IMP_POINTS = 20.0
OUTCOME_IMPS = 20.0
# The share of the outcome that is still the games won (the rest is the boards').
GAMES_WEIGHT = 0.5


def board_imps(swing: float, *, imp_points: float = IMP_POINTS) -> float:
    """A board's swing on the damped scale (see IMP_POINTS); math.inf: no damping."""
    if math.isinf(imp_points):
        return float(swing)
    return math.copysign(imp_points * math.log1p(abs(swing) / imp_points), swing)


def match_outcome(*, swings: Sequence[float], games_score: float, forfeit: bool = False,
                  imp_points: float = IMP_POINTS, outcome_imps: float = OUTCOME_IMPS,
                  games_weight: float = GAMES_WEIGHT) -> float:
    """A's actual score in [0, 1] for the ratings, from the swings of the boards both tables
    played to the end. A forfeit, or a match with no such board (a game played alone, a
    fault in the first deal), falls back to `games_score`, A's share of the games won."""
    if forfeit or not swings:
        return games_score
    imps = sum(board_imps(s, imp_points=imp_points) for s in swings)
    boards = 0.5 + 0.5 * math.tanh(imps / (2.0 * outcome_imps))  # the logistic, overflow-free
    return boards if not games_weight else games_weight * games_score + (
        1.0 - games_weight) * boards


def board_swings(boards: Iterable[Mapping[str, object]] | None) -> list[float]:
    """The swings of a match's stored boards (engine.kaiser.boards.board_comparison) that both
    tables played to the end."""
    return [float(b["swing"]) for b in boards or ()  # type: ignore[arg-type]
            if b.get("status") == "both" and b.get("swing") is not None]


@dataclass(frozen=True, slots=True)
class Result:
    """One match between a and b: `score` is a's share of the `games` games."""

    a: Hashable
    b: Hashable
    score: float
    games: int = 1


# A multi-player pair's outcome also reads the two players' ups and downs where their game
# gives them (Sergeant Major: tricks above or below their targets, every hand of the match):
# UPS_WEIGHT of it is 1 / (1 + exp(-(ups_x - ups_y) / scale)), the rest the share of the
# points, `scale` the game's unit (engine.games.Game.ups_scale: 10 for Sergeant Major, chosen
# by measurement, bench/sm_rating_convergence.py and docs/ratings.md; 0 for a game whose ups
# are not rated). Points go to game winners only, so two weak bots often both take none;
# their ups still say which did better with the same cards. UPS_SCALE: the unit where none is
# given (Sergeant Major's); the site passes each game's own.
UPS_WEIGHT = 1.0
UPS_SCALE = 10.0


@dataclass(frozen=True, slots=True)
class MultiResult:
    """One match of three (or more) players: each player's points of the `games` games, and
    its ups and downs over every hand (None for a match stored without them)."""

    points: Mapping[Hashable, float]
    games: int = 1
    ups: Mapping[Hashable, float] | None = None
    ups_scale: float = UPS_SCALE  # its game's (engine.games.Game.ups_scale)


@dataclass(frozen=True, slots=True)
class Fitted:
    rating: float
    low: float
    high: float
    games: float


def leaderboard_order(entries: Sequence[tuple[Any, Hashable, float]],
                      fitted: Mapping[Hashable, Fitted]) -> list[Any]:
    """The leaderboard's order, as pages and the API show it (issue 43), of (entry, rated
    player, Elo) rows: the entries' keys by fitted rating, highest first; those the last fit
    has not seen yet after them, by Elo; ties by the entry's key. A provisional bot is marked,
    not moved: the fit's interval already weighs how little it has played.
    bench/rating_convergence.py measures this very order."""
    def key(row: tuple[Any, Hashable, float]) -> tuple[int, float, Any]:
        fit = fitted.get(row[1])
        return (0, -fit.rating, row[0]) if fit is not None else (1, -row[2], row[0])
    return [row[0] for row in sorted(entries, key=key)]


def elo_expected(*, rating_a: float, rating_b: float) -> float:
    """A's expected score against B."""
    return 1.0 / (1.0 + math.pow(10.0, (rating_b - rating_a) / 400.0))


def elo_k(*, games: int) -> float:
    """K for a player with `games` rated games behind it."""
    return K_PROVISIONAL if games < PROVISIONAL_GAMES else K


def elo_is_provisional(*, games: int) -> bool:
    return games < PROVISIONAL_GAMES


def elo_delta(
    *, rating_a: float, rating_b: float, score: float, played_a: int, played_b: int
) -> float:
    """The change to A's rating (B's is its negative). One K per match keeps it zero-sum."""
    if not 0.0 <= score <= 1.0:
        raise ValueError(f"score must be between 0 and 1, not {score}")
    k = max(elo_k(games=played_a), elo_k(games=played_b))
    return k * (score - elo_expected(rating_a=rating_a, rating_b=rating_b))


def elo_changes(
    *,
    rating_a: float,
    rating_b: float,
    score: float,
    played_a: int,
    played_b: int,
    pinned_a: bool = False,
    pinned_b: bool = False,
) -> tuple[float, float]:
    """The changes to A's and B's ratings after one match; a pinned (anchor) rating never moves."""
    delta = elo_delta(
        rating_a=rating_a, rating_b=rating_b, score=score, played_a=played_a, played_b=played_b
    )
    return (0.0 if pinned_a else delta, 0.0 if pinned_b else -delta)



def pairwise_scores(points: Mapping[Hashable, float], ups: Mapping[Hashable, float] | None = None,
                    *, ups_weight: float = UPS_WEIGHT, ups_scale: float = UPS_SCALE
                    ) -> list[tuple[Hashable, Hashable, float]]:
    """Each pair (x, y) of a multi-player result, in the given order, with x's actual score
    against y: its share of the two players' points (0.5 when neither took any), and with the
    players' `ups`, that share's (1 - ups_weight) plus ups_weight of the logistic of x's ups
    above y's (`ups_scale` a unit: the game's; 0 reads no ups)."""
    players = list(points)
    out = []
    for i, x in enumerate(players):
        for y in players[i + 1:]:
            both = points[x] + points[y]
            share = 0.5 if both <= 0 else points[x] / both
            if ups is not None and ups_weight and ups_scale > 0:
                gap = (float(ups[x]) - float(ups[y])) / ups_scale
                share = (1.0 - ups_weight) * share + ups_weight * (0.5 + 0.5 * math.tanh(gap / 2))
            out.append((x, y, share))
    return out


def elo_changes_pairwise(
    *,
    ratings: Mapping[Hashable, float],
    games: Mapping[Hashable, int],
    pairs: Iterable[tuple[Hashable, Hashable, float]],
    pinned: Iterable[Hashable] = (),
) -> dict[Hashable, float]:
    """The rating changes of one match of any number of players (the keys of `ratings`),
    rated as its pairwise outcomes `pairs` (x, y, x's actual score against y): each pair's
    Elo change (elo_delta, K the larger of the two players') divided by the number of
    opponents each player has, so that one match moves a rating about as much whatever the
    number of players; a player's change is the sum over its pairs. For two players this is
    elo_changes. Zero-sum over the unpinned players unless an anchor is among them."""
    fixed = set(pinned)
    opponents = max(1, len(ratings) - 1)
    changes = dict.fromkeys(ratings, 0.0)
    for x, y, score in pairs:
        delta = elo_delta(rating_a=ratings[x], rating_b=ratings[y], score=score,
                          played_a=games[x], played_b=games[y]) / opponents
        changes[x] += delta
        changes[y] -= delta
    return {p: (0.0 if p in fixed else change) for p, change in changes.items()}


def elo_changes_multi(
    *,
    ratings: Mapping[Hashable, float],
    points: Mapping[Hashable, float],
    games: Mapping[Hashable, int],
    pinned: Iterable[Hashable] = (),
    ups: Mapping[Hashable, float] | None = None,
) -> dict[Hashable, float]:
    """The rating changes of a match of three (or more) players from their points (and ups):
    elo_changes_pairwise over pairwise_scores."""
    return elo_changes_pairwise(ratings=ratings, games=games, pinned=pinned,
                                pairs=pairwise_scores(points, ups))


def pairwise_results(*, points: Mapping[Hashable, float], games: int,
                     ups: Mapping[Hashable, float] | None = None,
                     ups_scale: float = UPS_SCALE) -> list[Result]:
    """A multi-player match as two-player Results (one per pair), for the fit."""
    return [Result(a=x, b=y, score=score, games=games)
            for x, y, score in pairwise_scores(points, ups, ups_scale=ups_scale)]


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
            rating_a=ra, rating_b=rb, score=result.score, played_a=ga, played_b=gb,
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
                                pinned=[p for p in result.points if p in pinned], ups=result.ups)
    for p, (r, g) in now.items():
        state[p] = (r + changes[p], g + 1)


def _as_pairs(results: Iterable[Result | MultiResult]) -> Iterator[Result]:
    """Two-player results as they are, a multi-player one as its pairs (pairwise_results)."""
    for r in results:
        if isinstance(r, MultiResult):
            yield from pairwise_results(points=r.points, games=r.games, ups=r.ups,
                                        ups_scale=r.ups_scale)
        else:
            yield r


@dataclass(frozen=True)
class Tallies:
    """The results added up per pair of players: all that the fit reads. Pair k is
    players[a[k]] against players[b[k]] (indices into players, a[k] != b[k], each pair once):
    games[k] games in all, of which players[a[k]] won wins[k] (a fraction where a match's
    score or a three-player match's points were shared). The columns are lists, or numpy
    arrays where a ladder's are read from its table (ladder.selectors.ladder_tallies)."""

    players: Sequence[Hashable]
    a: Sequence[int]
    b: Sequence[int]
    games: Sequence[float]
    wins: Sequence[float]


def pair_tallies(results: Iterable[Result | MultiResult]) -> Tallies:
    """The results tallied per pair, the players in first-seen order. A three-player match
    counts as its three pairs, each with the match's games; a result of a player against
    itself, or of no games, says nothing and is left out."""
    index: dict[Hashable, int] = {}
    tallies: dict[tuple[int, int], list[float]] = {}
    for r in _as_pairs(results):
        if r.a == r.b or r.games <= 0:
            continue
        i = index.setdefault(r.a, len(index))
        j = index.setdefault(r.b, len(index))
        wins_i = r.score * r.games
        key, wins = ((i, j), wins_i) if i < j else ((j, i), r.games - wins_i)
        tally = tallies.setdefault(key, [0.0, 0.0])
        tally[0] += r.games
        tally[1] += wins
    return Tallies(players=list(index), a=[i for i, _ in tallies], b=[j for _, j in tallies],
                   games=[n for n, _ in tallies.values()], wins=[w for _, w in tallies.values()])


# The fit stops when no rating would move by more than this many Elo points.
FIT_TOLERANCE = 1e-6


def ratings_fit(
    *,
    results: Iterable[Result | MultiResult] | None = None,
    tallies: Tallies | None = None,
    pinned: Mapping[Hashable, float] | None = None,
    start: Mapping[Hashable, float] | None = None,
    mean: float = START,
    iterations: int = 50,
) -> dict[Hashable, Fitted]:
    """Maximum a posteriori Bradley-Terry ratings on the Elo scale with 95% intervals, from
    the `results` or from their `tallies` per pair (pair_tallies; a ladder keeps its own,
    ladder.models.PairTally).

    Every game counts as one observation (a match's score times its games are A's wins); a
    three-player match counts as its three pairs, each with the match's games.
    Pinned players (anchors) hold their rating and carry no interval of their own.

    How, and what it costs: Newton's method from `start` (a ladder's Elo; the prior's mean
    for a player it does not name), with a line search far from the optimum, each step solved
    by preconditioned conjugate gradients (ladder.bradley_terry). Every operation is a
    vectorised pass over the pairs, and no matrix over all players is built dense or
    factorised: 10,000 bots and 367,000 pairs (a million matches) take a few tenths of a
    second (docs/scale.md). It stops when no rating would move by more than FIT_TOLERANCE,
    so any start gives the same answer.

    The interval is +-1.96 / sqrt(I_ii), from the diagonal of the observed Fisher information
    (with the prior): I_ii = sum_j n_ij p_ij (1 - p_ij) (on the Elo scale, times LOG_SCALE^2)
    + 1/PRIOR_SD^2. That is the uncertainty of a player's rating with its opponents' ratings
    taken as known: close to the full inverse's (centred) interval when the opponents are many
    and well measured, narrower when they are few or themselves uncertain (a sparse ladder).
    """
    from ladder import bradley_terry  # numpy and scipy: loaded by the processes that fit

    pinned = pinned or {}
    tallied = tallies if tallies is not None else pair_tallies(results or ())
    known = set(tallied.players)
    players = [*tallied.players, *(p for p in pinned if p not in known)]
    begin = start or {}
    mode = bradley_terry.posterior_mode(
        a=tallied.a, b=tallied.b, games=tallied.games, wins=tallied.wins,
        rating=[float(pinned[p]) if p in pinned else float(begin.get(p, mean))
                for p in players],
        free=[p not in pinned for p in players], mean=mean, prior_sd=PRIOR_SD,
        log_scale=LOG_SCALE, iterations=iterations, tolerance=FIT_TOLERANCE)
    out = {}
    for p, rating, information, games in zip(players, mode.rating, mode.information,
                                             mode.games, strict=True):
        half = 0.0 if p in pinned else Z95 / math.sqrt(information)
        out[p] = Fitted(rating=rating, low=rating - half, high=rating + half, games=games)
    return out
