"""A seat's clock (docs/protocol.md, "Time"): the CPU time the seat uses, and a wall-clock
backstop.

A decision's counted time is the CPU time of the bot's processes from the message to the
reply (BotCpu: the seat's cgroup, engine.sandbox.SandboxProcess.cpu_ns, less its sandbox's own
kernel, read once at each end), times the speed factor. move_ms and the bank are counted time:
a busy host slows a bot's wall clock, not its CPU time, so the host's load no longer decides
who wins; and the Sentry's work does not count, so neither does the boundary that played it.

The backstop ends a seat that waits without computing (a sleep, a missing flush): the same
clock run on wall time, with WALL_MULTIPLE times the allowances of real CPU time plus
WALL_FLOOR_MS a move. Three: a worker plays no more matches at once than it has cores
(kaiser_site.worker_cores), so the seat on move has a core; the backstop holds while anything
else on the host leaves it a third of one. The floor covers what is not CPU time at all (a
stopped seat resumed on a busy host, its first imports read from disk). A worker is not always
alone on its host: when a move reaches its backstop, the backstop is stretched by the host's
load a core (load_scale), so a bot that computes on a crowded host reaches its CPU time first.

The speed factor scales CPU time to the reference machine (fishtest's "nps scaling"). It is
1 unless KAISER_CLOCK_SPEED_FACTOR says otherwise: a number pins it, "auto" measures this
machine once a process (calibrate()). Not automatic by default: on the shared-core VM we
measured, the host's slow spells made one calibration in ten (at a process start) come out
1.2 to 1.9x slow, which would have given every bot on that worker up to 1.9x its time for
the worker's whole life (docs/protocol.md, "Time").
"""

from __future__ import annotations

import functools
import math
import os
import statistics
import sys
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from engine.faults import InfrastructureError
from engine.players import TimeControl

WALL_MULTIPLE = 3
WALL_FLOOR_MS = 1000
# The engine looks at a seat's CPU time when it could have used up its allowance at full
# speed on every core, so it never waits past the allowance; no closer than this.
MIN_CHECK_S = 0.002
# The backstop stretches with the host's runnable tasks a core, up to this: a seat then has a
# thirtieth of a core before a bot that computes meets the backstop rather than its CPU time.
MAX_LOAD_SCALE = 10.0
SPEED_ENV = "KAISER_CLOCK_SPEED_FACTOR"
SPEED_LIMITS = (0.1, 10.0)
# The calibration workload's best CPU time on the reference machine, the project's CI worker
# (2 vCPU Intel Xeon, model 207, under KVM; Python 3.11): min of 20 runs, median of 70 starts.
REFERENCE_WORKLOAD_MS = 5.3
CALIBRATION_RUNS = 20
WORKLOAD_STEPS = 10_000

ReadCpu = Callable[[], int | None]


# --- the speed factor ------------------------------------------------------------------------

def workload(steps: int = WORKLOAD_STEPS) -> int:
    """A fixed pure-Python workload (calls, integer arithmetic, a dict, a list, a string):
    what a bot written in Python mostly does."""
    table: dict[int, int] = {}
    items: list[int] = []
    acc = 0
    for i in range(steps):
        key = (i * 2654435761) & 0xFFFF
        table[key] = table.get(key, 0) + 1
        items.append(key ^ acc)
        acc = (acc * 31 + key) & 0xFFFFFFFF
        if i % 7 == 0:
            if len(items) < 64:
                items.sort()
            else:
                items.clear()
        acc += len(str(acc))
    return acc + len(table)


@dataclass(frozen=True, slots=True)
class Calibration:
    runs_ms: tuple[float, ...]  # CPU time of each run of the workload

    @property
    def best_ms(self) -> float:
        """The fastest run: the machine's speed when nothing disturbed it."""
        return min(self.runs_ms)

    @property
    def median_ms(self) -> float:
        return statistics.median(self.runs_ms)

    @property
    def factor(self) -> float:
        return REFERENCE_WORKLOAD_MS / self.best_ms


