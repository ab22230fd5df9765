"""How fast are sandboxed bots? Prints figures; asserts nothing.

    .venv/bin/python bench/sandbox_speed.py [--matches N]

- one decision's round trip (engine -> sandboxed trivial Python bot -> engine): median and p99,
  timed around ProgramPlayer.act (message encoding, the pipes, the bot, decoding, checking);
- start-up of the four sandboxed seats of a match (processes created until all four are ready),
  before and after issue 33: every seat booted when asked (KAISER_SANDBOX_POOL=0) and handed
  to a seat booted ahead (KAISER_SANDBOX_POOL=4, the default; the pool filled first);
- the bot's CPU time a decision as the seat's clock sees it (engine.clock.BotCpu): what the
  seat's cgroup counted, the sandbox's own kernel's share of it (gVisor's Sentry and gofer:
  not counted), what is counted, and the bot's own view (its CPU clock within its decisions);
  for the trivial bot and for one that computes THINK_MS a decision;
- sandboxed two-game matches per second between two trivial Python bots, next to the same
  match between built-in in-process players, and the ratio.

Each figure is printed for every backend side by side, measured in turns so that all see the
same load, with the load average beside it (at its start and end): a plain pipe (the bot
unsandboxed: the floor), bubblewrap on the host's kernel (KAISER_SANDBOX_KERNEL=host) and
gVisor, a kernel a seat (the server's default).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, cast

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.archive import BotProgram  # noqa: E402
from engine.botproc import ProgramPlayer, program_player_factory  # noqa: E402
from engine.builtin import resolve_player  # noqa: E402
from engine.clock import load_scale  # noqa: E402
from engine.kaiser.match import run_match  # noqa: E402
from engine.kaiser.rules import DEFAULT_RULES  # noqa: E402
from engine.players import Player, TimeControl  # noqa: E402
from engine.sandbox.cgroups import _CgroupV1  # noqa: E402
from engine.sandbox.config import config  # noqa: E402
from engine.sandbox.pool import pool as seat_pool  # noqa: E402
from engine.sandbox.pool import renew as renew_pool  # noqa: E402

TRIVIAL = Path(__file__).resolve().parent / "trivial_bot.py"
CLOCK = TimeControl(move_ms=1000, bank_ms=10000, startup_ms=5000)
THINK_MS = 20
POOL_ENV = "KAISER_SANDBOX_POOL"
POOLS = {"before (pool 0)": "0", "after (pool 4)": "4"}


class TimedFactory:
    """Wraps a factory; every act() of its players is timed into `samples` (wall seconds) and
    `cpu` (the engine thread's CPU seconds: not the bot's, and little changed by load)."""

    def __init__(self, factory: Any, samples: list[float], cpu: list[float]) -> None:
        self.factory, self.samples, self.cpu = factory, samples, cpu
        self.name, self.version = factory.name, factory.version
        self.seat_cpu: dict[int, list[tuple[int, int]]] = {}  # a player's (counted, kernel) ns

    def __call__(self, slot: int) -> Player:
        player: Any = self.factory(slot)
        inner_act, samples, cpu = player.act, self.samples, self.cpu
        seat_cpu = self.seat_cpu.setdefault(len(self.seat_cpu), [])
        wall, thread = time.perf_counter, time.thread_time

        def act(state: Any, legal: Any) -> Any:
            counted, kernel = player.clock.counted_ns, player.clock.kernel_ns
            cpu_started = thread()
            started = wall()
            action = inner_act(state, legal)
            samples.append(wall() - started)  # the CPU clock's own cost is outside this
            cpu.append(thread() - cpu_started)
            seat_cpu.append((player.clock.counted_ns - counted, player.clock.kernel_ns - kernel))
            return action

        player.act = act
        return cast(Player, player)


# "gVisor (all frozen)": the design before issue 33's round trip, for comparison in one run:
# every task of a gVisor seat (runsc's launcher and gofer too) in the seat's freezer.
DESIGNS = {"plain pipe": {"unsandboxed": "1"},
           "host kernel (bwrap)": {"KAISER_SANDBOX_KERNEL": "host"},
           "gVisor (all frozen)": {"KAISER_SANDBOX_KERNEL": "gvisor", "all_frozen": "1"},
           "gVisor a seat": {"KAISER_SANDBOX_KERNEL": "gvisor"},
           # the default's platform named (a runsc without systrap refuses that design)
           "gVisor ptrace": {"KAISER_SANDBOX_KERNEL": "gvisor", "KAISER_GVISOR_PLATFORM": "ptrace"},
           "gVisor systrap": {"KAISER_SANDBOX_KERNEL": "gvisor",
                              "KAISER_GVISOR_PLATFORM": "systrap"}}


@contextlib.contextmanager
def design(name: str, pool: str | None = None) -> Any:
    """The backend's environment, and KAISER_SANDBOX_POOL if given (the sandbox's config
    reads it again whenever it changes)."""
    settings = dict(DESIGNS[name])
    unsandboxed = settings.pop("unsandboxed", "") == "1"
    all_frozen = settings.pop("all_frozen", "") == "1"
    if pool is not None:
        settings[POOL_ENV] = pool
    saved = {key: os.environ.get(key) for key in settings}
    os.environ.update(settings)
    narrow = _CgroupV1.freeze_only_below
    if all_frozen:
        _CgroupV1.freeze_only_below = lambda self, pid: None  # type: ignore[method-assign]
    if pool is not None:
        renew_pool()  # the pool boots seats of one backend: this one's, from now
    try:
        yield unsandboxed
    finally:
        _CgroupV1.freeze_only_below = narrow  # type: ignore[method-assign]
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


class Loads:
    """The load average at the start and end of each measured figure, printed beside it."""

    def __init__(self) -> None:
        self.seen: dict[str, list[float]] = {}

    @contextlib.contextmanager
    def during(self, name: str) -> Any:
        loads = self.seen.setdefault(name, [])
        loads.append(os.getloadavg()[0])
        yield
        loads.append(os.getloadavg()[0])

    def __call__(self, name: str) -> str:
        loads = self.seen.get(name) or [os.getloadavg()[0]]
        return f"[load {min(loads):.1f}-{max(loads):.1f}]"


def round_trips(matches: int, unsandboxed: bool = False
                ) -> tuple[list[float], float, float, float, dict[str, float]]:
    """Wall time of each act(); CPU seconds per decision of the engine inside act(), of the
    engine in all, and of the bots (their own clocks, start-up included); the clock's view of
    the decisions (seat_cpu)."""
    samples: list[float] = []
    cpu: list[float] = []
    inner = program_player_factory(TRIVIAL, time=CLOCK, unsandboxed=unsandboxed)
    bot = TimedFactory(inner, samples, cpu)
    engine_cpu = time.process_time()
    for seed in range(matches):
        replay = run_match(bot, bot, seed=str(seed), time=CLOCK)
        assert replay["result"]["forfeit"] is None, replay["result"]["forfeit"]
    engine_cpu = time.process_time() - engine_cpu
    bot_cpu, acts, _ = bots_own_cpu(inner)
    assert acts == len(samples), (acts, len(samples))
    return (samples, sum(cpu) / acts, engine_cpu / acts, bot_cpu / acts,
            clock_view(inner, bot, None))


def bots_own_cpu(factory: Any) -> tuple[float, int, float]:
    """(CPU seconds in all, decisions, CPU seconds within its decisions) of every process,
    by the bot's own clock: trivial_bot.py logs "cpu S acts N own S" at match_end."""
    total, acts, own = 0.0, 0, 0.0
    for text in factory.stderr_texts():
        words = text.split()
        total, acts, own = total + float(words[1]), acts + int(words[3]), own + float(words[5])
    return total, acts, own


