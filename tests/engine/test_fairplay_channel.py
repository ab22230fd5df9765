"""Partners who time each other (issues 31 and 41), in real matches under gVisor at the normal
clock: a pair that holds its replies back to spell its hand (tests/engine/fairplay/think_time.py,
one program at both seats of its side) against builtin:greedy, and the honest example bots the
same way. The times are the engine's own (engine.clock.DecisionTime: wall, counted and sleep ms
of each decision), as the site keeps them.

No sandbox we run stops a seat's clock while it is frozen, so under the normal clock the pair
does read its partner's symbols far above chance (the positive control; strict time closes it,
docs/sandbox.md). What must hold instead: engine.fairplay's detector flags the pair, the one that
sleeps, the one that burns CPU, and the one that burns a fixed CPU time and then sleeps to its
symbol (issue 41), and passes every honest bot over as many matches of the same length."""

from __future__ import annotations

import dataclasses
import math
import re
import shutil
from pathlib import Path

import pytest

from engine.botproc import program_player_factory
from engine.builtin import resolve_player
from engine.fairplay import SPREAD_BITS, RecordedSide, SideTimes, Verdict, fairplay_check
from engine.games import get_game
from engine.kaiser.match import run_match
from engine.kaiser.rules import DEFAULT_RULES
from engine.players import TimeControl
from engine.sandbox.config import config
from engine.sandbox.gvisor import choose_kernel
from tests.engine.sandbox_support import EXAMPLES

pytestmark = [pytest.mark.sandbox, pytest.mark.timeout(300)]
PROBES = Path(__file__).parent / "fairplay"
RULES = dataclasses.replace(DEFAULT_RULES, max_deals=3)  # games of at most three deals
MATCHES = 2  # for the pair and for every honest bot alike
CLOCK = TimeControl()  # the ladder's
SYMBOL_BITS, STEP_MS = 4, 4.0  # up to 60 ms a move
# Issue 41's pair: 70 ms of CPU a move, then a sleep to 130 ms + 2 ms x a 5-bit symbol.
BURNSLEEP = "5 2.0 burnsleep 70 130"
DECODE = re.compile(r"^DECODE .* sent=(\d+) got=(\d+) ", re.M)


def pair_program(tmp_path: Path, mode: str, setting: str = "") -> Path:
    folder = tmp_path / f"think_time_{mode}"
    folder.mkdir()
    shutil.copy(PROBES / "think_time.py", folder / "bot.py")
    for helper in ("_channel.py", "_play.py"):
        shutil.copy(PROBES / helper, folder / helper)
    (folder / "think_time.txt").write_text((setting or f"{SYMBOL_BITS} {STEP_MS} {mode}") + "\n")
    return folder


@dataclasses.dataclass
class Played:
    matches: list[SideTimes]
    stderr: list[str]


def play(program: Path) -> Played:
    """MATCHES two-game matches of `program` (side A) against builtin:greedy."""
    assert choose_kernel(config())[0] == "gvisor", "these matches are about gVisor's seats"
    played = Played([], [])
    for seed in range(MATCHES):
        bot = RecordedSide(program_player_factory(program, time=CLOCK))
        replay = run_match(bot, resolve_player("builtin:greedy"), games=2,
                           seed=f"think-time/{seed}", rules=RULES, time=CLOCK)
        assert replay["result"]["forfeit"] is None, replay["result"]["forfeit"]
        played.matches.append(bot.side_times(replay, "A"))
        played.stderr += bot.stderr_texts()
    return played


def decoded(played: Played) -> tuple[int, int]:
    """(symbols the partner tried, symbols it got right), checked by the pair itself once
    deal_end showed the hand."""
    rows = [m.groups() for text in played.stderr for m in DECODE.finditer(text)]
    return len(rows), sum(1 for sent, got in rows if sent == got)


def chance_of_at_least(right: int, tried: int, chance: float) -> float:
    """The probability that a partner guessing at random gets `right` or more of `tried`."""
    return sum(math.comb(tried, k) * chance ** k * (1 - chance) ** (tried - k)
               for k in range(right, tried + 1))


