"""How fast does the ladder find the truth? Kendall tau between the leaderboard and a known order.

    .venv/bin/python bench/rating_convergence.py --seeds 30 --matches 400 --jobs 2

A pool of players of known order (best first): builtin:mc (at reduced effort, to keep the
table affordable), builtin:greedy, greedy that plays a random legal action with a growing
probability (engine.strength), and builtin:random. No database, no worker.

1. A table of real match outcomes: every pair of players plays `--pairs` duplicate pairs (two
   games on the same deals, seats swapped; `--mc-pairs` for pairs involving mc, which is slow),
   cached in a JSON file so later runs reuse it.
2. Simulated ladders: matches are chosen by the site's pairing policy
   (tournaments.pairing.ladder_pairs) or uniformly at random, each outcome drawn from the table
   for that pair (a whole duplicate pair, or one of its games alone), rated by the site's Elo
   (tournaments.ratings.elo_changes, one update per match as the site does) and by the site's
   fitted ratings (tournaments.ratings.ratings_fit). After each checkpoint the leaderboard
   (by Elo, as the site orders it, and by the fit) is compared with the true order.

It prints the mean tau per checkpoint for each configuration, then how many matches (and games)
each needs: the first checkpoint at which the mean tau over seeds is >= 0.9, and the median over
seeds of the match count from which tau stays >= 0.9 to the end of the run.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Hashable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.builtin import BuiltinFactory, RandomPlayer  # noqa: E402
from engine.match import run_match  # noqa: E402
from engine.mc import MCPlayer  # noqa: E402
from engine.strength import NoisyGreedyPlayer  # noqa: E402
from ladder import pairing, ratings

MC_EFFORT = 0.2
NOISE_LEVELS = (0.0, 0.04, 0.08, 0.15, 0.25, 0.4, 0.6)
CHECKPOINTS = (10, 20, 30, 40, 50, 60, 80, 100, 125, 150, 200, 250, 300, 400, 500, 600, 800)
TARGET_TAU = 0.9
CONFIGS = (("site", "pair"), ("uniform", "pair"), ("site", "game"), ("uniform", "game"))
Config = tuple[str, str]


def pool() -> list[str]:
    """The players, best first: this is the true order."""
    return ["mc", *[f"greedy-{n * 100:g}%" if n else "greedy" for n in NOISE_LEVELS], "random"]


def factory(name: str) -> BuiltinFactory:
    if name == "mc":
        return BuiltinFactory(name, "1", MCPlayer, {"effort": MC_EFFORT})
    if name == "random":
        return BuiltinFactory(name, "1", RandomPlayer, {})
    noise = float(name.removeprefix("greedy-").removesuffix("%") or 0) / 100 if "-" in name else 0.0
    return BuiltinFactory(name, "1", NoisyGreedyPlayer, {"noise": noise})


# --- 1. the table of real outcomes ---------------------------------------------------------------
def play_pairs(task: tuple[str, str, str, int]) -> tuple[str, str, list[tuple[float, float]]]:
    """`count` duplicate pairs between a and b: a's score in each of the two games."""
    a, b, seed, count = task
    out = []
    for k in range(count):
        # a sits as side A in even pairs and as B in odd ones.
        first, second = (a, b) if k % 2 == 0 else (b, a)
        replay = run_match(factory(first), factory(second), games=2, seed=f"{seed}/{a}/{b}/{k}")
        scores = []
        for game in replay["games"]:
            winner = game["result"]["winner"]
            side_of_a = "A" if k % 2 == 0 else "B"
            scores.append(0.5 if winner is None else float(game["seats"][winner] == side_of_a))
        out.append((scores[0], scores[1]))
    return a, b, out


def outcome_table(players: list[str], *, pairs: int, mc_pairs: int, seed: str, jobs: int,
                  cache: Path) -> dict[tuple[str, str], list[tuple[float, float]]]:
    """{(a, b): [(a's score in game 1, in game 2), ...]} for every a before b in the order."""
    signature = f"{seed}/{pairs}/{mc_pairs}/{MC_EFFORT}/{','.join(players)}"
    if cache.exists():
        stored = json.loads(cache.read_text())
        if stored.get("signature") == signature:
            return {tuple(k.split("|")): [tuple(x) for x in v]  # type: ignore[misc]
                    for k, v in stored["table"].items()}
    tasks = []
    for i, a in enumerate(players):
        for b in players[i + 1:]:
            count = mc_pairs if "mc" in (a, b) else pairs
            # Split the slow pairs in chunks so the processes stay busy.
            step = 2 if "mc" in (a, b) else count
            for start in range(0, count, step):
                tasks.append((a, b, f"{seed}/{start}", min(step, count - start)))
    tasks.sort(key=lambda t: "mc" not in t[:2])  # the slow ones first
    table: dict[tuple[str, str], list[tuple[float, float]]] = {}
    began = time.time()
    with ProcessPoolExecutor(max_workers=jobs) as executor:
        for done, (a, b, out) in enumerate(executor.map(play_pairs, tasks), 1):
            table.setdefault((a, b), []).extend(out)
            if done % 10 == 0:
                print(f"  table: {done}/{len(tasks)} tasks ({time.time() - began:.0f} s)",
                      flush=True)
    print(f"outcome table: {sum(len(v) for v in table.values())} duplicate pairs played in "
          f"{time.time() - began:.0f} s", flush=True)
    cache.write_text(json.dumps({"signature": signature, "table": {
        f"{a}|{b}": v for (a, b), v in table.items()}}))
    return table


