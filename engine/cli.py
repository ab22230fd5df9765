"""python -m engine match | validate | show: the command line of bot authors and operators."""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from engine import clock
from engine.builtin import resolve_player
from engine.faults import InfrastructureError
from engine.games import (
    GAMES,
    Game,
    PluginImportError,
    default_game,
    game_of_replay,
    get_game,
)
from engine.players import TimeControl, strict_ms_error
from engine.runner import replay_json
from engine.validate import iter_replays, validate_replay

_COUNTS = {2: "two", 3: "three", 4: "four"}


class CommandError(Exception):
    """A one-line message for the user; the command exits 1."""


def main(argv: Sequence[str] | None = None) -> int:
    try:
        parser = _parser()  # it reads the registry: every plugin of KAISER_GAME_PLUGINS
    except PluginImportError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    args = parser.parse_args(argv)
    try:
        return int(args.run(args))
    except CommandError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    except InfrastructureError as error:
        print(f"infrastructure error (not the bots' fault): {error}", file=sys.stderr)
        return 3
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


def _parser() -> argparse.ArgumentParser:
    program = Path(sys.argv[0]).name if sys.argv[0].endswith(".pyz") else "python -m engine"
    parser = argparse.ArgumentParser(prog=program, description=__doc__)
    parser.add_argument("--version", action="version", version=f"%(prog)s {engine_version()}")
    commands = parser.add_subparsers(dest="command", required=True)
    first = default_game()
    others = [game for game in GAMES.values() if game is not first]
    match = commands.add_parser("match", help="play a match: " + "; ".join(
        f"{game.title}, {_COUNTS.get(len(game.sides), len(game.sides))} players"
        for game in GAMES.values()))
    match.add_argument("a", help="player A: builtin:random, builtin:greedy, builtin:mc, or a "
                                 "bot program (.py, .zip or folder)")
    match.add_argument("b", help="player B, in the same forms")
    match.add_argument("more", nargs="*", metavar="c",
                       help="the other players, for a game of more than two")
    match.add_argument("--game", default=first.name, choices=sorted(GAMES),
                       help=f"{first.name} (default) or " + " or ".join(g.name for g in others))
    match.add_argument("--games", type=int, help="; ".join(
        f"{game.name}: a multiple of {game.games_per_set} (default {game.games_per_set})"
        for game in GAMES.values()))
    match.add_argument("--seed", default="0", help="the deals and built-in players' seed")
    match.add_argument("--rules", help="; ".join(
        f"{game.name}: one of {', '.join(game.presets)} (default {game.default_preset})"
        for game in GAMES.values()))
    match.add_argument("--replay", type=Path, help="write the replay (JSON) to this file")
    match.add_argument("--move-ms", type=int, default=1000)
    match.add_argument("--bank-ms", type=int, default=10000)
    match.add_argument("--startup-ms", type=int, default=5000)
    match.add_argument("--strict-ms", type=int, default=0, metavar="T",
                       help="strict time: every decision is a slot of T ms of wall time, its "
                            "message sent at the slot's start, so no seat's clock tells how "
                            "long another took; a reply later than T less a twentieth (2 ms at "
                            "least) is a timeout (docs/protocol.md, 'Strict time'). 0: off")
    match.add_argument("--unsandboxed", action="store_true",
                       help="run bot programs WITHOUT the sandbox (local development only; "
                            "the default where bubblewrap is not installed)")
    match.add_argument("--require-sandbox", action="store_true",
                       help="fail instead of running unsandboxed where bubblewrap is missing")
    match.add_argument("--stderr", action="store_true", help="print the bots' standard error")
    match.add_argument("--quiet", action="store_true", help="no progress")
    match.set_defaults(run=cmd_match)
    deal = commands.add_parser("deal", help="play one board of a match again, from a deal "
                                            "file, at both tables, and print the swing")
    deal.add_argument("file", type=Path, help="a deal file (\"Download this deal\" on the "
                                              "site's board comparison)")
    deal.add_argument("a", help="player A (your bot): builtin:NAME or a bot program")
    deal.add_argument("b", help="player B, the opponent, in the same forms")
    deal.add_argument("--game", default=first.name, choices=sorted(GAMES),
                      help=f"the deal file's game ({first.name})")
    for flag, default in (("--move-ms", 1000), ("--bank-ms", 10000), ("--startup-ms", 5000)):
        deal.add_argument(flag, type=int, default=default)
    deal.add_argument("--unsandboxed", action="store_true",
                      help="run bot programs WITHOUT the sandbox (as for match)")
    deal.add_argument("--require-sandbox", action="store_true",
                      help="fail instead of running unsandboxed where bubblewrap is missing")
    deal.set_defaults(run=cmd_deal)
    validate = commands.add_parser("validate", help="re-check replays against the rules")
    validate.add_argument("files", nargs="+", type=Path)
    validate.set_defaults(run=cmd_validate)
    show = commands.add_parser("show", help="print a replay deal by deal")
    show.add_argument("file", type=Path)
    show.add_argument("--game", type=int, help="only this game")
    show.set_defaults(run=cmd_show)
    speed = commands.add_parser("clock", help="measure this machine's speed factor for the "
                                              "bots' clock (KAISER_CLOCK_SPEED_FACTOR)")
    speed.add_argument("--repeat", type=int, default=15, help="calibrations (15)")
    speed.set_defaults(run=cmd_clock)
    return parser


