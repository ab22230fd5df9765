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

from engine import clock, words
from engine.builtin import resolve_player
from engine.faults import InfrastructureError
from engine.games import GAMES, KAISER, Game, get_game
from engine.games import resolve_player as resolve_any
from engine.kaiser import words as kaiser_words
from engine.kaiser.match import replay_json, run_match, seat_sides
from engine.kaiser.rules import PRESETS, get_rules
from engine.kaiser.validate import SM_FORMAT, iter_replays, validate_replay
from engine.players import TimeControl
from engine.sergeant_major.rules import PRESETS as SM_PRESETS
from engine.sergeant_major.show import render as sm_render
from engine.sergeant_major.show import summary as sm_summary


class CommandError(Exception):
    """A one-line message for the user; the command exits 1."""


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
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
    match = commands.add_parser("match", help="play a duplicate match between two players "
                                              "(Kaiser) or three (Sergeant Major)")
    match.add_argument("a", help="player A: builtin:random, builtin:greedy, builtin:mc, or a "
                                 "bot program (.py, .zip or folder)")
    match.add_argument("b", help="player B, in the same forms")
    match.add_argument("c", nargs="?", help="player C (Sergeant Major only)")
    match.add_argument("--game", default=KAISER, choices=sorted(GAMES),
                       help="kaiser (default) or sergeant-major")
    match.add_argument("--games", type=int, help="Kaiser: an even number (default 2); "
                                                 "Sergeant Major: a multiple of 3 (default 3)")
    match.add_argument("--seed", default="0", help="the deals and built-in players' seed")
    match.add_argument("--rules", help=f"Kaiser: one of {', '.join(PRESETS)} (default "
                                       f"official); Sergeant Major: one of "
                                       f"{', '.join(SM_PRESETS)} (default 952)")
    match.add_argument("--replay", type=Path, help="write the replay (JSON) to this file")
    match.add_argument("--move-ms", type=int, default=1000)
    match.add_argument("--bank-ms", type=int, default=10000)
    match.add_argument("--startup-ms", type=int, default=5000)
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
    if args.game != KAISER:
        return cmd_match_game(args, get_game(args.game))
    if args.c is not None:
        raise CommandError("a Kaiser match has two players; three play Sergeant Major "
                           "(--game sergeant-major)")
    if args.games is None:
        args.games = 2
    try:
        rules = get_rules(args.rules or "official")
    except ValueError as error:
        hint = " (a Sergeant Major preset: add --game sergeant-major)" \
            if args.rules in SM_PRESETS else ""
        raise CommandError(f"{error}{hint}") from None
    if args.games < 2 or args.games % 2:
        raise CommandError(f"--games must be a positive even number (duplicate pairs), "
                           f"not {args.games}")
    time_control = TimeControl(args.move_ms, args.bank_ms, args.startup_ms)
    unsandboxed = args.unsandboxed or _no_bubblewrap(args)
    players = [_player(spec, time_control, unsandboxed) for spec in (args.a, args.b)]
    if not unsandboxed and any(not spec.startswith("builtin:") for spec in (args.a, args.b)):
        _say_sandbox()
    progress = None if args.quiet else Progress(args.games)
    started = time.perf_counter()
    replay = run_match(players[0], players[1], games=args.games, seed=args.seed, rules=rules,
                       time=time_control, on_progress=progress)
    if progress:
        progress.done()
    if args.replay:
        try:
            args.replay.write_text(replay_json(replay) + "\n", encoding="utf-8")
        except OSError as error:
            raise CommandError(f"cannot write {args.replay}: {error.strerror}") from None
    print(summary(replay, time.perf_counter() - started))
    clock_line = _clock_used(players)
    if clock_line:
        print(clock_line)
    if args.stderr:
        for side, factory in zip("AB", players, strict=True):
            for slot, text in enumerate(getattr(factory, "stderr_texts", lambda: [])()):
                print(f"--- stderr of {side} (process {slot}) ---\n{text}")
    return 0


