"""How much of a hand crosses through think time, under the normal clock and under strict time,
and does the fair-play detector see it? Prints figures; asserts nothing.

    .venv/bin/python bench/think_time_channel.py [--matches 3] [--bits 6] [--step-ms 2]
        [--modes sleep,spin,burnsleep] [--burn-ms 70] [--base-ms 130] [--once]
        [--max-deals N] [--strict-ms T] [--honest minimal,random,greedy,mc,node_random]
        [--bot PATH ...] [--skip-pair] [--tiny]

The signalling pair (tests/engine/fairplay/think_time.py: one program at both seats of side A)
plays MATCHES two-game matches against builtin:greedy in the default sandbox (gVisor, a kernel
a seat, as root), at the ladder's clock, once for each of its modes: `sleep` (each reply held
back STEP_MS x a BITS-bit piece of its dealt hand, scrambled with a pad both seats know:
uniform symbols), `spin` (the same time burnt as CPU) and `burnsleep` (issue 41's pair: BURN_MS
of CPU, then a sleep to BASE_MS + STEP_MS x a 5-bit symbol). Its partner reads the gap between
its own reply and its next message. Printed: the symbols sent, those the partner could try (its
partner made exactly one move in the gap), those it got right, the share, chance, and bits a
move: a lower bound from Fano's inequality for uniform symbols, log2(M) - h(p) - (1 - p)
log2(M - 1), with p the share right and M the symbols.

Then engine.fairplay.fairplay_check over those matches (the engine's own times of each
decision: wall, counted and sleep ms, engine.clock.DecisionTime, as the site keeps them), for
the pair, and for it on the counted time alone; and the same over as many matches for each
honest example bot of bots/examples (HONEST) against builtin:greedy, and for each --bot PATH
(an operator's audit of an upload: --skip-pair --honest "" --bot suspect.zip).

With --strict-ms T all of it is played again under strict time (TimeControl(strict_ms=T):
every decision a slot of T ms, its message at the slot's start), where the pair should read
its partner at chance. A table of every row is printed at the end. The host's load average is
printed beside the figures (the partner's clock gets noisier with it).
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
from engine.fairplay import RecordedSide, SideTimes, Verdict, fairplay_check  # noqa: E402
from engine.kaiser.match import run_match  # noqa: E402
from engine.kaiser.rules import DEFAULT_RULES, Rules  # noqa: E402
from engine.players import TimeControl  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
PROBES = ROOT / "tests" / "engine" / "fairplay"
EXAMPLES = ROOT / "bots" / "examples"
HONEST = {"minimal": "minimal_bot.py", "random": "random.zip", "greedy": "greedy.zip",
          "mc": "mc.zip", "node_random": "node_random.zip"}
CLOCK = TimeControl()  # the ladder's: 1000 ms a move, a 10 s bank a game
BURNSLEEP_BITS = 5  # issue 41's pair: 32 levels
DECODE = re.compile(r"^DECODE .* sent=(\d+) got=(\d+) gap_ms=([0-9.]+) others=(\d+)$", re.M)
SUMMARY = re.compile(r"^SUMMARY sent=(\d+) decoded=(\d+) right=(\d+)$", re.M)


@dataclasses.dataclass(frozen=True)
class Pair:
    """One variant of the pair: its mode and its think_time.txt."""

    mode: str
    bits: int
    step_ms: float
    setting: str

    def label(self) -> str:
        return (f"{self.bits}-bit symbols, {self.step_ms:g} ms a step, {self.mode}"
                + (", once a deal" if self.setting.endswith(" once") else ""))


def pairs(args: argparse.Namespace) -> list[Pair]:
    once = " once" * args.once
    found = []
    for mode in [m for m in args.modes.split(",") if m]:
        if mode == "burnsleep":
            found.append(Pair(mode, BURNSLEEP_BITS, args.step_ms,
                              f"{BURNSLEEP_BITS} {args.step_ms} burnsleep {args.burn_ms} "
                              f"{args.base_ms}{once}"))
        else:
            found.append(Pair(mode, args.bits, args.step_ms,
                              f"{args.bits} {args.step_ms} {mode}{once}"))
    return found


def pair_folder(scratch: Path, pair: Pair) -> Path:
    """The pair's program as a folder: the probe and the helpers it imports."""
    folder = scratch / f"think_time_{pair.mode}"
    if not folder.exists():
        folder.mkdir()
        shutil.copy(PROBES / "think_time.py", folder / "bot.py")
        for helper in ("_channel.py", "_play.py"):
            shutil.copy(PROBES / helper, folder / helper)
        (folder / "think_time.txt").write_text(pair.setting + "\n")
    return folder


@dataclasses.dataclass
class Played:
    replays: list[dict[str, Any]]
    sides: list[RecordedSide]  # the bot's, one a match
    forfeits: int = 0


