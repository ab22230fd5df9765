"""What a partner guessing at random gets right: the binomial figures the fair-play tests
hold a channel's reading against (issue 41)."""

from __future__ import annotations

import math


def chance_of_at_least(right: int, tried: int, chance: float) -> float:
    """The probability that a guesser right with probability `chance` each time gets `right`
    or more of `tried` (a one-sided binomial test's p)."""
    return sum(_term(k, tried, chance) for k in range(right, tried + 1))


def chance_interval(tried: int, chance: float, level: float = 0.95) -> tuple[int, int]:
    """The counts right that a random guesser reaches with probability `level`: the central
    binomial interval, (1 - level) / 2 left out on each side."""
    tail = (1 - level) / 2
    below = 0.0
    low = high = None
    for k in range(tried + 1):
        below += _term(k, tried, chance)
        if low is None and below > tail:
            low = k
        if high is None and below >= 1 - tail:
            high = k
            break
    assert low is not None and high is not None
    return low, high


def _term(k: int, n: int, p: float) -> float:
    return math.comb(n, k) * p ** k * (1 - p) ** (n - k)
