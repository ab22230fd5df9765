"""What a table of new seats costs (issue 31: every game of a match at new seats). Prints
figures; asserts nothing.

    .venv/bin/python bench/table_cost.py [--rounds N] [--base REF]

- the start-up of a table, four sandboxed trivial Python bots from nothing to all four
  `ready` (game 0 of a match), and of a table made early, while the last one played (the
  other games: what is left to wait for when its game begins);
- the wall time of two-game matches between trivial Python bots (bench/trivial_bot.py), in
  this tree and, with --base, at another commit (a git worktree of REF, removed afterwards),
  in turns so that both see the same load, and the ratio (issue 31's budget: within 25%).

The seats run as on a server (gVisor as root where runsc is installed). The load average is
printed beside the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine import tables  # noqa: E402

TRIVIAL = ROOT / "bench" / "trivial_bot.py"
# Run in a child Python with a tree's engine on its path: the same code times either tree.
_TIME_MATCH = """
import json, sys, time
sys.path.insert(0, sys.argv[1])
from engine.botproc import program_player_factory
from engine.kaiser.match import run_match
from engine.players import TimeControl
clock = TimeControl()
a = program_player_factory(sys.argv[2], time=clock)
b = program_player_factory(sys.argv[2], time=clock)
started = time.perf_counter()
replay = run_match(a, b, games=2, seed=sys.argv[3], time=clock)
elapsed = time.perf_counter() - started
print(json.dumps({"seconds": elapsed, "forfeit": replay["result"]["forfeit"]}))
"""


def match_seconds(tree: Path, seed: str) -> float:
    out = subprocess.run([sys.executable, "-c", _TIME_MATCH, str(tree), str(TRIVIAL), seed],
                         capture_output=True, text=True, check=True)
    result = json.loads(out.stdout.strip().splitlines()[-1])
    if result["forfeit"] is not None:
        raise SystemExit(f"a trivial bot forfeited in {tree}: {result['forfeit']}")
    return float(result["seconds"])


def table_startups(matches: int) -> tuple[list[float], list[float]]:
    """Seconds of Tables.open for game 0 (made now) and game 1 (made early), in matches."""
    from engine.botproc import program_player_factory
    from engine.kaiser.match import run_match
    from engine.players import TimeControl

    first: list[float] = []
    early: list[float] = []
    original = tables.Tables.open

    def timed(self: tables.Tables, game: int) -> list:
        started = time.perf_counter()
        try:
            return original(self, game)
        finally:
            (first if game == 0 else early).append(time.perf_counter() - started)

    tables.Tables.open = timed  # type: ignore[method-assign]
    try:
        clock = TimeControl()
        for n in range(matches):
            a = program_player_factory(TRIVIAL, time=clock)
            b = program_player_factory(TRIVIAL, time=clock)
            run_match(a, b, games=2, seed=f"tables{n}", time=clock)
    finally:
        tables.Tables.open = original  # type: ignore[method-assign]
    return first, early


def worktree(ref: str) -> Path:
    folder = Path(tempfile.mkdtemp(prefix="kaiser-base-"))
    subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "-q", str(folder),
                    ref], check=True)
    return folder


def load() -> str:
    return f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs"


def ms(values: list[float]) -> str:
    return (f"median {statistics.median(values) * 1e3:6.0f} ms, max {max(values) * 1e3:6.0f} ms,"
            f" {len(values)} runs")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=8, help="matches timed in each tree")
    parser.add_argument("--base", help="a commit to compare with (e.g. the one before)")
    args = parser.parse_args()
    print(load())
    first, early = table_startups(max(1, args.rounds // 2))
    print("start-up of a table, four sandboxed trivial bots to ready:")
    print(f"  made when its game begins (game 0)  {ms(first)}")
    print(f"  made early, while the last played   {ms(early)}")
    base = worktree(args.base) if args.base else None
    try:
        times: dict[str, list[float]] = {"this tree": []}
        if base is not None:
            times[f"base {args.base}"] = []
        for n in range(args.rounds):
            times["this tree"].append(match_seconds(ROOT, f"cost{n}"))
            if base is not None:
                times[f"base {args.base}"].append(match_seconds(base, f"cost{n}"))
        print("two-game match of trivial bots, wall time:")
        for name, values in times.items():
            print(f"  {name:<24} {ms(values)}")
        if base is not None:
            ratio = statistics.median(times["this tree"]) / statistics.median(
                times[f"base {args.base}"])
            print(f"  this tree / base: {ratio:.2f} (median over median)")
    finally:
        if base is not None:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force",
                            str(base)], check=False)
    print(load() + " at the end")


if __name__ == "__main__":
    main()
