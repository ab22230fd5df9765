"""How fast does the ladder find the truth? Kendall tau between the leaderboard and a known order.

    .venv/bin/python bench/rating_convergence.py --seeds 30 --jobs 2

A pool of 9 players of known order (best first): builtin:greedy, greedy that plays a random
legal action with a growing probability (engine.kaiser.strength), and builtin:random. No database,
no worker.

1. A table of real match outcomes: every pair of players plays `--pairs` duplicate matches of
   two games (the site's ladder match),
   each kept as A's score in each game and the swing of every board both tables finished
   (engine.kaiser.boards), cached in a JSON file so later runs reuse it.
2. Simulated ladders: each match is chosen by a pairing policy (ladder.pairing: `rating`, by
   closeness of rating, as before issue 35, or `info`, the site's, by what a result would
   tell: overlapping intervals, few matches between the two), drawn from the
   table for that pair, and rated by a rule: `games` (A's share of the games won, the rule
   before issue 35) or `boards` (ladder.ratings.match_outcome, the site's rule), by the
   site's Elo (one update per match, as the site does) and by its fitted rating. The players
   have owners, three pairs of them shared (bots of one owner never meet on the ladder).
   At each checkpoint (matches a bot: a match counts for both its players) the leaderboard,
   by Elo (the site's order before issue 43) and as the site shows it now (ladder.ratings.
   leaderboard_order: by the fitted rating, a bot the fit has not seen after the others by
   Elo; provisional bots are marked, not moved), is compared with the true order.

It prints the mean tau per checkpoint, the matches a bot each configuration needs for a mean
tau >= 0.9, and the ladder's fairness: the spread of matches a bot (the fewest against the
mean) and the share of matches between two bots of one owner. `--outcomes` measures other
conversions of the boards (IMP_POINTS x OUTCOME_IMPS x GAMES_WEIGHT) against the same table.
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
from collections.abc import Callable, Hashable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.builtin import BuiltinFactory, RandomPlayer  # noqa: E402
from engine.kaiser.boards import board_comparison  # noqa: E402
from engine.kaiser.match import run_match  # noqa: E402
from engine.kaiser.strength import NoisyGreedyPlayer  # noqa: E402
from ladder import pairing, ratings  # noqa: E402

NOISE_LEVELS = (0.0, 0.04, 0.08, 0.15, 0.25, 0.4, 0.6, 0.8)
# Matches a bot at which the leaderboard is compared with the truth.
CHECKPOINTS = (2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 25, 30, 35, 40, 50, 60, 70, 80, 100)
TARGET_TAU = 0.9
# Bots that share an owner (indices in the true order): never paired on the ladder.
SHARED_OWNERS = 3
Config = tuple[str, str]  # (pairing, rule)
# One duplicate match: A's score in game 1, in game 2, the swings of its boards (A's gain).
Played = tuple[float, float, list[float]]
Table = dict[tuple[str, str], list[Played]]


def pool() -> list[str]:
    """The players, best first: this is the true order (greedy playing at random a growing
    share of the time, then random: strength known by construction)."""
    return [*[f"greedy-{n * 100:g}%" if n else "greedy" for n in NOISE_LEVELS], "random"]


def owners(players: Sequence[str]) -> dict[str, str]:
    """Each player's owner: the last SHARED_OWNERS players share one with a stronger bot far
    above them in the order (so the pairs nearest in strength are never the forbidden ones)."""
    distinct = len(players) - SHARED_OWNERS
    return {p: f"owner-{i % distinct}" for i, p in enumerate(players)}


def factory(name: str) -> BuiltinFactory:
    if name == "random":
        return BuiltinFactory(name, "1", RandomPlayer, {})
    noise = float(name.removeprefix("greedy-").removesuffix("%") or 0) / 100 if "-" in name else 0.0
    return BuiltinFactory(name, "1", NoisyGreedyPlayer, {"noise": noise})


# --- 1. the table of real outcomes ---------------------------------------------------------------
def play_pairs(task: tuple[str, str, str, int]) -> tuple[str, str, list[Played]]:
    """`count` duplicate matches between a and b, from a's side: its score in each game and
    its gain on each board both tables finished."""
    a, b, seed, count = task
    out = []
    for k in range(count):
        # a sits as side A in even matches and as B in odd ones.
        first, second = (a, b) if k % 2 == 0 else (b, a)
        side_of_a, sign = ("A", 1) if k % 2 == 0 else ("B", -1)
        replay = run_match(factory(first), factory(second), games=2, seed=f"{seed}/{a}/{b}/{k}")
        scores = []
        for game in replay["games"]:
            winner = game["result"]["winner"]
            scores.append(0.5 if winner is None else float(game["seats"][winner] == side_of_a))
        swings = [sign * s for s in ratings.board_swings(board_comparison(replay))]
        out.append((scores[0], scores[1], swings))
    return a, b, out


def outcome_table(players: list[str], *, pairs: int, seed: str, jobs: int,
                  cache: Path) -> Table:
    """{(a, b): [(a's score in game 1, in game 2, a's swings), ...]} for a before b."""
    signature = f"boards/{seed}/{pairs}/{','.join(players)}"
    if cache.exists():
        stored = json.loads(cache.read_text())
        if stored.get("signature") == signature:
            return {tuple(k.split("|")): [(x[0], x[1], x[2]) for x in v]  # type: ignore[misc]
                    for k, v in stored["table"].items()}
    tasks = []
    for i, a in enumerate(players):
        for b in players[i + 1:]:
            # In chunks of 50 matches, so that the processes stay busy.
            for start in range(0, pairs, 50):
                tasks.append((a, b, f"{seed}/{start}", min(50, pairs - start)))
    table: Table = {}
    began = time.time()
    with ProcessPoolExecutor(max_workers=jobs) as executor:
        for done, (a, b, out) in enumerate(executor.map(play_pairs, tasks), 1):
            table.setdefault((a, b), []).extend(out)
            if done % 20 == 0:
                print(f"  table: {done}/{len(tasks)} tasks ({time.time() - began:.0f} s)",
                      flush=True)
    print(f"outcome table: {sum(len(v) for v in table.values())} duplicate matches played in "
          f"{time.time() - began:.0f} s", flush=True)
    cache.write_text(json.dumps({"signature": signature, "table": {
        f"{a}|{b}": v for (a, b), v in table.items()}}))
    return table


def _oriented(table: Table, a: str, b: str) -> tuple[list[Played], bool]:
    return (table[(a, b)], False) if (a, b) in table else (table[(b, a)], True)


def print_table(players: list[str], table: Table) -> None:
    print("share of games won by the row player, and its mean swing a board (the true order "
          "is top-down):")
    print(" " * 12 + "".join(f"{p:>13}" for p in players))
    for a in players:
        cells = []
        for b in players:
            if a == b:
                cells.append(f"{'-':>13}")
                continue
            played, flip = _oriented(table, a, b)
            share = statistics.fmean(s for g1, g2, _ in played for s in (g1, g2))
            swings = [s for *_, sw in played for s in sw] or [0.0]
            swing = statistics.fmean(swings)
            share, swing = (1 - share, -swing) if flip else (share, swing)
            cells.append(f"{share:>7.2f}{swing:>+6.1f}")
        print(f"{a[:12]:<12}" + "".join(cells))


def print_separation(players: list[str], table: Table, by_name: dict[str, Rule]) -> None:
    """How far one match's outcome is from an even result, in its standard deviations, for
    each pair of players next to each other in the true order, under each rule: the
    information in one match (its square is the matches' worth against one of a z of 1)."""
    print("\none match's separation, (mean outcome - 1/2) / its standard deviation, for "
          "neighbours in the true order:")
    print(f"{'pair':<24}" + "".join(f"{name:>16}" for name in by_name))
    for a, b in zip(players, players[1:], strict=False):
        played, _ = _oriented(table, a, b)
        cells = []
        for rule in by_name.values():
            outcomes = [rule(m) for m in played]
            sd = statistics.pstdev(outcomes) or math.nan
            cells.append(f"{(statistics.fmean(outcomes) - 0.5) / sd:>16.2f}")
        print(f"{a + ' v ' + b:<24}" + "".join(cells) + f"   ({len(played)} matches)")


# --- 2. simulated ladders ------------------------------------------------------------------------
Rule = Callable[[Played], float]


def rules(outcomes: Sequence[tuple[float, float, float]]) -> dict[str, Rule]:
    """The rating rules by name: `games` (share of games won), `boards` (the site's
    match_outcome), and `boards@P/T/W` for each (IMP_POINTS, OUTCOME_IMPS, GAMES_WEIGHT)
    asked for."""
    def boards(points: float, imps: float, weight: float) -> Rule:
        return lambda m: ratings.match_outcome(swings=m[2], games_score=(m[0] + m[1]) / 2,
                                               imp_points=points, outcome_imps=imps,
                                               games_weight=weight)
    out: dict[str, Rule] = {"games": lambda m: (m[0] + m[1]) / 2, "boards": boards(
        ratings.IMP_POINTS, ratings.OUTCOME_IMPS, ratings.GAMES_WEIGHT)}
    for points, imps, weight in outcomes:
        out[f"boards@{points:g}/{imps:g}/{weight:g}"] = boards(points, imps, weight)
    return out


@dataclass
class Ladder:
    """Ratings as the site keeps them: Elo per entrant with its count of rated matches."""

    players: list[str]
    owner: dict[str, str]
    elo: dict[Hashable, float]
    matches: dict[Hashable, int]
    recent: dict[Hashable, tuple[Hashable, ...]]
    results: list[ratings.Result] = field(default_factory=list)
    met: dict[tuple[Hashable, Hashable], int] = field(default_factory=dict)
    same_owner: int = 0

    @classmethod
    def new(cls, players: list[str]) -> Ladder:
        return cls(players, owners(players), {p: ratings.START for p in players},
                   {p: 0 for p in players}, {p: () for p in players})

    def meetings(self, key: Hashable) -> dict[Hashable, int]:
        return {o: self.met.get((key, o), 0) for o in self.players if o != key}

    def next_pair(self, policy: str, rng: random.Random) -> tuple[Hashable, Hashable]:
        entrants = [pairing.Entrant(key=p, rating=self.elo[p], games=self.matches[p],
                                    pending=0, recent=self.recent[p], owner=self.owner[p])
                    for p in self.players]
        by = "rating" if policy == "rating" else "information"
        while True:  # a slot left empty (settled pairs): the site's next tick draws again
            drawn = pairing.ladder_groups(size=2, entrants=entrants, slots=1, rng=rng,
                                         met=self.meetings, by=by)
            if drawn:
                return drawn[0]

    def record(self, a: Hashable, b: Hashable, score: float, games: int) -> None:
        da, db = ratings.elo_changes(rating_a=self.elo[a], rating_b=self.elo[b], score=score,
                                     played_a=self.matches[a], played_b=self.matches[b])
        self.elo[a] += da
        self.elo[b] += db
        for p, other in ((a, b), (b, a)):
            self.matches[p] += 1
            self.recent[p] = (*self.recent[p], other)[-3:]
            self.met[(p, other)] = self.met.get((p, other), 0) + 1
        self.same_owner += self.owner[str(a)] == self.owner[str(b)]
        self.results.append(ratings.Result(a, b, score, games))

    def shown(self) -> dict[Hashable, float]:
        """The leaderboard's order as the site shows it (ratings.leaderboard_order: by the
        fit, a bot it has not seen after, by Elo), as scores for kendall_tau: the top first."""
        fit = ratings.ratings_fit(results=self.results)
        order = ratings.leaderboard_order([(p, p, self.elo[p]) for p in self.players], fit)
        return {p: -place for place, p in enumerate(order)}


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


def draw_match(table: Table, a: str, b: str, rng: random.Random) -> Played:
    """One duplicate match between a and b drawn from the real ones, from a's side."""
    played, flip = _oriented(table, a, b)
    g1, g2, swings = rng.choice(played)
    return (1 - g1, 1 - g2, [-s for s in swings]) if flip else (g1, g2, swings)


@dataclass
class Run:
    """One simulated ladder: tau by Elo and by the fit at each checkpoint, and its fairness."""

    elo: list[float]
    fit: list[float]
    fewest_share: float  # the fewest matches a bot against the mean
    same_owner: int
    matches: int


def run_ladder(players: list[str], table: Table, policy: str, rule: Rule, horizon: int,
               seed: int) -> Run:
    """Tau at every checkpoint up to `horizon` matches a bot. The ladder's randomness (its
    pairs, the matches drawn) depends on the seed and the pairing only, so two rules on one
    pairing see the same first matches."""
    rng = random.Random(f"ladder/{policy}/{seed}")
    ladder = Ladder.new(players)
    elo, fit = [], []
    checkpoints = {math.ceil(c * len(players) / 2): c for c in CHECKPOINTS if c <= horizon}
    total = max(checkpoints)
    for n in range(1, total + 1):
        a, b = ladder.next_pair(policy, rng)
        ladder.record(a, b, rule(draw_match(table, str(a), str(b), rng)), 2)
        if n in checkpoints:
            elo.append(kendall_tau(players, ladder.elo))
            fit.append(kendall_tau(players, ladder.shown()))
    counts = list(ladder.matches.values())
    return Run(elo, fit, min(counts) / statistics.fmean(counts), ladder.same_owner, total)


def first_mean_crossing(means: list[float], checkpoints: list[int]) -> int | None:
    return next((c for c, m in zip(checkpoints, means, strict=True) if m >= TARGET_TAU), None)


def first_for_good(means: list[float], checkpoints: list[int]) -> int | None:
    """The first checkpoint from which the mean tau stays >= TARGET_TAU at every later one."""
    good = None
    for c, m in zip(checkpoints, means, strict=True):
        if m < TARGET_TAU:
            good = None
        elif good is None:
            good = c
    return good


def per_ladder_for_good(runs: list[Run], method: str, checkpoints: list[int]) -> str:
    """Each ladder's own first_for_good: the median over those that got there, and how many."""
    goods = [first_for_good(getattr(r, method), checkpoints) for r in runs]
    reached = [g for g in goods if g is not None]
    median = f"median {statistics.median(reached):g}" if reached else "median -"
    return f"{median} ({len(reached)}/{len(runs)} ladders)"


def report(players: list[str], results: dict[Config, list[Run]], horizon: int,
           per_match: int = 2) -> None:
    """The taus, the matches a bot needed and the fairness; `per_match` players a match."""
    checkpoints = [c for c in CHECKPOINTS if c <= horizon]
    configs = list(results)
    print(f"\nmean Kendall tau over {len(next(iter(results.values())))} seeded ladders "
          f"(leaderboard vs true order), by matches a bot; Elo | fitted")
    width = max(22, *(len(f"{p}/{r}") + 2 for p, r in configs))
    print(f"{'matches':>8}" + "".join(f"{p + '/' + r:>{width}}" for p, r in configs))
    means: dict[tuple[str, str, str], list[float]] = {}
    for config in configs:
        for method in ("elo", "fit"):
            runs = [getattr(r, method) for r in results[config]]
            means[(*config, method)] = [statistics.fmean(col) for col in zip(*runs, strict=True)]
    for k, c in enumerate(checkpoints):
        row = "".join(f"{means[(*cfg, 'elo')][k]:>{width - 9}.3f} |{means[(*cfg, 'fit')][k]:>6.3f}"
                      for cfg in configs)
        print(f"{c:>8}{row}")
    print(f"\nmatches a bot needed for mean tau >= {TARGET_TAU} ({len(players)} players, "
          f"{per_match} a match)")
    for config in configs:
        for method in ("elo", "fit"):
            first = first_mean_crossing(means[(*config, method)], checkpoints)
            text = (f"{first} matches a bot "
                    f"({math.ceil(first * len(players) / per_match)} in all)"
                    if first else f"not reached by {horizon}")
            print(f"  {config[0]:>5} pairing, {config[1]:>14} rule, {method}: {text}")
    print(f"\nmatches a bot until the leaderboard's order, as shown, holds mean tau >= "
          f"{TARGET_TAU} for good (at every later checkpoint up to {horizon}): before issue 43 "
          f"the site ordered by Elo, now by the fitted rating")
    for config in configs:
        words = []
        for method, when in (("elo", "before (Elo order)"), ("fit", "after (fitted order)")):
            good = first_for_good(means[(*config, method)], checkpoints)
            words.append(f"{when} {good if good else f'not by {horizon}'}")
        print(f"  {config[0]:>5} pairing, {config[1]:>14} rule: " + "; ".join(words))
    print(f"\nthe same, ladder by ladder (each ladder's own tau >= {TARGET_TAU} at every later "
          f"checkpoint): median matches a bot over the ladders that got there, and how many did")
    for config in configs:
        words = [f"{when} {per_ladder_for_good(results[config], method, checkpoints)}"
                 for method, when in (("elo", "before (Elo order)"),
                                      ("fit", "after (fitted order)"))]
        print(f"  {config[0]:>5} pairing, {config[1]:>14} rule: " + "; ".join(words))
    print("\nfairness (at the end of each ladder): fewest matches a bot / mean; matches "
          "between two bots of one owner")
    for config, runs in results.items():
        shares = [r.fewest_share for r in runs]
        same = sum(r.same_owner for r in runs)
        print(f"  {config[0]:>5} pairing, {config[1]:>14} rule: fewest/mean {min(shares):.2f} "
              f"at worst, {statistics.fmean(shares):.2f} on average; one owner's pairs "
              f"{same}/{sum(r.matches for r in runs)} = {same / sum(r.matches for r in runs):.3f}")


def _outcome_grid(text: str) -> list[tuple[float, float, float]]:
    """'10x20x0,infx40x0.5' -> [(10, 20, 0), (inf, 40, 0.5)]."""
    return [(float(p), float(t), float(w)) for p, t, w in
            (item.strip().split("x") for item in text.split(",") if item.strip())]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=30, help="simulated ladders per config")
    parser.add_argument("--matches", type=int, default=60, help="matches a bot per ladder")
    parser.add_argument("--pairs", type=int, default=200, help="table: duplicate matches a pair")
    parser.add_argument("--seed", default="convergence")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--pairings", default="rating,info",
                        help="pairing policies to compare: rating (before issue 35), info")
    parser.add_argument("--outcomes", default="",
                        help="also these board conversions, IMP_POINTSxOUTCOME_IMPSxGAMES_WEIGHT, "
                             "e.g. '10x20x0,infx40x0.5' (inf: swings not damped)")
    parser.add_argument("--table", type=Path,
                        default=Path(tempfile.gettempdir()) / "kaiser-convergence-table.json")
    args = parser.parse_args()
    players = pool()
    table = outcome_table(players, pairs=args.pairs, seed=args.seed, jobs=args.jobs,
                          cache=args.table)
    print_table(players, table)
    by_name = rules(_outcome_grid(args.outcomes))
    print_separation(players, table, by_name)
    configs = [(p, r) for p in args.pairings.split(",") for r in by_name]
    results: dict[Config, list[Run]] = {c: [] for c in configs}
    for seed in range(args.seeds):
        for policy, rule in configs:
            results[(policy, rule)].append(
                run_ladder(players, table, policy, by_name[rule], args.matches, seed))
    report(players, results, args.matches)


if __name__ == "__main__":
    main()
