"""A seat's clock counts its CPU time, with a wall-clock backstop (issue 19): real bot programs
in real sandboxed matches against builtin:random, busy loops outside the sandbox where the
host must be loaded, and the clock's arithmetic with a CPU counter the test controls. Issue 33:
the clock counts the bot's processes, not its sandbox's kernel (gVisor's Sentry), and the
backstop stretches with the host's load."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from engine import clock
from engine.clock import BotCpu, SeatClock
from engine.faults import InfrastructureError
from engine.players import TimeControl
from engine.sandbox import SANDBOX_PATH
from tests.engine.sandbox_support import (
    EXAMPLES,
    FAST,
    HOSTILE,
    RELAXED,
    play,
    processes_in,
    program,
)

ROOT = Path(__file__).resolve().parents[2]
PROBES = Path(__file__).parent / "fairplay"
THINK_S = 0.25  # an honest bot's work a move, in CPU seconds on this machine


@pytest.fixture(autouse=True)
def _fresh_speed_factor() -> Iterator[None]:
    """Each test reads KAISER_CLOCK_SPEED_FACTOR afresh (the factor is cached a process)."""
    clock.speed_factor.cache_clear()
    yield
    clock.speed_factor.cache_clear()


def cruncher(tmp_path: Path, rounds: int, moves: int) -> Path:
    folder = tmp_path / "cruncher"
    folder.mkdir()
    shutil.copy(PROBES / "cruncher.py", folder / "bot.py")
    shutil.copy(PROBES / "_play.py", folder / "_play.py")
    (folder / "crunch.txt").write_text(f"{rounds} {moves}")
    return folder


def rounds_for(seconds: float) -> int:
    """Rounds of the cruncher's loop that take `seconds` of CPU time in the sandbox's python3."""
    python3 = shutil.which("python3", path=SANDBOX_PATH)
    assert python3, "no python3 for the sandbox"
    found = subprocess.run([python3, PROBES / "cruncher.py", "--rounds-for", str(seconds)],
                           cwd=PROBES, check=True, capture_output=True, text=True)
    return int(found.stdout)


@contextmanager
def busy_loops(count: int) -> Iterator[None]:
    """`count` processes spinning outside the sandbox, each seen using CPU before the test
    goes on; killed (by pid) on the way out. Each in a session of its own: the kernel's
    autogroup would otherwise give them together the share of one process."""
    loops = [subprocess.Popen([sys.executable, "-c", "while True: pass"],
                              start_new_session=True) for _ in range(count)]
    try:
        for loop in loops:
            while _cpu_ticks(loop.pid) == 0:
                assert loop.poll() is None, "a busy loop died"
                time.sleep(0.01)
        yield
    finally:
        for loop in loops:
            loop.kill()
            loop.wait()


def _cpu_ticks(pid: int) -> int:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])  # utime + stime


def used_cpu_ms(detail: str) -> int:
    found = re.search(r"having used (\d+) ms of CPU time", detail)
    assert found, detail
    return int(found.group(1))


# --- real sandboxed matches ------------------------------------------------------------------

@pytest.mark.sandbox
@pytest.mark.timeout(120)
def test_a_bot_that_sleeps_without_computing_times_out_at_the_wall_clock_backstop() -> None:
    bot = program(HOSTILE / "slow_reply.py", time=FAST)  # sleeps at its first decision

    replay = play(bot, time=FAST)

    forfeit = replay["result"]["forfeit"]
    assert (forfeit["player"], forfeit["reason"], forfeit["message_id"]) == ("A", "timeout", 1)
    assert "wall-clock time, past the backstop" in forfeit["detail"]
    assert used_cpu_ms(forfeit["detail"]) < FAST.move_ms + FAST.bank_ms  # not the CPU clock
    assert replay["result"]["games"] == {"A": 0, "B": 2}
    assert processes_in(bot.namespaces) == []


@pytest.mark.sandbox
@pytest.mark.timeout(120)
def test_a_bot_that_computes_past_move_and_bank_times_out_on_its_cpu_time() -> None:
    bot = program(HOSTILE / "cpu_loop.py", time=FAST)  # spins at its first decision

    replay = play(bot, time=FAST)

    forfeit = replay["result"]["forfeit"]
    assert (forfeit["player"], forfeit["reason"], forfeit["message_id"]) == ("A", "timeout", 1)
    assert forfeit["detail"] == "no reply in time (200 ms + 300 ms bank of CPU time)"
    assert processes_in(bot.namespaces) == []


@pytest.mark.sandbox
@pytest.mark.timeout(180)
def test_on_a_crowded_host_a_bot_that_computes_still_times_out_on_its_cpu_time() -> None:
    # Four busy loops a core leave the spinning seat a fifth of one: the 500 ms of CPU time it
    # may use take 2.5 s of wall time, past the backstop of a host of its own (1.6 s + 0.9 s).
    bot = program(HOSTILE / "cpu_loop.py", time=FAST)

    with busy_loops(4 * clock.usable_cores()):
        assert clock.load_scale() >= 2  # what the backstop stretches by: seen at once
        replay = play(bot, time=FAST)

    forfeit = replay["result"]["forfeit"]
    assert (forfeit["player"], forfeit["reason"], forfeit["message_id"]) == ("A", "timeout", 1)
    assert forfeit["detail"] == "no reply in time (200 ms + 300 ms bank of CPU time)"


@pytest.mark.sandbox
@pytest.mark.timeout(120)
@pytest.mark.parametrize("kernel", ["gvisor", "host"])
def test_the_clock_counts_the_bots_processes_not_its_sandboxs_kernel(
        monkeypatch: pytest.MonkeyPatch, kernel: str) -> None:
    monkeypatch.setenv("KAISER_SANDBOX_KERNEL", kernel)
    bot = program(EXAMPLES / "minimal_bot.py", time=RELAXED)

    replay = play(bot, time=RELAXED)

    assert replay["result"]["forfeit"] is None
    for player in bot.players:
        seat_ns = player.clock.counted_ns + player.clock.kernel_ns
        if kernel == "gvisor":  # the Sentry carried every message: its time is apart
            assert 0 < player.clock.kernel_ns < seat_ns
        else:  # the host's kernel: its work for the bot is the bot's own system time
            assert player.clock.kernel_ns == 0
        assert player.clock.counted_ns > 0
        assert sum(player.decision_ms()) == pytest.approx(player.clock.counted_ns / 1e6,
                                                          abs=len(player.decision_ms()))


@pytest.mark.sandbox
@pytest.mark.timeout(300)
def test_an_honest_bot_beside_busy_loops_keeps_its_time_and_is_charged_its_cpu_time(
        tmp_path: Path) -> None:
    # Move time that the bot's work fits in, but its wall time on a loaded host does not:
    # on the wall clock of before, six such moves a seat emptied this bank.
    tight = TimeControl(move_ms=700, bank_ms=1000, startup_ms=10000)
    bot = program(cruncher(tmp_path, rounds_for(THINK_S), moves=3), time=tight)

    with busy_loops(4 * clock.usable_cores()):  # the seat on move gets a fifth of a core
        replay = play(bot, time=tight)

    assert replay["result"]["forfeit"] is None
    assert len(bot.players) == 4  # two seats in each of two games, a process each
    counted = [ms for player in bot.players for ms in player.decision_ms()[:3]]
    walls = [w * 1000 for player in bot.players
             for w in json.loads(player.stderr_text().strip().splitlines()[-1])["walls"]]
    assert len(counted) == len(walls) == 12
    # Twice the work's CPU time is room for this host's own speed changes; the wall time of
    # a move, beside the busy loops, goes far beyond it.
    bound = 2.5 * THINK_S * 1000
    assert max(counted) < bound < max(walls), (counted, walls)


@pytest.mark.sandbox
@pytest.mark.timeout(120)
@pytest.mark.parametrize("factor", ["1", "8"])
def test_the_speed_factor_scales_the_counted_time(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, factor: str) -> None:
    monkeypatch.setenv(clock.SPEED_ENV, factor)  # 8: this machine counts as 8x the reference
    no_bank = TimeControl(move_ms=800, bank_ms=0, startup_ms=10000)
    bot = program(cruncher(tmp_path, rounds_for(THINK_S), moves=2), time=no_bank)

    replay = play(bot, time=no_bank)

    forfeit = replay["result"]["forfeit"]
    if factor == "1":  # 250 ms of work in 800 ms
        assert forfeit is None
        assert max(bot.players[0].decision_ms()) < no_bank.move_ms
    else:  # counted as 2 s of the reference machine's time
        assert (forfeit["reason"], forfeit["message_id"]) == ("timeout", 1)
        assert forfeit["detail"] == "no reply in time (800 ms + 0 ms bank of CPU time)"


@pytest.mark.sandbox
@pytest.mark.timeout(120)
def test_the_local_runner_says_which_clock_it_used() -> None:
    result = subprocess.run([sys.executable, "-m", "engine", "match",
                             "bots/examples/minimal_bot.py", "builtin:random", "--quiet"],
                            cwd=ROOT, capture_output=True, text=True, timeout=110)

    assert result.returncode == 0, result.stderr
    assert "faults: none" in result.stdout
    assert ("clock: the seat's CPU time x1.00 (KAISER_CLOCK_SPEED_FACTOR unset); "
            "wall-clock backstop 3x the allowance + 1000 ms a move") in result.stdout


# --- the speed factor and the clock's arithmetic ---------------------------------------------

def test_the_speed_factor_is_1_unless_the_operator_sets_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(clock.SPEED_ENV, raising=False)
    assert clock.speed_factor() == 1.0
    clock.speed_factor.cache_clear()
    monkeypatch.setenv(clock.SPEED_ENV, "1.25")
    assert clock.speed_factor() == 1.25


def test_auto_measures_this_machine_against_the_reference(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(clock.SPEED_ENV, "auto")

    factor = clock.speed_factor()

    assert clock.SPEED_LIMITS[0] <= factor <= clock.SPEED_LIMITS[1]
    assert clock.speed_factor() is factor  # measured once a process


@pytest.mark.parametrize("text", ["fast", "0", "-1", "50"])
def test_a_speed_factor_that_makes_no_sense_is_the_operators_error(
        monkeypatch: pytest.MonkeyPatch, text: str) -> None:
    monkeypatch.setenv(clock.SPEED_ENV, text)
    with pytest.raises(InfrastructureError, match="KAISER_CLOCK_SPEED_FACTOR must be"):
        clock.speed_factor()


class Counter:
    """A seat's CPU time in ns, as the test says; None: it cannot be read."""

    def __init__(self, value: int | None = 0) -> None:
        self.value = value

    def __call__(self) -> int | None:
        return self.value