def thinking_bot(folder: Path, think_ms: float, decisions: int) -> Path:
    """trivial_bot.py that computes about think_ms of CPU time (on this host, now) at each of
    its first `decisions` decisions."""
    rounds = 200_000
    spent = min(_cpu_of(rounds) for _ in range(3))
    shutil.copy(TRIVIAL, folder / "bot.py")
    (folder / "think.txt").write_text(f"{int(rounds * think_ms / 1000 / spent)} {decisions}")
    return folder


def _cpu_of(rounds: int) -> float:
    from trivial_bot import work  # the bot's own loop, timed here

    started = time.thread_time()
    work(rounds)
    return time.thread_time() - started


def seat_cpu(path: Path, unsandboxed: bool, decisions: int | None) -> dict[str, float]:
    """µs a decision, of the decisions the bot thought at (all if None): counted by the
    clock, its sandbox's kernel's (not counted), and the bot's own view of its CPU time."""
    inner = program_player_factory(path, time=CLOCK, unsandboxed=unsandboxed)
    bot = TimedFactory(inner, [], [])
    replay = run_match(bot, bot, seed="0", time=CLOCK)
    assert replay["result"]["forfeit"] is None, replay["result"]["forfeit"]
    return clock_view(inner, bot, decisions)


def clock_view(inner: Any, bot: TimedFactory, decisions: int | None) -> dict[str, float]:
    own = bots_own_cpu(inner)[2]
    thought = [each for player in bot.seat_cpu.values() for each in player[:decisions]]
    return {"counted": sum(c for c, _ in thought) / len(thought) / 1e3,
            "kernel": sum(k for _, k in thought) / len(thought) / 1e3,
            "own": own * 1e6 / len(thought), "decisions": len(thought)}


