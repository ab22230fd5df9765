"""Does a bot's clock depend on what else runs on the worker? And what do stopping the seats not
on move and reading the clock cost? Prints figures; asserts nothing.

    .venv/bin/python bench/fair_cpu.py [--think 0.25] [--moves 12] [--matches 6]
                                       [--hog 8] [--honest thinker|cruncher]
                                       [--skip-fairness] [--skip-cost]

Part 1, fairness (issues 12 and 19): an honest bot that burns THINK seconds of CPU on each of
its first MOVES decisions (tests/engine/fairplay/thinker.py, by its own CPU clock; or, with
--honest cruncher, fairplay/cruncher.py: the work that takes THINK seconds here, alone) plays,
at the ladder's clock,
  A. beside builtin:random, alone on the worker;
  B. beside a hog that answers at once but keeps HOG (8) busy child processes
     (fairplay/hog.py), and B2, beside one that keeps HOG busy threads (fairplay/thread_hog.py);
  C. beside builtin:random in three matches at once (three threads of one worker), with two
     busy loops running outside the sandbox.
Per run, over the honest bot's thinking moves: the median and max of their counted time (the
seat's CPU time, as the engine's clock counted it: what the bank is charged and what the bot
page shows) and of their wall time (the engine's, message to reply), the counted median
against A's, and the forfeits.

Part 2, the speed of CPU time: engine.clock's calibration workload alone, and beside two busy
loops: whether load changes the CPU time a fixed piece of work takes (the speed factor).

Part 3, cost: the round trip of a decision to a trivial bot (bench/trivial_bot.py), matches
alternating in one run between stopping off, stopping on (as served), and stopping on with no
grace (every other seat stopped at every decision: the worst case); and one read of a seat's
CPU time, which the clock does twice a decision.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine import botproc, clock  # noqa: E402
from engine.botproc import program_player_factory  # noqa: E402
from engine.builtin import resolve_player  # noqa: E402
from engine.kaiser.match import run_match  # noqa: E402
from engine.players import Player, TimeControl  # noqa: E402
from engine.sandbox import SANDBOX_PATH, SandboxLimits, SandboxProcess  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
PROBES = ROOT / "tests" / "engine" / "fairplay"
TRIVIAL = ROOT / "bench" / "trivial_bot.py"
CLOCK = TimeControl()  # the ladder's: 1000 ms a move, a 10 s bank a game


def probe(folder: Path, name: str, settings: dict[str, str] | None = None) -> Path:
    bot = folder / name
    bot.mkdir()
    shutil.copy(PROBES / f"{name}.py", bot / "bot.py")
    shutil.copy(PROBES / "_play.py", bot / "_play.py")
    for file, text in (settings or {}).items():
        (bot / file).write_text(text)
    return bot


@contextmanager
def busy_loops(count: int) -> Iterator[None]:
    """`count` processes spinning outside the sandbox, killed (by pid) on the way out. Each
    in a session of its own: the kernel's autogroup would otherwise give them together the
    share of one process."""
    loops = [subprocess.Popen([sys.executable, "-c", "while True: pass"],
                              start_new_session=True) for _ in range(count)]
    try:
        yield
    finally:
        for loop in loops:
            loop.kill()
            loop.wait()


class TimedFactory:
    """Every act() of its players timed (engine-side wall seconds), one list per player."""

    def __init__(self, factory: Any) -> None:
        self.factory = factory
        self.name, self.version = factory.name, factory.version
        self.timed: list[tuple[Player, list[float]]] = []

    def __call__(self, slot: int) -> Player:
        player = self.factory(slot)
        samples: list[float] = []
        self.timed.append((player, samples))
        inner_act, wall = player.act, time.perf_counter

        def act(state: Any, legal: Any) -> Any:
            started = wall()
            action = inner_act(state, legal)
            samples.append(wall() - started)
            return action

        player.act = act  # type: ignore[method-assign]
        return player


def honest_match(thinker: Path, opponent: Any, seed: str, moves: int,
                 out: dict[str, Any]) -> None:
    honest = TimedFactory(program_player_factory(thinker, time=CLOCK, name="honest"))
    replay = run_match(honest, opponent, games=2, seed=seed, time=CLOCK)
    forfeit = replay["result"]["forfeit"]
    out.setdefault("forfeits", []).append(
        f"{forfeit['reason']} by {forfeit['player']}" if forfeit else None)
    for player, walls in honest.timed:  # the first `moves` decisions of each seat: thinking
        out.setdefault("counted", []).extend(player.decision_ms()[:moves])
        out.setdefault("walls", []).extend(w * 1000 for w in walls[:moves])


def run_at_once(jobs: list[tuple[Any, ...]]) -> None:
    threads = [threading.Thread(target=honest_match, args=job) for job in jobs]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def honest_probe(folder: Path, name: str, think: float, moves: int) -> Path:
    """thinker: burns `think` s of CPU time by its own clock; cruncher: does the work that
    takes `think` s of CPU time here, alone, whatever any clock says."""
    if name == "thinker":
        return probe(folder, name, {"think_s.txt": f"{think} {moves}"})
    python3 = shutil.which("python3", path=SANDBOX_PATH) or "python3"  # the sandbox's
    rounds = subprocess.run([python3, PROBES / "cruncher.py", "--rounds-for", str(think)],
                            cwd=PROBES, check=True, capture_output=True, text=True).stdout.strip()
    return probe(folder, name, {"crunch.txt": f"{rounds} {moves}"})


def fairness(think: float, moves: int, hog: int, honest: str) -> None:
    runs: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory(prefix="kaiser-fair-") as scratch:
        folder = Path(scratch)
        os.chmod(folder, 0o755)
        thinker = honest_probe(folder, honest, think, moves)
        hogs = {name: program_player_factory(probe(folder, name, {"hog.txt": f"{hog} 0"}),
                                             time=CLOCK, name=name)
                for name in ("hog", "thread_hog")}
        for label, opponent in (("A beside builtin:random, alone", "builtin:random"),
                                (f"B beside a hog of {hog} busy children", hogs["hog"]),
                                (f"B2 beside a hog of {hog} busy threads", hogs["thread_hog"])):
            runs[label] = {}
            player = resolve_player(opponent) if isinstance(opponent, str) else opponent
            honest_match(thinker, player, "1", moves, runs[label])
        label = "C three matches at once, 2 busy loops"
        runs[label] = {}
        with busy_loops(2):
            run_at_once([(thinker, resolve_player("builtin:random"), str(seed), moves,
                          runs[label]) for seed in (1, 2, 3)])
    print(f"fairness: honest bot ({honest}) thinking {think} s of CPU on {moves} moves a seat "
          f"(ladder clock {CLOCK.move_ms} ms + {CLOCK.bank_ms} ms bank); {clock.describe()}")
    base = statistics.median(runs["A beside builtin:random, alone"]["counted"])
    for label, run in runs.items():
        forfeits = [f for f in run["forfeits"] if f] or ["none"]
        counted, walls = run.get("counted", []), run.get("walls", [])
        if not counted:  # a forfeit before the honest bot's first move
            print(f"  {label:38} no moves  forfeits: {', '.join(forfeits)}")
            continue
        print(f"  {label:38} counted median {statistics.median(counted):5.0f} ms max "
              f"{max(counted):5.0f} ms x{statistics.median(counted) / base:4.2f} of A | wall "
              f"median {statistics.median(walls):5.0f} ms max {max(walls):5.0f} ms | moves "
              f"{len(counted):3}  forfeits: {', '.join(forfeits)}")


def speed() -> None:
    alone = clock.calibrate(runs=40)
    with busy_loops(2):
        loaded = clock.calibrate(runs=40)
    print(f"speed: the calibration workload's CPU time (best / median of 40 runs); usable cores "
          f"{clock.usable_cores()}")
    for label, run in (("alone", alone), ("beside 2 busy loops", loaded)):
        print(f"  {label:20} best {run.best_ms:5.2f} ms  median {run.median_ms:5.2f} ms  "
              f"factor {run.factor:4.2f} (reference {clock.REFERENCE_WORKLOAD_MS} ms)")


MODES = {"stopping off": (False, botproc.STOP_GRACE_S),
         "stopping on (served)": (True, botproc.STOP_GRACE_S),
         "stopping on, no grace": (True, 0.0)}


def cost(matches: int) -> None:
    samples: dict[str, list[float]] = {mode: [] for mode in MODES}
    steps: dict[str, int] = dict.fromkeys(MODES, 0)
    inner = program_player_factory(TRIVIAL, time=CLOCK)
    for seed in range(matches):
        for mode, (freeze, grace) in MODES.items():  # interleaved: the same load for each
            botproc.FREEZE, botproc.STOP_GRACE_S = freeze, grace
            table = botproc._table()
            before = table.steps
            bot = TimedFactory(inner)
            replay = run_match(bot, bot, seed=str(seed), time=CLOCK)
            assert replay["result"]["forfeit"] is None, replay["result"]["forfeit"]
            samples[mode].extend(wall for _, walls in bot.timed for wall in walls)
            steps[mode] += table.steps - before
    base = statistics.median(samples["stopping off"])
    print(f"cost: round trip of a decision to a trivial bot, {matches} two-game matches a mode")
    for mode, values in samples.items():
        values.sort()
        median = statistics.median(values)
        print(f"  {mode:24} median {median * 1e6:6.1f} us  p90 "
              f"{values[int(len(values) * 0.9)] * 1e6:6.1f} us  "
              f"{(median / base - 1) * 100:+5.1f}% vs off  "
              f"stopping steps a decision {steps[mode] / len(values):.2f}")
    read_us, mode = cpu_read_us()
    print(f"  the clock: one read of a seat's CPU time {read_us:.1f} us ({mode}), two a "
          f"decision: {2 * read_us / (base * 1e6) * 100:.0f}% of the median round trip "
          "(stopping off)")


def cpu_read_us(reads: int = 2000) -> tuple[float, str]:
    """The cost of SandboxProcess.cpu_ns() on a live seat that waits for its input."""
    folder = Path(tempfile.mkdtemp(prefix="kaiser-clock-"))
    os.chmod(folder, 0o755)
    shutil.copy(TRIVIAL, folder / "bot.py")
    os.chmod(folder / "bot.py", 0o644)
    seat = SandboxProcess(workdir=folder, run=("python3", "bot.py"), limits=SandboxLimits())
    try:
        seat.wait_started(time.monotonic() + 30)
        seat.cpu_ns()
        started = time.perf_counter()
        for _ in range(reads):
            seat.cpu_ns()
        spent = time.perf_counter() - started
        return spent / reads * 1e6, f"{seat.mode}, {getattr(seat, 'kernel', 'host')} kernel"
    finally:
        seat.kill()
        shutil.rmtree(folder, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--think", type=float, default=0.25)
    parser.add_argument("--moves", type=int, default=12)
    parser.add_argument("--matches", type=int, default=6)
    # 8: under gVisor a seat's task limit holds its Sentry's threads too, and 12 forks reach it.
    parser.add_argument("--hog", type=int, default=8, help="busy children (threads) a hog keeps")
    parser.add_argument("--honest", choices=("thinker", "cruncher"), default="thinker",
                        help="cruncher: fixed work instead of CPU time by the bot's own clock "
                             "(which gVisor's ptrace platform runs fast on a loaded host)")
    parser.add_argument("--skip-fairness", action="store_true")
    parser.add_argument("--skip-cost", action="store_true")
    args = parser.parse_args()
    print(f"load average at start: {os.getloadavg()[0]:.2f}")
    if not args.skip_fairness:
        fairness(args.think, args.moves, args.hog, args.honest)
        speed()
    if not args.skip_cost:
        cost(args.matches)
    print(f"load average at end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
