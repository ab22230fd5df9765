"""How much of a hand crosses through think time, and does the detector see it? Prints figures;
asserts nothing.

    .venv/bin/python bench/think_time_channel.py [--matches 3] [--bits 6] [--step-ms 2]
        [--mode sleep|spin] [--once] [--max-deals N]
        [--honest minimal,random,greedy,mc,node_random] [--bot PATH ...] [--skip-pair] [--tiny]

The signalling pair (tests/engine/fairplay/think_time.py: one program at both seats of side A)
plays MATCHES two-game matches against builtin:greedy in the default sandbox (gVisor, a kernel
a seat, as root), at the ladder's clock. Each seat holds every reply back STEP_MS x a BITS-bit
piece of its dealt hand (scrambled with a pad both seats know: uniform symbols); its partner
reads the gap between its own reply and its next message. Printed: the symbols sent, those the
partner could try (its partner made exactly one move in the gap), those it got right, the
share, chance, and bits a move: a lower bound from Fano's inequality for uniform symbols,
log2(M) - h(p) - (1 - p) log2(M - 1), with p the share right and M = 2^BITS.

Then engine.kaiser.think_time.think_time_check over those matches (the wall time of each decision,
from TimedSide, and the counted CPU time the engine charges), for the pair's side, for it on
the counted time alone (what the site keeps today) and for builtin:greedy's side; and the
same over as many matches for each honest example bot of bots/examples (HONEST) against
builtin:greedy, and for each --bot PATH (an operator's audit of an upload: --skip-pair
--honest "" --bot suspect.zip). The host's load average is printed beside the figures (the
partner's clock gets noisier with it).
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import os
import re
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.botproc import program_player_factory  # noqa: E402
from engine.builtin import resolve_player  # noqa: E402
from engine.kaiser.match import run_match  # noqa: E402
from engine.kaiser.rules import DEFAULT_RULES, Rules  # noqa: E402
from engine.kaiser.think_time import SideTimes, TimedSide, Verdict, think_time_check  # noqa: E402
from engine.players import TimeControl  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
PROBES = ROOT / "tests" / "engine" / "fairplay"
EXAMPLES = ROOT / "bots" / "examples"
HONEST = {"minimal": "minimal_bot.py", "random": "random.zip", "greedy": "greedy.zip",
          "mc": "mc.zip", "node_random": "node_random.zip"}
CLOCK = TimeControl()  # the ladder's: 1000 ms a move, a 10 s bank a game
DECODE = re.compile(r"^DECODE .* sent=(\d+) got=(\d+) gap_ms=([0-9.]+) others=(\d+)$", re.M)
SUMMARY = re.compile(r"^SUMMARY sent=(\d+) decoded=(\d+) right=(\d+)$", re.M)


def pair_folder(scratch: Path, bits: int, step_ms: float, mode: str, once: bool) -> Path:
    """The pair's program as a folder: the probe and the helpers it imports."""
    folder = scratch / "think_time"
    folder.mkdir()
    shutil.copy(PROBES / "think_time.py", folder / "bot.py")
    for helper in ("_channel.py", "_play.py"):
        shutil.copy(PROBES / helper, folder / helper)
    (folder / "think_time.txt").write_text(f"{bits} {step_ms} {mode}{' once' * once}\n")
    return folder


@dataclasses.dataclass
class Played:
    replays: list[dict[str, Any]]
    sides: list[TimedSide]  # the bot's, one a match
    opponents: list[TimedSide]


def play(spec: str | Path, matches: int, rules: Rules, name: str) -> Played:
    played = Played([], [], [])
    for seed in range(matches):
        bot = TimedSide(program_player_factory(spec, time=CLOCK, name=name))
        greedy = TimedSide(resolve_player("builtin:greedy"))
        replay = run_match(bot, greedy, games=2, seed=f"think-time/{seed}", rules=rules,
                           time=CLOCK)
        forfeit = replay["result"]["forfeit"]
        if forfeit is not None:
            print(f"  {name}, seed {seed}: forfeit {forfeit['reason']} by {forfeit['player']}"
                  f" ({forfeit['detail']})")
        played.replays.append(replay)
        played.sides.append(bot)
        played.opponents.append(greedy)
    return played


