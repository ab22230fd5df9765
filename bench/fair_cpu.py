"""Can a bot starve its opponent? And what does stopping the seats not on move cost? Prints
figures; asserts nothing.

    .venv/bin/python bench/fair_cpu.py [--think 0.25] [--moves 12] [--matches 6]

Part 1, fairness (issue 12): an honest bot that burns THINK seconds of CPU on each of its first
MOVES decisions (tests/engine/fairplay/thinker.py) plays
  A. beside builtin:random, alone on the worker;
  B. beside a hog that answers at once but keeps 30 busy child processes (fairplay/hog.py),
  C. at the same time as B, in another thread of the same worker: honest beside random again.
The figure is the median wall time of the honest bot's moves (from the act message's arrival
to its reply, as the bot measures it), B and C against A, and any forfeit.

Part 2, cost (issue 12): the round trip of a decision to a trivial bot (bench/trivial_bot.py),
matches alternating in one run between stopping off, stopping on (as served), and stopping on
with no grace (every other seat stopped at every decision: the worst case).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine import botproc  # noqa: E402
from engine.botproc import program_player_factory  # noqa: E402
from engine.builtin import resolve_player  # noqa: E402
from engine.match import run_match  # noqa: E402
from engine.players import Player, TimeControl  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
PROBES = ROOT / "tests" / "engine" / "fairplay"
TRIVIAL = ROOT / "bench" / "trivial_bot.py"
CLOCK = TimeControl()  # the ladder's: 1000 ms a move, a 10 s bank a game


def probe(folder: Path, name: str, setting: str = "") -> Path:
    bot = folder / name
    bot.mkdir()
    shutil.copy(PROBES / f"{name}.py", bot / "bot.py")
    shutil.copy(PROBES / "_play.py", bot / "_play.py")
    if setting:
        (bot / "think_s.txt").write_text(setting)
    return bot


def honest_match(thinker: Path, opponent: Any, seed: str, out: dict[str, Any]) -> None:
    honest = program_player_factory(thinker, time=CLOCK, name="honest")
    started = time.monotonic()
    replay = run_match(honest, opponent, games=2, seed=seed, time=CLOCK)
    out["seconds"] = time.monotonic() - started
    out["forfeit"] = replay["result"]["forfeit"]
    out["walls"] = [w for text in honest.stderr_texts() if text.strip()
                    for w in json.loads(text.strip().splitlines()[-1])["walls"]]


def fairness(think: float, moves: int) -> None:
    with tempfile.TemporaryDirectory(prefix="kaiser-fair-") as scratch:
        folder = Path(scratch)
        os.chmod(folder, 0o755)
        thinker = probe(folder, "thinker", f"{think} {moves}")
        hog = program_player_factory(probe(folder, "hog"), time=CLOCK, name="hog")
        alone: dict[str, Any] = {}
        honest_match(thinker, resolve_player("builtin:random"), "1", alone)
        beside_hog: dict[str, Any] = {}
        third: dict[str, Any] = {}
        threads = [threading.Thread(target=honest_match, args=(thinker, hog, "1", beside_hog)),
                   threading.Thread(target=honest_match,
                                    args=(thinker, resolve_player("builtin:random"), "1", third))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    base = statistics.median(alone["walls"])
    print(f"fairness: honest bot thinking {think} s of CPU on {moves} moves a seat "
          f"(ladder clock {CLOCK.move_ms} ms + {CLOCK.bank_ms} ms bank)")
    for label, run in (("A beside builtin:random, alone", alone),
                       ("B beside the hog (30 busy children)", beside_hog),
                       ("C beside builtin:random, same time as B", third)):
        median = statistics.median(run["walls"])
        forfeit = run["forfeit"]
        print(f"  {label:42} median {median * 1000:7.1f} ms  max {max(run['walls']) * 1000:7.1f}"
              f" ms  x{median / base:4.2f} of A  moves {len(run['walls']):3}  "
              f"forfeit: {forfeit['reason'] + ' by ' + forfeit['player'] if forfeit else 'none'}")


class TimedFactory:
    """Every act() of its players timed into `samples` (wall seconds)."""

    def __init__(self, factory: Any, samples: list[float]) -> None:
        self.factory, self.samples = factory, samples
        self.name, self.version = factory.name, factory.version

    def __call__(self, slot: int) -> Player:
        player = self.factory(slot)
        inner_act, samples, wall = player.act, self.samples, time.perf_counter

        def act(state: Any, legal: Any) -> Any:
            started = wall()
            action = inner_act(state, legal)
            samples.append(wall() - started)
            return action

        player.act = act  # type: ignore[method-assign]
        return player


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
            bot = TimedFactory(inner, samples[mode])
            replay = run_match(bot, bot, seed=str(seed), time=CLOCK)
            assert replay["result"]["forfeit"] is None, replay["result"]["forfeit"]
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--think", type=float, default=0.25)
    parser.add_argument("--moves", type=int, default=12)
    parser.add_argument("--matches", type=int, default=6)
    parser.add_argument("--skip-fairness", action="store_true")
    args = parser.parse_args()
    print(f"load average at start: {os.getloadavg()[0]:.2f}")
    if not args.skip_fairness:
        fairness(args.think, args.moves)
    cost(args.matches)
    print(f"load average at end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
