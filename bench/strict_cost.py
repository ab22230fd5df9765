#!/usr/bin/env python
"""What strict time costs a worker: matches a minute under strict time and under the normal
control, and a strict match's wall time against its decisions x T. Prints figures; asserts
nothing.

    .venv/bin/python bench/strict_cost.py [--matches 16] [--strict-ms 20] [--concurrency 2,4,8]
        [--bots trivial,greedy] [--strict-in threads|processes] [--tiny]

For each bot (trivial: bench/trivial_bot.py, the first legal action; greedy:
bots/examples/greedy.zip), MATCHES two-game Kaiser matches of the bot against itself in the
default sandbox (gVisor, a kernel a seat, as root), played the way the site's workers play
them (the same engine call, engine.kaiser.match.run_match, that matches.runner makes):

- the normal control: a prefork worker capped to the cores (kaiser_site/worker_cores.py), i.e.
  as many processes as usable cores, each playing one match at a time;
- strict time (T = STRICT_MS): the strict worker, one process playing CONCURRENCY matches at
  once in threads (Celery's threads pool, -P threads; docs/operations.md, "Strict time"); a
  run for each CONCURRENCY given. --strict-in processes plays them in as many processes
  instead (a prefork worker not capped to the cores), to tell the GIL's part from the host's.

Printed for each: matches a minute; for strict time also what the waiting alone allows at that
concurrency (CONCURRENCY matches of decisions x T each, back to back), a match's slots' wall
time against its decisions x T over the matches played to their end (every decision is a slot
of T ms: the target is at most 10% over; a forfeit ends a match early) and what its tables'
boots and goodbyes add (a gVisor seat's boot, which the normal control pays too), the
forfeits (a reply later than the slot is a timeout), and the load average beside each. The
slots are read from the match's schedule (engine.slots.Slots: its slots begun and how late
the engine began them).
--tiny: two matches a bot, two at once, two deals a game (the suite runs it so it never rots).
"""

from __future__ import annotations

import argparse
import dataclasses
import multiprocessing
import os
import statistics
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine import tables  # noqa: E402
from engine.botproc import program_player_factory  # noqa: E402
from engine.clock import usable_cores  # noqa: E402
from engine.kaiser.match import run_match  # noqa: E402
from engine.kaiser.rules import DEFAULT_RULES  # noqa: E402
from engine.players import TimeControl  # noqa: E402
from engine.slots import Slots  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
BOTS = {"trivial": ROOT / "bench" / "trivial_bot.py",
        "greedy": ROOT / "bots" / "examples" / "greedy.zip"}
TARGET_OVER = 0.10  # a strict match's wall time over decisions x T
STRICT_POOLS = {"threads": "threads of one process", "processes": "processes"}


@dataclasses.dataclass(frozen=True)
class Played:
    wall_s: float
    decisions: int
    forfeit: str | None  # "reason by player", or None
    slots: int = 0  # strict: the slots begun
    late_s: float = 0.0  # strict: how far slots began after their time, in all


class SeenSlots(Slots):
    """The match's schedule, kept where play_one can read it (this thread's last match):
    its slots begun and how late the engine began them."""

    seen = threading.local()

    def __init__(self, time_control: TimeControl) -> None:
        super().__init__(time_control)
        SeenSlots.seen.last = self


tables.Slots = SeenSlots  # type: ignore[misc]  # the bench's look at the schedule, nothing else


@dataclasses.dataclass(frozen=True)
class Run:
    played: list[Played]
    wall_s: float  # the whole run, first match started to last one ended
    load: float  # the 1-minute load average at its end
    at_once: int
    pool: str  # threads, processes

    @property
    def per_minute(self) -> float:
        return 60 * len(self.played) / self.wall_s


def play_one(bot: str, seed: int, strict_ms: int, max_deals: int | None) -> Played:
    """One two-game match of `bot` against itself, as a worker plays it."""
    clock = TimeControl(strict_ms=strict_ms)  # the ladder's clock, strict or not
    rules = DEFAULT_RULES if max_deals is None else dataclasses.replace(
        DEFAULT_RULES, max_deals=max_deals)
    sides = [program_player_factory(BOTS[bot], time=clock, name=f"{bot}-{s}") for s in "AB"]
    SeenSlots.seen.last = None
    began = time.monotonic()
    replay = run_match(*sides, games=2, seed=f"strict-cost/{bot}/{seed}", rules=rules,
                       time=clock)
    wall_s = time.monotonic() - began
    decisions = sum(len(p.decision_ms()) for side in sides for p in side.players)
    forfeit = replay["result"]["forfeit"]
    said = None if forfeit is None else f"{forfeit['reason']} by {forfeit['player']}"
    slots = SeenSlots.seen.last  # None under the normal control
    return Played(wall_s, decisions, said, slots.count if slots else 0,
                  slots.late_s if slots else 0.0)


