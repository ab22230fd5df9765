"""How fast does the Sergeant Major ladder find the truth? bench/rating_convergence.py for
three-player matches.

    .venv/bin/python bench/sm_rating_convergence.py --seeds 30 --jobs 2

A pool of 6 players of known order (best first): the game's greedy, greedy playing at random
a growing share of the time, and random. No database, no worker.

1. A table of real matches (the ladder's: 952-six-hands, three games over the same deals, the
   seats rotated): every group of three plays `--matches-a-group` matches, each kept as every
   player's points and its ups and downs, cached in a JSON file.
2. Simulated ladders: groups chosen by the ladder's pairing (ladder.pairing.ladder_groups, by
   rating closeness as before issue 35 or by information, the site's), a match drawn from the
   table, rated by the site's Elo for three players and its fit, under a rule: `points`, each
   pair scored by its share of the two players' points (before issue 35), or `ups`, the
   site's (ladder.ratings.pairwise_scores with the ups: UPS_WEIGHT, UPS_SCALE). Two of the
   players share an owner (they never sit at one table).

It prints one match's separation for neighbours in the true order (how far a pair's outcome
stands from an even one, in its standard deviations, and how often both took no points), the
mean Kendall tau by matches a bot, the matches a bot to a mean tau >= 0.9, and the fairness.
`--ups` measures other UPS_WEIGHTxUPS_SCALE.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Hashable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from rating_convergence import CHECKPOINTS, Run, kendall_tau, report  # noqa: E402

from engine.builtin import BuiltinFactory, RandomPlayer  # noqa: E402
from engine.sergeant_major.match import run_match  # noqa: E402
from engine.sergeant_major.players import SMGreedyPlayer  # noqa: E402
from engine.sergeant_major.rules import get_rules  # noqa: E402
from ladder import pairing, ratings  # noqa: E402

NOISE_LEVELS = (0.0, 0.1, 0.25, 0.45, 0.7)
RULES = "952-six-hands"
# One match of a group, in the group's order: each player's points and ups.
Played = tuple[list[float], list[float]]
Table = dict[tuple[str, ...], list[Played]]
Rule = Callable[[dict[Hashable, float], dict[Hashable, float]], dict[str, Any]]


class NoisySMGreedy(SMGreedyPlayer):
    """The game's greedy that plays a uniformly random legal action with probability noise."""

    def __init__(self, noise: float = 0.0) -> None:
        super().__init__()
        self.noise = noise

    def act(self, state: Any, legal: Sequence[Any]) -> Any:
        if self.rng.random() < self.noise:
            return legal[self.rng.randrange(len(legal))]
        return super().act(state, legal)


def pool() -> list[str]:
    """The players, best first: the true order."""
    return [*[f"sm-greedy-{n * 100:g}%" if n else "sm-greedy" for n in NOISE_LEVELS],
            "sm-random"]


def owners(players: Sequence[str]) -> dict[str, str]:
    """The first and the fifth player share an owner: they never sit at one table."""
    return {p: f"owner-{i % (len(players) - 2)}" for i, p in enumerate(players)}


def factory(name: str) -> BuiltinFactory:
    if name == "sm-random":
        return BuiltinFactory(name, "1", RandomPlayer, {})
    noise = float(name.removeprefix("sm-greedy-").removesuffix("%")) / 100 if "%" in name else 0.0
    return BuiltinFactory(name, "1", NoisySMGreedy, {"noise": noise})


def play_group(task: tuple[tuple[str, ...], str, int]) -> tuple[tuple[str, ...], list[Played]]:
    """`count` matches of a group; its players take turns as side A."""
    group, seed, count = task
    rules = get_rules(RULES)
    out = []
    for k in range(count):
        turn = k % 3
        seated = group[turn:] + group[:turn]
        result = run_match([factory(p) for p in seated], games=3, seed=f"{seed}/{k}",
                           rules=rules)["result"]
        by_name = {p: side for p, side in zip(seated, "ABC", strict=True)}
        out.append(([result["points"][by_name[p]] for p in group],
                    [result["ups"][by_name[p]] for p in group]))
    return group, out