def print_table(players: list[str], table: dict[tuple[str, str], list[tuple[float, float]]]
                ) -> None:
    print("share of games won by the row player (from the table; the true order is top-down):")
    print(" " * 12 + "".join(f"{p:>11}" for p in players))
    for a in players:
        cells = []
        for b in players:
            if a == b:
                cells.append(f"{'-':>11}")
                continue
            key, flip = ((a, b), False) if (a, b) in table else ((b, a), True)
            games = [s for pair in table[key] for s in pair]
            share = sum(games) / len(games)
            cells.append(f"{(1 - share if flip else share):>11.2f}")
        print(f"{a[:12]:<12}" + "".join(cells))


# --- 2. simulated ladders ------------------------------------------------------------------------
@dataclass
class Ladder:
    """Ratings as the site keeps them: Elo per entrant with its count of rated matches."""

    players: list[str]
    elo: dict[Hashable, float]
    matches: dict[Hashable, int]
    recent: dict[Hashable, tuple[Hashable, ...]]
    results: list[ratings.Result]

    @classmethod
    def new(cls, players: list[str]) -> Ladder:
        return cls(players, {p: ratings.START for p in players}, {p: 0 for p in players},
                   {p: () for p in players}, [])

    def next_pair(self, policy: str, rng: random.Random) -> tuple[Hashable, Hashable]:
        """'uniform', 'site' (the site's ladder_pairs), or 'site@S': the same with SPREAD = S."""
        if policy == "uniform":
            a, b = rng.sample(self.players, 2)
            return a, b
        entrants = [pairing.Entrant(key=p, rating=self.elo[p], games=self.matches[p],
                                    pending=0, recent=self.recent[p]) for p in self.players]
        default = pairing.SPREAD
        # A what-if on the site's one tuning constant; restored at once.
        pairing.SPREAD = float(policy.partition("@")[2] or default)
        try:
            return pairing.ladder_pairs(entrants=entrants, slots=1, rng=rng)[0]
        finally:
            pairing.SPREAD = default

    def record(self, a: Hashable, b: Hashable, score: float, games: int) -> None:
        da, db = ratings.elo_changes(rating_a=self.elo[a], rating_b=self.elo[b], score=score,
                                     games_a=self.matches[a], games_b=self.matches[b])
        self.elo[a] += da
        self.elo[b] += db
        for p, other in ((a, b), (b, a)):
            self.matches[p] += 1
            self.recent[p] = (*self.recent[p], other)[-3:]
        self.results.append(ratings.Result(a, b, score, games))

    def fitted(self) -> dict[Hashable, float]:
        fit = ratings.ratings_fit(results=self.results)
        return {p: fit[p].rating if p in fit else ratings.START for p in self.players}


def kendall_tau(order: Sequence[Hashable], rating: dict[Hashable, float]) -> float:
    """Tau-b between the true order (no ties) and the ratings (ties count for neither)."""
    n = len(order)
    concordant = discordant = tied = 0
    for i in range(n):
        for j in range(i + 1, n):
            diff = rating[order[i]] - rating[order[j]]
            if diff > 0:
                concordant += 1
            elif diff < 0:
                discordant += 1
            else:
                tied += 1
    pairs = n * (n - 1) // 2
    return (concordant - discordant) / math.sqrt(pairs * (pairs - tied)) if tied < pairs else 0.0


def draw_outcome(table: dict[tuple[str, str], list[tuple[float, float]]], a: str, b: str,
                 unit: str, rng: random.Random) -> tuple[float, int]:
    """a's score and the games of one match between a and b, drawn from the real outcomes."""
    flip = (a, b) not in table
    pair = rng.choice(table[(b, a)] if flip else table[(a, b)])
    if flip:
        pair = (1 - pair[0], 1 - pair[1])
    if unit == "pair":
        return (pair[0] + pair[1]) / 2, 2
    return pair[rng.randrange(2)], 1


