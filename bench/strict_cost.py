#!/usr/bin/env python
"""What strict time costs a worker: matches a minute under strict time and under the normal
control, and a strict match's wall time against its decisions x T. Prints figures; asserts
nothing.

    .venv/bin/python bench/strict_cost.py [--matches 16] [--strict-ms 20] [--concurrency 8]
        [--bots trivial,greedy] [--tiny]

For each bot (trivial: bench/trivial_bot.py, the first legal action; greedy:
bots/examples/greedy.zip), MATCHES two-game Kaiser matches of the bot against itself in the
default sandbox (gVisor, a kernel a seat, as root), played the way the site's workers play
them (the same engine call, engine.kaiser.match.run_match, that matches.runner makes):

- the normal control: a prefork worker capped to the cores (kaiser_site/worker_cores.py), i.e.
  as many processes as usable cores, each playing one match at a time;
- strict time (T = STRICT_MS): the strict worker, one process playing CONCURRENCY matches at
  once in threads (Celery's threads pool, -P threads; docs/operations.md, "Strict time").

Printed for each: matches a minute; for strict time also what the waiting alone allows at that
concurrency (CONCURRENCY matches of decisions x T each, back to back), a match's wall time
against its decisions x T (every decision is a slot of T ms: the target is at most 10% over),
the forfeits (a reply later than the slot is a timeout), and the load average beside each.
--tiny: two matches a bot, two at once, two deals a game (the suite runs it so it never rots).
"""

from __future__ import annotations

import argparse
import dataclasses
import multiprocessing
import os
import statistics
import sys
import time
from collections.abc import Callable
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.botproc import program_player_factory  # noqa: E402
from engine.clock import usable_cores  # noqa: E402
from engine.kaiser.match import run_match  # noqa: E402
from engine.kaiser.rules import DEFAULT_RULES  # noqa: E402
from engine.players import TimeControl  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
BOTS = {"trivial": ROOT / "bench" / "trivial_bot.py",
        "greedy": ROOT / "bots" / "examples" / "greedy.zip"}
TARGET_OVER = 0.10  # a strict match's wall time over decisions x T


@dataclasses.dataclass(frozen=True)
class Played:
    wall_s: float
    decisions: int
    forfeit: str | None  # "reason by player", or None


@dataclasses.dataclass(frozen=True)
class Run:
    played: list[Played]
    wall_s: float  # the whole run, first match started to last one ended
    load: float  # the 1-minute load average at its end
    at_once: int

    @property
    def per_minute(self) -> float:
        return 60 * len(self.played) / self.wall_s


def play_one(bot: str, seed: int, strict_ms: int, max_deals: int | None) -> Played:
    """One two-game match of `bot` against itself, as a worker plays it."""
    clock = TimeControl(strict_ms=strict_ms)  # the ladder's clock, strict or not
    rules = DEFAULT_RULES if max_deals is None else dataclasses.replace(
        DEFAULT_RULES, max_deals=max_deals)
    sides = [program_player_factory(BOTS[bot], time=clock, name=f"{bot}-{s}") for s in "AB"]
    began = time.monotonic()
    replay = run_match(*sides, games=2, seed=f"strict-cost/{bot}/{seed}", rules=rules,
                       time=clock)
    wall_s = time.monotonic() - began
    decisions = sum(len(p.decision_ms()) for side in sides for p in side.players)
    forfeit = replay["result"]["forfeit"]
    said = None if forfeit is None else f"{forfeit['reason']} by {forfeit['player']}"
    return Played(wall_s, decisions, said)


def run(pool: Callable[[int], Executor], at_once: int, bot: str, matches: int, strict_ms: int,
        max_deals: int | None) -> Run:
    with pool(at_once) as executor:
        list(executor.map(time.sleep, [0.5] * at_once))  # every process started, not timed
        began = time.monotonic()
        futures = [executor.submit(play_one, bot, seed, strict_ms, max_deals)
                   for seed in range(matches)]
        played = [f.result() for f in futures]
        wall_s = time.monotonic() - began
    return Run(played, wall_s, os.getloadavg()[0], at_once)