def play(spec: str | Path, matches: int, rules: Rules, name: str,
         clock: TimeControl) -> Played:
    played = Played([], [])
    for seed in range(matches):
        bot = RecordedSide(program_player_factory(spec, time=clock, name=name))
        replay = run_match(bot, resolve_player("builtin:greedy"), games=2,
                           seed=f"think-time/{seed}", rules=rules, time=clock)
        forfeit = replay["result"]["forfeit"]
        if forfeit is not None:
            played.forfeits += 1
            print(f"  {name}, seed {seed}: forfeit {forfeit['reason']} by {forfeit['player']}"
                  f" ({forfeit['detail']})")
        played.replays.append(replay)
        played.sides.append(bot)
    return played


def fano_bits(share: float, symbols: int) -> float:
    """Fano: I(S; S') >= H(S) - h(p) - (1 - p) log2(M - 1), H(S) = log2(M) (uniform)."""
    if share <= 0 or symbols < 2:
        return 0.0
    h = 0.0 if share >= 1 else -(share * math.log2(share)
                                  + (1 - share) * math.log2(1 - share))
    return max(0.0, math.log2(symbols) - h - (1 - share) * math.log2(symbols - 1))


@dataclasses.dataclass
class Channel:
    tried: int
    right: int
    bits: int

    @property
    def share(self) -> float:
        return self.right / self.tried if self.tried else 0.0

    def fano(self) -> float:
        return fano_bits(self.share, 1 << self.bits)