def fano_bits(share: float, symbols: int) -> float:
    """Fano: I(S; S') >= H(S) - h(p) - (1 - p) log2(M - 1), H(S) = log2(M) (uniform)."""
    if share <= 0 or symbols < 2:
        return 0.0
    h = 0.0 if share >= 1 else -(share * math.log2(share)
                                  + (1 - share) * math.log2(1 - share))
    return max(0.0, math.log2(symbols) - h - (1 - share) * math.log2(symbols - 1))


def channel_figures(played: Played, bits: int, step_ms: float) -> None:
    texts = [text for side in played.sides for text in side.stderr_texts()]
    sent = sum(int(m.group(1)) for text in texts for m in SUMMARY.finditer(text))
    rows = [m.groups() for text in texts for m in DECODE.finditer(text)]
    right = sum(1 for s, g, _, _ in rows if s == g)
    tried = len(rows)
    share = right / tried if tried else 0.0
    near = sum(1 for s, g, _, _ in rows if abs(int(s) - int(g)) <= 1)
    symbols = 1 << bits
    print(f"  symbols sent {sent} (a move of the pair's seats each); tried by the partner "
          f"{tried} (its partner made exactly one move in the gap)")
    print(f"  decoded right {right} of {tried}: share {share:.1%} (chance {1 / symbols:.2%}); "
          f"within one step {near / tried if tried else 0:.1%}")
    print(f"  bits a move: >= {fano_bits(share, symbols):.2f} of {bits} (Fano's bound on the "
          f"share right, uniform {bits}-bit symbols at {step_ms:g} ms a step); about "
          f"{error_bits(rows, bits):.2f} (log2 M less the entropy of the error, got - sent)")
    if rows:
        right_known = calibrated_right(rows, bits, step_ms)
        print(f"  a receiver that knew its base line (the median of the other gaps' residuals "
              f"of the same kind): right {right_known / tried:.1%}, bits a move >= "
              f"{fano_bits(right_known / tried, symbols):.2f}")
        gaps = sorted(float(g) for _, _, g, _ in rows)
        print(f"  gaps the partner read: median {gaps[len(gaps) // 2]:.1f} ms, max "
              f"{gaps[-1]:.1f} ms")


def error_bits(rows: list[tuple[str, ...]], bits: int) -> float:
    """log2(M) - H(got - sent): the information of a channel whose error does not depend
    on the symbol sent (an added delay), from the errors seen (a plug-in entropy: a little
    low on few symbols, so this is a little high)."""
    counts: dict[int, int] = {}
    for sent, got, _, _ in rows:
        error = int(got) - int(sent)
        counts[error] = counts.get(error, 0) + 1
    n = len(rows)
    return max(0.0, bits + sum(c / n * math.log2(c / n) for c in counts.values()))


def calibrated_right(rows: list[tuple[str, ...]], bits: int, step_ms: float) -> int:
    """Symbols a receiver would get right from the same gaps with its base line known: for
    each gap, the median residual (gap less the symbol's time) of the other gaps with as
    many moves in them (of all of them where there are fewer than three)."""
    residuals = [(int(o), float(g) - int(s) * step_ms) for s, _, g, o in rows]
    right = 0
    for i, (sent, _, gap, others) in enumerate(rows):
        rest = [r for j, (o, r) in enumerate(residuals) if j != i and o == int(others)]
        if len(rest) < 3:
            rest = [r for j, (_, r) in enumerate(residuals) if j != i]
        base = statistics.median(rest) if rest else 0.0
        got = max(0, min((1 << bits) - 1, round((float(gap) - base) / step_ms)))
        right += got == int(sent)
    return right


