"""Does a seat still carry one table's cards to the other? Issue 31's bench. Prints figures;
asserts nothing.

    .venv/bin/python bench/duplicate_memory.py [--matches 20] [--sm-matches 12]
        [--control-matches N] [--first-seed 101] [--tiny]

Run it as root: the seats are then sandboxed as on a server (gVisor, a kernel a seat).

The remembering greedy (bench/remembering/: builtin:greedy that keeps every deal_end's hands,
in its process and in its /tmp, and decides knowing every hand once it recognises its own
among them) is built afresh from the engine's sources and played as a bot program against
builtin:greedy: MATCHES two-game matches, seeds FIRST_SEED on. Issue 31 measured +12.4 +- 1.9
points a board and 30 of 40 games won on seeds 101-120 when one process played both games of
a match. Printed: the mean swing per board with its 95% interval (engine.kaiser.boards), the boards
the two tables played differently, the games the bot won against a fair coin's 95% range, and
the deals its processes recognised (every game is played by new processes with a new /tmp:
none). Without a memory the bot is builtin:greedy decision for decision, so every board is
played alike at both tables: a swing of exactly 0.

Sergeant Major the same way: SM_MATCHES three-game sets of the remembering greedy among two
builtin greedys (it takes A, B and C in turn): its share of the points against a third and its
ups per hand, each with a 95% interval over the matches, and the hands recognised.

Two positive controls show what the memory is worth to a seat that has it. The same strategy
(remembering.py) in-process, each seat's memory kept across the games of its match (as a
process that lived through the match did before every game had processes of its own); and the
bot program itself, unsandboxed (KAISER_UNSANDBOXED's development mode: its processes share
the host's /tmp, where it keeps its file, as a /tmp that outlived its game would), the file
removed between matches. Both recognise every hand they could and win boards. The host's load
average is printed with the figures (the machine may be shared).
"""

from __future__ import annotations

import argparse
import math
import os
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.remembering.build import build  # noqa: E402
from bench.remembering.remembering import Memory, Rememberer, rememberer  # noqa: E402
from engine.botproc import program_player_factory  # noqa: E402
from engine.builtin import BuiltinFactory, resolve_player  # noqa: E402
from engine.kaiser.boards import board_comparison  # noqa: E402
from engine.kaiser.match import run_match  # noqa: E402
from engine.kaiser.rules import DEFAULT_RULES  # noqa: E402
from engine.players import Player, PlayerFactory, TimeControl  # noqa: E402
from engine.sandbox.config import config  # noqa: E402
from engine.sandbox.gvisor import choose_kernel  # noqa: E402
from engine.sergeant_major.match import run_match as sm_run_match  # noqa: E402
from engine.sergeant_major.players import SMGreedyPlayer  # noqa: E402
from engine.sergeant_major.rules import DEFAULT_RULES as SM_RULES  # noqa: E402

CLOCK = TimeControl()  # the ladder's: 1000 ms a move, a 10 s bank a game
NAME = "remembering greedy"
REPORT = re.compile(r"^RECOGNISED (\d+) of (\d+) deals$", re.M)
SM_GREEDY = BuiltinFactory("greedy", "1", SMGreedyPlayer, {})