def test_counted_time_is_cpu_time_times_the_factor_and_only_the_excess_is_banked() -> None:
    seat = SeatClock(TimeControl(move_ms=100, bank_ms=1000), factor=2.0)
    cpu = Counter()

    move = seat.move(cpu)
    cpu.value = 80_000_000  # 80 ms of CPU time: 160 ms of the reference machine's
    counted = seat.charge(move)

    assert counted == 160
    assert seat.bank_ms == 1000 - 60
    assert seat.kind == "cpu"


def test_a_move_is_up_once_its_cpu_time_reaches_move_and_bank() -> None:
    seat = SeatClock(TimeControl(move_ms=100, bank_ms=50), factor=1.0)
    cpu = Counter()
    move = seat.move(cpu)

    cpu.value = 151_000_000
    while (left := move.wait_s()) > 0:
        time.sleep(left)  # as the engine polls: until the clock must be looked at again
    assert move.out == "cpu"
    assert move.overrun() == "100 ms + 50 ms bank of CPU time"


def test_the_sandboxs_kernel_is_not_counted_and_a_kernel_process_gone_keeps_its_count() -> None:
    kernel = subprocess.Popen([sys.executable, "-c", "sum(range(3_000_000)); input()"],
                              stdin=subprocess.PIPE)
    seat = Counter(10_000_000_000)
    cpu = BotCpu(seat, [kernel.pid])
    while (first := cpu()) == seat.value:
        time.sleep(0.01)  # until the "kernel" has used some CPU time
    assert cpu.seat_ns == seat.value
    assert first == seat.value - cpu.kernel_ns

    kernel.communicate(b"\n")  # gone, and its pid may be anyone's now
    seat.value += 5_000_000
    assert cpu() == first + 5_000_000