# --- match -------------------------------------------------------------------------------------
def cmd_match(args: argparse.Namespace) -> int:
    game = get_game(args.game)
    specs = [args.a, args.b, *args.more]
    _check_players(game, len(specs))
    rules = _rules(game, args.rules)
    games = game.games_per_set if args.games is None else args.games
    if games < game.games_per_set or games % game.games_per_set:
        sets = "even number" if game.games_per_set == 2 else \
            f"multiple of {game.games_per_set}"
        raise CommandError(f"--games must be a positive {sets} (sets of "
                           f"{game.games_per_set} games over the same deals, the seats moved), "
                           f"not {games}")
    strict = strict_ms_error(args.strict_ms)
    if strict:
        raise CommandError(f"--strict-ms: {strict}")
    time_control = TimeControl(args.move_ms, args.bank_ms, args.startup_ms, args.strict_ms)
    players = _players(args, specs, time_control, game)
    progress = None if args.quiet else Progress(games)
    started = time.perf_counter()
    replay = game.run_match(players, games=games, seed=args.seed, rules=rules,
                            time=time_control, on_progress=progress)
    if progress:
        progress.done()
    _write_replay(args, replay)
    print(game.summary(replay, time.perf_counter() - started))
    clock_line = _clock_used(players)
    if clock_line:
        print(clock_line)
    if args.stderr:
        for side, factory in zip(game.sides, players, strict=True):
            for slot, text in enumerate(getattr(factory, "stderr_texts", lambda: [])()):
                print(f"--- stderr of {side} (process {slot}) ---\n{text}")
    return 0


def _check_players(game: Game, count: int) -> None:
    """As many players as the game's sides, or a one-line error that names the game that
    `count` players play, if one does."""
    if count == len(game.sides):
        return
    hint = "".join(f"; {_COUNTS.get(count, count)} play {other.title} (--game {other.name})"
                   for other in GAMES.values() if len(other.sides) == count)
    raise CommandError(f"a {game.title} match has {_COUNTS.get(len(game.sides))} players "
                       f"({', '.join(game.sides)}), not {count}{hint}")


def _rules(game: Game, preset: str | None) -> Any:
    """The preset's rules, or a one-line error that names the game whose preset it is."""
    try:
        return game.get_rules(preset or game.default_preset)
    except ValueError as error:
        hint = "".join(f" (a {other.name} preset: add --game {other.name})"
                       for other in GAMES.values() if other is not game and preset in other.presets)
        raise CommandError(f"{error}{hint}") from None