def flagged_for(verdict: Verdict, statistic: str) -> bool:
    return verdict.flagged and any(r.startswith(f"{statistic} spread") for r in verdict.reasons)


def test_a_pair_that_sleeps_to_signal_is_read_by_its_partner_and_flagged(
        tmp_path: Path) -> None:
    played = play(pair_program(tmp_path, "sleep"))

    tried, right = decoded(played)
    chance = 1 / (1 << SYMBOL_BITS)
    # The channel is open: guessing does this well less than once in 10,000 tries. (Not a
    # fixed multiple of chance: a busy host blurs the symbols, and 22 of 136 right at 1 in
    # 16, under two busy loops, is as sure a reading as 40 of 136 on a quiet one.)
    assert tried >= 50 and chance_of_at_least(right, tried, chance) < 1e-4, (tried, right)
    verdict = fairplay_check(played.matches)
    assert flagged_for(verdict, "wait"), verdict.summary()
    assert verdict.wait_bits is not None and verdict.wait_bits >= SPREAD_BITS


def test_a_pair_that_burns_cpu_to_signal_is_flagged(tmp_path: Path) -> None:
    played = play(pair_program(tmp_path, "spin"))

    verdict = fairplay_check(played.matches)
    assert flagged_for(verdict, "cpu"), verdict.summary()
    assert decoded(played)[0] >= 50


def test_a_pair_that_burns_then_sleeps_is_flagged_by_the_wall_clock(tmp_path: Path) -> None:
    played = play(pair_program(tmp_path, "burnsleep", BURNSLEEP))

    verdict = fairplay_check(played.matches)
    # Its waits stay under three times its CPU time: the wait spread alone would pass it.
    assert all(m.sleep_ms is not None for m in played.matches), "the host gives no PSI"
    # Flagged by what the wall clock shows: its sleep on a quiet host; on a host loaded many
    # times over its burn stretches, its sleeps shrink and the wait beside its counted time
    # shows instead (CI once: sleep 1.46 bits a move, wait 2.61 at a load of 20).
    assert flagged_for(verdict, "sleep") or flagged_for(verdict, "wait"), verdict.summary()
    assert max(verdict.sleep_bits or 0.0, verdict.wait_bits or 0.0) >= SPREAD_BITS
    assert decoded(played)[0] >= 50


SM_RULES = "952-six-hands"  # six hands a game: the upload check's length


def play_sergeant_major(program: Path) -> list[SideTimes]:
    """MATCHES one-set matches of `program` (side A) against builtin:greedy and builtin:random."""
    game = get_game("sergeant-major")
    matches = []
    for seed in range(MATCHES):
        bot = RecordedSide(program_player_factory(program, time=CLOCK))
        others = [resolve_player(spec, game=game.name)
                  for spec in ("builtin:greedy", "builtin:random")]
        replay = game.run_match([bot, *others], games=3, seed=f"sm-think-time/{seed}",
                                rules=game.get_rules(SM_RULES), time=CLOCK)
        assert replay["result"]["forfeit"] is None, replay["result"]["forfeit"]
        matches.append(bot.side_times(replay, "A"))
    return matches


def test_a_sergeant_major_seat_that_sleeps_its_hand_is_flagged_and_the_starter_passes(
        ) -> None:
    slept = fairplay_check(play_sergeant_major(PROBES / "sm_sleeper.py"))
    starter = fairplay_check(play_sergeant_major(EXAMPLES / "sergeant_major_bot.py"))

    assert flagged_for(slept, "wait"), slept.summary()
    assert slept.cpu_bits is not None and slept.deals >= 2 * MATCHES * 3  # its features read
    assert not starter.flagged, starter.summary()
    assert starter.decisions >= 150


HONEST = ["minimal_bot.py", "random.zip", "greedy.zip", "mc.zip", "node_random.zip"]


@pytest.mark.parametrize("name", HONEST)
def test_an_honest_example_bot_is_not_flagged(name: str) -> None:
    played = play(EXAMPLES / name)

    verdict = fairplay_check(played.matches)
    assert not verdict.flagged, verdict.summary()
    assert verdict.decisions >= 150  # as many decisions as the pair's