def outcome_table(players: list[str], *, per_group: int, seed: str, jobs: int,
                  cache: Path) -> Table:
    signature = f"sm/{seed}/{per_group}/{','.join(players)}"
    if cache.exists():
        stored = json.loads(cache.read_text())
        if stored.get("signature") == signature:
            return {tuple(k.split("|")): [(x[0], x[1]) for x in v]
                    for k, v in stored["table"].items()}
    tasks = [(g, f"{seed}/{start}", min(25, per_group - start))
             for g in itertools.combinations(players, 3) for start in range(0, per_group, 25)]
    table: Table = {}
    began = time.time()
    with ProcessPoolExecutor(max_workers=jobs) as executor:
        for group, out in executor.map(play_group, tasks):
            table.setdefault(group, []).extend(out)
    print(f"outcome table: {sum(len(v) for v in table.values())} matches played in "
          f"{time.time() - began:.0f} s", flush=True)
    cache.write_text(json.dumps({"signature": signature,
                                 "table": {"|".join(g): v for g, v in table.items()}}))
    return table


def rules(grid: Sequence[tuple[float, float]]) -> dict[str, tuple[float, float]]:
    """Each rule as (ups weight, ups scale): `points` (0: the rule before issue 35), `ups`
    (the site's), and `ups@W/S` asked for."""
    out = {"points": (0.0, 1.0), "ups": (ratings.UPS_WEIGHT, ratings.UPS_SCALE)}
    for weight, scale in grid:
        out[f"ups@{weight:g}/{scale:g}"] = (weight, scale)
    return out


def pair_outcomes(played: Played, group: Sequence[str], rule: tuple[float, float]
                  ) -> dict[tuple[str, str], float]:
    points = dict(zip(group, played[0], strict=True))
    ups = dict(zip(group, played[1], strict=True))
    return {(x, y): s for x, y, s in ratings.pairwise_scores(
        points, ups, ups_weight=rule[0], ups_scale=rule[1])}  # type: ignore[misc]


def print_separation(players: list[str], table: Table,
                     by_name: dict[str, tuple[float, float]]) -> None:
    print("\none match's separation for neighbours in the true order, (mean outcome - 1/2) / "
          "its standard deviation, over every match of the two:")
    print(f"{'pair':<30}" + "".join(f"{n:>14}" for n in by_name) + "  both took no points")
    for a, b in zip(players, players[1:], strict=False):
        cells, both_zero, count = [], 0, 0
        for name, rule in by_name.items():
            outcomes = []
            for group, matches in table.items():
                if a in group and b in group:
                    for m in matches:
                        outcomes.append(pair_outcomes(m, group, rule)[(a, b)])
                        if name == "points":
                            i, j = group.index(a), group.index(b)
                            both_zero += m[0][i] == 0 and m[0][j] == 0
                            count += 1
            sd = statistics.pstdev(outcomes) or math.nan
            cells.append(f"{(statistics.fmean(outcomes) - 0.5) / sd:>14.2f}")
        print(f"{a + ' v ' + b:<30}" + "".join(cells) + f"  {both_zero / count:>6.0%} of {count}")