def cmd_deal(args: argparse.Namespace) -> int:
    from engine.kaiser.dealfile import deal_file_load, deal_play

    try:
        data = deal_file_load(args.file.read_text(encoding="utf-8"))
    except OSError as error:
        raise CommandError(f"cannot read {args.file}: {error.strerror}") from None
    except (UnicodeDecodeError, ValueError) as error:
        raise CommandError(f"{args.file}: not a valid deal file: {error}") from None
    time_control = TimeControl(args.move_ms, args.bank_ms, args.startup_ms)
    unsandboxed = args.unsandboxed or _no_bubblewrap(args)
    players = [_player(spec, time_control, unsandboxed) for spec in (args.a, args.b)]
    if not unsandboxed and any(not spec.startswith("builtin:") for spec in (args.a, args.b)):
        _say_sandbox()
    played = deal_play(data, players[0], players[1], time=time_control)
    print(deal_summary(data, played, {"A": args.a, "B": args.b}))
    return 0


def deal_summary(data: dict[str, Any], played: dict[str, Any], names: dict[str, str]) -> str:
    """Each table's contract and change of score, and A's swing (and the site's, if given)."""
    lines = [f"board: game {data['game'] + 1} and {data['game'] + 2}, deal {data['deal'] + 1} "
             f"(rules {data['rules']['preset']}, seed {data['seed']}, dealer seat "
             f"{data['dealer']}); A = {names['A']}, B = {names['B']}"]
    for table, (record, fault) in enumerate(zip(played["tables"], played["forfeits"],
                                                strict=True)):
        seats = seat_sides(data["game"] + table)
        head = f"table {table + 1} (A at seats {'0, 2' if seats[0] == 'A' else '1, 3'}, " \
               f"score before {words.score_text(data['scores'][table])}): "
        if fault:
            lines.append(head + f"fault: {fault['player']} {fault['reason']}: {fault['detail']}")
        elif record is None or record.get("misdeal"):
            lines.append(head + "thrown in (misdeal): no score")
        else:
            c = record["contract"]
            who = f"seat {_seat(c['seat'])}, {seats[c['seat']]}"
            lines.append(head + f"contract {kaiser_words.contract_text(c, who)}, points "
                         f"{words.score_text(record['points'])}, change "
                         f"{words.changes_text(record['delta'])}")
    swing = played["swing"]
    lines.append("swing: none (a table did not finish the deal)" if swing is None
                 else f"swing: {words.signed(swing)} for A ({names['A']})")
    site = (data.get("played") or {}).get("swing")
    if isinstance(site, int):
        lines.append(f"on the site: {words.signed(site)} for A ({_site_player(data, 'A')}), "
                     f"against {_site_player(data, 'B')}")
    return "\n".join(lines)


def _site_player(data: dict[str, Any], side: str) -> str:
    """The player the site's match had on that side (a deal file's `players`: not checked,
    only shown)."""
    player = (data.get("players") or {}).get(side)
    if not isinstance(player, dict):
        return side
    return words.player_name(player)