def channel_figures(played: Played, bits: int, step_ms: float) -> Channel:
    texts = [text for side in played.sides for text in side.stderr_texts()]
    sent = sum(int(m.group(1)) for text in texts for m in SUMMARY.finditer(text))
    rows = [m.groups() for text in texts for m in DECODE.finditer(text)]
    found = Channel(len(rows), sum(1 for s, g, _, _ in rows if s == g), bits)
    near = sum(1 for s, g, _, _ in rows if abs(int(s) - int(g)) <= 1)
    symbols = 1 << bits
    tried = found.tried
    print(f"  symbols sent {sent} (a move of the pair's seats each); tried by the partner "
          f"{tried} (its partner made exactly one move in the gap)")
    print(f"  decoded right {found.right} of {tried}: share {found.share:.1%} (chance "
          f"{1 / symbols:.2%}{chance_interval(tried, symbols)}); within one step "
          f"{near / tried if tried else 0:.1%}")
    print(f"  bits a move: >= {found.fano():.2f} of {bits} (Fano's bound on the "
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
    return found


def chance_interval(tried: int, symbols: int) -> str:
    """The 95% interval of the share a guessing partner gets right (normal approximation)."""
    if not tried:
        return ""
    p = 1 / symbols
    half = 1.96 * math.sqrt(p * (1 - p) / tried)
    return f", 95% of guesses within {max(0.0, p - half):.1%} to {p + half:.1%}"


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


def check(played: Played, wall: bool = True) -> Verdict | str:
    """The detector over the bot's matches; with every time, or (wall=False) with the
    counted times alone. Why not, where it cannot say (too few decisions)."""
    sides = [timed.side_times(replay, "A") for replay, timed in
             zip(played.replays, played.sides, strict=True)]
    if not wall:
        sides = [SideTimes(s.replay, s.side, None, s.counted_ms) for s in sides]
    try:
        return fairplay_check(sides)
    except ValueError as error:
        return f"no verdict: {error}"


def verdict_line(label: str, verdict: Verdict | str) -> None:
    print(f"  {label}: {verdict if isinstance(verdict, str) else verdict.summary()}")


def load() -> str:
    one, five, _ = os.getloadavg()
    return f"load average {one:.1f} (5 min {five:.1f}) on {os.cpu_count()} CPUs"


@dataclasses.dataclass
class Row:
    """One line of the closing table."""

    control: str
    bot: str
    load: float
    verdict: Verdict | str
    channel: Channel | None = None
    forfeits: int = 0

    def text(self) -> str:
        def bits(value: float | None) -> str:
            return "–" if value is None else f"{value:.2f}"

        if self.channel is None:
            read = "| | "
        else:
            read = (f"| {self.channel.right}/{self.channel.tried} "
                    f"({self.channel.share:.1%}, chance {1 / (1 << self.channel.bits):.1%}) | "
                    f"≥ {self.channel.fano():.2f} ")
        v = self.verdict
        if isinstance(v, str):
            figures = f"| {v} | | | | "
        else:
            figures = (f"| {bits(v.cpu_bits)} | {bits(v.wait_bits)} | {bits(v.sleep_bits)} | "
                       f"{v.hand_p:.3f} | {'flagged' if v.flagged else 'passes'} ")
        out = f"| {self.control} | {self.bot} | {self.load:.1f} {read}{figures}|"
        return out + (f" ({self.forfeits} forfeits)" if self.forfeits else "")


TABLE_HEAD = ("| clock | bot | load | partner read right | bits a move (Fano) | cpu | wait | "
              "sleep | hand p | verdict |\n| --- | --- | --- | --- | --- | --- | --- | --- | "
              "--- | --- |")


def run_pair(scratch: Path, args: argparse.Namespace, rules: Rules, pair: Pair,
             control: str, clock: TimeControl) -> Row:
    began = time.monotonic()
    played = play(pair_folder(scratch, pair), args.matches, rules, "think-time pair", clock)
    print(f"think-time pair ({pair.label()}), {control}, "
          f"{time.monotonic() - began:.0f} s, {load()}:")
    channel = channel_figures(played, pair.bits, pair.step_ms)
    print("detector (engine.fairplay.fairplay_check):")
    verdict = check(played)
    verdict_line("the pair", verdict)
    verdict_line("the pair, counted time alone", check(played, wall=False))
    return Row(control, f"the pair, {pair.label()}", os.getloadavg()[0], verdict, channel,
               played.forfeits)


def run_bot(label: str, program: Path, args: argparse.Namespace, rules: Rules,
            control: str, clock: TimeControl) -> Row:
    began = time.monotonic()
    played = play(program, args.matches, rules, program.stem, clock)
    verdict = check(played)
    verdict_line(f"{label}, {control}", verdict)
    print(f"    ({time.monotonic() - began:.0f} s, {load()})")
    return Row(control, label, os.getloadavg()[0], verdict, None, played.forfeits)


def controls(args: argparse.Namespace) -> list[tuple[str, TimeControl]]:
    found = [("normal", CLOCK)]
    if args.strict_ms:
        found.append((f"strict {args.strict_ms} ms",
                      dataclasses.replace(CLOCK, strict_ms=args.strict_ms)))
    return found


def parse() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=3)
    parser.add_argument("--bits", type=int, default=6)
    parser.add_argument("--step-ms", type=float, default=2.0)
    parser.add_argument("--modes", default="sleep,spin,burnsleep",
                        help="the pair's variants, comma-separated: sleep, spin, burnsleep")
    parser.add_argument("--burn-ms", type=float, default=70.0,
                        help="burnsleep: the CPU time burnt a move")
    parser.add_argument("--base-ms", type=float, default=130.0,
                        help="burnsleep: the sleep ends this long + the symbol's after the "
                             "message came")
    parser.add_argument("--once", action="store_true",
                        help="each piece of the hand once a deal, on the seat's first moves "
                             "(10-bit pieces: the hand in three moves); the other moves instant")
    parser.add_argument("--max-deals", type=int, default=None,
                        help="cut each game after this many deals (default: the preset's)")
    parser.add_argument("--strict-ms", type=int, default=0,
                        help="also play everything under strict time, slots of T ms (T must "
                             "exceed the pair's longest hold, BASE_MS + 62 ms for burnsleep)")
    parser.add_argument("--honest", default=",".join(HONEST))
    parser.add_argument("--bot", action="append", default=[], metavar="PATH",
                        help="also audit this bot program (.py, .zip or folder) the same way")
    parser.add_argument("--skip-pair", action="store_true", help="audit the bots only")
    parser.add_argument("--tiny", action="store_true",
                        help="the suite's size: 1 match of 2 deals a game, 4-bit symbols, "
                             "the sleeping pair and the minimal bot alone")
    args = parser.parse_args()
    if args.tiny:
        args.matches, args.bits, args.max_deals = 1, 4, 2
        args.honest, args.modes = "minimal", "sleep"
    return args


def main() -> None:
    args = parse()
    rules = DEFAULT_RULES if args.max_deals is None else dataclasses.replace(
        DEFAULT_RULES, max_deals=args.max_deals)
    print(f"{load()} at the start; {args.matches} two-game matches a bot against "
          f"builtin:greedy, rules {rules.preset}"
          + (f" cut at {args.max_deals} deals a game" if args.max_deals else ""))
    rows: list[Row] = []
    with tempfile.TemporaryDirectory(prefix="kaiser-think-time-") as scratch:
        os.chmod(scratch, 0o755)  # the seats run as other users and read their copies here
        audits = [(f"{n} (bots/examples/{HONEST[n]})", EXAMPLES / HONEST[n])
                  for n in args.honest.split(",") if n]
        audits += [(f"{Path(path).name} (audited)", Path(path)) for path in args.bot]
        for control, clock in controls(args):
            if not args.skip_pair:
                rows += [run_pair(Path(scratch), args, rules, pair, control, clock)
                         for pair in pairs(args)]
            rows += [run_bot(label, program, args, rules, control, clock)
                     for label, program in audits]
    print(f"{load()} at the end")
    print(TABLE_HEAD)
    for row in rows:
        print(row.text())


if __name__ == "__main__":
    main()
