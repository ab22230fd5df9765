"""Engine speed: random-vs-random duplicate matches on one core, with the replay recorded.

    .venv/bin/python bench/engine_speed.py [--games 2000] [--rules official] [--repeat 5]
                                           [--paths fast,trusted,checked] [--memory 10000]

Prints, per preset and runner path, the best and the median of `--repeat` runs of
run_match(random, random): deals/s, decisions/s and games/s, by wall clock and by process CPU
time (the machine is shared: CPU time is the steadier figure). Every run returns the full
replay; the time to serialise it (replay_json) is printed apart.

Paths: `fast` is what `builtin:random` gets (GameState.play_uniform), `trusted` the loop any
trusted in-process player gets (one act() call per decision), `checked` the loop of untrusted
players (every action checked against legal_actions()). All three play the same games.

--memory N plays one N-game official match in a fresh process and prints its peak memory:
ru_maxrss of that process, and the tracemalloc peak of a second such run.

--reference also times the yardstick of issue 2, a plain loop that shuffles and plays random
legal cards with no state object, rules or replay (about 18,000 deals/s on an idle machine):
on a shared machine, the ratio to it is steadier than either figure.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.builtin import BuiltinFactory, RandomPlayer  # noqa: E402
from engine.kaiser.cards import CARD_OF  # noqa: E402
from engine.kaiser.game import HONOURS  # noqa: E402
from engine.kaiser.match import run_match  # noqa: E402
from engine.kaiser.rules import get_rules  # noqa: E402
from engine.runner import replay_json  # noqa: E402

# Subclasses keep the class name: a seeded player's generator is seeded with it, so every
# path plays the same games.
PATHS: dict[str, type[RandomPlayer]] = {
    "fast": RandomPlayer,
    "trusted": type("RandomPlayer", (RandomPlayer,), {}),
    "checked": type("RandomPlayer", (RandomPlayer,), {"trusted": False}),
}


def decisions_in(replay: dict[str, Any], misdeal_rule: bool) -> tuple[int, int]:
    """(deals, decisions) of a replay: misdeal answers, bids, trump, discard, cards."""
    deals = decisions = 0
    for game in replay["games"]:
        for deal in game["deals"]:
            deals += 1
            if misdeal_rule:
                decisions += misdeal_questions(deal)
            contract = deal["contract"]
            decisions += len(deal["bids"]) + 4 * len(deal["tricks"]) + bool(deal["discards"])
            decisions += bool(contract and contract["trump"])
    return deals, decisions


def misdeal_questions(deal: dict[str, Any]) -> int:
    """Seats asked whether to throw the hand in: those without honours, in bidding order."""
    asked = 0
    for i in range(4):
        seat = (deal["dealer"] + 1 + i) % 4
        mask = sum(1 << CARD_OF[c] for c in deal["hands"][seat])
        if not mask & HONOURS:
            asked += 1
            if deal["misdeal"] and deal["misdeal"]["seat"] == seat:
                break
    return asked


def one_run(preset: str, path: str, games: int, seed: str) -> dict[str, float]:
    player = BuiltinFactory("random", "1", PATHS[path], {})
    rules = get_rules(preset)
    wall, cpu = time.perf_counter(), time.process_time()
    replay = run_match(player, player, games=games, seed=seed, rules=rules)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    start = time.perf_counter()
    replay_json(replay)
    dump = time.perf_counter() - start
    deals, decisions = decisions_in(replay, rules.misdeal)
    return {"wall": wall, "cpu": cpu, "deals": deals, "decisions": decisions, "games": games,
            "json": dump}


def report(preset: str, path: str, runs: list[dict[str, float]]) -> None:
    first = runs[0]
    print(f"{preset} / {path}: {first['games']:.0f} games, {first['deals']:.0f} deals, "
          f"{first['decisions']:.0f} decisions per run, {len(runs)} runs")
    for clock in ("cpu", "wall"):
        for unit in ("deals", "decisions", "games"):
            rates = [run[unit] / run[clock] for run in runs]
            print(f"  {clock:4} {unit + '/s':12} best {max(rates):>11,.0f}   "
                  f"median {statistics.median(rates):>11,.0f}")
    dumps = [run["json"] for run in runs]
    print(f"  replay_json of the replay: best {min(dumps) * 1000:.0f} ms "
          f"({first['deals'] / min(dumps):,.0f} deals/s)")
    both = [run["deals"] / (run["cpu"] + run["json"]) for run in runs]
    print(f"  the match and replay_json together: cpu deals/s best {max(both):,.0f}   "
          f"median {statistics.median(both):,.0f}")


def plain_loop(deals: int, rng: random.Random) -> None:
    """Shuffle, deal, play random legal cards, find each trick's winner: nothing else."""
    pack = [s * 10 + r for s in range(4) for r in range(2, 10)]
    for _ in range(deals):
        rng.shuffle(pack)
        hands = [pack[i * 8:(i + 1) * 8] for i in range(4)]
        leader = 0
        for _ in range(8):
            trick: list[int] = []
            for i in range(4):
                hand = hands[(leader + i) % 4]
                legal = [c for c in hand if c // 10 == trick[0] // 10] if trick else hand
                card = rng.choice(legal or hand)
                hand.remove(card)
                trick.append(card)
            led = trick[0] // 10
            best = max(range(4), key=lambda i: (trick[i] // 10 == led, trick[i] % 10))
            leader = (leader + best) % 4


def reference(repeat: int) -> None:
    rates = []
    for run in range(repeat):
        start = time.process_time()
        plain_loop(5000, random.Random(run))
        rates.append(5000 / (time.process_time() - start))
    print(f"plain loop (reference): cpu deals/s best {max(rates):,.0f}   "
          f"median {statistics.median(rates):,.0f}")


def memory_child(games: int, traced: bool) -> None:
    """Runs in a fresh process: one official match of `games` games, then its peak memory."""
    player = BuiltinFactory("random", "1", RandomPlayer, {})
    if traced:
        import tracemalloc

        tracemalloc.start()
    replay = run_match(player, player, games=games, seed="memory", rules=get_rules("official"))
    if traced:
        print(f"tracemalloc peak {tracemalloc.get_traced_memory()[1] / 2**20:.1f} MiB")
    else:
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        deals = sum(len(g["deals"]) for g in replay["games"])
        print(f"{games} games, {deals} deals: ru_maxrss {rss:.1f} MiB (the whole process)")


def memory(games: int) -> None:
    for traced in (False, True):
        subprocess.run([sys.executable, __file__, "--memory-child", str(games)]
                       + (["--traced"] if traced else []), check=True, env=os.environ)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--rules", default="official")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--paths", default="fast")
    parser.add_argument("--seed", default="bench")
    parser.add_argument("--memory", type=int, default=0, help="games of the memory run")
    parser.add_argument("--reference", action="store_true", help="time the plain loop too")
    parser.add_argument("--memory-child", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--traced", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.memory_child:
        memory_child(args.memory_child, args.traced)
        return
    print(f"Python {sys.version.split()[0]}, pid {os.getpid()}, load {os.getloadavg()[0]:.1f}")
    if args.memory:
        # First, while this process is small: Linux carries a parent's peak RSS at fork into
        # the child's ru_maxrss.
        memory(args.memory)
    for preset in args.rules.split(","):
        for path in args.paths.split(","):
            runs = [one_run(preset, path, args.games, args.seed) for _ in range(args.repeat)]
            report(preset, path, runs)
    if args.reference:
        reference(args.repeat)


if __name__ == "__main__":
    main()
