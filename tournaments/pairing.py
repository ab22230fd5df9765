"""Who plays whom in a tournament, as plain functions (no Django): round robin, Swiss and
knockout. Players are any hashable keys (bot version ids on the site, names in the
benchmarks)."""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass


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
    played: Iterable[Sequence[Hashable]] = (),
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