def run_ladder(players: list[str], table: dict[tuple[str, str], list[tuple[float, float]]],
               policy: str, unit: str, horizon: int, seed: int) -> dict[str, list[float]]:
    """Tau by Elo and by the fit at every checkpoint up to `horizon` matches."""
    rng = random.Random(f"ladder/{policy}/{unit}/{seed}")
    ladder = Ladder.new(players)
    taus: dict[str, list[float]] = {"elo": [], "fit": []}
    checkpoints = [c for c in CHECKPOINTS if c <= horizon]
    for n in range(1, horizon + 1):
        a, b = ladder.next_pair(policy, rng)
        score, games = draw_outcome(table, str(a), str(b), unit, rng)
        ladder.record(a, b, score, games)
        if n in checkpoints:
            taus["elo"].append(kendall_tau(players, ladder.elo))
            taus["fit"].append(kendall_tau(players, ladder.fitted()))
    return taus


def first_mean_crossing(means: list[float], checkpoints: list[int]) -> int | None:
    return next((c for c, m in zip(checkpoints, means, strict=True) if m >= TARGET_TAU), None)


def median_settling(runs: list[list[float]], checkpoints: list[int]) -> str:
    """Median over seeds of the first checkpoint from which tau stays >= target to the end."""
    settled = []
    for taus in runs:
        at = None
        for c, tau in zip(reversed(checkpoints), reversed(taus), strict=True):
            if tau < TARGET_TAU:
                break
            at = c
        settled.append(at if at is not None else math.inf)
    med = statistics.median(settled)
    never = sum(1 for s in settled if s == math.inf)
    text = ">horizon" if med == math.inf else f"{med:g}"
    return f"{text} (never settled in {never}/{len(runs)})" if never else text


def report(players: list[str], results: dict[Config, list[dict[str, list[float]]]],
           horizon: int, configs: list[Config]) -> None:
    checkpoints = [c for c in CHECKPOINTS if c <= horizon]
    labels = [f"{p}/{u}" for p, u in configs]
    print("\nmean Kendall tau over seeds (leaderboard vs true order); Elo | fitted")
    print(f"{'matches':>8}" + "".join(f"{label:>22}" for label in labels))
    means: dict[tuple[str, str, str], list[float]] = {}
    for config in configs:
        for method in ("elo", "fit"):
            runs = [r[method] for r in results[config]]
            means[(*config, method)] = [statistics.fmean(col) for col in zip(*runs, strict=True)]
    for k, c in enumerate(checkpoints):
        row = "".join(f"{means[(*cfg, 'elo')][k]:>13.3f} |{means[(*cfg, 'fit')][k]:>6.3f}"
                      for cfg in configs)
        print(f"{c:>8}{row}")
    print(f"\nmatches needed for tau >= {TARGET_TAU} ({len(players)} players; a 'pair' match is "
          f"2 games, a 'game' match is 1)")
    for config in configs:
        per_game = 2 if config[1] == "pair" else 1
        for method in ("elo", "fit"):
            first = first_mean_crossing(means[(*config, method)], checkpoints)
            first_text = f"{first} matches ({first * per_game} games)" if first else "not reached"
            settle = median_settling([r[method] for r in results[config]], checkpoints)
            print(f"  {config[0]:>7} pairing, {config[1]:>4} matches, {method}: mean tau reaches "
                  f"it at {first_text}; median settling point {settle} matches")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=30, help="simulated ladders per config")
    parser.add_argument("--matches", type=int, default=400, help="matches per ladder")
    parser.add_argument("--pairs", type=int, default=200, help="table: duplicate pairs a pair")
    parser.add_argument("--mc-pairs", type=int, default=6, help="same, for pairs with mc")
    parser.add_argument("--seed", default="convergence")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--spreads", default="",
                        help="also the site's pairing with these SPREAD values, e.g. 100,150")
    parser.add_argument("--table", type=Path,
                        default=Path(tempfile.gettempdir()) / "kaiser-convergence-table.json")
    args = parser.parse_args()
    configs = [*CONFIGS, *((f"site@{s}", "pair") for s in args.spreads.split(",") if s)]
    players = pool()
    table = outcome_table(players, pairs=args.pairs, mc_pairs=args.mc_pairs, seed=args.seed,
                          jobs=args.jobs, cache=args.table)
    print_table(players, table)
    results: dict[Config, list[dict[str, list[float]]]] = {c: [] for c in configs}
    for seed in range(args.seeds):
        for policy, unit in configs:
            results[(policy, unit)].append(
                run_ladder(players, table, policy, unit, args.matches, seed))
    report(players, results, args.matches, configs)


if __name__ == "__main__":
    main()
