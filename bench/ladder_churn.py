#!/usr/bin/env python
"""How many matches the ladder's pairing policy makes, with and without the rules against churn.

The policy alone (tournaments/pairing.py, no Django, no matches played): every tick fills the
queue as the beat does (`--depth` slots) and each pair made "plays" at once (its count goes
up). Two ladders:

  house     the house bots (random, greedy, mc) with greedy pinned: before the rules they
            played each other every tick (the issue's 17,000 matches in 27 minutes)
  field     the house bots and `--bots` bots of users: how many matches a tick, at the start
            and once the pairs have met KAISER_LADDER_PAIR_SETTLED times

Prints matches per tick per ladder, old policy (no house flag, no meetings) against new.
Usage:
    .venv/bin/python bench/ladder_churn.py [--ticks 3000] [--depth 4] [--bots 6] [--seed 1]
"""

from __future__ import annotations

import argparse
import random
import sys
from collections import Counter
from collections.abc import Hashable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ladder.pairing import SETTLED_MATCHES, Entrant, ladder_groups  # noqa: E402


def _run(entrants: list[Entrant], ticks: int, depth: int, seed: int, rules: bool
         ) -> list[int]:
    """Matches made each tick."""
    rng = random.Random(seed)
    met: dict[Hashable, Counter[Hashable]] = {e.key: Counter() for e in entrants}
    games: Counter[Hashable] = Counter()
    made = []
    for _ in range(ticks):
        pool = [Entrant(e.key, e.rating, games[e.key], house=rules and e.house)
                for e in entrants]
        pairs = ladder_groups(size=2, entrants=pool, slots=depth, rng=rng,
                             met=met.__getitem__ if rules else None)
        for a, b in pairs:
            met[a][b] += 1
            met[b][a] += 1
            games[a] += 1
            games[b] += 1
        made.append(len(pairs))
    return made


def _per_tick(made: list[int], start: int, end: int) -> float:
    window = made[start:end]
    return sum(window) / max(1, len(window))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--ticks", type=int, default=3000)
    parser.add_argument("--depth", type=int, default=4)
    parser.add_argument("--bots", type=int, default=6)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    house = [Entrant("random", 1300, house=True), Entrant("greedy", 1500, house=True),
             Entrant("mc", 1750, house=True)]
    field = house + [Entrant(f"user{i}", 1400 + 50 * i) for i in range(args.bots)]
    pairs = len(field) * (len(field) - 1) // 2 - 3
    print(f"{args.ticks} ticks of {args.depth} slots; a pair is settled after "
          f"{SETTLED_MATCHES} matches; field: {len(field)} entrants, {pairs} playable pairs")
    for name, entrants in (("house", house), ("field", field)):
        for rules in (False, True):
            made = _run(entrants, args.ticks, args.depth, args.seed, rules)
            label = "new" if rules else "old"
            print(f"{name:6} {label}: {sum(made):6} matches; per tick: first 100 "
                  f"{_per_tick(made, 0, 100):.2f}, last 1000 "
                  f"{_per_tick(made, len(made) - 1000, len(made)):.2f}")


if __name__ == "__main__":
    main()