def verdict_line(label: str, verdict: Verdict) -> None:
    print(f"  {label}: {verdict.summary()}")


def check(played: Played, which: str, wall: bool = True) -> Verdict:
    """The detector over the matches, for the bot's side or its opponent's; with both
    times, or (wall=False) with the counted times alone, as the site keeps them today."""
    sides = played.sides if which == "bot" else played.opponents
    side = "A" if which == "bot" else "B"
    return think_time_check([
        SideTimes(replay, side, timed.wall_ms if wall else None,
                  [float(ms) for ms in timed.counted_ms])
        for replay, timed in zip(played.replays, sides, strict=True)])


def load() -> str:
    one, five, _ = os.getloadavg()
    return f"load average {one:.1f} (5 min {five:.1f}) on {os.cpu_count()} CPUs"


def run_pair(scratch: Path, args: argparse.Namespace, rules: Rules) -> None:
    folder = pair_folder(scratch, args.bits, args.step_ms, args.mode, args.once)
    began = time.monotonic()
    pair = play(folder, args.matches, rules, "think-time pair")
    print(f"think-time pair ({args.bits}-bit symbols, {args.step_ms:g} ms a step, "
          f"{args.mode}{', once a deal' if args.once else ''}), "
          f"{time.monotonic() - began:.0f} s, {load()}:")
    channel_figures(pair, args.bits, args.step_ms)
    print("detector (engine.kaiser.think_time.think_time_check):")
    verdict_line("the pair", check(pair, "bot"))
    verdict_line("the pair, counted time alone", check(pair, "bot", wall=False))
    verdict_line("builtin:greedy beside it (in-process)", check(pair, "opponent"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=3)
    parser.add_argument("--bits", type=int, default=6)
    parser.add_argument("--step-ms", type=float, default=2.0)
    parser.add_argument("--mode", choices=("sleep", "spin"), default="sleep")
    parser.add_argument("--once", action="store_true",
                        help="each piece of the hand once a deal, on the seat's first moves "
                             "(10-bit pieces: the hand in three moves); the other moves instant")
    parser.add_argument("--max-deals", type=int, default=None,
                        help="cut each game after this many deals (default: the preset's)")
    parser.add_argument("--honest", default=",".join(HONEST))
    parser.add_argument("--bot", action="append", default=[], metavar="PATH",
                        help="also audit this bot program (.py, .zip or folder) the same way")
    parser.add_argument("--skip-pair", action="store_true", help="audit the bots only")
    parser.add_argument("--tiny", action="store_true",
                        help="the suite's size: 1 match of 2 deals a game, 4-bit symbols, "
                             "the minimal bot alone as the honest one")
    args = parser.parse_args()
    if args.tiny:
        args.matches, args.bits, args.max_deals, args.honest = 1, 4, 2, "minimal"
    rules = DEFAULT_RULES if args.max_deals is None else dataclasses.replace(
        DEFAULT_RULES, max_deals=args.max_deals)
    print(f"{load()} at the start; {args.matches} two-game matches a bot against "
          f"builtin:greedy, rules {rules.preset}"
          + (f" cut at {args.max_deals} deals a game" if args.max_deals else ""))
    with tempfile.TemporaryDirectory(prefix="kaiser-think-time-") as scratch:
        os.chmod(scratch, 0o755)  # the seats run as other users and read their copies here
        if not args.skip_pair:
            run_pair(Path(scratch), args, rules)
        audits = [(f"{n} (bots/examples/{HONEST[n]})", EXAMPLES / HONEST[n])
                  for n in args.honest.split(",") if n]
        audits += [(f"{Path(path).name} (audited)", Path(path)) for path in args.bot]
        for label, program in audits:
            began = time.monotonic()
            played = play(program, args.matches, rules, program.stem)
            verdict_line(label, check(played, "bot"))
            print(f"    ({time.monotonic() - began:.0f} s, {load()})")
    print(f"{load()} at the end")


if __name__ == "__main__":
    main()
