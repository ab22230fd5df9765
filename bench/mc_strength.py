"""How strong is builtin:mc? A duplicate match against an opponent, with a 95% interval.

    .venv/bin/python bench/mc_strength.py --games 200 --opponent greedy --jobs 2

Plays `games` games in duplicate pairs (each pair: the same deals twice, the sides swapping
seats) and prints mc's share of the games won (a draw counts a half) with its 95% Wilson
interval, the forfeits (a forfeit would mean a crash), and the time mc took per decision:
median, p99 and max over every decision, and the same over decisions with a real choice
(more than one legal action). Pairs run in parallel processes with `--jobs`; pair i is the
match seeded "<seed>/<i>", so any pair can be replayed alone with `python -m engine match`.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.builtin import BuiltinFactory, resolve_player  # noqa: E402
from engine.kaiser.match import run_match  # noqa: E402
from engine.kaiser.mc import MCPlayer  # noqa: E402
from engine.kaiser.rules import get_rules  # noqa: E402

Z95 = 1.959964


class TimedMC(MCPlayer):
    """builtin:mc, recording each decision: (wall seconds, CPU seconds, number of choices).

    On a busy machine the wall time (what the move clock sees) exceeds the CPU time."""

    log: list[tuple[float, float, int]] = []

    def act(self, state: Any, legal: Any) -> Any:
        start, cpu = time.perf_counter(), time.process_time()
        action = super().act(state, legal)
        TimedMC.log.append((time.perf_counter() - start, time.process_time() - cpu, len(legal)))
        return action


def wilson(wins: float, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion (draws counted as half a win)."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


Timings = list[tuple[float, float, int]]


def play_pair(args: tuple[str, str, str, int]) -> tuple[float, int, bool, Timings]:
    """One duplicate pair: (mc's games won, games, forfeited, mc's decision times)."""
    opponent, seed, rules_name, index = args
    TimedMC.log = []
    mc = BuiltinFactory("mc", "1", TimedMC, {})
    other = resolve_player(f"builtin:{opponent}")
    # mc sits as A in even pairs and as B in odd ones: neither side's seat order is favoured.
    a, b = (mc, other) if index % 2 == 0 else (other, mc)
    replay = run_match(a, b, games=2, seed=f"{seed}/{index}", rules=get_rules(rules_name))
    result = replay["result"]
    side = "A" if index % 2 == 0 else "B"
    draws = 2 - result["games"]["A"] - result["games"]["B"]
    won = result["games"][side] + draws / 2
    return won, 2, result["forfeit"] is not None, TimedMC.log


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def spread(values: list[float]) -> str:
    return (f"median {percentile(values, .5) * 1e3:.1f} ms, p99 {percentile(values, .99) * 1e3:.1f}"
            f" ms, max {max(values) * 1e3:.1f} ms")


def report(done: list[tuple[float, int, bool, Timings]], label: str) -> None:
    won = sum(d[0] for d in done)
    games = sum(d[1] for d in done)
    low, high = wilson(won, games)
    forfeits = sum(d[2] for d in done)
    print(f"{label}: mc won {won:g}/{games} = {won / games:.1%}  95% CI [{low:.1%}, {high:.1%}]"
          f"  forfeits {forfeits}", flush=True)
    for what, index in (("wall", 0), ("CPU", 1)):
        times = [entry[index] for d in done for entry in d[3]]
        real = [entry[index] for d in done for entry in d[3] if entry[2] > 1]
        if times:
            print(f"  {what} time per decision, all {len(times)}: {spread(times)}; "
                  f"with a choice ({len(real)}): {spread(real)}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--opponent", default="greedy")
    parser.add_argument("--seed", default="mc-strength")
    parser.add_argument("--rules", default="official")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--every", type=int, default=20, help="print a figure every N games")
    args = parser.parse_args()
    tasks = [(args.opponent, args.seed, args.rules, i) for i in range(args.games // 2)]
    done = []
    start = time.time()
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        for result in pool.map(play_pair, tasks):
            done.append(result)
            if len(done) * 2 % args.every == 0 and len(done) < len(tasks):
                report(done, f"after {len(done) * 2} games ({time.time() - start:.0f} s)")
    report(done, f"mc vs {args.opponent}, {args.rules}, {len(done) * 2} games "
                 f"({time.time() - start:.0f} s)")


if __name__ == "__main__":
    main()