def calibrate(runs: int = CALIBRATION_RUNS) -> Calibration:
    """Time the workload in this thread's CPU time (other threads of a worker do not count)."""
    workload(WORKLOAD_STEPS // 10)  # warm up
    times = []
    for _ in range(runs):
        started = time.thread_time_ns()
        workload()
        times.append((time.thread_time_ns() - started) / 1e6)
    return Calibration(tuple(times))


@functools.cache
def speed_factor() -> float:
    """The factor of this process: KAISER_CLOCK_SPEED_FACTOR, a number or "auto"; unset: 1."""
    text = os.environ.get(SPEED_ENV, "").strip().lower()
    if not text:
        return 1.0
    if text == "auto":
        factor = calibrate().factor
    else:
        try:
            factor = float(text)
        except ValueError:
            factor = math.nan
    low, high = SPEED_LIMITS
    if not low <= factor <= high:
        raise InfrastructureError(f"{SPEED_ENV} must be a number from {low} to {high} or "
                                  f"'auto', not {text!r}" + (f" (measured {factor:.2f})"
                                                             if text == "auto" else ""))
    return factor


def describe() -> str:
    """One line on the clock this process uses, for the local runner."""
    setting = os.environ.get(SPEED_ENV, "").strip()
    source = f"{SPEED_ENV}={setting}" if setting else f"{SPEED_ENV} unset"
    return (f"clock: the seat's CPU time x{speed_factor():.2f} ({source}); wall-clock backstop "
            f"{WALL_MULTIPLE}x the allowance + {WALL_FLOOR_MS} ms a move")


# --- cores -----------------------------------------------------------------------------------

@functools.cache
def usable_cores() -> int:
    """The cores this process may run on: its CPU affinity, and its cgroup's CPU quota (a
    container's `cpus`) rounded down, at least 1."""
    cores = len(os.sched_getaffinity(0))
    quota = _cgroup_cpu_quota()
    if quota is not None:
        cores = min(cores, int(quota))
    return max(1, cores)


def _cgroup_cpu_quota() -> float | None:
    """The smallest CPU quota (in cores) on the way from this process's cgroup to the root."""
    found: list[float] = []
    for line in _read("/proc/self/cgroup").splitlines():
        _, names, path = line.split(":", 2)
        if names == "":  # v2: cpu.max is "max PERIOD" or "QUOTA PERIOD"
            for folder in _ancestors(Path("/sys/fs/cgroup"), path):
                fields = _read(folder / "cpu.max").split()
                if len(fields) == 2 and fields[0] != "max":
                    found.append(int(fields[0]) / int(fields[1]))
        elif "cpu" in names.split(","):
            base = Path("/sys/fs/cgroup") / names
            for folder in _ancestors(base, path):
                quota, period = (_read(folder / f"cpu.cfs_{k}_us").strip()
                                 for k in ("quota", "period"))
                if quota.lstrip("-").isdigit() and int(quota) > 0 and period.isdigit():
                    found.append(int(quota) / int(period))
    return min(found) if found else None


def _ancestors(mount: Path, path: str) -> list[Path]:
    """The cgroup's folder and its parents up to the mount (in a cgroup namespace, the path
    is relative to the namespace's root, which the mount shows)."""
    parts = [p for p in path.split("/") if p]
    folders = [mount.joinpath(*parts[:n]) for n in range(len(parts), -1, -1)]
    return [folder for folder in folders if folder.is_dir()]


def _read(path: str | Path) -> str:
    try:
        return Path(path).read_text()
    except (OSError, ValueError):
        return ""


# A bot that has had at least this share of a core's time (shared by the host's load) is
# computing: its backstop stretches with the load (Move._stretch). Not a half: a gVisor seat
# on a crowded host gets far less than its share, since each of its ptrace stops waits for a
# run queue (beside four busy loops and the suite, an honest bot had 335 ms in 14.4 s, a
# sixth of its share, and met the backstop); a bot that sleeps or is silent has about none.
COMPUTING = 0.1
# A move whose wall time exceeds the seat's CPU time by no more than this did not sleep: the
# pressure is not read (most honest decisions).
SLEEP_FLOOR_NS = 500_000


def load_scale() -> float:
    """How crowded the host is: its runnable tasks a CPU (the greater of the minute's load
    average and the tasks runnable now, less the engine itself), from 1 to MAX_LOAD_SCALE.

    The host's CPUs, not usable_cores(): the load average is the host's, and a worker's own
    quota is its own matches' business (it plays no more at once than it has cores)."""
    running = _read("/proc/loadavg").split()[3:4]
    now = int(running[0].split("/")[0]) - 1 if running else 0
    busy = max(os.getloadavg()[0], float(now))
    return min(MAX_LOAD_SCALE, max(1.0, busy / (os.cpu_count() or 1)))


# --- waiting for a core, or sleeping ---------------------------------------------------------

PRESSURE = "/proc/pressure/cpu"
_pressure = threading.local()


def cpu_pressure_us() -> int | None:
    """The host's CPU pressure so far (PSI's "some" total: µs in which at least one task was
    ready to run and waited for a core), or None where the kernel does not say (no PSI).

    A seat on move that is neither computing nor waiting for a core sleeps: while it sleeps
    on a host with a core to spare, this does not grow (Move.sleep_ms). One pread of a file
    kept open (2 µs), per thread."""
    fd = getattr(_pressure, "fd", None)
    if fd is None:
        try:
            fd = _pressure.fd = os.open(PRESSURE, os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            fd = _pressure.fd = -1
    if fd < 0:
        return None
    try:
        line = os.pread(fd, 128, 0).split(b"\n", 1)[0]
        return int(line.rsplit(b"total=", 1)[1])
    except (OSError, IndexError, ValueError):
        return None


class DecisionTime(NamedTuple):
    """One decision of a seat, as the fair-play detector reads it (engine.fairplay): when its
    message went out (monotonic s: a side's decisions in the engine's order), its counted
    ms, its wall ms (message written to reply read), and the ms in which the seat slept:
    neither computing (the whole seat's CPU, its sandbox's kernel too) nor waiting for a core
    (the host's CPU pressure); None where the host gives no pressure figure."""

    sent: float
    counted_ms: float
    wall_ms: float
    sleep_ms: float | None


# --- the bot's CPU time: its processes, not its sandbox's kernel ------------------------------

SENTRY = b"runsc-sandbox"  # gVisor names its processes: runsc-sandbox (the Sentry), runsc-gofer


# What a sandbox's kernel may spend in a decision without it counting (docs/protocol.md,
# "Time"): measured under gVisor on 2 CPUs, the Sentry's work for a trivial bot's decision was
# 0.9 to 1.0 ms (carrying the message), and grew by 8% to 12% of the time the bot computed (its
# stubs' switches); a bot whose own calls keep it busy beyond this pays for them.
KERNEL_ALLOWANCE_NS = 3_000_000
KERNEL_SHARE = 0.15


class BotCpu:
    """A seat's CPU time as its clock counts it: every process of the seat (read_seat, its
    cgroup) less the processes of its sandbox's own kernel (kernel_pids).

    Under gVisor those are runsc's: the Sentry, which serves the bot's system calls and
    carries its messages, the gofer and the launchers; the bot's code runs in the Sentry's
    stub processes, which count. That kernel's work is about 1 ms a decision and grows as the
    bot computes (docs/protocol.md, "Time"); on the host's kernel the same work is a few tens
    of µs of the bot's own system time. Not counting it makes a bot's time the same on every
    boundary; Move then counts what the kernel spends beyond an allowance (a bot's own calls).
    The whole seat's count stays what the sandbox's CPU time limit holds (seat_ns)."""

    def __init__(self, read_seat: ReadCpu, kernel_pids: Iterable[int] = ()) -> None:
        self._read_seat = read_seat
        self._kernel = dict.fromkeys(kernel_pids, 0)
        self.seat_ns: int | None = None  # the whole seat's CPU time at the last read
        self.kernel_ns = 0  # its kernel's, at the last read

    def __call__(self) -> int | None:
        self.seat_ns = self._read_seat()
        if self.seat_ns is None:
            return None
        for pid, last in self._kernel.items():  # a process gone keeps its last count
            self._kernel[pid] = max(last, _process_cpu_ns(pid))
        self.kernel_ns = sum(self._kernel.values())
        return self.seat_ns - self.kernel_ns


def sandbox_kernel_pids(root: int) -> list[int]:
    """A gVisor seat's kernel: the processes from its root (the engine's child) down to the
    Sentry, but not the Sentry's children (the stubs that run the bot). [] where there is no
    Sentry (the host's kernel, no sandbox): the seat's processes are all the bot's."""
    found: list[int] = []
    sentry = False
    todo = [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        if _read(f"/proc/{pid}/cmdline").encode().startswith(SENTRY):
            sentry = True
            continue
        for children in Path(f"/proc/{pid}/task").glob("*/children"):
            todo += [int(child) for child in _read(children).split()]
    return found if sentry else []


def _process_cpu_ns(pid: int) -> int:
    """A process's CPU time (all its threads) from its CPU-time clock; 0 once it is gone."""
    try:
        return time.clock_gettime_ns((~pid << 3) | 2)  # MAKE_PROCESS_CPUCLOCK(pid, SCHED)
    except OSError:
        return 0


# --- the clock of a seat ---------------------------------------------------------------------

class SeatClock:
    """One seat's clock for a match: the bank of each game on counted time, and the
    backstop's own bank on wall time."""

    def __init__(self, time_control: TimeControl, *, factor: float | None = None) -> None:
        self.time = time_control
        self.factor = speed_factor() if factor is None else factor
        self.kind = "cpu"  # "wall" once a decision of this seat could not be counted in CPU time
        self.counted_ns = 0  # real CPU time counted over the decisions (before the factor)
        self.kernel_ns = 0  # the sandbox's kernel's over the same decisions: not counted
        self.begin_game()

    def begin_game(self) -> None:
        self.bank_ms = float(self.time.bank_ms)
        self.wall_bank_ms = WALL_MULTIPLE * self.time.bank_ms / self.factor

    def backstop_ms(self, allowance_ms: float) -> float:
        """Wall time a move may take before it draws on the backstop's bank."""
        return WALL_MULTIPLE * allowance_ms / self.factor + WALL_FLOOR_MS

    def hello(self, read_cpu: ReadCpu) -> Move:
        """The clock of the answer to hello: startup_ms, no bank."""
        return Move(self, read_cpu, self.time.startup_ms,
                    self.backstop_ms(self.time.startup_ms), f"{self.time.startup_ms} ms")

    def move(self, read_cpu: ReadCpu, *, strict_until: float | None = None) -> Move:
        """The clock of a decision, started now (call it just before the message goes out).
        strict_until: under strict time, when the reply is due (monotonic s); the slot
        replaces the backstop, and nothing stretches it."""
        label = f"{self.time.move_ms} ms + {int(self.bank_ms)} ms bank"
        if strict_until is not None:
            wall_ms = max(0.0, strict_until - time.monotonic()) * 1000
            return Move(self, read_cpu, self.time.move_ms + self.bank_ms, wall_ms, label,
                        strict=f"its strict slot of {self.time.strict_ms} ms (the reply is "
                               f"due {self.time.strict_reply_ms} ms into it)")
        return Move(self, read_cpu, self.time.move_ms + self.bank_ms,
                    self.backstop_ms(self.time.move_ms) + self.wall_bank_ms, label)

    def charge(self, move: Move) -> int:
        """The reply is in: what went beyond move_ms comes out of the banks. Returns the
        decision's counted ms.

        Wall time beyond the backstop comes out of the wall bank, divided by the host's load
        only for a seat that computed (Move.computing): a crowded host slows a bot that
        works, not one that sleeps, so a sleeping seat is charged its wall time in full on
        any host (issue 41)."""
        counted_ms, wall_ms = move.finish()
        self.counted_ns += round(counted_ms * 1e6 / self.factor)
        self.kernel_ns += move.kernel_ns()
        self.bank_ms = max(0.0, self.bank_ms - max(0.0, counted_ms - self.time.move_ms))
        backstop_ms = self.backstop_ms(self.time.move_ms)
        if wall_ms > backstop_ms and not move.strict:
            scale = max(move.scale, load_scale())
            over_ms = (wall_ms / scale if move.computing(scale) else wall_ms) - backstop_ms
            self.wall_bank_ms = max(0.0, self.wall_bank_ms - max(0.0, over_ms))
        return round(counted_ms)


class Move:
    """One decision's clock: counted time against its allowance, wall time against the
    backstop."""

    def __init__(self, seat: SeatClock, read_cpu: ReadCpu, allowance_ms: float,
                 wall_limit_ms: float, label: str, *, strict: str = "") -> None:
        self.seat, self.label = seat, label
        self.strict = strict  # under strict time: the slot's words, for a timeout's detail
        self._read = read_cpu
        self.out = ""  # "cpu" or "wall": which clock ran out
        self._cpu0 = read_cpu()
        self._kernel0 = self._read_kernel()
        self._seat0 = self._read_seat()
        self._pressure0 = cpu_pressure_us()
        self.ended: float | None = None  # when finish() was called
        self._used = 0.0  # the counted CPU ns at finish()
        self.sent = time.monotonic()
        if self._cpu0 is None:
            self._to_wall()
        self.limit_ns = allowance_ms * 1e6 / seat.factor  # of real CPU time
        self.wall_limit_s = wall_limit_ms / 1000
        self.scale = 1.0  # the backstop's stretch for the host's load (load_scale)
        self.wall_deadline = self.sent + self.wall_limit_s
        self._check = self.sent + self._wait_for(self.limit_ns)

    @property
    def cpu_start_ns(self) -> int | None:
        """The seat's CPU time in all when the move began (None: not counted)."""
        return self._cpu0

    def wait_s(self) -> float:
        """How long the engine may wait for the reply before it looks at the clock again;
        0: the time is up (`out` says which clock ran out)."""
        now = time.monotonic()
        if now >= self.wall_deadline and (self.strict or not self._stretch(now)):
            self.out = "wall"
            return 0.0
        if now >= self._check:
            left_ns = self.limit_ns - self._used_ns(now)
            if left_ns <= 0:
                self.out = "cpu"
                return 0.0
            self._check = now + max(MIN_CHECK_S, self._wait_for(left_ns))
        return min(self._check, self.wall_deadline) - now

    def _stretch(self, now: float) -> bool:
        """The backstop reached: stretch it by the host's load now, if that leaves time, for
        a bot that computes. One that sleeps or waits (less than a tenth of the CPU time a core
        shared by the host's load would have given it) is not kept waiting for: its backstop
        stays where it was."""
        scale = load_scale()
        if self._cpu0 is not None and scale > self.scale:
            wall_ns = (now - self.sent) * 1e9
            if self._used_ns(now) < COMPUTING * wall_ns / scale:
                return now < self.wall_deadline
        self.scale = max(self.scale, scale)
        self.wall_deadline = self.sent + self.wall_limit_s * self.scale
        return now < self.wall_deadline

    def kernel_ns(self) -> int:
        """The sandbox's kernel's CPU time in this move so far (0 where none is apart)."""
        return self._read_kernel() - self._kernel0

    def _read_kernel(self) -> int:
        return self._read.kernel_ns if isinstance(self._read, BotCpu) else 0

    def _read_seat(self) -> int | None:
        """The whole seat's CPU time (its kernel's too) at the last read, where known."""
        return self._read.seat_ns if isinstance(self._read, BotCpu) else None

    def finish(self) -> tuple[float, float]:
        """(counted ms, wall ms) from the message to now, the reply."""
        now = self.ended = time.monotonic()
        self._used = self._used_ns(now)
        return self._used * self.seat.factor / 1e6, (now - self.sent) * 1000

    def computing(self, scale: float) -> bool:
        """After finish(): did the seat compute (at least COMPUTING of what a core shared by
        `scale` would have given it over the move), rather than sleep or wait?"""
        if self._cpu0 is None or self.ended is None:
            return False
        return self._used >= COMPUTING * (self.ended - self.sent) * 1e9 / scale

    def sleep_ms(self) -> float | None:
        """After finish(): the move's wall time in which the seat neither computed (every
        process of it, its sandbox's kernel included) nor could have waited for a core (the
        host's CPU pressure did not grow): it slept, or waited on purpose. None where the host
        has no pressure figure. Read only when the wall time exceeds the seat's CPU time."""
        if self.ended is None or self._pressure0 is None:
            return None
        wall_ns = (self.ended - self.sent) * 1e9
        seat1 = self._read_seat()
        if self._seat0 is not None and seat1 is not None:
            busy_ns = float(seat1 - self._seat0)
        else:
            busy_ns = self._used
        gap_ns = wall_ns - busy_ns
        if gap_ns <= SLEEP_FLOOR_NS:
            return 0.0
        pressure = cpu_pressure_us()
        waited_ns = 0.0 if pressure is None else (pressure - self._pressure0) * 1000.0
        return max(0.0, gap_ns - waited_ns) / 1e6

    def overrun(self) -> str:
        """Why the time is up, for the fault's detail."""
        if self.out != "wall":
            return f"{self.label} of {'CPU' if self._cpu0 is not None else 'wall-clock'} time"
        now = time.monotonic()
        if self.strict:
            return f"past {self.strict}, {(now - self.sent) * 1000:.0f} ms after its message"
        cpu_ms = self._used_ns(now) * self.seat.factor / 1e6
        stretched = f" (x{self.scale:.1f} for the host's load)" if self.scale > 1 else ""
        return (f"{self.label}; {now - self.sent:.1f} s of wall-clock time, past the "
                f"backstop{stretched}, having used {cpu_ms:.0f} ms of CPU time")

    def _used_ns(self, now: float) -> float:
        if self._cpu0 is not None:
            cpu = self._read()
            if cpu is not None:
                return cpu - self._cpu0 + self._kernel_beyond_allowance(cpu - self._cpu0)
            self._to_wall()
        return (now - self.sent) * 1e9

    def _kernel_beyond_allowance(self, bot_ns: float) -> float:
        """The sandbox's kernel's time in this move beyond what it is allowed: its work to
        carry the message and to run the bot's code (KERNEL_ALLOWANCE_NS and KERNEL_SHARE of
        the bot's own time). A bot that keeps its kernel busy with calls of its own pays for
        them, as its system time counts on the host's kernel."""
        allowed = KERNEL_ALLOWANCE_NS + KERNEL_SHARE * max(0.0, bot_ns)
        return max(0.0, self.kernel_ns() - allowed)

    def _wait_for(self, cpu_ns: float) -> float:
        """Seconds in which the seat could use cpu_ns of CPU time at most."""
        rate = 1 if self._cpu0 is None else usable_cores()
        return cpu_ns / 1e9 / rate

    def _to_wall(self) -> None:
        self._cpu0 = None
        self.seat.kind = "wall"
        _say_wall_once()


@functools.cache
def _say_wall_once() -> None:
    print("clock: a seat's CPU time cannot be read here (no cgroup CPU accounting and no "
          "process to ask): decisions are timed in wall time instead", file=sys.stderr,
          flush=True)