# --- the figures ------------------------------------------------------------------------------
@dataclass
class Tally:
    swings: list[int] = field(default_factory=list)
    boards_differ: int = 0
    won: int = 0
    games: int = 0
    recognised: int = 0
    deals: int = 0  # the deals the bot's seats played
    recognisable: int = 0  # of those, the deals an earlier game of the set had dealt
    # Sergeant Major, in-process (a program does not say): decisions where a recognised
    # layout did not fit what was played (the exchanges and discard not seen, mispredicted)
    misfits: int | None = None
    forfeits: list[str] = field(default_factory=list)
    shares: list[float] = field(default_factory=list)  # Sergeant Major, by match: points share
    ups: list[float] = field(default_factory=list)  # and ups per hand

    def add_kaiser(self, replay: dict[str, Any]) -> None:
        boards = [b for b in board_comparison(replay) if b["status"] == "both"]
        self.swings += [b["swing"] for b in boards]
        self.boards_differ += sum(1 for b in boards if b["difference"] is not None)
        self.won += replay["result"]["games"]["A"]
        self.games += len(replay["games"])
        self.recognisable += 2 * _dealt_before(replay)  # A holds two seats
        self._forfeit(replay)

    def add_sm(self, replay: dict[str, Any], side: str) -> None:
        self.won += replay["result"]["games"][side]
        self.games += len(replay["games"])
        self.shares.append(replay["result"]["score"][side])
        hands = sum(len(game["deals"]) for game in replay["games"])
        self.ups.append(replay["result"]["ups"][side] / max(1, hands))
        self.recognisable += _dealt_before(replay)
        self._forfeit(replay)

    def merge(self, other: Tally) -> None:
        for name, value in vars(other).items():
            if value is not None:
                setattr(self, name, getattr(self, name) + value)

    def _forfeit(self, replay: dict[str, Any]) -> None:
        forfeit = replay["result"]["forfeit"]
        if forfeit is not None:
            self.forfeits.append(f"{forfeit['player']} {forfeit['reason']}: {forfeit['detail']}")

    def add_reports(self, texts: list[str]) -> None:
        """Each process's last RECOGNISED line (a process that never got to a deal's end
        reports nothing: its deals count as unrecognised)."""
        for text in texts:
            found = REPORT.findall(text)
            if found:
                self.recognised += int(found[-1][0])
                self.deals += int(found[-1][1])


# --- the strategy in-process, its memory kept across a match's games (the control) -----------
class InProcess(Player):
    """One game's seat, played by a strategy that may have played an earlier game."""

    wants_notifications = True

    def __init__(self, strategy: Rememberer) -> None:
        self.strategy = strategy

    def act(self, state: Any, legal: Sequence[Any]) -> Any:
        return self.strategy.decide(state.observation(state.seat), state.decision, legal)

    def notify(self, message: dict[str, Any]) -> None:
        if message["type"] == "deal_end":
            self.strategy.deal_end(message["deal_record"])


class KeptMemory:
    """A PlayerFactory whose seat of each slot remembers the slot's earlier games: the seat
    the engine now makes new for every game, as one process that lives through the match."""

    def __init__(self, game: str, rules: dict[str, Any]) -> None:
        self.name, self.version = f"{NAME} (memory kept)", "1"
        self.game, self.rules = game, rules
        self.strategies: dict[int, Rememberer] = {}

    def __call__(self, slot: int) -> Player:
        if slot not in self.strategies:
            self.strategies[slot] = rememberer(self.game, Memory(), self.rules)
        return InProcess(self.strategies[slot])

    def count_into(self, tally: Tally) -> None:
        for strategy in self.strategies.values():
            tally.recognised += len(strategy.recognised)
            tally.deals += len(strategy.deals)
            tally.misfits = (tally.misfits or 0) + strategy.mispredicted


def _dealt_before(replay: dict[str, Any]) -> int:
    """The deals of the match's games that an earlier game of the same set had dealt (the
    deals a seat that remembered could recognise): sets of 2 (Kaiser) or 3 games."""
    games = replay["games"]
    size = 3 if replay.get("format") == "sergeant-major-replay" else 2
    count = 0
    for number, game in enumerate(games):
        earlier = games[number - number % size:number]
        count += min(len(game["deals"]), max((len(g["deals"]) for g in earlier), default=0))
    return count


def mean_interval(values: list[float]) -> tuple[float, float]:
    """The mean and the half-width of its 95% interval (normal approximation)."""
    if not values:
        return 0.0, 0.0
    mean = statistics.fmean(values)
    half = 1.96 * statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else 0.0
    return mean, half


def coin_range(games: int) -> tuple[float, float]:
    """The 95% range of a fair coin's wins in `games` tosses (normal approximation)."""
    half = 1.96 * math.sqrt(games) / 2
    return max(0.0, games / 2 - half), min(games, games / 2 + half)