def startups(times: int, unsandboxed: bool = False) -> list[float]:
    """Seconds from four players made to four ready, after one untimed start (with a pool,
    that start lets it fill: a match's seats are taken from a full pool)."""
    factory = program_player_factory(TRIVIAL, time=CLOCK, unsandboxed=unsandboxed)
    results = []
    for run in range(times + 1):
        if run and not unsandboxed and config().pool:  # (the first start starts the pool)
            # As between a worker's matches (each lasts seconds to minutes): the pool has
            # booted the seats the last match took.
            seat_pool().wait_full(120)
        started = time.perf_counter()
        players = [factory(slot) for slot in (0, 1, 0, 1)]  # as the runner: create all, then
        for seat, player in enumerate(players):  # hello each in turn
            player.start(seat=seat, rules=DEFAULT_RULES, games=2, time=CLOCK, seed="0")
        results.append(time.perf_counter() - started)
        for player in players:
            player.close()
    return results[1:]


def one_seat_startups(times: int) -> dict[str, float]:
    """Median hello-to-ready of one seat: python3 as the spec runs it, and with -S (no site)."""
    factory = program_player_factory(TRIVIAL, time=CLOCK)
    staged = factory.program
    runs = {"python3 bot.py": staged.run, "python3 -S bot.py": ("python3", "-S", *staged.run[1:])}
    results: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(times):
        for name, run in runs.items():  # interleaved: both see the same load
            program = BotProgram(staged.directory, run)
            started = time.perf_counter()
            player = ProgramPlayer(program, limits=factory.limits, unsandboxed=False)
            player.start(seat=0, rules=DEFAULT_RULES, games=2, time=CLOCK, seed="0")
            results[name].append(time.perf_counter() - started)
            player.close()
    return {name: statistics.median(values) for name, values in results.items()}