class SeatAndKernel(BotCpu):
    """A BotCpu whose seat and kernel counts the test sets (ns)."""

    def __init__(self) -> None:
        super().__init__(lambda: 0)
        self.seat, self.kernel = 0, 0

    def __call__(self) -> int | None:
        self.seat_ns, self.kernel_ns = self.seat, self.kernel
        return self.seat - self.kernel


@pytest.mark.parametrize(("bot_ms", "kernel_ms", "counted"), [
    (20, 2.5, 20),  # the kernel carried the message and ran the bot: within its allowance
    (200, 30, 200),  # 3 ms + 15% of 200 ms = 33 ms allowed
    (10, 103, 10 + 103 - 3 - 1.5),  # a loop of the bot's own calls: beyond the allowance
])
def test_the_sandboxs_kernel_is_allowed_its_share_and_what_it_spends_beyond_counts(
        bot_ms: float, kernel_ms: float, counted: float) -> None:
    seat = SeatClock(TimeControl(move_ms=1000, bank_ms=1000), factor=1.0)
    cpu = SeatAndKernel()
    move = seat.move(cpu)

    cpu.kernel = int(kernel_ms * 1e6)
    cpu.seat = int(bot_ms * 1e6) + cpu.kernel

    assert seat.charge(move) == round(counted)