def matches_text(count: int) -> str:
    return f"{count} match" + ("es" if count != 1 else "")


def print_kaiser(label: str, tally: Tally, matches: int) -> None:
    mean, half = mean_interval([float(s) for s in tally.swings])
    low, high = coin_range(tally.games)
    print(f"{label}: {matches_text(matches)}, {len(tally.swings)} boards")
    print(f"  swing per board {mean:+.1f} +- {half:.1f} (95% interval {mean - half:+.1f} to "
          f"{mean + half:+.1f}; contains 0: {'yes' if mean - half <= 0 <= mean + half else 'no'})"
          f"; boards the two tables played differently: {tally.boards_differ}")
    print(f"  games won by the bot {tally.won} of {tally.games} (a fair coin: {low:.1f} to "
          f"{high:.1f}; within chance: {'yes' if low <= tally.won <= high else 'no'})")
    print(f"  recognised {tally.recognised} of the {tally.recognisable} deals the pair's first "
          f"game had dealt ({tally.deals} deals played by the bot's seats)")
    print(f"  forfeits {len(tally.forfeits)}" + "".join(f"\n    {f}" for f in tally.forfeits))


def print_sm(label: str, tally: Tally, matches: int) -> None:
    mean, half = mean_interval(tally.shares)
    third = 1 / 3
    print(f"{label}: {matches_text(matches)}, {tally.games} games")
    print(f"  points share {mean:.1%} +- {half:.1%} (95% interval over the matches; even "
          f"{third:.1%}; contains it: {'yes' if mean - half <= third <= mean + half else 'no'})"
          f"; games won {tally.won} of {tally.games}")
    mean, half = mean_interval(tally.ups)
    print(f"  ups per hand {mean:+.2f} +- {half:.2f} (95% interval over the matches; even 0)")
    print(f"  recognised {tally.recognised} of the {tally.recognisable} hands an earlier game of "
          f"the set had dealt ({tally.deals} hands played by the bot)" + (
              "" if tally.misfits is None else f"; a recognised layout did not fit what was "
              f"played: {tally.misfits} decisions"))
    print(f"  forfeits {len(tally.forfeits)}" + "".join(f"\n    {f}" for f in tally.forfeits))


def load() -> str:
    one, five, _ = os.getloadavg()
    return f"load average {one:.1f} (5 min {five:.1f}) on {os.cpu_count()} CPUs"


# --- the runs ---------------------------------------------------------------------------------
def kaiser_program(program: Path, seeds: range, unsandboxed: bool = False) -> Tally:
    tally = Tally()
    for seed in seeds:
        bot = program_player_factory(program, time=CLOCK, name=NAME, unsandboxed=unsandboxed)
        replay = run_match(bot, resolve_player("builtin:greedy"), games=2, seed=str(seed),
                           rules=DEFAULT_RULES, time=CLOCK)
        tally.add_kaiser(replay)
        tally.add_reports(bot.stderr_texts())
    return tally


def kaiser_control(seeds: range) -> Tally:
    tally = Tally()
    for seed in seeds:
        kept = KeptMemory("kaiser", DEFAULT_RULES.to_dict())
        replay = run_match(kept, resolve_player("builtin:greedy"), games=2, seed=str(seed),
                           rules=DEFAULT_RULES, time=CLOCK)
        tally.add_kaiser(replay)
        kept.count_into(tally)
    return tally


def sm_run(seeds: range, make: Callable[[], PlayerFactory]) -> tuple[Tally, list[Any]]:
    """The remembering greedy (from `make`) among two greedys, as A, B or C by the seed."""
    tally, made = Tally(), []
    for seed in seeds:
        side = "ABC"[seed % 3]
        bot = make()
        factories = {s: bot if s == side else SM_GREEDY for s in "ABC"}
        replay = sm_run_match(factories, games=3, seed=f"sm-{seed}", rules=SM_RULES, time=CLOCK)
        tally.add_sm(replay, side)
        made.append(bot)
    return tally, made


