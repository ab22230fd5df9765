"""Sergeant Major: engine speed and the built-in players' strength, on one core.

    .venv/bin/python bench/sergeant_major.py [--games 600] [--rules 952] [--repeat 3]
                                             [--strength 600]

Speed: matches of three `builtin:random` (and of three `builtin:greedy`) with the replay
recorded: hands/s, decisions/s and games/s by process CPU time and by wall clock, the best
and the median of `--repeat` runs, and the time of replay_json apart.

Strength: greedy against two randoms over `--strength` seeded games (greedy at each seat in
turn; 3-game matches, the seats rotated over the same deals): the share of games greedy won
with a 95% interval, and its average up per hand. `--mc N`: builtin:mc against two greedys
over N games the same way: mc's share of the points (a third is even) and its average up per
hand with a 95% interval, and its CPU time per hand.
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.builtin import BuiltinFactory, RandomPlayer  # noqa: E402
from engine.runner import replay_json  # noqa: E402
from engine.sergeant_major.match import run_match  # noqa: E402
from engine.sergeant_major.mc import SMMCPlayer  # noqa: E402
from engine.sergeant_major.players import SMGreedyPlayer  # noqa: E402
from engine.sergeant_major.rules import get_rules  # noqa: E402

RANDOM = BuiltinFactory("random", "1", RandomPlayer, {})
GREEDY = BuiltinFactory("greedy", "1", SMGreedyPlayer, {})
MC = BuiltinFactory("mc", "1", SMMCPlayer, {})


def decisions_in(replay: dict[str, Any]) -> tuple[int, int]:
    hands = decisions = 0
    for game in replay["games"]:
        for hand in game["deals"]:
            hands += 1
            decisions += 2 * len(hand["exchanges"]) + 2 + 3 * len(hand["tricks"])
    return hands, decisions


def one_run(players: list[BuiltinFactory], preset: str, games: int,
            seed: str) -> dict[str, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    replay = run_match(players, games=games, seed=seed, rules=get_rules(preset))
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    start = time.perf_counter()
    replay_json(replay)
    hands, decisions = decisions_in(replay)
    return {"wall": wall, "cpu": cpu, "hands": hands, "decisions": decisions, "games": games,
            "json": time.perf_counter() - start}


def speed(name: str, players: list[BuiltinFactory], preset: str, games: int,
          repeat: int) -> None:
    runs = [one_run(players, preset, games, "bench") for _ in range(repeat)]
    first = runs[0]
    print(f"{preset} / {name}: {games} games, {first['hands']:.0f} hands, "
          f"{first['decisions']:.0f} decisions per run, {repeat} runs")
    for clock in ("cpu", "wall"):
        for unit in ("hands", "decisions", "games"):
            rates = [run[unit] / run[clock] for run in runs]
            print(f"  {clock:4} {unit + '/s':12} best {max(rates):>11,.0f}   "
                  f"median {statistics.median(rates):>11,.0f}")
    print(f"  replay_json of the replay: best {min(r['json'] for r in runs) * 1000:.0f} ms")


def strength(preset: str, games: int) -> None:
    sets = max(1, games // 3)
    won = points = 0.0
    ups = hands = 0
    for number in range(sets):
        # Greedy as A, B or C in turn; each match is one set (3 games, seats rotated).
        side = "ABC"[number % 3]
        players = [GREEDY if s == side else RANDOM for s in "ABC"]
        replay = run_match(players, games=3, seed=f"strength-{number}",
                           rules=get_rules(preset))
        won += replay["result"]["games"][side]
        points += replay["result"]["points"][side]
        ups += replay["result"]["ups"][side]
        hands += sum(len(g["deals"]) for g in replay["games"])
    total = 3 * sets
    share = won / total
    half = 1.96 * math.sqrt(max(share * (1 - share), 1e-12) / total)
    print(f"greedy vs random, random, {preset}, {total} games: greedy won {won:.0f} "
          f"({share:.1%}, 95% CI {max(0.0, share - half):.1%} to {min(1.0, share + half):.1%}), "
          f"points share {points / total:.1%}, average up per hand {ups / max(hands, 1):+.2f}")


def mc_strength(preset: str, games: int) -> None:
    sets = max(1, games // 3)
    points = 0.0
    ups: list[int] = []
    cpu = time.process_time()
    for number in range(sets):
        side = "ABC"[number % 3]
        players = [MC if s == side else GREEDY for s in "ABC"]
        replay = run_match(players, games=3, seed=f"mc-{number}", rules=get_rules(preset))
        points += replay["result"]["points"][side]
        for game in replay["games"]:
            seat = game["seats"].index(side)
            ups += [hand["delta"][seat] for hand in game["deals"]]
    cpu = time.process_time() - cpu
    mean = statistics.fmean(ups)
    half = 1.96 * statistics.stdev(ups) / math.sqrt(len(ups)) if len(ups) > 1 else 0.0
    print(f"mc vs greedy, greedy, {preset}, {3 * sets} games: mc's points share "
          f"{points / (3 * sets):.1%} (even: 33.3%), average up per hand {mean:+.2f} "
          f"(95% CI {mean - half:+.2f} to {mean + half:+.2f}, {len(ups)} hands), "
          f"CPU {cpu / len(ups) * 1000:.0f} ms a hand")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=600, help="a multiple of 3")
    parser.add_argument("--rules", default="952")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--strength", type=int, default=600, help="games (0: skip)")
    parser.add_argument("--mc", type=int, default=0, help="games of mc vs greedy (0: skip)")
    args = parser.parse_args()
    print(f"Python {sys.version.split()[0]}, pid {os.getpid()}, load {os.getloadavg()[0]:.1f}")
    for preset in args.rules.split(","):
        speed("random", [RANDOM] * 3, preset, args.games, args.repeat)
        speed("greedy", [GREEDY] * 3, preset, args.games, args.repeat)
        if args.strength:
            strength(preset, args.strength)
        if args.mc:
            mc_strength(preset, args.mc)


if __name__ == "__main__":
    main()
