"""How fast are sandboxed bots? Prints figures; asserts nothing.

    .venv/bin/python bench/sandbox_speed.py [--matches N]

- one decision's round trip (engine -> sandboxed trivial Python bot -> engine): median and p99,
  timed around ProgramPlayer.act (message encoding, the pipes, the bot, decoding, checking);
- start-up of the four sandboxed seats of a match (processes created until all four are ready);
- sandboxed two-game matches per second between two trivial Python bots, next to the same
  match between built-in in-process players, and the ratio.

Each figure is printed for every design side by side, measured in turns so that all see the
same load: a plain pipe (the bot unsandboxed: the floor), bubblewrap on the host's kernel
(KAISER_SANDBOX_KERNEL=host, the design before issue 19) and gVisor, a kernel a seat (the
server's default).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.archive import BotProgram  # noqa: E402
from engine.botproc import ProgramPlayer, program_player_factory  # noqa: E402
from engine.builtin import resolve_player  # noqa: E402
from engine.match import run_match  # noqa: E402
from engine.players import Player, TimeControl  # noqa: E402
from engine.rules import DEFAULT_RULES  # noqa: E402

TRIVIAL = Path(__file__).resolve().parent / "trivial_bot.py"
CLOCK = TimeControl(move_ms=1000, bank_ms=10000, startup_ms=5000)


class TimedFactory:
    """Wraps a factory; every act() of its players is timed into `samples` (wall seconds) and
    `cpu` (the engine thread's CPU seconds: not the bot's, and little changed by load)."""

    def __init__(self, factory: Any, samples: list[float], cpu: list[float]) -> None:
        self.factory, self.samples, self.cpu = factory, samples, cpu
        self.name, self.version = factory.name, factory.version

    def __call__(self, slot: int) -> Player:
        player = self.factory(slot)
        inner_act, samples, cpu = player.act, self.samples, self.cpu
        wall, thread = time.perf_counter, time.thread_time

        def act(state: Any, legal: Any) -> Any:
            cpu_started = thread()
            started = wall()
            action = inner_act(state, legal)
            samples.append(wall() - started)  # the CPU clock's own cost is outside this
            cpu.append(thread() - cpu_started)
            return action

        player.act = act  # type: ignore[method-assign]
        return player


DESIGNS = {"plain pipe": {"unsandboxed": "1"},
           "host kernel (bwrap)": {"KAISER_SANDBOX_KERNEL": "host"},
           "gVisor a seat": {"KAISER_SANDBOX_KERNEL": "gvisor"}}


@contextlib.contextmanager
def design(name: str) -> Any:
    settings = dict(DESIGNS[name])
    unsandboxed = settings.pop("unsandboxed", "") == "1"
    saved = {key: os.environ.get(key) for key in settings}
    os.environ.update(settings)
    try:
        yield unsandboxed
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def round_trips(matches: int, unsandboxed: bool = False
                ) -> tuple[list[float], float, float, float]:
    """Wall time of each act(); CPU seconds per decision of the engine inside act(), of the
    engine in all, and of the bots."""
    samples: list[float] = []
    cpu: list[float] = []
    inner = program_player_factory(TRIVIAL, time=CLOCK, unsandboxed=unsandboxed)
    bot = TimedFactory(inner, samples, cpu)
    engine_cpu = time.process_time()
    for seed in range(matches):
        replay = run_match(bot, bot, seed=str(seed), time=CLOCK)
        assert replay["result"]["forfeit"] is None, replay["result"]["forfeit"]
    engine_cpu = time.process_time() - engine_cpu
    bot_cpu, acts = 0.0, 0
    for text in inner.stderr_texts():  # "cpu SECONDS acts N", from each process at match_end
        words = text.split()
        bot_cpu += float(words[1])
        acts += int(words[3])
    assert acts == len(samples), (acts, len(samples))
    return samples, sum(cpu) / acts, engine_cpu / acts, bot_cpu / acts


def startups(times: int, unsandboxed: bool = False) -> list[float]:
    factory = program_player_factory(TRIVIAL, time=CLOCK, unsandboxed=unsandboxed)
    results = []
    for _ in range(times):
        started = time.perf_counter()
        players = [factory(slot) for slot in (0, 1, 0, 1)]  # as the runner: create all, then
        for seat, player in enumerate(players):  # hello each in turn
            player.start(seat=seat, rules=DEFAULT_RULES, games=2, time=CLOCK, seed="0")
        results.append(time.perf_counter() - started)
        for player in players:
            player.close()
    return results


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

    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs "
          "(wall-clock figures stretch with the load; the CPU figures much less)")
    trips: dict[str, Any] = {}
    starts: dict[str, list[float]] = {name: [] for name in names}
    for _ in range(2):  # in turns, so that every design sees the same load
        for name in names:
            with design(name) as unsandboxed:
                samples, act_cpu, engine_cpu, bot_cpu = round_trips(max(1, args.matches // 2),
                                                                    unsandboxed)
                old = trips.get(name)
                trips[name] = (samples + (old[0] if old else []), act_cpu, engine_cpu, bot_cpu)
                starts[name] += startups(max(3, args.matches // 4), unsandboxed)
    print("decision round trip, trivial Python bot (target: at most 3x the plain pipe):")
    floor = statistics.median(trips[names[0]][0])
    for name in names:
        samples, act_cpu, engine_cpu, bot_cpu = trips[name]
        median = statistics.median(samples)
        print(f"  {name:<20} median {median * 1e6:5.0f} µs ({median / floor:.1f}x), "
              f"p99 {percentile(samples, 0.99) * 1e6:5.0f} µs, {len(samples)} decisions; "
              f"CPU a decision: engine {act_cpu * 1e6:.0f} µs in act(), {engine_cpu * 1e6:.0f}"
              f" µs in all; bot {bot_cpu * 1e6:.0f} µs")
    print("start-up of the four seats of a match (target: under 600 ms):")
    for name in names:
        print(f"  {name:<20} median {statistics.median(starts[name]) * 1e3:6.1f} ms, "
              f"max {max(starts[name]) * 1e3:6.1f} ms, {len(starts[name])} runs")

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


if __name__ == "__main__":
    main()