@dataclass
class Ladder:
    players: list[str]
    owner: dict[str, str]
    elo: dict[Hashable, float]
    matches: dict[Hashable, int]
    recent: dict[Hashable, tuple[Hashable, ...]]
    results: list[ratings.MultiResult] = field(default_factory=list)
    met: dict[tuple[Hashable, Hashable], int] = field(default_factory=dict)
    same_owner: int = 0

    @classmethod
    def new(cls, players: list[str]) -> Ladder:
        return cls(players, owners(players), {p: ratings.START for p in players},
                   {p: 0 for p in players}, {p: () for p in players})

    def next_group(self, policy: str, rng: random.Random) -> tuple[Hashable, ...]:
        entrants = [pairing.Entrant(key=p, rating=self.elo[p], games=self.matches[p],
                                    recent=self.recent[p], owner=self.owner[p])
                    for p in self.players]
        by = "rating" if policy == "rating" else "information"
        met = lambda key: {o: self.met.get((key, o), 0) for o in self.players}  # noqa: E731
        while True:  # a slot left empty (settled pairs): the site's next tick draws again
            drawn = pairing.ladder_groups(size=3, entrants=entrants, slots=1, rng=rng, met=met,
                                          by=by)
            if drawn:
                return drawn[0]

    def record(self, points: dict[Hashable, float], ups: dict[Hashable, float] | None,
               rule: tuple[float, float]) -> None:
        scores = {(x, y): s for x, y, s in ratings.pairwise_scores(
            points, ups, ups_weight=rule[0], ups_scale=rule[1])}
        changes = dict.fromkeys(points, 0.0)
        for (x, y), score in scores.items():
            delta = 0.5 * ratings.elo_delta(rating_a=self.elo[x], rating_b=self.elo[y],
                                            score=score, played_a=self.matches[x],
                                            played_b=self.matches[y])
            changes[x] += delta
            changes[y] -= delta
        for p, change in changes.items():
            self.elo[p] += change
            self.matches[p] += 1
            others = tuple(o for o in points if o != p)
            self.recent[p] = (*self.recent[p], *others)[-3:]
            for o in others:
                self.met[(p, o)] = self.met.get((p, o), 0) + 1
        self.same_owner += len({self.owner[str(p)] for p in points}) < len(points)
        self.results.extend(ratings.Result(x, y, s, 3) for (x, y), s in scores.items())

    def fitted(self) -> dict[Hashable, float]:
        fit = ratings.ratings_fit(results=self.results)
        return {p: fit[p].rating if p in fit else ratings.START for p in self.players}


def run_ladder(players: list[str], table: Table, policy: str, rule: tuple[float, float],
               horizon: int, seed: int) -> Run:
    rng = random.Random(f"sm-ladder/{policy}/{seed}")
    ladder = Ladder.new(players)
    elo, fit = [], []
    checkpoints = {math.ceil(c * len(players) / 3): c for c in CHECKPOINTS if c <= horizon}
    total = max(checkpoints)
    for n in range(1, total + 1):
        group = tuple(sorted(ladder.next_group(policy, rng), key=players.index))
        played = rng.choice(table[group])  # type: ignore[index]
        ladder.record(dict(zip(group, played[0], strict=True)),
                      dict(zip(group, played[1], strict=True)), rule)
        if n in checkpoints:
            elo.append(kendall_tau(players, ladder.elo))
            fit.append(kendall_tau(players, ladder.fitted()))
    counts = list(ladder.matches.values())
    return Run(elo, fit, min(counts) / statistics.fmean(counts), ladder.same_owner, total)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=30, help="simulated ladders per config")
    parser.add_argument("--matches", type=int, default=60, help="matches a bot per ladder")
    parser.add_argument("--matches-a-group", type=int, default=100,
                        help="table: matches of each group of three")
    parser.add_argument("--seed", default="sm-convergence")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--pairings", default="rating,info")
    parser.add_argument("--ups", default="", help="also these UPS_WEIGHTxUPS_SCALE, e.g. 1x10")
    parser.add_argument("--table", type=Path,
                        default=Path(tempfile.gettempdir()) / "sm-convergence-table.json")
    args = parser.parse_args()
    players = pool()
    table = outcome_table(players, per_group=args.matches_a_group, seed=args.seed,
                          jobs=args.jobs, cache=args.table)
    grid = [(float(w), float(s)) for w, s in
            (item.split("x") for item in args.ups.split(",") if item.strip())]
    by_name = rules(grid)
    print_separation(players, table, by_name)
    configs = [(p, r) for p in args.pairings.split(",") for r in by_name]
    results: dict[tuple[str, str], list[Run]] = {c: [] for c in configs}
    for seed in range(args.seeds):
        for policy, rule in configs:
            results[(policy, rule)].append(
                run_ladder(players, table, policy, by_name[rule], args.matches, seed))
    report(players, results, args.matches, per_match=3)


if __name__ == "__main__":
    main()