def test_a_seat_without_a_sentry_has_no_kernel_apart() -> None:
    seat = subprocess.Popen(["sh", "-c", "sleep 30 & sleep 30"], start_new_session=True)
    try:  # the host's kernel or no sandbox: every process of the seat is the bot's
        assert clock.sandbox_kernel_pids(seat.pid) == []
    finally:
        os.killpg(seat.pid, signal.SIGKILL)
        seat.wait()


class Computing:
    """A seat that gets `share` of a core all along (its CPU time, ns, grows with the wall)."""

    def __init__(self, share: float) -> None:
        self.share, self.start = share, time.monotonic()

    def __call__(self) -> int:
        return int((time.monotonic() - self.start) * 1e9 * self.share)


@pytest.mark.parametrize(("share", "stretched"), [(0.2, True), (0.0, False)])
def test_the_backstop_stretches_with_the_hosts_load_for_a_bot_that_computes(
        monkeypatch: pytest.MonkeyPatch, share: float, stretched: bool) -> None:
    """Four runnable tasks a CPU: a bot that gets a fifth of a core computes, and its
    backstop stretches 4x; one that waits, using no CPU time, meets it unstretched."""
    move = SeatClock(TimeControl(move_ms=10_000, bank_ms=0), factor=1.0).move(Computing(share))
    move.wall_limit_s = 0.05  # a backstop of 50 ms
    move.wall_deadline = move.sent + move.wall_limit_s
    monkeypatch.setattr(clock, "load_scale", lambda: 4.0)

    while (left := move.wait_s()) > 0:
        time.sleep(left)
    elapsed = time.monotonic() - move.sent

    assert move.out == "wall"
    if stretched:
        assert 0.2 <= elapsed < 2
        assert "past the backstop (x4.0 for the host's load)" in move.overrun()
    else:
        assert elapsed < 0.2
        assert "for the host's load" not in move.overrun()


def test_the_hosts_load_a_cpu_is_at_least_1_and_at_most_the_cap() -> None:
    assert 1.0 <= clock.load_scale() <= clock.MAX_LOAD_SCALE


def test_where_cpu_time_cannot_be_read_the_clock_says_so_once_and_counts_wall_time(
        capsys: pytest.CaptureFixture[str]) -> None:
    clock._say_wall_once.cache_clear()
    seat = SeatClock(TimeControl(move_ms=100, bank_ms=1000), factor=1.0)

    for _ in range(2):
        seat.charge(seat.move(Counter(None)))

    assert seat.kind == "wall"
    assert capsys.readouterr().err.count("decisions are timed in wall time") == 1