def cmd_match_game(args: argparse.Namespace, game: Game) -> int:
    """A match of a game other than Kaiser (its own sides, sets of games and summary)."""
    specs = [spec for spec in (args.a, args.b, args.c) if spec is not None]
    if len(specs) != len(game.sides):
        raise CommandError(f"{game.title} is played by {len(game.sides)} players "
                           f"({', '.join(game.sides)}), not {len(specs)}: e.g. "
                           f"match {' '.join(['builtin:random'] * len(game.sides))} "
                           f"--game {game.name}")
    try:
        rules = game.get_rules(args.rules or game.default_preset)
    except ValueError as error:
        raise CommandError(str(error)) from None
    games = game.games_per_set if args.games is None else args.games
    if games < game.games_per_set or games % game.games_per_set:
        raise CommandError(f"--games must be a positive multiple of {game.games_per_set} "
                           f"(the seats rotate over the same deals), not {games}")
    time_control = TimeControl(args.move_ms, args.bank_ms, args.startup_ms)
    unsandboxed = args.unsandboxed or _no_bubblewrap(args)
    players = [_player(spec, time_control, unsandboxed, game.name) for spec in specs]
    if not unsandboxed and any(not spec.startswith("builtin:") for spec in specs):
        _say_sandbox()
    progress = None if args.quiet else Progress(games)
    started = time.perf_counter()
    replay = game.run_match(players, games=games, seed=args.seed, rules=rules,
                            time=time_control, on_progress=progress)
    if progress:
        progress.done()
    _write_replay(args, replay)
    print(sm_summary(replay, time.perf_counter() - started))
    clock_line = _clock_used(players)
    if clock_line:
        print(clock_line)
    if args.stderr:
        for side, factory in zip(game.sides, players, strict=True):
            for slot, text in enumerate(getattr(factory, "stderr_texts", lambda: [])()):
                print(f"--- stderr of {side} (process {slot}) ---\n{text}")
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
    programs = [s for s in (args.a, args.b, getattr(args, "c", None))
                if s is not None and not s.startswith("builtin:")]
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


def _player(spec: str, time_control: TimeControl, unsandboxed: bool,
            game: str = KAISER) -> Any:
    if not spec.startswith("builtin:") and not Path(spec).exists():
        raise CommandError(f"no such bot program: {spec}")
    options = {"unsandboxed": True} if unsandboxed and not spec.startswith("builtin:") else {}
    try:
        if game != KAISER:
            return resolve_any(spec, game=game, time=time_control, **options)
        return resolve_player(spec, time=time_control, **options)
    except ValueError as error:
        raise CommandError(str(error)) from None


def _clock_used(factories: list[Any]) -> str | None:
    """The clock the bot programs' seats were timed by (None: only built-in players)."""
    seats = [player for factory in factories for player in getattr(factory, "players", [])]
    if not seats:
        return None
    if any(seat.clock.kind == "wall" for seat in seats):
        return ("clock: WALL time, not CPU time: this machine could not count a seat's CPU "
                "time (the server always does)")
    return clock.describe()


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


def summary(replay: dict[str, Any], seconds: float) -> str:
    result = replay["result"]
    names = side_names(replay)
    total = len(replay["games"])
    points = {"A": 0, "B": 0}
    deals = 0
    for game in replay["games"]:
        for deal in game["deals"]:
            if deal.get("points") is None:
                continue
            deals += 1
            for team in (0, 1):
                points[game["seats"][team]] += deal["points"][team]
    draws = total - result["games"]["A"] - result["games"]["B"]
    lines = [
        f"A = {names['A']}, B = {names['B']}, rules {replay['rules']['preset']}, "
        f"seed {replay['seed']}, {seconds:.2f} s",
        f"games won: A {result['games']['A']}, B {result['games']['B']}"
        + (f", drawn {draws}" if draws > 0 else "") + f"; A's score {result['score']:.3f}",
        f"average points a deal: A {points['A'] / max(deals, 1):.2f}, "
        f"B {points['B'] / max(deals, 1):.2f} ({deals} deals)",
    ]
    fault = result["forfeit"]
    if fault:
        lines.append(f"faults: {fault['player']} at seat {fault['seat']}: {fault['reason']} "
                     f"(message {fault['message_id']}): {fault['detail']}; "
                     f"{fault['player']} forfeits")
    else:
        lines.append("faults: none")
    return "\n".join(lines)


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
            if isinstance(replay, dict) and replay.get("format") == SM_FORMAT:
                print(sm_render(replay, only_game=args.game))
                continue
            print(render(replay, only_game=args.game))
        except (KeyError, TypeError, IndexError, AttributeError) as error:
            raise CommandError(f"{args.file}: not a readable replay ({type(error).__name__}: "
                               f"{error})") from None
    return 0