def matches_per_second(a: Any, b: Any, matches: int) -> float:
    started = time.perf_counter()
    for seed in range(matches):
        run_match(a, b, seed=str(seed), time=CLOCK)
    return matches / (time.perf_counter() - started)


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=20)
    parser.add_argument("--designs", default=",".join(DESIGNS),
                        help="comma-separated, of: " + ", ".join(DESIGNS))
    args = parser.parse_args()
    names = [name.strip() for name in args.designs.split(",")]
    load = Loads()

    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs, "
          f"{load_scale():.1f} runnable tasks a CPU (wall-clock figures stretch with the load; "
          "the CPU figures much less)")
    trips = measure_round_trips(names, args.matches, load)
    starts = measure_startups(names, args.matches, load)
    print_round_trips(names, trips, load)
    print_startups(names, starts, load)
    print_seat_cpu(names, args.matches, trips, load)

    seat = one_seat_startups(max(5, args.matches // 2))
    print("one seat (default design), sandbox start to ready: " + ", ".join(
        f"{name} {value * 1e3:.1f} ms" for name, value in seat.items())
        + "  (-S is not used: it drops site, so exit() and quit(), which bots call)")

    bot = program_player_factory(TRIVIAL, time=CLOCK)
    sandboxed = matches_per_second(bot, bot, args.matches)
    builtin = resolve_player("builtin:random")
    in_process = matches_per_second(builtin, builtin, args.matches * 10)
    print(f"two-game matches/s (default design): sandboxed trivial Python bots {sandboxed:.2f}, "
          f"built-in in-process random players {in_process:.1f}, "
          f"ratio {in_process / sandboxed:.0f}x")
    print(f"load average {os.getloadavg()[0]:.1f} at the end")


def measure_round_trips(names: list[str], matches: int, load: Loads) -> dict[str, Any]:
    trips: dict[str, Any] = {}
    for _ in range(2):  # in turns, so that every design sees the same load
        for name in names:
            with design(name) as unsandboxed, load.during(f"trip {name}"):
                samples, *rest = round_trips(max(1, matches // 2), unsandboxed)
            old = trips.get(name)
            trips[name] = (samples + (old[0] if old else []), *rest)
    return trips


def start_designs(names: list[str]) -> list[tuple[str, str, str | None]]:
    """(label, backend, pool): the plain pipe once (it has no pool), every sandboxed backend
    before and after."""
    return [(name if DESIGNS[name].get("unsandboxed") else f"{name}, {when}", name,
             None if DESIGNS[name].get("unsandboxed") else pool)
            for name in names for when, pool in POOLS.items()
            if not (DESIGNS[name].get("unsandboxed") and pool != "0")]


def measure_startups(names: list[str], matches: int, load: Loads) -> dict[str, list[float]]:
    starts: dict[str, list[float]] = {}
    for _ in range(2):
        for label, name, pool in start_designs(names):
            with design(name, pool) as unsandboxed, load.during(f"start {label}"):
                starts.setdefault(label, []).extend(
                    startups(max(1, matches // 4), unsandboxed))
    return starts


def print_round_trips(names: list[str], trips: dict[str, Any], load: Loads) -> None:
    print("decision round trip, trivial Python bot (target: at most 3x the plain pipe):")
    floor = statistics.median(trips[names[0]][0])
    for name in names:
        samples, act_cpu, engine_cpu, bot_cpu, _ = trips[name]
        median = statistics.median(samples)
        print(f"  {name:<20} median {median * 1e6:5.0f} µs ({median / floor:.1f}x), "
              f"p99 {percentile(samples, 0.99) * 1e6:5.0f} µs, {len(samples)} decisions "
              f"{load(f'trip {name}')}; CPU a decision: engine {act_cpu * 1e6:.0f} µs in "
              f"act(), {engine_cpu * 1e6:.0f} µs in all; bot {bot_cpu * 1e6:.0f} µs "
              "(its own clock, start-up included)")


def print_startups(names: list[str], starts: dict[str, list[float]], load: Loads) -> None:
    print("start-up of the four seats of a match (target: under 300 ms quiet, 600 ms at load 8;"
          " pool 0: every seat boots when asked, the design before issue 33):")
    for label, _, _ in start_designs(names):
        runs = starts[label]
        print(f"  {label:<36} median {statistics.median(runs) * 1e3:6.1f} ms, "
              f"max {max(runs) * 1e3:6.1f} ms, {len(runs)} runs {load(f'start {label}')}")


def own_figure(cpu: dict[str, float], label: str) -> str:
    """The bot's own view; the trivial bot reads no clock while it plays (a system call each
    under gVisor, which the round trip would time)."""
    return "      -" if label == "trivial" else f"{cpu['own']:7.0f}"


def print_seat_cpu(names: list[str], matches: int, trips: dict[str, Any], load: Loads) -> None:
    """The clock's view of a decision, for the trivial bot (in the round trips' last matches)
    and one that computes."""
    decisions = max(10, 5 * matches)  # the computing bot's thinking decisions a process
    print(f"the bot's CPU a decision (µs; counted = the seat's cgroup less its sandbox's kernel,"
          f" engine.clock.BotCpu; own = the bot's CPU clock within its decisions, under gVisor"
          f" the Sentry's 10 ms ticks): trivial bot, and {THINK_MS} ms of work at its first "
          f"{decisions} decisions a process:")
    with tempfile.TemporaryDirectory() as folder:
        thinking = thinking_bot(Path(folder), THINK_MS, decisions)
        for name in names:
            for label in ("trivial", f"{THINK_MS} ms"):
                if label == "trivial":
                    cpu, figure = trips[name][-1], f"trip {name}"
                else:
                    figure = f"cpu {name}"
                    with design(name) as unsandboxed, load.during(figure):
                        cpu = seat_cpu(thinking, unsandboxed, decisions)
                seat = cpu["counted"] + cpu["kernel"]
                print(f"  {name:<20} {label:<8} seat {seat:7.0f}, kernel's share "
                      f"{cpu['kernel']:6.0f} ({cpu['kernel'] / seat:4.0%}), counted "
                      f"{cpu['counted']:7.0f}, own {own_figure(cpu, label)}; "
                      f"{cpu['decisions']:.0f} "
                      f"decisions {load(figure)}")


if __name__ == "__main__":
    main()