def _players(args: argparse.Namespace, specs: list[str], time_control: TimeControl,
             game: Game) -> list[Any]:
    unsandboxed = args.unsandboxed or _no_bubblewrap(args)
    players = [_player(spec, time_control, unsandboxed, game.name) for spec in specs]
    if not unsandboxed and any(not spec.startswith("builtin:") for spec in specs):
        _say_sandbox()
    return players


def cmd_deal(args: argparse.Namespace) -> int:
    game = get_game(args.game)
    try:
        data = game.deal_file_load(args.file.read_text(encoding="utf-8"))
    except OSError as error:
        raise CommandError(f"cannot read {args.file}: {error.strerror}") from None
    except (UnicodeDecodeError, ValueError) as error:
        raise CommandError(f"{args.file}: not a valid deal file: {error}") from None
    time_control = TimeControl(args.move_ms, args.bank_ms, args.startup_ms)
    players = _players(args, [args.a, args.b], time_control, game)
    print(game.deal_play(data, players, time=time_control, names=[args.a, args.b]))
    return 0


def _write_replay(args: argparse.Namespace, replay: dict[str, Any]) -> None:
    if args.replay:
        try:
            args.replay.write_text(replay_json(replay) + "\n", encoding="utf-8")
        except OSError as error:
            raise CommandError(f"cannot write {args.replay}: {error.strerror}") from None


def engine_version() -> str:
    """The build of a kaiser-engine.pyz (engine/zipapp.py writes engine/_version.py into it)."""
    try:
        from engine._version import VERSION  # type: ignore[import-not-found]
    except ImportError:
        return "from source"
    return str(VERSION)


def _no_bubblewrap(args: argparse.Namespace) -> bool:
    """True (after saying so) when a bot program would need bubblewrap and it is missing:
    the bot then runs unsandboxed, as on a laptop without it, unless --require-sandbox."""
    programs = [s for s in (args.a, args.b, *getattr(args, "more", ()))
                if not s.startswith("builtin:")]
    if not programs or shutil.which("bwrap") is not None:
        return False
    if args.require_sandbox:
        raise CommandError("bubblewrap (bwrap) is not installed, and --require-sandbox asks "
                           "for the sandbox: apt-get install bubblewrap")
    print("bubblewrap (bwrap) is not installed here, so the bot programs run UNSANDBOXED, as "
          "you, with your files.\nInstall bubblewrap to play in the sandbox the server uses "
          "(--require-sandbox makes its absence an error).", file=sys.stderr, flush=True)
    return True


def _say_sandbox() -> None:
    """One line on how the bots will be sandboxed here. A laptop has no per-seat cgroups (the
    server refuses to play without them): locally, one process a seat with rlimits will do."""
    from engine.sandbox import probe_sandbox
    from engine.sandbox.config import prefer_local_fallbacks

    # A laptop seldom has runsc and root: its seats then share its kernel, and this says so.
    prefer_local_fallbacks()
    report = probe_sandbox()
    if not report.ok:
        raise CommandError(f"the sandbox does not work here: {report.reason}")
    line = f"sandbox: {report.mode}: {report.reason.split('; NO system-call filter')[0]}"
    if report.kernel == "host":
        line += ("\nsandbox: the seats share this machine's kernel (no gVisor here): partners "
                 "could signal through it; the server gives every seat a kernel of its own")
    if not report.seccomp and report.kernel == "host":
        line += ("\nsandbox: WITHOUT the system-call filter: libseccomp's Python bindings are "
                 "not installed for this python3 (apt-get install python3-seccomp)")
    print(line, file=sys.stderr, flush=True)


def _player(spec: str, time_control: TimeControl, unsandboxed: bool, game: str) -> Any:
    if not spec.startswith("builtin:") and not Path(spec).exists():
        raise CommandError(f"no such bot program: {spec}")
    options = {"unsandboxed": True} if unsandboxed and not spec.startswith("builtin:") else {}
    try:
        return resolve_player(spec, game=game, time=time_control, **options)
    except ValueError as error:
        raise CommandError(str(error)) from None


