"""Who plays whom in a tournament of a three-player game (Sergeant Major), as plain functions
(no Django): round robin, Swiss and knockout in matches of three. Players are any hashable
keys (bot version ids on the site, names in the tests). docs/tournaments.md explains the
rules chosen here.

A match of three is a triple (A, B, C); the game rotates the seats inside a match, so the
order of a triple only names the sides.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from itertools import combinations
from math import comb

Triple = tuple[Hashable, Hashable, Hashable]

# Up to this many triples, a round robin plays every triple of the field (each pair then
# meets n - 2 times); above it, a smaller balanced design where each pair meets equally often.
ALL_TRIPLES_MAX = 60
# Backtracking budgets: a search that runs out falls back to a rule that always works.
_DESIGN_NODES = 10_000
# The largest design searched for: tournaments.services refuses a larger round robin.
DESIGN_MATCHES_MAX = 400
_SWISS_NODES = 20_000


# --- Round robin -----------------------------------------------------------------------------

def round_robin_triples(*, entrants: Sequence[Hashable],
                        repeats: int = 1) -> list[list[Triple]]:
    """Rounds of triples in which every pair of entrants meets equally often (`repeats` times
    the design's count) and nobody plays twice in a round; whoever a round cannot place sits
    it out (a bye, unscored: everyone plays the same number of matches). Sides rotate from
    one repeat to the next."""
    n = len(entrants)
    if n < 3:
        return []
    rounds = _rounds_of(balanced_triples(n), n)
    out: list[list[Triple]] = []
    for k in range(repeats):
        for triples in rounds:
            out.append([_rotated(tuple(entrants[i] for i in t), k) for t in triples])
    return out


def _rotated(triple: tuple[Hashable, ...], k: int) -> Triple:
    shift = k % 3
    a, b, c = triple[shift:] + triple[:shift]
    return (a, b, c)


@cache
def balanced_triples(n: int) -> list[tuple[int, int, int]]:
    """_balanced(n), a list of its own for the caller."""
    return list(_balanced(n))


@lru_cache(maxsize=256)
def _balanced(n: int) -> tuple[tuple[int, int, int], ...]:
    """Triples of 0..n-1 in which every pair appears equally often (a 2-design with blocks
    of three): all of them for a small field; else the fewest found among a cyclic design
    (each pair once, or the fewest times the field's size allows: `_cyclic_design`), the
    arithmetic progressions (each pair three times, for an odd field not divisible by 3), and
    all of them. Found once per process: a search that finds nothing takes seconds, and the
    tournament page's progress asks on every view."""
    best = [tuple(t) for t in combinations(range(n), 3)]
    if len(best) <= ALL_TRIPLES_MAX:
        return tuple(best)  # type: ignore[arg-type]
    if n % 2 and n % 3:
        best = _progressions(n)  # type: ignore[assignment]
    for lam in (1, 2, 4):
        # A design needs lam(n-1) even (each player's pairs) and lam n(n-1)/6 whole; one
        # larger than DESIGN_MATCHES_MAX is not looked for (a round robin refused anyway).
        size = lam * n * (n - 1) // 6
        if lam * (n - 1) % 2 or lam * n * (n - 1) % 6 or size >= len(best) \
                or size > DESIGN_MATCHES_MAX:
            continue
        blocks = _cyclic_design(n, lam)
        if blocks is not None:
            return tuple(blocks)
    return tuple(best)  # type: ignore[arg-type]


def _progressions(n: int) -> list[tuple[int, int, int]]:
    """Every {x, x+d, x+2d} mod n (odd n, not divisible by 3): a pair {u, u+e} is two
    neighbours of a progression of step e twice and its ends once (step e/2): three times."""
    return [_develop((0, d, 2 * d), n, x) for d in range(1, (n - 1) // 2 + 1) for x in range(n)]


def _class(d: int, n: int) -> int:
    d %= n
    return min(d, n - d)


def _cyclic_design(n: int, lam: int) -> list[tuple[int, int, int]] | None:
    """Base triples {0, a, b} over the integers mod n whose differences cover every
    difference class exactly `lam` times; each is developed into its n translates (the short
    orbit {0, n/3, 2n/3} into n/3), so every pair meets `lam` times. None if the search
    finds none within its budget."""
    half = n // 2
    need = {d: lam for d in range(1, half + 1)}
    found: list[tuple[int, ...]] = []
    nodes = [0]

    def cover(block: tuple[int, ...]) -> dict[int, int]:
        if block == (0, n // 3, 2 * n // 3) and n % 3 == 0:
            return {n // 3: 1}
        out: dict[int, int] = {}
        for x, y in combinations(block, 2):
            c = _class(y - x, n)
            out[c] = out.get(c, 0) + (2 if n % 2 == 0 and c == half else 1)
        return out

    def search(prev: tuple[int, int]) -> bool:
        nodes[0] += 1
        if nodes[0] > _DESIGN_NODES:
            return False
        open_ = [d for d, k in need.items() if k]
        if not open_:
            return True
        d = open_[-1]  # the largest difference left: the hardest to place
        for x in range(prev[1] if prev[0] == d else 1, n):
            if x == d:
                continue
            block = tuple(sorted((0, d, x)))
            covered = cover(block)
            if any(need.get(c, 0) < k for c, k in covered.items()):
                continue
            for c, k in covered.items():
                need[c] -= k
            found.append(block)
            if search((d, x)):  # the same class next: x only grows (no reordered repeats)
                return True
            found.pop()
            for c, k in covered.items():
                need[c] += k
        return False

    if not search((0, 0)):
        return None
    return [_develop(block, n, i) for block in found for i in range(_orbit(block, n))]


def _orbit(block: tuple[int, ...], n: int) -> int:
    return n // 3 if n % 3 == 0 and block == (0, n // 3, 2 * n // 3) else n


def _develop(block: tuple[int, ...], n: int, i: int) -> tuple[int, int, int]:
    a, b, c = sorted((x + i) % n for x in block)
    return (a, b, c)


def _rounds_of(triples: list[tuple[int, int, int]], n: int) -> list[list[tuple[int, int, int]]]:
    """Triples into rounds, nobody twice in a round: greedily, the triples of the players with
    the most matches left first, so the rounds stay full."""
    left = list(triples)
    remaining = [0] * n
    for t in left:
        for p in t:
            remaining[p] += 1
    rounds = []
    while left:
        left.sort(key=lambda t: -(remaining[t[0]] + remaining[t[1]] + remaining[t[2]]))
        busy: set[int] = set()
        chosen, rest = [], []
        for t in left:
            if busy.isdisjoint(t):
                chosen.append(t)
                busy.update(t)
            else:
                rest.append(t)
        for t in chosen:
            for p in t:
                remaining[p] -= 1
        rounds.append(sorted(chosen))
        left = rest
    return rounds


# --- Swiss ------------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Standing:
    key: Hashable
    points: float
    rating: float = 0.0


def swiss_triples(
    *, standings: Sequence[Standing], played: Iterable[Iterable[Hashable]] = (),
    had_bye: Iterable[Hashable] = (),
) -> tuple[list[Triple], list[Hashable]]:
    """One Swiss round of triples: (triples, byes). Ordered by points then rating, the best
    three meet, then the next three, moved apart only as far as needed so that no triple meets
    again (unless none of the groupings avoids it). The n % 3 lowest entrants that have not
    had a bye yet sit out and score the bye."""
    met = {frozenset(t) for t in played}
    byes_had = set(had_bye)
    order = [s.key for s in sorted(standings, key=lambda s: (-s.points, -s.rating))]
    spare = len(order) % 3
    if len(order) < 3:
        return [], []
    for allow_rematch in (False, True):
        for bye in _bye_choices(order, byes_had, spare):
            rest = [k for k in order if k not in bye]
            triples = _swiss_search(rest, met, allow_rematch, [0])
            if triples is not None:
                return triples, list(bye)
    return [], []


def _bye_choices(order: list[Hashable], had: set[Hashable],
                 spare: int) -> list[tuple[Hashable, ...]]:
    """Who may sit out, best choice first: the lowest without a bye, then anyone from the
    bottom (a few choices: enough when the lowest ones' triples are all used up)."""
    if spare == 0:
        return [()]
    bottom_up = [k for k in reversed(order) if k not in had] + [
        k for k in reversed(order) if k in had]
    return list(combinations(bottom_up[:6], spare))[:10]


def _swiss_search(order: list[Hashable], met: set[frozenset[Hashable]], allow_rematch: bool,
                  nodes: list[int]) -> list[Triple] | None:
    """Group the first unplaced with the two nearest below it that make a new triple."""
    if not order:
        return []
    nodes[0] += 1
    if nodes[0] > _SWISS_NODES and not allow_rematch:
        return None
    first, rest = order[0], order[1:]
    pairs = sorted(combinations(range(len(rest)), 2), key=lambda p: (p[0] + p[1], p))
    for i, j in pairs:
        triple = (first, rest[i], rest[j])
        if not allow_rematch and frozenset(triple) in met:
            continue
        tail = _swiss_search([k for x, k in enumerate(rest) if x not in (i, j)], met,
                             allow_rematch, nodes)
        if tail is not None:
            return [triple, *tail]
    return None


# --- Knockout ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class Group:
    """A place of a knockout round: three players who play a match, `advance` of whom go
    through (1, or 2 in the one group an even field needs), or one player with a bye."""

    members: tuple[Hashable, ...]
    advance: int = 1

    @property
    def bye(self) -> bool:
        return len(self.members) == 1


def _power_of_three_below(m: int) -> int:
    p = 1
    while p * 3 < m:
        p *= 3
    return p


def knockout_groups(*, players: Sequence[Hashable]) -> list[Group]:
    """One knockout round from the players still in, best seed first. A field that is a
    power of three plays in groups of three, each winner going through. Any other field is
    brought down to the power of three below it: the top seeds have byes, the others play in
    groups of three (snake-seeded) whose winner goes through, and when an odd number must go
    out (an even field), one group sends its top two through. Empty when one player is left."""
    m = len(players)
    if m < 2:
        return []
    if m == 2:
        raise ValueError("a knockout of three-player matches cannot be played by two")
    target = m // 3 if _power_of_three_below(m) * 3 == m else _power_of_three_below(m)
    out_needed = m - target
    room = m // 3
    ones = min(out_needed // 2, room)
    twos = min(out_needed - 2 * ones, room - ones)
    groups_count = ones + twos
    byes = m - 3 * groups_count
    playing = list(players[byes:])
    groups = [Group((p,)) for p in players[:byes]]
    for g in range(groups_count):
        members = (playing[g], playing[2 * groups_count - 1 - g], playing[2 * groups_count + g])
        groups.append(Group(members, 2 if g >= ones else 1))
    return groups


def knockout_plan(n: int) -> list[list[Group]]:
    """The shape of a knockout of n players (seeds 0..n-1), round by round, as if the best
    seed of each group went through: how many rounds and matches it will have."""
    rounds = []
    players: list[Hashable] = list(range(n))
    while len(players) > 1:
        groups = knockout_groups(players=players)
        rounds.append(groups)
        players = sorted(p for g in groups for p in sorted(g.members)[:g.advance])  # type: ignore[type-var]
    return rounds


def rounds_total(n: int) -> int:
    """How many triples all triples of a field of n make (for progress and docs)."""
    return comb(n, 3)
