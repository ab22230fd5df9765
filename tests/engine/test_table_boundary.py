"""The next table hears nothing of the last one leaving (issue 41), with real seats under
gVisor: game 0's seats, which saw every hand at deal_end, exit at a phase of the wall clock
that spells a symbol of deal 0's hands, and game 1's seats read the phase at their first
statement (tests/engine/fairplay/exit_phase.py). engine.tables lets the next table in when
the last game ended, not when its seats exited, so the reading is at chance, in Kaiser and
in Sergeant Major; the positive control waits for the exits as the tables did before
(engine.tables.WAIT_FOR_EXITS), and the same probe then reads far above chance.

Matches of six games of one deal each: a boundary a game after the first, so the sandboxes'
boots, not the play, are most of the time."""

from __future__ import annotations

import dataclasses
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from engine import tables
from engine.botproc import ProgramFactory, program_player_factory
from engine.builtin import resolve_player
from engine.kaiser.match import run_match as kaiser_match
from engine.kaiser.rules import DEFAULT_RULES as KAISER_RULES
from engine.players import TimeControl
from engine.sandbox.config import config
from engine.sandbox.gvisor import choose_kernel
from engine.sergeant_major import SERGEANT_MAJOR
from engine.sergeant_major.match import run_match as sm_match
from engine.sergeant_major.rules import DEFAULT_RULES as SM_RULES
from tests.engine.chance import chance_interval, chance_of_at_least

pytestmark = [pytest.mark.sandbox, pytest.mark.timeout(300)]
PROBE = Path(__file__).parent / "fairplay" / "exit_phase.py"
# 4 levels of 160 ms: the cycle (640 ms) and the exit after it fit in the second a seat has to
# exit (engine.botproc.EXIT_GRACE_S). Where the exit is waited for, the next seat's first
# statement comes 25 to 80 ms after it under gVisor on a quiet host, and up to 240 ms on one
# loaded 10 times over (the sandbox's teardown): OFFSET_MS is that delay's middle, and a
# level is wide enough for most of its spread. More levels would read more bits a boundary
# where the host is quiet, and nothing where it is not. HOLD_MS: one seat of the side holds
# its first move back so long that the next table has booted (while this one plays) before
# the exit, as a pair that wants its boundary read would.
LEVELS, STEP_MS, OFFSET_MS, HOLD_MS = 4, 160, 90, 500
CHANCE = 1 / LEVELS
GAMES = 6  # a match's boundaries: 5
CLOCK = TimeControl()
EXIT = re.compile(r"^EXIT game=(\d+) seat=\d+ symbol=(\d+)$", re.M)
READ = re.compile(r"^READ game=(\d+) seat=\d+ got=(\d+) ", re.M)


@dataclasses.dataclass(frozen=True)
class Boundary:
    game: int  # the game whose seats read the exit of the one before
    sent: int
    got: int


def play_kaiser(bot: ProgramFactory, seed: str) -> dict[str, Any]:
    rules = dataclasses.replace(KAISER_RULES, max_deals=1)
    return kaiser_match(bot, resolve_player("builtin:greedy"), games=GAMES, seed=seed,
                        rules=rules, time=CLOCK)


def play_sergeant_major(bot: ProgramFactory, seed: str) -> dict[str, Any]:
    # One hand a game, the shortest game the rules allow.
    rules = dataclasses.replace(SM_RULES, win_tricks=None, hands=1, max_hands=1)
    others = [resolve_player(f"builtin:{name}", game=SERGEANT_MAJOR)
              for name in ("greedy", "random")]
    return sm_match([bot, *others], games=GAMES, seed=seed, rules=rules, time=CLOCK)


GAMES_PLAYED: dict[str, Callable[[ProgramFactory, str], dict[str, Any]]] = {
    "kaiser": play_kaiser, SERGEANT_MAJOR: play_sergeant_major}


def probe(tmp_path: Path) -> Path:
    folder = tmp_path / "exit_phase"
    folder.mkdir()
    shutil.copy(PROBE, folder / "bot.py")
    (folder / "exit_phase.txt").write_text(f"{LEVELS} {STEP_MS} {OFFSET_MS} {HOLD_MS}\n")
    return folder


def boundaries(bot: ProgramFactory) -> list[Boundary]:
    """Each boundary of a match: the symbol game g-1's seats left at, and what game g's
    first seat (the probe's lowest) read."""
    exits: dict[int, int] = {}
    reads: dict[int, int] = {}
    for player in sorted(bot.players, key=lambda p: (p.game, p.seat)):
        text = player.stderr_text()
        for game, symbol in EXIT.findall(text):
            exits.setdefault(int(game), int(symbol))
        for game, got in READ.findall(text):
            reads.setdefault(int(game), int(got))
    return [Boundary(game, exits[game - 1], got) for game, got in sorted(reads.items())]


def read_over(game: str, tmp_path: Path, matches: int, tag: str) -> list[Boundary]:
    """`matches` matches of the probe (side A) in `game`; every boundary it tried."""
    assert choose_kernel(config())[0] == "gvisor", "these seats are about gVisor's"
    program = probe(tmp_path)
    found: list[Boundary] = []
    for n in range(matches):
        bot = program_player_factory(program, time=CLOCK)
        replay = GAMES_PLAYED[game](bot, f"boundary/{tag}/{n}")
        assert replay["result"]["forfeit"] is None, replay["result"]["forfeit"]
        tried = boundaries(bot)
        assert [b.game for b in tried] == list(range(1, GAMES)), tried  # every one read
        found += tried
    return found


def right(found: list[Boundary]) -> int:
    return sum(b.sent == b.got for b in found)


@pytest.mark.parametrize("game", ["kaiser", SERGEANT_MAJOR])
def test_the_next_table_reads_the_last_ones_exit_at_chance(game: str, tmp_path: Path) -> None:
    found = read_over(game, tmp_path, matches=8, tag="free")

    low, high = chance_interval(len(found), CHANCE)
    print(f"{game}, free exits: {right(found)} of {len(found)} boundaries right "
          f"(chance's 95% interval {low} to {high})")
    assert len(found) >= 40
    assert low <= right(found) <= high, (right(found), len(found), (low, high))


@pytest.mark.alone  # the delay it reads is the host's: the suite's own load would blur it
@pytest.mark.parametrize("game", ["kaiser", SERGEANT_MAJOR])
def test_positive_control_where_the_next_table_waits_for_the_exits_the_probe_reads_them(
        game: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tables, "WAIT_FOR_EXITS", True)

    found = read_over(game, tmp_path, matches=4, tag="waited")

    p = chance_of_at_least(right(found), len(found), CHANCE)
    print(f"{game}, exits waited for: {right(found)} of {len(found)} right (p = {p:.1e})")
    assert len(found) == 20
    assert chance_of_at_least(right(found), len(found), CHANCE) < 0.001, (right(found), found)