def _clock_used(factories: list[Any]) -> str | None:
    """The clock the bot programs' seats were timed by (None: only built-in players)."""
    seats = [player for factory in factories for player in getattr(factory, "players", [])]
    if not seats:
        return None
    strict = seats[0].clock.time.strict_ms
    extra = (f"; strict time: a slot of {strict} ms a decision, the reply due "
             f"{seats[0].clock.time.strict_reply_ms} ms into it" if strict else "")
    if any(seat.clock.kind == "wall" for seat in seats):
        return ("clock: WALL time, not CPU time: this machine could not count a seat's CPU "
                "time (the server always does)" + extra)
    return clock.describe() + extra


def cmd_clock(args: argparse.Namespace) -> int:
    """As KAISER_CLOCK_SPEED_FACTOR=auto measures, many times over: the median of the bests is
    this machine's speed without the luck of one moment (a shared host has slow spells)."""
    bests = sorted(clock.calibrate().best_ms for _ in range(max(1, args.repeat)))
    best = statistics.median(bests)
    factor = clock.REFERENCE_WORKLOAD_MS / best
    print(f"calibration workload: best of {clock.CALIBRATION_RUNS} runs {best:.2f} ms of CPU "
          f"time (median of {len(bests)}; from {bests[0]:.2f} to {bests[-1]:.2f} ms); the "
          f"reference machine's: {clock.REFERENCE_WORKLOAD_MS} ms")
    print(f"speed factor of this machine: {factor:.2f} (to count the bots' CPU time so, set "
          f"{clock.SPEED_ENV}={factor:.2f})")
    print(f"in use now: {clock.describe()}")
    return 0


class Progress:
    """Games done, on one updating line on a terminal, or a line every 10% otherwise."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.started = time.perf_counter()
        self.tty = sys.stderr.isatty()
        self.step = max(1, total // 10)

    def __call__(self, done: int, total: int) -> None:
        if self.total < 10 and not self.tty:
            return
        rate = done / max(time.perf_counter() - self.started, 1e-9)
        line = f"games {done}/{total} ({rate:.1f}/s)"
        if self.tty:
            print(f"\r{line}", end="", file=sys.stderr, flush=True)
        elif done % self.step == 0 or done == total:
            print(line, file=sys.stderr, flush=True)

    def done(self) -> None:
        if self.tty:
            print(file=sys.stderr)


# --- validate and show ---------------------------------------------------------------------------
def _read_replays(path: Path) -> list[Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise CommandError(f"cannot read {path}: {error.strerror}") from None
    except UnicodeDecodeError:
        raise CommandError(f"{path} is not UTF-8 text") from None
    try:
        return list(iter_replays(text))
    except ValueError as error:
        raise CommandError(f"{path}: {error}") from None


def cmd_validate(args: argparse.Namespace) -> int:
    bad = 0
    for path in args.files:
        replays = _read_replays(path)
        for number, replay in enumerate(replays):
            label = str(path) if len(replays) == 1 else f"{path} (replay {number + 1})"
            problems = validate_replay(replay)
            if problems:
                bad += 1
                print(f"{label}: INVALID: {problems[0]}")
            else:
                print(f"{label}: valid")
    return 1 if bad else 0


def cmd_show(args: argparse.Namespace) -> int:
    for replay in _read_replays(args.file):
        try:
            print(_game_of(replay).render(replay, only_game=args.game))
        except (KeyError, TypeError, IndexError, AttributeError) as error:
            raise CommandError(f"{args.file}: not a readable replay ({type(error).__name__}: "
                               f"{error})") from None
    return 0


def _game_of(replay: Any) -> Game:
    """The replay's game; a replay of no known format is read as the default game's."""
    try:
        return game_of_replay(replay)
    except ValueError:
        return default_game()