def run(pool: Callable[[int], Executor], at_once: int, bot: str, matches: int, strict_ms: int,
        max_deals: int | None) -> Run:
    with pool(at_once) as executor:
        list(executor.map(time.sleep, [0.5] * at_once))  # every process started, not timed
        began = time.monotonic()
        futures = [executor.submit(play_one, bot, seed, strict_ms, max_deals)
                   for seed in range(matches)]
        played = [f.result() for f in futures]
        wall_s = time.monotonic() - began
    return Run(played, wall_s, os.getloadavg()[0], at_once, pool.__name__)


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


def report_normal(bot: str, normal: Run) -> None:
    print(f"{bot} ({BOTS[bot].relative_to(ROOT)}), {len(normal.played)} matches a run:")
    print(f"  normal control: {normal.per_minute:6.1f} matches/min ({normal.at_once} at once in "
          f"processes, {normal.wall_s:.1f} s; a match {mean(normal.played, 'wall_s'):.2f} s, "
          f"{mean(normal.played, 'decisions'):.0f} decisions; forfeits "
          f"{forfeits(normal.played)}; load average {normal.load:.2f})")


def report_strict(normal: Run, strict: Run, strict_ms: int) -> None:
    """The strict run's rate beside the control's and what the waiting alone allows (its
    matches' decisions x T, at this many at once), and its whole matches' wall time against
    their decisions x T (a forfeit ends a match early: it says nothing of the slots)."""
    slots_s = statistics.fmean(p.decisions * strict_ms / 1000 for p in strict.played)
    forced = 60 * strict.at_once / slots_s if slots_s else 0.0
    print(f"  strict {strict_ms} ms, {strict.at_once} at once ({strict.pool}): "
          f"{strict.per_minute:6.1f} matches/min = {strict.per_minute / normal.per_minute:.0%} "
          f"of the normal control; the waiting alone allows {forced:.1f} (reached "
          f"{strict.per_minute / forced if forced else 0:.0%}); {strict.wall_s:.1f} s; load "
          f"average {strict.load:.2f}")
    whole = [p for p in strict.played if p.forfeit is None and p.decisions]
    if whole:
        slots = [p.decisions * strict_ms / 1000 for p in whole]
        played = [p.slots * strict_ms / 1000 + p.late_s for p in whole]
        over = sum(played) / sum(slots) - 1
        worst = max(t / s - 1 for t, s in zip(played, slots, strict=True))
        boots = statistics.fmean(p.wall_s - t for p, t in zip(whole, played, strict=True))
        print(f"    a whole strict match ({len(whole)}): {mean(whole, 'decisions'):.0f} "
              f"decisions, decisions x T {statistics.fmean(slots):.2f} s; its slots took "
              f"{statistics.fmean(played):.2f} s: {over:+.1%} over (the worst {worst:+.1%}; "
              f"target <= {TARGET_OVER:.0%}); with its tables' boots and goodbyes "
              f"(+{boots:.2f} s, paid under the normal control too) {mean(whole, 'wall_s'):.2f} s")
    else:
        print("    no strict match played to its end")
    print(f"    forfeits: {forfeits(strict.played)}")


def mean(played: list[Played], field: str) -> float:
    return statistics.fmean(getattr(p, field) for p in played)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=16)
    parser.add_argument("--strict-ms", type=int, default=20)
    parser.add_argument("--concurrency", default=os.environ.get("KAISER_STRICT_CONCURRENCY", "8"),
                        help="strict matches at once in the strict worker's one process: "
                             "one number, or several (2,4,8): a strict run each")
    parser.add_argument("--bots", default="trivial,greedy")
    parser.add_argument("--strict-in", choices=("threads", "processes"), default="threads",
                        help="the strict runs' pool: threads of one process (the strict "
                             "worker's), or processes (a prefork worker not capped)")
    parser.add_argument("--tiny", action="store_true")
    args = parser.parse_args()
    max_deals = None
    if args.tiny:
        args.matches, args.concurrency, max_deals = 2, "2", 2
    levels = [int(n) for n in str(args.concurrency).split(",")]
    cores = usable_cores()
    print(f"strict cost: two-game Kaiser matches in the sandbox, T = {args.strict_ms} ms; "
          f"normal control {cores} at once (processes: the cores), strict "
          f"{args.concurrency} at once ({STRICT_POOLS[args.strict_in]}); "
          f"{os.cpu_count()} cores, "
          f"load average {os.getloadavg()[0]:.2f} at the start"
          + (f"; {max_deals} deals a game" if max_deals else ""))
    for bot in args.bots.split(","):
        normal = run(processes, cores, bot, args.matches, 0, max_deals)
        report_normal(bot, normal)
        for level in levels:
            pool = threads if args.strict_in == "threads" else processes
            strict = run(pool, level, bot, args.matches, args.strict_ms, max_deals)
            report_strict(normal, strict, args.strict_ms)


if __name__ == "__main__":
    main()