def render(replay: dict[str, Any], only_game: int | None = None) -> str:
    """A Kaiser replay deal by deal, in the words of the site's pages (engine.words)."""
    out: list[str] = []
    names = side_names(replay)
    out.append(f"{names['A']} (A) against {names['B']} (B), rules "
               f"{replay['rules']['preset']}, seed {replay['seed']}")
    for number, game in enumerate(replay["games"]):
        if only_game is not None and number != only_game:
            continue
        seats = game["seats"]
        out.append(f"\n=== Game {number}: A at seats "
                   f"{', '.join(_seat(s) for s in range(4) if seats[s] == 'A')} ===")
        for index, deal in enumerate(game["deals"]):
            out.extend(_render_deal(index, deal, seats))
        result = game["result"]
        winner = "draw" if result["winner"] is None else \
            f"team {result['winner']} ({seats[result['winner']]}) wins"
        out.append(f"Game {number}: {winner}, score {words.score_text(result['score'])}")
        if result["forfeit"]:
            f = result["forfeit"]
            out.append(f"  forfeit by seat {f['seat']} ({f['player']}): {f['reason']}, "
                       f"message {f['message_id']}: {f['detail']}")
    result = replay["result"]
    out.append(f"\nMatch: A {result['games']['A']} games, B {result['games']['B']}; "
               f"A's score {result['score']}")
    return "\n".join(out)


def side_names(replay: dict[str, Any]) -> dict[str, str]:
    """"greedy v3" for a side one program played; for a game with a person, whose
    `seat_players` name each seat, the side's seats in order: "ada (person) & greedy v1"."""
    seat_players = replay.get("seat_players")
    if not seat_players or not replay["games"]:
        return {side: words.player_name(p) for side, p in replay["players"].items()}
    seats = replay["games"][0]["seats"]
    return {side: " & ".join(words.player_name(p) for s, p in enumerate(seat_players)
                             if seats[s] == side) for side in ("A", "B")}


def _seat(seat: int) -> str:
    """'2 (North)': the protocol's seat number and the pages' name for it."""
    return f"{seat} ({kaiser_words.SEATS[seat]})"


def _render_deal(index: int, deal: dict[str, Any], seats: list[str]) -> list[str]:
    lines = [f"-- Deal {index}, dealer seat {_seat(deal['dealer'])}"]
    for seat, hand in enumerate(deal["hands"]):
        lines.append(f"   seat {_seat(seat)}, {seats[seat]}: {words.cards_text(hand)}")
    if deal["kitty"]:
        lines.append(f"   kitty: {words.cards_text(deal['kitty'])}")
    if deal["misdeal"]:
        lines.append(f"   seat {_seat(deal['misdeal']['seat'])} throws the hand in")
        return lines
    lines.append("   bids: " + ", ".join(f"{kaiser_words.SEATS[b['seat']]} "
                                         f"{kaiser_words.bid_text(b['bid'])}"
                                         for b in deal["bids"]))
    contract = deal["contract"]
    if contract:
        who = f"seat {_seat(contract['seat'])}"
        lines.append(f"   contract: {kaiser_words.contract_text(contract, who)}, trump: "
                     f"{words.trump_text(contract['trump'])}")
    if deal["discards"]:
        lines.append(f"   discards: {words.cards_text(deal['discards'])}")
    for number, trick in enumerate(deal["tricks"]):
        plays = [f"{(trick['leader'] + i) % 4}:{words.card_text(c)}"
                 for i, c in enumerate(trick["cards"])]
        lines.append(f"   trick {number + 1}: {' '.join(plays)}  -> seat {trick['winner']}")
    if deal.get("points") is not None:
        lines.append(f"   points {words.score_text(deal['points'])}, change "
                     f"{words.changes_text(deal['delta'])}, score "
                     f"{words.score_text(deal['score'])}")
    return lines
