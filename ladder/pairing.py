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


# Pairing by information (the site's rule, issue 35; `by="rating"` is the rule above, kept for
# bench/rating_convergence.py). The opponent is drawn with weight
#     exp(-gap^2 / (2 (s_a^2 + s_b^2))) / (1 + matches the two have played)
# where s(games) = max(SETTLED_SIGMA, NEW_SIGMA / sqrt(1 + games)) stands for how far a rating
# with that many matches behind it may be from the truth: a result tells most where the two
# ratings' intervals overlap (the order of the two is in doubt) and where the pair has met
# least. A new version's wide interval overlaps everyone, so it meets the whole field at once
# and is placed quickly; settled ratings meet their neighbours, each of them in turn.
NEW_SIGMA = 400.0


SETTLED_SIGMA = 70.0


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


def uncertainty(games: int) -> float:
    """How far (in Elo points) a rating with `games` rated matches may be from the truth."""
    return max(SETTLED_SIGMA, NEW_SIGMA / math.sqrt(1.0 + games))


def _closeness(first: Entrant, other: Entrant, met: int, by: str) -> float:
    """The weight of `other` as `first`'s opponent, before exploration and settled pairs."""
    gap = other.rating - first.rating
    if by == "rating":
        return math.exp(-((gap / SPREAD) ** 2))
    spread = uncertainty(first.games) ** 2 + uncertainty(other.games) ** 2
    return math.exp(-gap * gap / (2.0 * spread)) / (1.0 + met)


def _opponent(first: Entrant, others: list[Entrant], rng: random.Random, explore: float,
              met: Mapping[Hashable, int], settled_after: int, by: str) -> Entrant:
    """By information (or close ratings: `by`), any opponent now and then; settled pairs
    (`met` at least `settled_after` times) seldom either way."""
    weights = []
    exploring = rng.random() < explore
    for e in others:
        w = 1.0 if exploring else _closeness(first, e, met.get(e.key, 0), by)
        if not exploring and first.recent and e.key == first.recent[-1]:
            w *= 0.25  # not the same opponent twice in a row when others are close
        if met.get(e.key, 0) >= settled_after:
            w *= SETTLED_WEIGHT
        weights.append(w + 1e-9)
    return rng.choices(others, weights=weights)[0]


def ladder_groups(
    *,
    size: int,
    entrants: Sequence[Entrant],
    slots: int,
    rng: random.Random,
    explore: float = EXPLORE,
    max_pending: int = MAX_PENDING,
    met: Callable[[Hashable], Mapping[Hashable, int]] | None = None,
    settled_after: int = SETTLED_MATCHES,
    by: str = "information",
) -> list[tuple[Hashable, ...]]:
    """Up to `slots` new ladder matches, each a group of `size` different entrants (the game's
    players: a pair for Kaiser, three for Sergeant Major), of different owners, never a group
    of house entrants only.

    The entrant with the fewest games comes first; each opponent is drawn by what a result
    against it would tell (`by="information"`: NEW_SIGMA, the fewer matches met(key) counts
    between them the likelier; now and then, `explore`, any), or by closeness of rating alone
    (`by="rating"`: SPREAD, the rule before issue 35), and not the same opponent twice in a
    row when others are close. An entrant with `max_pending` matches already waiting or
    running gets no more, so a slow bot cannot fill the queue; the caller decides `slots` (how
    deep the queue may be). `met(key)` is asked once per entrant drawn first, so a large
    ladder is read a few rows at a time. A group whose opponents have all settled their pairs
    with the first (`settled_after` matches) is kept with SETTLED_WEIGHT only. The order
    within a group is random (a coin for a pair, as it always was, so that seeded schedules
    stay what they were; a shuffle for more)."""
    pool = [Entrant(e.key, e.rating, e.games, e.pending, tuple(e.recent), e.house, e.owner)
            for e in entrants]
    known: dict[Hashable, Mapping[Hashable, int]] = {}

    def met_by(key: Hashable) -> Mapping[Hashable, int]:
        if key not in known:
            known[key] = met(key) if met is not None else {}
        return known[key]

    passed: set[Hashable] = set()  # entrants with nobody (left) to meet in this call
    groups: list[tuple[Hashable, ...]] = []
    while len(groups) < slots:
        free = [e for e in pool if e.pending < max_pending]
        candidates = [e for e in free if e.key not in passed]
        if len(free) < size or not candidates:
            break
        first = _first_player(candidates, rng)
        counts = met_by(first.key)
        group = _group_drawn(first, free, size, rng, explore, counts, settled_after, by)
        if len(group) < size or (
                all(counts.get(g.key, 0) >= settled_after for g in group[1:])
                and rng.random() >= SETTLED_WEIGHT):
            passed.add(first.key)  # this slot stays empty: settled groups play rarely
            continue
        if size == 2:
            group = group if rng.random() < 0.5 else group[::-1]
        else:
            rng.shuffle(group)
        groups.append(tuple(e.key for e in group))
        for e in group:
            e.pending += 1
            e.recent = (*e.recent, *(g.key for g in group if g is not e))
    return groups


def _group_drawn(first: Entrant, free: list[Entrant], size: int, rng: random.Random,
                 explore: float, counts: Mapping[Hashable, int], settled_after: int,
                 by: str) -> list[Entrant]:
    """`first` and up to size - 1 opponents drawn for it from `free` (fewer if none is left
    that may join: another entrant of another owner, not making a group of house entrants)."""
    group = [first]
    while len(group) < size:
        others = [e for e in free if all(_may_join(e, g) for g in group)]
        if len(group) == size - 1 and all(g.house for g in group):
            others = [e for e in others if not e.house]
        if not others:
            break
        group.append(_opponent(first, others, rng, explore, counts, settled_after, by))
    return group


def _may_join(candidate: Entrant, member: Entrant) -> bool:
    """May `candidate` sit at a table with `member`: another entrant, of another owner."""
    return candidate.key != member.key and (member.owner is None
                                            or candidate.owner != member.owner)