def sm_program(program: Path, seeds: range, unsandboxed: bool = False) -> Tally:
    tally, made = sm_run(seeds, lambda: program_player_factory(
        program, time=CLOCK, name=NAME, unsandboxed=unsandboxed))
    for bot in made:
        tally.add_reports(bot.stderr_texts())
    return tally


def sm_control(seeds: range) -> Tally:
    tally, made = sm_run(seeds, lambda: KeptMemory("sergeant-major", SM_RULES.to_dict()))
    for kept in made:
        kept.count_into(tally)
    return tally


def unsandboxed_controls(scratch: Path, kaiser_seeds: range, sm_seeds: range) -> None:
    """The bot program itself, unsandboxed: its processes share the host's /tmp, as if a
    seat's /tmp outlived its game. Its memory file has a name of its own, removed after."""
    memory_file = f"/tmp/remembering-{os.getpid()}-{time.time_ns()}.json"
    program = build(scratch / "remembering-unsandboxed", memory_file=memory_file)
    try:
        for game, run in (("Kaiser", kaiser_program), ("Sergeant Major", sm_program)):
            seeds = kaiser_seeds if game == "Kaiser" else sm_seeds
            tally = Tally()
            for seed in seeds:
                Path(memory_file).unlink(missing_ok=True)  # every match starts with no memory
                tally.merge(run(program, range(seed, seed + 1), unsandboxed=True))
            printer = print_kaiser if game == "Kaiser" else print_sm
            printer(f"positive control, {game}, the bot program unsandboxed (one /tmp for all "
                    f"its processes, wiped between matches)", tally, len(seeds))
    finally:
        Path(memory_file).unlink(missing_ok=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=20, help="Kaiser two-game matches")
    parser.add_argument("--sm-matches", type=int, default=12,
                        help="Sergeant Major three-game matches")
    parser.add_argument("--control-matches", type=int, default=None,
                        help="in-process matches of each control (default: Kaiser as many as "
                             "sandboxed, Sergeant Major at least 30: its points are noisy)")
    parser.add_argument("--first-seed", type=int, default=101)
    parser.add_argument("--tiny", action="store_true", help="one match of each (the suit's run)")
    args = parser.parse_args()
    if args.tiny:
        args.matches, args.sm_matches, args.control_matches = 1, 1, 1
    kaiser_seeds = range(args.first_seed, args.first_seed + args.matches)
    sm_seeds = range(args.first_seed, args.first_seed + args.sm_matches)
    control = args.control_matches
    began = time.monotonic()
    kernel, why = choose_kernel(config())
    print(f"sandbox: {kernel} ({why}); {load()}")
    with tempfile.TemporaryDirectory(prefix="remembering-") as scratch:
        program = build(Path(scratch) / "remembering")
        start = time.monotonic()
        tally = kaiser_program(program, kaiser_seeds)
        print_kaiser(f"Kaiser, sandboxed, {NAME} vs builtin:greedy, seeds {kaiser_seeds.start}-"
                     f"{kaiser_seeds.stop - 1}, {time.monotonic() - start:.0f} s, {load()}",
                     tally, len(kaiser_seeds))
        start = time.monotonic()
        tally = sm_program(program, sm_seeds)
        print_sm(f"Sergeant Major, sandboxed, {NAME} among two builtin greedys, "
                 f"{time.monotonic() - start:.0f} s, {load()}", tally, len(sm_seeds))
        kaiser_control_seeds = range(args.first_seed, args.first_seed + (control or args.matches))
        sm_control_seeds = range(args.first_seed,
                                 args.first_seed + (control or max(args.sm_matches, 30)))
        print_kaiser("positive control, Kaiser, in-process, each seat's memory kept across the "
                     "match's games", kaiser_control(kaiser_control_seeds),
                     len(kaiser_control_seeds))
        print_sm("positive control, Sergeant Major, in-process, memory kept",
                 sm_control(sm_control_seeds), len(sm_control_seeds))
        unsandboxed_controls(Path(scratch), kaiser_control_seeds, sm_control_seeds)
    print(f"total {time.monotonic() - began:.0f} s; {load()}")


if __name__ == "__main__":
    main()
