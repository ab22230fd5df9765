"""Who plays whom on the ladder, as plain functions (no Django): the scheduler and the
benchmarks call the same code. Players are any hashable keys (bot version ids on the site,
names in the benchmarks). The tournament formats' pairing is tournaments.pairing."""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Hashable, Mapping, Sequence
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
    # feed its sibling rating (the rule of rated challenges). None: no owner to compare
    # (the site gives the house's bots none: each is its own, so they may fill a table).
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


def ladder_triples(
    *,
    entrants: Sequence[Entrant],
    slots: int,
    rng: random.Random,
    explore: float = EXPLORE,
    max_pending: int = MAX_PENDING,
    met: Callable[[Hashable], Mapping[Hashable, int]] | None = None,
    settled_after: int = SETTLED_MATCHES,
) -> list[tuple[Hashable, Hashable, Hashable]]:
    """Up to `slots` new groups of three (a three-player game: Sergeant Major), by the rules of
    ladder_pairs: the entrant with the fewest games first, then two opponents drawn by rating
    closeness to it (now and then any), three different owners, never a group of house
    entrants only, at most `max_pending` matches waiting per entrant. A group whose two
    opponents have both settled their pairs with the first (`met`) is kept with SETTLED_WEIGHT
    only. The order within a group is shuffled (the match rotates the seats anyway)."""
    pool = [Entrant(e.key, e.rating, e.games, e.pending, tuple(e.recent), e.house, e.owner)
            for e in entrants]

    def settled_with(key: Hashable) -> set[Hashable]:
        counts = met(key) if met is not None else {}
        return {other for other, n in counts.items() if n >= settled_after}

    passed: set[Hashable] = set()
    groups: list[tuple[Hashable, Hashable, Hashable]] = []
    while len(groups) < slots:
        free = [e for e in pool if e.pending < max_pending]
        candidates = [e for e in free if e.key not in passed]
        if len(free) < 3 or not candidates:
            break
        first = _first_player(candidates, rng)
        group = [first]
        settled = settled_with(first.key)
        for _ in range(2):
            others = [e for e in free if all(_may_join(e, g) for g in group)]
            if len(group) == 2 and all(g.house for g in group):
                others = [e for e in others if not e.house]
            if not others:
                break
            group.append(_opponent(first, others, rng, explore, settled))
        if len(group) < 3 or (all(g.key in settled for g in group[1:])
                              and rng.random() >= SETTLED_WEIGHT):
            passed.add(first.key)
            continue
        rng.shuffle(group)
        groups.append((group[0].key, group[1].key, group[2].key))
        for e in group:
            e.pending += 1
            e.recent = (*e.recent, *(g.key for g in group if g is not e))
    return groups


def _may_join(candidate: Entrant, member: Entrant) -> bool:
    """May `candidate` sit at a table with `member`: another entrant, of another owner."""
    return candidate.key != member.key and (member.owner is None
                                            or candidate.owner != member.owner)
