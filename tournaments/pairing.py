"""Who plays whom, as plain functions: the ladder's pairing policy and the tournament formats.

No Django here: the scheduler, the tournament service and the benchmarks call the same code.
Players are any hashable keys (bot version ids on the site, names in the benchmarks).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

# Ladder policy knobs. The opponent is drawn with weight exp(-(gap/SPREAD)^2): most games go to
# close ratings (the informative ones), but EXPLORE of them go to any opponent, so a bot that is
# mis-rated or stuck in a cluster still meets the rest of the field.
SPREAD = 200.0
EXPLORE = 0.2
MAX_PENDING = 2
# A pair that has met SETTLED_MATCHES times has told the ladder what it can (40 games of a
# pair put its score within about +-0.15, some +-110 Elo, at 95%): it is drawn with
# SETTLED_WEIGHT of its weight, and a slot that still draws it is kept with that probability
# only, so a ladder whose pairs are all settled plays a tenth as often as before (each entrant
# gets its draw: bench/ladder_churn.py) instead of replaying known results for ever.
SETTLED_MATCHES = 20
SETTLED_WEIGHT = 0.05


@dataclass(slots=True)
class Entrant:
    """A ladder entrant as the pairing policy sees it."""

    key: Hashable
    rating: float
    games: int = 0  # rated matches played so far
    pending: int = 0  # its matches already queued or running
    recent: tuple[Hashable, ...] = field(default_factory=tuple)  # last opponents, newest last
    # A house bot or a pinned anchor: two of them never meet (their results say nothing new
    # about the bots the ladder is for, and with only house bots it would play for ever).
    house: bool = False
    # Two versions of one owner's bots never meet on the ladder: a deliberate loser could
    # feed its sibling rating (the rule of rated challenges). None: no owner to compare.
    owner: Hashable | None = None


def _first_player(pool: list[Entrant], rng: random.Random) -> Entrant:
    """The entrant with the fewest games (pending ones included): new versions go first, and
    games stay spread evenly. Ties are broken at random so no one is favoured by id."""
    fewest = min(e.games + e.pending for e in pool)
    return rng.choice([e for e in pool if e.games + e.pending == fewest])


def _opponent(first: Entrant, others: list[Entrant], rng: random.Random, explore: float,
              settled: set[Hashable]) -> Entrant:
    """Close ratings first, any opponent now and then; settled pairs seldom either way."""
    weights = []
    exploring = rng.random() < explore
    for e in others:
        w = 1.0 if exploring else math.exp(-(((e.rating - first.rating) / SPREAD) ** 2))
        if not exploring and first.recent and e.key == first.recent[-1]:
            w *= 0.25  # not the same opponent twice in a row when others are close
        if e.key in settled:
            w *= SETTLED_WEIGHT
        weights.append(w + 1e-9)
    return rng.choices(others, weights=weights)[0]


def ladder_pairs(
    *,
    entrants: Sequence[Entrant],
    slots: int,
    rng: random.Random,
    explore: float = EXPLORE,
    max_pending: int = MAX_PENDING,
    met: Callable[[Hashable], Mapping[Hashable, int]] | None = None,
    settled_after: int = SETTLED_MATCHES,
) -> list[tuple[Hashable, Hashable]]:
    """Up to `slots` new ladder pairs (a, b), a != b always, never two house entrants, never
    two entrants of one owner.

    An entrant with `max_pending` matches already waiting or running gets no more, so a slow
    bot cannot fill the queue; the caller decides `slots` (how deep the queue may be).
    `met(key)` counts the matches an entrant has played against each opponent (asked once per
    entrant that is drawn first, so a large ladder is read a few rows at a time): a pair with
    `settled_after` of them is settled, drawn and kept with SETTLED_WEIGHT only.
    """
    pool = [
        Entrant(e.key, e.rating, e.games, e.pending, tuple(e.recent), e.house, e.owner)
        for e in entrants
    ]
    known: dict[Hashable, set[Hashable]] = {}

    def settled_with(key: Hashable) -> set[Hashable]:
        if key not in known:
            counts = met(key) if met is not None else {}
            known[key] = {other for other, n in counts.items() if n >= settled_after}
        return known[key]

    passed: set[Hashable] = set()  # entrants with nobody (left) to meet in this call
    pairs: list[tuple[Hashable, Hashable]] = []
    while len(pairs) < slots:
        free = [e for e in pool if e.pending < max_pending]
        candidates = [e for e in free if e.key not in passed]
        if len(free) < 2 or not candidates:
            break
        first = _first_player(candidates, rng)
        others = [e for e in free if e.key != first.key and not (first.house and e.house)
                  and (first.owner is None or e.owner != first.owner)]
        if not others:
            passed.add(first.key)
            continue
        settled = settled_with(first.key)
        second = _opponent(first, others, rng, explore, settled)
        if second.key in settled and rng.random() >= SETTLED_WEIGHT:
            passed.add(first.key)  # this slot stays empty: settled pairs play rarely
            continue
        pair = (first.key, second.key) if rng.random() < 0.5 else (second.key, first.key)
        pairs.append(pair)
        for e, other in ((first, second), (second, first)):
            e.pending += 1
            e.recent = (*e.recent, other.key)
    return pairs


def round_robin_rounds(
    *, entrants: Sequence[Hashable], repeats: int = 1
) -> list[list[tuple[Hashable, Hashable]]]:
    """Every pair meets `repeats` times; rounds by the circle method (nobody plays twice in a
    round; with an odd count one entrant sits out each round). Sides alternate between
    repeats, so each of a pair's matches is played from both sides equally."""
    players: list[Hashable | None] = list(entrants)
    if len(players) < 2:
        return []
    if len(players) % 2:
        players.append(None)
    n = len(players)
    base: list[list[tuple[Hashable, Hashable]]] = []
    for r in range(n - 1):
        round_pairs = []
        for i in range(n // 2):
            a, b = players[i], players[n - 1 - i]
            if a is not None and b is not None:
                round_pairs.append((a, b) if (r + i) % 2 == 0 else (b, a))
        base.append(round_pairs)
        players = [players[0], players[-1], *players[1:-1]]
    rounds = []
    for k in range(repeats):
        for round_pairs in base:
            rounds.append([(a, b) if k % 2 == 0 else (b, a) for a, b in round_pairs])
    return rounds


@dataclass(frozen=True, slots=True)
class Standing:
    key: Hashable
    points: float
    rating: float = 0.0


def _swiss_search(
    order: list[Hashable], played: set[frozenset[Hashable]], allow_rematch: bool
) -> list[tuple[Hashable, Hashable]] | None:
    """Pair the first unpaired with the nearest in the order it has not met (backtracking)."""
    if not order:
        return []
    first, rest = order[0], order[1:]
    for i, other in enumerate(rest):
        if not allow_rematch and frozenset((first, other)) in played:
            continue
        tail = _swiss_search(rest[:i] + rest[i + 1 :], played, allow_rematch)
        if tail is not None:
            return [(first, other), *tail]
    return None


def swiss_round(
    *,
    standings: Sequence[Standing],
    played: Iterable[tuple[Hashable, Hashable]] = (),
    had_bye: Iterable[Hashable] = (),
) -> tuple[list[tuple[Hashable, Hashable]], Hashable | None]:
    """One Swiss round: (pairs, bye). Ordered by points then rating; neighbours meet, no
    rematches (unless no rematch-free pairing exists at all); with an odd count the lowest
    entrant that has not had a bye yet sits out and scores the bye."""
    met = {frozenset(p) for p in played}
    byes = set(had_bye)
    order = [s.key for s in sorted(standings, key=lambda s: (-s.points, -s.rating))]
    candidates: list[Hashable | None] = [None]
    if len(order) % 2:
        unbyed = [k for k in reversed(order) if k not in byes]
        candidates = unbyed + [k for k in reversed(order) if k in byes]
    for allow_rematch in (False, True):
        for bye in candidates:
            rest = [k for k in order if k != bye]
            pairs = _swiss_search(rest, met, allow_rematch)
            if pairs is not None:
                return pairs, bye
    return [], None


def _seed_order(size: int) -> list[int]:
    """Bracket positions of seeds 1..size (as 0-based seed indices): 1 meets size, 2 meets
    size-1, and the top two can only meet in the final."""
    order = [0]
    while len(order) < size:
        n = len(order) * 2
        order = [x for s in order for x in (s, n - 1 - s)]
    return order


def knockout_first_round(
    *, seeds: Sequence[Hashable]
) -> list[tuple[Hashable | None, Hashable | None]]:
    """Knockout, round one, from entrants best seed first. The bracket is the next
    power of two; the missing places are byes (None), which fall to the top seeds."""
    if len(seeds) < 2:
        return []
    size = 1
    while size < len(seeds):
        size *= 2
    slots = [seeds[i] if i < len(seeds) else None for i in _seed_order(size)]
    return [(slots[i], slots[i + 1]) for i in range(0, size, 2)]


def knockout_next_round(*, winners: Sequence[Hashable]) -> list[tuple[Hashable, Hashable]]:
    """Winners of the previous round, in bracket order, meet their bracket neighbour."""
    return [(winners[i], winners[i + 1]) for i in range(0, len(winners) - 1, 2)]