def processes(count: int) -> Executor:
    """The prefork worker's children: processes, one match at a time each (spawned, not
    forked: this process has the strict run's threads by the second bot)."""
    return ProcessPoolExecutor(count, mp_context=multiprocessing.get_context("spawn"))


def threads(count: int) -> Executor:
    """The strict worker's pool: threads of one process."""
    return ThreadPoolExecutor(count, thread_name_prefix="strict")


def forfeits(played: list[Played]) -> str:
    said = [p.forfeit for p in played if p.forfeit]
    return f"{len(said)} ({'; '.join(sorted(set(said)))})" if said else "none"


def report(bot: str, normal: Run, strict: Run, strict_ms: int) -> None:
    slots_s = [p.decisions * strict_ms / 1000 for p in strict.played]
    over = [p.wall_s / s - 1 for p, s in zip(strict.played, slots_s, strict=True) if s]
    forced = 60 * strict.at_once / statistics.fmean(slots_s) if any(slots_s) else 0.0
    print(f"{bot} ({BOTS[bot].relative_to(ROOT)}), {len(normal.played)} matches each way:")
    print(f"  normal control: {normal.per_minute:6.1f} matches/min  ({normal.at_once} at once "
          f"in processes, {normal.wall_s:.1f} s; load average {normal.load:.2f})")
    print(f"  strict {strict_ms} ms:   {strict.per_minute:6.1f} matches/min  ({strict.at_once} "
          f"at once in threads, {strict.wall_s:.1f} s; load average {strict.load:.2f}) = "
          f"{strict.per_minute / normal.per_minute:.0%} of the normal control")
    print(f"  what the waiting alone allows at {strict.at_once} at once: {forced:6.1f} "
          f"matches/min (decisions x T back to back); reached {strict.per_minute / forced:.0%}"
          if forced else "  no decisions played under strict time")
    if over:
        wall = statistics.fmean(p.wall_s for p in strict.played)
        print(f"  a strict match's wall time: mean {wall:.2f} s for "
              f"{statistics.fmean(p.decisions for p in strict.played):.0f} decisions "
              f"(decisions x T = {statistics.fmean(slots_s):.2f} s): "
              f"{statistics.fmean(over):+.1%} over (max {max(over):+.1%}; target <= "
              f"{TARGET_OVER:.0%}); load average {strict.load:.2f}")
    print(f"  a normal match's wall time: mean "
          f"{statistics.fmean(p.wall_s for p in normal.played):.2f} s for "
          f"{statistics.fmean(p.decisions for p in normal.played):.0f} decisions")
    print(f"  forfeits: normal {forfeits(normal.played)}; strict {forfeits(strict.played)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=16)
    parser.add_argument("--strict-ms", type=int, default=20)
    parser.add_argument("--concurrency", type=int,
                        default=int(os.environ.get("KAISER_STRICT_CONCURRENCY", "8")),
                        help="strict matches at once in the strict worker's one process")
    parser.add_argument("--bots", default="trivial,greedy")
    parser.add_argument("--tiny", action="store_true")
    args = parser.parse_args()
    max_deals = None
    if args.tiny:
        args.matches, args.concurrency, max_deals = 2, 2, 2
    cores = usable_cores()
    print(f"strict cost: two-game Kaiser matches in the sandbox, T = {args.strict_ms} ms; "
          f"normal control {cores} at once (processes: the cores), strict "
          f"{args.concurrency} at once (threads of one process); {os.cpu_count()} cores, "
          f"load average {os.getloadavg()[0]:.2f} at the start"
          + (f"; {max_deals} deals a game" if max_deals else ""))
    for bot in args.bots.split(","):
        normal = run(processes, cores, bot, args.matches, 0, max_deals)
        strict = run(threads, args.concurrency, bot, args.matches, args.strict_ms, max_deals)
        report(bot, normal, strict, args.strict_ms)


if __name__ == "__main__":
    main()
