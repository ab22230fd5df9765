"""Run one untrusted bot program in a sandbox of its own, and make sure it is gone afterwards.

On a server every seat has a gVisor kernel of its own (engine.gvisor: the layout is there);
this module makes the seat's uid, cgroups and /tmp for both kernels, starts the seat, stops
it (the cgroup freezer) between its turns, counts its CPU time, and removes it.

Layout of a seat on the host's kernel (KAISER_SANDBOX_KERNEL=host; host view):

    worker (root)  ->  bash (joins the seat's cgroups, moves the pipes to fds 3-5)
                   ->  setpriv (becomes the seat's own uid)  ->  bwrap (outer)
                   ->  bwrap (pid 1 of a new pid namespace)
                   ->  /bin/sh (pipes onto 0 and 1, rlimits, 'started')  ->  the bot
    (each arrow after the first bash is an exec or, for the pid-1 bwrap, a fork)

Fair play between seats (docs/sandbox.md says the same for bot authors):
- Every seat runs as a host uid of its own, taken from a range reserved for seats
  (KAISER_SEAT_UIDS), so per-uid kernel state (process counts, keyrings, accounting) is never
  shared, not even by the two seats of one bot. Without root the seat runs as the worker's uid.
- Every seat has its own copy of the program's files (engine.botproc), its own /tmp, and the
  system-call filter of engine.syscall_filter (keyrings, locks, inotify, ptrace, mounts,
  namespaces and the like are refused). Host-wide counters under /proc (free memory, CPU
  times, page faults, open files) are replaced by constant or empty files.
- Only the seat on move runs: stop() and resume() freeze the others with SIGSTOP/SIGCONT
  (engine.botproc decides when), reaching every process of the seat; the filter refuses
  SIGCONT to the bots themselves, so a stopped seat stays stopped.

Fresh namespaces (user, pid, net, ipc, uts, cgroup), a read-only /usr, the bot's files
read-only at /bot, a size- and inode-limited tmpfs at /tmp (TMPDIR), nothing else of the host.
Killing pid 1 of the pid namespace kills every process in it, which is how close() cleans up.

--die-with-parent ties the sandbox to the *thread* that started it (PR_SET_PDEATHSIG): create,
play and close a match's players in one thread, which is what engine.match.run_match does.

Per-seat limits: a cgroup of the seat's own (v1 below the worker's own memory, pids and cpu
cgroups; v2 below the delegated subtree KAISER_SANDBOX_CGROUP_ROOT) holds the memory and the
processes of the whole seat, and one core of CPU. Where no such cgroup can be made, the worker
refuses to play (InfrastructureError, never the bot's fault) unless the operator opted into
the rlimit fallback (KAISER_SANDBOX_ALLOW_RLIMIT=1, or KAISER_SANDBOX_CGROUP=0): then the seat
is one process (the filter refuses fork), whose address space is the seat's memory.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import fcntl
import functools
import itertools
import json
import os
import select
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from engine import gvisor, syscall_filter
from engine.faults import InfrastructureError

NOBODY = 65534
SANDBOX_PATH = "/usr/local/bin:/usr/bin:/bin"
BOT_DIR = "/bot"
# V8 reserves far more address space than it uses: with an address-space rlimit (the fallback
# when no memory cgroup is available) node needs this much on top of the memory limit to start.
NODE_ADDRESS_SPACE_EXTRA_MB = 4096
DEFAULT_SEAT_UIDS = "620000-623999"
# /tmp slots a match needs at once (a table of four plays while the next game's four boot):
# where a worker has fewer beside its pool's, the pool boots nothing.
TABLE_SLOTS = 8
CPU_PERIOD_US = 100_000  # the seat's CPU quota: one core (a full period of every period)
_counter = itertools.count()


@dataclass(frozen=True, slots=True)
class SandboxLimits:
    """Per-seat limits. memory_mb and max_processes cover every process the bot starts."""

    memory_mb: int = 512
    # Per process, a backstop against CPU burnt behind the clock's back (threads, children).
    # Not lower: a bot thinking its full 1 s on every decision of a long 2-game match may
    # legitimately use ~250 s. Raise it for matches of more games.
    cpu_seconds: int = 600
    max_processes: int = 32
    file_size_mb: int = 16
    tmp_mb: int = 32
    tmp_inodes: int = 4096  # files and folders in /tmp (each costs kernel memory)


@dataclass(frozen=True, slots=True)
class SandboxReport:
    """What a real sandboxed probe found on this machine (probe_sandbox)."""

    mode: str  # "cgroup-v1" | "cgroup-v2" | "rlimit" | "broken" | "unsandboxed"
    ok: bool  # bots can be played here
    reason: str  # one line: why this mode
    seccomp: bool  # the system-call filter is applied
    seat_uids: bool  # each seat runs as a host uid of its own
    tmp_inodes: bool  # /tmp has an inode limit
    kernel: str = "host"  # "gvisor": every seat its own kernel; "host": the host's, shared

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


def rlimit_fallback_allowed() -> bool:
    """The operator's explicit choice to play without per-seat cgroups."""
    return (os.environ.get("KAISER_SANDBOX_ALLOW_RLIMIT", "") == "1"
            or os.environ.get("KAISER_SANDBOX_CGROUP", "1") == "0")


def shared_kernel_allowed() -> bool:
    """The operator's explicit choice to play with every seat on the host's kernel."""
    return (os.environ.get("KAISER_SANDBOX_ALLOW_SHARED_KERNEL", "") == "1"
            or os.environ.get("KAISER_SANDBOX_KERNEL", "") == "host")


def unsandboxed_requested() -> bool:
    return os.environ.get("KAISER_UNSANDBOXED", "") == "1"


def pool_size() -> int:
    """Seats a worker process keeps booted ahead (engine.seat_pool); 0: none."""
    text = os.environ.get("KAISER_SANDBOX_POOL", "4")
    if not text.isdigit() or int(text) > 64:
        raise InfrastructureError(f"KAISER_SANDBOX_POOL must be a number of seats from 0 to 64, "
                                  f"not {text!r}")
    return int(text)


def pool_key(limits: SandboxLimits, unsandboxed: bool) -> tuple[object, ...] | None:
    """What makes two seats alike for the pool: their limits and the sandbox's settings.
    None: a seat the pool never boots (unsandboxed; no cgroup, whose limits depend on its
    program)."""
    if unsandboxed or rlimit_fallback_allowed():
        return None
    slots = os.environ.get("KAISER_SANDBOX_TMP_SLOTS", "")
    if slots and len(list(Path(slots).glob("slot-*"))) < TABLE_SLOTS + pool_size():
        return None  # the pool's seats would take the slots a match's two tables need
    settings = tuple(sorted((name, value) for name, value in os.environ.items()
                            if name.startswith(("KAISER_SANDBOX_", "KAISER_SEAT_UIDS"))
                            and name != "KAISER_SANDBOX_POOL"))
    return (limits, unsandboxed, settings, os.environ.get("PATH"))


def check_sandbox() -> None:
    """Raise InfrastructureError (one clear line) unless a sandboxed probe runs."""
    report = probe_sandbox()
    if not report.ok:
        raise InfrastructureError(report.reason)


_PROBE_PROGRAM = "import sys\nsys.stdout.write(sys.stdin.readline())\n"


def probe_sandbox(limits: SandboxLimits | None = None, timeout_s: float = 20.0) -> SandboxReport:
    """Run a tiny program in a real sandbox seat, as a match would, and say how it went."""
    if unsandboxed_requested():
        return SandboxReport("unsandboxed", True, "KAISER_UNSANDBOXED=1: bots run without the "
                             "sandbox (local development only)", False, False, False)
    with tempfile.TemporaryDirectory(prefix="kaiser-probe-") as folder:
        os.chmod(folder, 0o755)
        Path(folder, "bot.py").write_text(_PROBE_PROGRAM)
        os.chmod(Path(folder, "bot.py"), 0o644)
        try:
            proc = SandboxProcess(workdir=Path(folder), run=("python3", "bot.py"),
                                  limits=limits or SandboxLimits())
        except InfrastructureError as exc:
            return SandboxReport("broken", False, str(exc), False, False, False)
        try:
            return _probe_exchange(proc, time.monotonic() + timeout_s)
        finally:
            proc.kill()


def _probe_exchange(proc: SandboxProcess, deadline: float) -> SandboxReport:
    features = (proc.seccomp, proc.seat_uid is not None, proc.tmp_inodes_limited)
    try:
        if not proc.wait_started(deadline):
            return SandboxReport("broken", False, "the probe's sandbox did not start in time",
                                 *features)
        os.write(proc.stdin_fd, b"probe\n")
        reply = b""
        while not reply.endswith(b"\n") and _readable(proc.stdout_fd, deadline - time.monotonic()):
            chunk = os.read(proc.stdout_fd, 64)
            if not chunk:
                break
            reply += chunk
    except (InfrastructureError, OSError) as exc:
        return SandboxReport("broken", False, f"the probe failed: {exc}", *features)
    if reply != b"probe\n":
        detail = _first_line(proc) or f"it answered {reply[:40]!r}"
        return SandboxReport("broken", False, f"the probe program did not answer: {detail}",
                             *features)
    return SandboxReport(proc.mode, True, proc.mode_reason, *features, kernel=proc.kernel)


def _first_line(proc: SandboxProcess) -> str:
    with contextlib.suppress(OSError):
        text = os.read(proc.stderr_fd, 4096).decode(errors="replace").strip()
        if text:
            return text.splitlines()[0][:200]
    return ""


@functools.cache
def _which(name: str, path: str | None) -> str | None:
    """shutil.which, remembered per PATH: it stats every PATH entry, for every seat."""
    return shutil.which(name, path=path)


def _bwrap_path() -> str:
    found = _which("bwrap", os.environ.get("PATH"))
    if found is None:
        raise InfrastructureError("bubblewrap (bwrap) is not installed: apt-get install bubblewrap")
    return found


def _run_as(uid: int | None) -> list[str]:
    """The command prefix that makes bwrap run as the seat's uid (when the worker is root).

    setpriv rather than Popen(user=...): Popen must then fork the whole worker instead of
    vfork-ing it, which for a worker with a 200 MB heap measured 95 ms against 0.4 ms.
    """
    if uid is None:
        return []
    setpriv = _which("setpriv", os.environ.get("PATH"))
    if setpriv is None:
        raise InfrastructureError("setpriv (util-linux) is needed to run bots as their own "
                                  "user and is not installed")
    # --pdeathsig: the sandbox dies with the thread that started it (bwrap has its own
    # --die-with-parent; runsc has none).
    return [setpriv, f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--pdeathsig=KILL",
            "--"]


# --- each seat its own uid -------------------------------------------------------------------

@gvisor.setup_once
def _seat_uid_range() -> range:
    text = os.environ.get("KAISER_SEAT_UIDS", DEFAULT_SEAT_UIDS)
    try:
        first, last = (int(part) for part in text.split("-"))
    except ValueError:
        raise InfrastructureError(f"KAISER_SEAT_UIDS must be FIRST-LAST, not {text!r}") from None
    if not 1000 <= first <= last < 2**31:
        raise InfrastructureError(f"KAISER_SEAT_UIDS {text!r} is not a range of ordinary uids")
    return range(first, last + 1)


def _state_dir(name: str) -> Path:
    """A root-only folder of the worker's machine-wide state (uid locks, seat /tmp mounts)."""
    base = Path(os.environ.get("KAISER_SANDBOX_STATE_DIR", "/run/kaiser-arena"))
    path = base / name
    path.mkdir(parents=True, exist_ok=True)
    os.chmod(base, 0o711)  # seats must traverse it to reach their own /tmp
    return path


def _hold_first_free(paths: Sequence[Path], start: int, flags: int) -> tuple[Path, int] | None:
    """The first of paths, from start on, that no process holds a lock on: locked (flock, so
    the lock goes with the process that holds the file open) and returned with its fd."""
    for step in range(len(paths)):
        path = paths[(start + step) % len(paths)]
        fd = os.open(path, flags | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            continue
        return path, fd
    return None


class _SeatUid:
    """A uid of the reserved range, held (flock on its lock file) by one seat at a time.

    The lock lives as long as the worker process holds the file open, so a worker that dies
    frees its uids, and two workers on one host never give a uid to two seats.
    """

    def __init__(self) -> None:
        uids = _seat_uid_range()
        folder = _state_dir("uids")
        start = (os.getpid() * 7 + next(_counter) * 4) % len(uids)
        held = _hold_first_free([folder / str(uid) for uid in uids], start,
                                os.O_RDWR | os.O_CREAT)
        if held is None:
            raise InfrastructureError(f"all {len(uids)} seat uids (KAISER_SEAT_UIDS) are in use")
        self.uid, self._fd = int(held[0].name), held[1]

    def release(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


# --- arguments of bwrap --------------------------------------------------------------------

def _namespace_args() -> list[str]:
    # --disable-userns: no nested user namespaces, a favourite door into kernel bugs.
    return ["--unshare-all", "--unshare-user", "--disable-userns", "--die-with-parent",
            "--new-session", "--uid", str(NOBODY),
            "--gid", str(NOBODY), "--hostname", "bot", "--clearenv"]


@functools.cache
def _system_args() -> tuple[str, ...]:
    """The host's system folders, read-only (looked at once: they do not move)."""
    args = ["--ro-bind", "/usr", "/usr"]
    for name in ("bin", "lib", "lib64", "lib32", "sbin"):
        host = Path("/") / name
        if host.is_symlink():
            args += ["--symlink", os.readlink(host), f"/{name}"]
        elif host.is_dir():
            args += ["--ro-bind", str(host), f"/{name}"]
    for etc in ("/etc/ld.so.cache", "/etc/alternatives", "/etc/localtime"):
        if os.path.exists(etc):
            args += ["--ro-bind", etc, etc]
    return tuple(args)


# Host-wide counters under /proc through which a seat could see what another seat did (its
# memory, its CPU time, its page faults, its open files): empty in the sandbox, or, where
# programs read them at start-up (Node sizes its heap from /proc/meminfo), constant.
_PROC_EMPTY = ("keys", "key-users", "vmstat", "zoneinfo", "buddyinfo", "pagetypeinfo",
               "schedstat", "softirqs", "interrupts", "diskstats", "slabinfo", "locks",
               "timer_list", "sched_debug", "swaps", "vmallocinfo", "latency_stats",
               "kpageflags", "kpagecount", "kpagecgroup", "partitions", "sysvipc/shm")
_PROC_DIRS_HIDDEN = ("sys", "pressure", "fs", "irq", "driver", "tty", "bus", "acpi", "scsi")


@gvisor.setup_once
def _proc_mask_args(memory_mb: int) -> tuple[str, ...]:
    folder = Path(tempfile.mkdtemp(prefix=f"kaiser-proc-{os.getpid()}-"))
    os.chmod(folder, 0o755)
    cpus = os.cpu_count() or 1
    kib = memory_mb << 10
    constant = {
        "meminfo": "".join(f"{key}:{value:>16} kB\n" for key, value in (
            ("MemTotal", kib), ("MemFree", kib), ("MemAvailable", kib), ("Buffers", 0),
            ("Cached", 0), ("SwapTotal", 0), ("SwapFree", 0))),
        "stat": "".join(f"cpu{n} 0 0 0 0 0 0 0 0 0 0\n" for n in ["", *range(cpus)])
                + "intr 0\nctxt 0\nbtime 0\nprocesses 0\nprocs_running 1\nprocs_blocked 0\n",
        "loadavg": "0.00 0.00 0.00 1/1 1\n",
        "uptime": "0.00 0.00\n",
        "empty": "",
    }
    for name, text in constant.items():
        (folder / name).write_text(text)
        os.chmod(folder / name, 0o444)
    args = []
    for name in ("meminfo", "stat", "loadavg", "uptime"):
        args += ["--ro-bind", str(folder / name), f"/proc/{name}"]
    for name in _PROC_EMPTY:
        if os.path.exists(f"/proc/{name}"):
            args += ["--ro-bind", str(folder / "empty"), f"/proc/{name}"]
    for name in _PROC_DIRS_HIDDEN:
        if os.path.isdir(f"/proc/{name}"):
            args += ["--tmpfs", f"/proc/{name}", "--remount-ro", f"/proc/{name}"]
    return tuple(args)


def _filesystem_args(workdir: Path | None, limits: SandboxLimits, tmp: Path | None) -> list[str]:
    args = [*_system_args(), "--proc", "/proc", *_proc_mask_args(limits.memory_mb),
            "--dev", "/dev"]
    if tmp is not None:
        args += ["--bind", str(tmp), "/tmp"]
    else:
        args += ["--size", str(limits.tmp_mb << 20), "--tmpfs", "/tmp"]
    if workdir is not None:
        args += ["--ro-bind", str(workdir), BOT_DIR, "--chdir", BOT_DIR]
    # bwrap builds / and /dev as writable tmpfs; nothing outside /tmp may be written.
    return args + ["--remount-ro", "/dev", "--remount-ro", "/"]


def _environment() -> dict[str, str]:
    return {"PATH": SANDBOX_PATH, "HOME": "/tmp", "TMPDIR": "/tmp", "LANG": "C.UTF-8",
            "PYTHONDONTWRITEBYTECODE": "1", "PYTHONHASHSEED": "0"}


def _inner_script(limits: SandboxLimits, run: Sequence[str] | None, cgroup: bool) -> str:
    """Runs inside the namespaces: the bot's pipes onto 0 and 1, rlimits, then the zygote
    (engine.zygote), which says 'started' on fd 5 and waits at the gate for its program.

    The bot's stdin and stdout arrive as fds 3 and 4 (bwrap's own stdio is /dev/null), so the
    bot's process tree is the only holder of its output pipe: when it closes it, we see it.
    run: the program, where the seat's limits depend on it (a seat with no cgroup is booted
    for its program, never ahead).
    """
    kib = limits.memory_mb << 10
    if run and Path(run[0]).name == "node":
        kib += NODE_ADDRESS_SPACE_EXTRA_MB << 10
    parts = ["exec 0<&3 1>&4 3<&- 4>&-", "ulimit -c 0", "ulimit -n 256",
             f"ulimit -t {limits.cpu_seconds}",
             f"ulimit -f {(limits.file_size_mb << 20) // 512}"]  # dash counts 512-byte blocks
    if not cgroup:
        # One process a seat (the filter refuses fork): its address space is the seat's
        # memory. -p counts threads (Node starts about ten) and the two bwrap processes.
        parts += [f"ulimit -v {kib}", f"ulimit -p {limits.max_processes + 2}"]
    # A missing interpreter is the machine's failing, not the bot's: say so on the 'started'
    # pipe, which the bot's own code never gets to write on (the zygote closes it first).
    parts += ['command -v python3 >/dev/null 2>&1 || { printf "?" >&5; exit 127; }',
              'exec python3 -c "$1" 5']
    return "; ".join(parts)


# The gate between a booted seat and its bot is the zygote (engine.zygote): the seat's first
# process, a Python interpreter that waits for one line naming the program on the bot's input,
# which wait_started() sends when the seat's game begins. A seat booted ahead (the pool's, or
# the next game's, engine.tables) runs nothing of the bot's before then.
_ZYGOTE = (Path(__file__).with_name("zygote.py")).read_text()


def _gvisor_supervisor(cgroup_procs: Sequence[Path], group: _Cgroup | None) -> str:
    """The gVisor seat's launcher: joins the seat's cgroups, starts runsc, and stays as the
    seat's supervisor, outside the seat's freezer (v1), with no copy of the bot's pipes.

    Why: on cgroup v1 a frozen task cannot die, not even of SIGKILL, so a seat frozen when its
    worker is killed would outlive it, the parent-death signal of runsc pending for ever. The
    supervisor is never frozen: when the worker's thread dies it gets SIGTERM, thaws the seat
    and kills every task of it. Its exit status is runsc's."""
    joins = [f"echo $$ > {shlex.quote(str(path))}" for path in cgroup_procs]
    # "0<&0": a shell gives a command in the background /dev/null as input unless told.
    parts = [" && ".join(joins) or ":", '"$@" 0<&0 &', "seat=$!"]
    if isinstance(group, _CgroupV1) and "freezer" in group.paths:
        state = shlex.quote(str(group.paths["freezer"] / "freezer.state"))
        tasks = shlex.quote(str(group.pids_file()))
        outside = shlex.quote(str(group.paths["freezer"].parent / "cgroup.procs"))
        parts += [f"echo $$ > {outside} 2>/dev/null",
                  f"trap 'echo THAWED > {state}; kill -9 $(cat {tasks}) 2>/dev/null; "
                  "exit 143' TERM"]
    parts += ["exec 0</dev/null 1>/dev/null 2>/dev/null", 'wait "$seat"', "exit $?"]
    return "\n".join(parts)


def _gvisor_inner_script(limits: SandboxLimits) -> str:
    """Runs inside gVisor: rlimits the OCI config cannot say, then the zygote, which says
    'started' on stdout (no extra pipe crosses into gVisor)."""
    return "; ".join([
        "ulimit -c 0", f"ulimit -f {(limits.file_size_mb << 20) // 512}",
        'command -v python3 >/dev/null 2>&1 || { printf "?"; exit 127; }',
        'exec python3 -c "$1" 1'])


def _outer_script(started_fd: int, cgroup_procs: Sequence[Path]) -> str:
    """Runs on the host before bwrap: joins the seat's cgroups, moves the pipes to fds 3-5."""
    parts = [f"echo $$ > {shlex.quote(str(path))}" for path in cgroup_procs]
    parts.append(f"exec 3<&0 4>&1 5>&{started_fd} {started_fd}>&- 0</dev/null 1>/dev/null")
    return " && ".join(parts) + '; exec "$@"'


def _bash_path() -> str:
    found = _which("bash", os.environ.get("PATH")) or "/bin/bash"
    if not os.path.exists(found):
        raise InfrastructureError("bash is needed to start the sandbox and is not installed")
    return found


# --- per-seat cgroups ------------------------------------------------------------------------

class _Cgroup:
    """The seat's cgroups: memory and processes of the whole seat, and one core of CPU."""

    mode = ""

    def procs_files(self) -> list[Path]:
        raise NotImplementedError

    def pids_file(self) -> Path:
        """The cgroup.procs file that lists every process of the seat."""
        raise NotImplementedError

    def pids(self) -> set[int]:
        raise NotImplementedError

    def limit_hit(self) -> str | None:
        raise NotImplementedError

    def cpu_ns(self) -> int | None:
        """CPU time used so far by every process of the seat, in ns (None: not accounted)."""
        return None

    def freeze(self) -> bool:
        """Ask the kernel to freeze every process of the seat; False: no freezer here.

        A frozen process runs no instruction whatever signal it gets (a SIGCONT from a timer
        it armed included), unlike a process stopped with SIGSTOP."""
        return False

    def thaw(self) -> None:
        pass

    def kill_all(self) -> None:
        self.thaw()  # a frozen process cannot die until it is thawed
        for _ in range(50):
            pids = self.pids()
            if not pids:
                return
            for pid in pids:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            time.sleep(0.01)

    def remove(self) -> None:
        raise NotImplementedError


def _write(path: Path, text: str) -> None:
    path.write_text(text)


def _rmdir_patiently(path: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        for _ in range(100):
            try:
                path.rmdir()
                return
            except OSError:  # EBUSY while the last processes are being reaped
                time.sleep(0.01)


_V1_OPTIONAL = ("cpu", "cpuacct", "freezer")


class _CgroupV1(_Cgroup):
    """v1: a memory, a pids and (where mounted) a cpu cgroup below the worker's own."""

    mode = "cgroup-v1"

    def __init__(self, limits: SandboxLimits, owner: int | None,
                 extra: tuple[int, int] = (0, 2)) -> None:
        name = f"kaiser-{os.getpid()}-{next(_counter)}"
        self.paths: dict[str, Path] = {}
        self._freezer_fd = self._usage_fd = -1
        try:
            for controller in ("memory", "pids", "cpu", "cpuacct", "freezer"):
                try:
                    parent = _own_cgroup_v1(controller)
                except OSError:
                    if controller in _V1_OPTIONAL:
                        continue  # no such controller: the rest holds (the probe says)
                    raise
                path = parent / name
                # Co-mounted controllers (cpu,cpuacct) share one folder, under two names.
                same = [known for known in self.paths.values()
                        if os.path.realpath(known.parent) == os.path.realpath(parent)]
                if same:
                    self.paths[controller] = same[0]
                    continue
                path.mkdir()
                self.paths[controller] = path
            memory, pids = self.paths["memory"], self.paths["pids"]
            bytes_ = str((limits.memory_mb + extra[0]) << 20)
            _write(memory / "memory.limit_in_bytes", bytes_)
            with contextlib.suppress(OSError):  # no swap accounting on this kernel
                _write(memory / "memory.memsw.limit_in_bytes", bytes_)
            # extra: the sandbox's own tasks (the two bwrap processes; gVisor's Sentry).
            _write(pids / "pids.max", str(limits.max_processes + extra[1]))
            if "cpu" in self.paths:
                with contextlib.suppress(OSError):  # no CFS bandwidth control: no quota
                    _write(self.paths["cpu"] / "cpu.cfs_period_us", str(CPU_PERIOD_US))
                    _write(self.paths["cpu"] / "cpu.cfs_quota_us", str(CPU_PERIOD_US))
            if owner is not None:  # the joining shell runs as root; nothing else may write
                for path in self.paths.values():
                    os.chown(path / "cgroup.procs", owner, owner)
        except OSError:
            self.remove()
            raise

    def procs_files(self) -> list[Path]:
        return [path / "cgroup.procs" for path in dict.fromkeys(self.paths.values())]

    def pids_file(self) -> Path:
        return self.paths["pids"] / "cgroup.procs"

    def cpu_ns(self) -> int | None:
        if "cpuacct" not in self.paths:
            return None
        try:  # kept open and read with pread: twice a decision, on the critical path
            if self._usage_fd < 0:
                self._usage_fd = os.open(self.paths["cpuacct"] / "cpuacct.usage",
                                         os.O_RDONLY | os.O_CLOEXEC)
            return int(os.pread(self._usage_fd, 32, 0))
        except (OSError, ValueError):
            return None

    def freeze(self) -> bool:
        if "freezer" not in self.paths:
            return False
        return self._freezer_write(b"FROZEN")

    def _freezer_write(self, state: bytes) -> bool:
        # The file is kept open: freezing and thawing are on the engine's critical path,
        # and an open of a cgroup file costs as much as the write itself.
        try:
            if self._freezer_fd < 0:
                self._freezer_fd = os.open(self.paths["freezer"] / "freezer.state",
                                           os.O_WRONLY | os.O_CLOEXEC)
            os.write(self._freezer_fd, state)
        except OSError:
            return False
        return True

    def thaw(self) -> None:
        if "freezer" in self.paths:
            self._freezer_write(b"THAWED")

    def pids(self) -> set[int]:
        return _read_pids(self.paths["pids"]) | _read_pids(self.paths["memory"])

    def limit_hit(self) -> str | None:
        if _counter_after(self.paths["memory"] / "memory.oom_control", "oom_kill"):
            return "memory"  # the kernel's OOM killer killed a process of this seat
        if _counter_after(self.paths["pids"] / "pids.events", "max"):
            return "processes"  # a fork was refused at pids.max
        return None

    def remove(self) -> None:
        for fd in (self._freezer_fd, self._usage_fd):
            if fd >= 0:
                os.close(fd)
        self._freezer_fd = self._usage_fd = -1
        for path in dict.fromkeys(self.paths.values()):
            _rmdir_patiently(path)


class _CgroupV2(_Cgroup):
    """v2: one cgroup a seat in the delegated subtree (memory, pids, cpu enabled there)."""

    mode = "cgroup-v2"

    def __init__(self, limits: SandboxLimits, owner: int | None, root: Path,
                 extra: tuple[int, int] = (0, 2)) -> None:
        self.path = root / f"kaiser-{os.getpid()}-{next(_counter)}"
        self.path.mkdir()
        try:
            bytes_ = str((limits.memory_mb + extra[0]) << 20)
            _write(self.path / "memory.max", bytes_)
            with contextlib.suppress(OSError):  # no swap on this host
                _write(self.path / "memory.swap.max", "0")
            _write(self.path / "pids.max", str(limits.max_processes + extra[1]))
            with contextlib.suppress(OSError):  # cpu not enabled in the subtree: no quota
                _write(self.path / "cpu.max", f"{CPU_PERIOD_US} {CPU_PERIOD_US}")
            if owner is not None:
                os.chown(self.path / "cgroup.procs", owner, owner)
        except OSError:
            self.remove()
            raise

    def procs_files(self) -> list[Path]:
        return [self.path / "cgroup.procs"]

    def pids_file(self) -> Path:
        return self.path / "cgroup.procs"

    def pids(self) -> set[int]:
        return _read_pids(self.path)

    def limit_hit(self) -> str | None:
        if _counter_after(self.path / "memory.events", "oom_kill"):
            return "memory"
        if _counter_after(self.path / "pids.events", "max"):
            return "processes"
        return None

    def cpu_ns(self) -> int | None:
        usec = _counter_after(self.path / "cpu.stat", "usage_usec")
        return usec * 1000 if usec else None

    def freeze(self) -> bool:
        try:
            _write(self.path / "cgroup.freeze", "1")
        except OSError:
            return False
        return True

    def thaw(self) -> None:
        with contextlib.suppress(OSError):
            _write(self.path / "cgroup.freeze", "0")

    def kill_all(self) -> None:
        with contextlib.suppress(OSError):  # cgroup.kill: Linux 5.14 and later
            _write(self.path / "cgroup.kill", "1")
        super().kill_all()

    def remove(self) -> None:
        _rmdir_patiently(self.path)


def _counter_after(path: Path, key: str) -> int:
    """N from a 'key N' line of a cgroup file; 0 if the file or the line is missing."""
    try:
        fields = path.read_text().split()
        return int(fields[fields.index(key) + 1])
    except (OSError, ValueError, IndexError):
        return 0


def _read_ids(path: Path) -> list[int]:
    try:
        return [int(p) for p in path.read_bytes().split()]
    except (OSError, ValueError):
        return []


def _read_pids(path: Path) -> set[int]:
    try:
        return {int(p) for p in (path / "cgroup.procs").read_text().split()}
    except (OSError, ValueError):
        return set()


def _own_cgroup_v1(controller: str) -> Path:
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, names, path = line.split(":", 2)
        if controller in names.split(","):
            found = Path("/sys/fs/cgroup") / controller / path.lstrip("/")
            if found.is_dir():
                return found
            # A cgroup namespace (a container) shows paths relative to its own root.
            return Path("/sys/fs/cgroup") / controller
    raise OSError(errno.ENOENT, f"no {controller} cgroup (v1) for this process")


def _cgroup_v2_root() -> Path | None:
    """The delegated subtree for seat cgroups (cgroup v2), if this host has one."""
    configured = os.environ.get("KAISER_SANDBOX_CGROUP_ROOT")
    if configured:
        return Path(configured)
    if Path("/sys/fs/cgroup/cgroup.controllers").exists():  # a pure v2 host
        return Path("/sys/fs/cgroup/kaiser-seats")
    return None


@gvisor.setup_once
def _sweep_stale_cgroups() -> None:
    """Once a process: remove the seat cgroups of workers that died without cleaning up."""
    parents = []
    # The freezer first: a frozen task cannot die (v1), so its seat is thawed, then killed.
    for controller in ("freezer", "memory", "pids", "cpu", "cpuacct"):
        with contextlib.suppress(OSError):
            parents.append(_own_cgroup_v1(controller))
    root = _cgroup_v2_root()
    if root is not None:
        parents.append(root)
    for parent in parents:
        with contextlib.suppress(OSError):
            for path in parent.glob("kaiser-*-*"):
                owner = path.name.split("-")[1]
                if owner.isdigit() and not Path(f"/proc/{owner}").exists():
                    _remove_stale(path)


def _remove_stale(path: Path) -> None:
    """A dead worker's seat: thawed, every task killed (a gVisor seat outlives its worker
    unless the parent-death signal reached it), then removed."""
    for name, value in (("freezer.state", "THAWED"), ("cgroup.freeze", "0")):
        with contextlib.suppress(OSError):
            _write(path / name, value)
    for tid in _read_ids(path / "tasks") or _read_ids(path / "cgroup.procs"):
        with contextlib.suppress(OSError):
            os.kill(tid, signal.SIGKILL)
    with contextlib.suppress(OSError):
        _rmdir_patiently(path)


def _make_cgroup(limits: SandboxLimits, owner: int | None,
                 extra: tuple[int, int] = (0, 2)) -> tuple[_Cgroup | None, str]:
    """The seat's cgroup and a line saying why this mode; raises when the seat may not play.

    extra: the memory (MB) and tasks that the sandbox itself needs beside the bot's limits."""
    if os.environ.get("KAISER_SANDBOX_CGROUP", "1") == "0":
        return None, "per-process rlimits: per-seat cgroups turned off (KAISER_SANDBOX_CGROUP=0)"
    _sweep_stale_cgroups()
    root = _cgroup_v2_root()
    try:
        if root is not None:
            group: _Cgroup = _CgroupV2(limits, owner, root, extra)
            return group, f"per-seat cgroup v2 below {root}"
        v1 = _CgroupV1(limits, owner, extra)
        quota = "with" if "cpu" in v1.paths else "without"
        return v1, f"per-seat cgroup v1 (memory, pids) {quota} a CPU quota"
    except OSError as exc:
        why = (f"no per-seat cgroup could be made ({exc.strerror or exc}"
               f"{f': {exc.filename}' if exc.filename else ''})")
    if rlimit_fallback_allowed():
        return None, f"per-process rlimits (KAISER_SANDBOX_ALLOW_RLIMIT=1): {why}"
    raise InfrastructureError(
        f"{why}; this worker will not play without per-seat memory and process limits "
        "(set up a delegated cgroup subtree, see docs/operations.md, or set "
        "KAISER_SANDBOX_ALLOW_RLIMIT=1 to play with per-process rlimits)")


# --- the seat's /tmp -------------------------------------------------------------------------

_libc = ctypes.CDLL(None, use_errno=True)
MS_NOSUID, MS_NODEV = 2, 4
MNT_DETACH = 2


class _Tmpfs:
    path: Path
    inodes: int

    def inodes_exhausted(self) -> bool:
        try:
            return os.statvfs(self.path).f_ffree == 0
        except OSError:
            return False

    def remove(self) -> None:
        raise NotImplementedError


class _SeatTmp(_Tmpfs):
    """A tmpfs of the seat's own, mounted by the (root) worker: bwrap's own tmpfs has a size
    but no inode limit, and a million empty files cost a gigabyte of kernel memory."""

    def __init__(self, limits: SandboxLimits, uid: int) -> None:
        self.path = _state_dir("tmp") / f"kaiser-{os.getpid()}-{next(_counter)}"
        self.path.mkdir(mode=0o700)
        options = (f"size={limits.tmp_mb << 20},nr_inodes={limits.tmp_inodes},mode=0700,"
                   f"uid={uid},gid={uid}").encode()
        if _libc.mount(b"tmpfs", bytes(self.path), b"tmpfs", MS_NOSUID | MS_NODEV,
                       options) != 0:
            code = ctypes.get_errno()
            self.path.rmdir()
            raise OSError(code, f"mount tmpfs: {os.strerror(code)}")
        self.inodes = limits.tmp_inodes

    def remove(self) -> None:
        _libc.umount2(bytes(self.path), MNT_DETACH)
        with contextlib.suppress(OSError):
            self.path.rmdir()


class _SlotTmp(_Tmpfs):
    """A seat's /tmp from a pool of tmpfs mounts made before the worker started (the worker
    container's: Docker mounts them with size and nr_inodes, so the worker needs no
    capability to mount). A slot is held by a lock on its folder for as long as the seat
    lives, and emptied before and after."""

    def __init__(self, folder: Path, uid: int) -> None:
        candidates = sorted(folder.glob("slot-*"))
        if not candidates:
            raise OSError(errno.ENOENT, "no slot-N folders")
        start = (os.getpid() * 7 + next(_counter)) % len(candidates)
        held = _hold_first_free(candidates, start, os.O_RDONLY | os.O_DIRECTORY)
        if held is None:
            raise OSError(errno.EBUSY, f"all {len(candidates)} slots are in use")
        self.path, self._fd = held
        self._reset()
        os.chown(self.path, uid, uid)
        self.inodes = os.statvfs(self.path).f_files

    def _reset(self) -> None:
        """Emptied, and nothing of the last holder left on the slot itself: its owner, mode,
        extended attributes and times (a seat may set its /tmp's times to a mark the next
        holder would read)."""
        _empty(self.path)
        # The worker container has CAP_CHOWN but not CAP_FOWNER: it may chmod and set times
        # only on a folder of its own, so the slot is taken back first.
        os.chown(self.path, 0, 0)
        os.chmod(self.path, 0o700)
        for name in os.listxattr(self.path):  # gVisor refuses them; the host's kernel not
            os.removexattr(self.path, name)
        os.utime(self.path, ns=(0, 0))

    def remove(self) -> None:
        if self._fd >= 0:
            with contextlib.suppress(OSError):
                self._reset()
            os.close(self._fd)
            self._fd = -1


def _empty(folder: Path) -> None:
    for entry in os.scandir(folder):
        if entry.is_dir(follow_symlinks=False):
            shutil.rmtree(entry.path, ignore_errors=True)
        else:
            with contextlib.suppress(OSError):
                os.unlink(entry.path)


@gvisor.setup_once
def _sweep_stale_tmp() -> None:
    with contextlib.suppress(OSError):
        for path in _state_dir("tmp").glob("kaiser-*-*"):
            owner = path.name.split("-")[1]
            if owner.isdigit() and not Path(f"/proc/{owner}").exists():
                _libc.umount2(bytes(path), MNT_DETACH)
                with contextlib.suppress(OSError):
                    path.rmdir()


# --- the process -----------------------------------------------------------------------------

def _own_bot_dir() -> Path:
    """An empty folder that becomes a seat's /bot (the seat's copy of its program): in the
    worker's state folder when root (seats traverse it), else in the temporary folder."""
    base = _state_dir("bots") if os.geteuid() == 0 else Path(tempfile.gettempdir())
    _sweep_stale_bot_dirs(base)
    path = Path(tempfile.mkdtemp(prefix=f"kaiser-seat-{os.getpid()}-", dir=base))
    os.chmod(path, 0o755)
    return path


_swept_bot_dirs: set[Path] = set()


def _sweep_stale_bot_dirs(base: Path) -> None:
    """Once a process and folder: remove the seats' folders of workers that were killed."""
    if base in _swept_bot_dirs:
        return
    _swept_bot_dirs.add(base)
    for path in base.glob("kaiser-seat-*-*"):
        owner = path.name.split("-")[2]
        if owner.isdigit() and not Path(f"/proc/{owner}").exists():
            shutil.rmtree(path, ignore_errors=True)


def _readable(fd: int, timeout_s: float) -> bool:
    """poll, not select: a busy worker may hold fds above select's limit of 1024."""
    poller = select.poll()
    poller.register(fd, select.POLLIN | select.POLLHUP | select.POLLERR)
    return bool(poller.poll(max(0.0, timeout_s) * 1000))


def _high_pipe() -> tuple[int, int]:
    """A pipe whose ends are fds >= 10, clear of the 3-5 the outer script moves pipes to."""
    ends = []
    for fd in os.pipe():
        ends.append(fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10))
        os.close(fd)
    return ends[0], ends[1]


def _filter_pipe(program: bytes) -> int:
    """A pipe holding the filter's BPF program for bwrap --seccomp (read end returned)."""
    read, write = _high_pipe()
    try:
        os.write(write, program)  # some hundred bytes: always fits the pipe
    finally:
        os.close(write)
    return read


class SandboxProcess:
    """One running bot program: its pipes, its turn, its death, and its complete removal."""

    def __init__(self, *, workdir: Path | None = None, run: Sequence[str] | None = None,
                 limits: SandboxLimits, unsandboxed: bool = False) -> None:
        """Boots the seat up to its gate (engine.zygote). With workdir and run, the program
        is the one in that folder (bound as it is); without, the seat has a /bot of its own,
        empty until hand() copies a program into it: a seat booted ahead (engine.seat_pool).
        run without workdir: the program to come, where the seat's limits depend on it (a
        seat with no cgroup is one process, whose address space is its memory)."""
        self.limits = limits
        self.unsandboxed = unsandboxed
        self._run = tuple(run) if run else None
        self._bot_dir: Path | None = None
        self.workdir = workdir if workdir is not None else Path("/nonexistent")
        self._booted = False  # the zygote said it is up
        self._line_sent = False  # the gate line (the program) went to the zygote
        self._inner_pidfd: int | None = None
        self._inner_pid: int | None = None
        self.pid_namespace: str | None = None  # e.g. "pid:[4026532301]", kept after kill()
        self._dev_tmp: str | None = None
        self._stopped: set[int] = set()
        self.frozen = False  # stopped, and every process of it found stopped
        self.processes = 0  # how many processes the last stopping step found (0: not known)
        self._pids_fd = -1
        self._fds: list[int] = []
        self._seat_uid: _SeatUid | None = None
        self._tmp: _Tmpfs | None = None
        self._cgroup: _Cgroup | None = None
        self._bundle: gvisor.SeatBundle | None = None
        self.mode, self.mode_reason = "unsandboxed", "KAISER_UNSANDBOXED=1"
        self.kernel = "host"
        self.seccomp = False
        self._started_on_stdout = False
        self._gate_open = False  # wait_started() has let the bot run (the zygote's gate)
        self._cpu_over = False
        self._freezing = False  # the seat's cgroup is asked to freeze (or frozen)
        self._freezer = True  # until its cgroup says it has none
        try:
            if workdir is None:
                self._bot_dir = self.workdir = _own_bot_dir()
            if not unsandboxed:
                self._prepare()
            started_r, started_w = _high_pipe()
            info_r, info_w = _high_pipe()
        except OSError as exc:  # the worker is out of file descriptors, uids or mounts
            self._release()
            raise InfrastructureError(f"could not start the sandbox: {exc}") from exc
        except InfrastructureError:
            self._release()
            raise
        self._started_fd, self._info_fd = started_r, info_r
        try:
            self._proc = self._spawn(self.workdir, self._run, started_w, info_w)
        except (OSError, InfrastructureError) as exc:
            self._close_fds(started_r, info_r)
            self._release()
            if isinstance(exc, InfrastructureError):
                raise
            raise InfrastructureError(f"could not start the sandbox: {exc}") from exc
        finally:
            self._close_fds(started_w, info_w, *self._fds)
            self._fds = []
        assert self._proc.stdin and self._proc.stdout and self._proc.stderr
        self.stdin_fd = self._proc.stdin.fileno()
        self.stdout_fd = self._proc.stdout.fileno()
        self.stderr_fd = self._proc.stderr.fileno()
        for fd in (self.stdin_fd, self.stdout_fd, self.stderr_fd):
            os.set_blocking(fd, False)

    def _prepare(self) -> None:
        """The seat's kernel, uid, cgroup and /tmp, before anything starts."""
        self.kernel, kernel_reason = gvisor.choose_kernel()
        root = os.geteuid() == 0
        if root:
            self._seat_uid = _SeatUid()
        owner = self.seat_uid
        extra = ((gvisor.MEMORY_EXTRA_MB,
                  gvisor.TASKS_EXTRA + (gvisor.TASKS_PER_PROCESS - 1) * self.limits.max_processes)
                 if self.kernel == "gvisor" else (0, 2))
        self._cgroup, self.mode_reason = _make_cgroup(self.limits, owner, extra)
        if self.kernel == "gvisor" and self._cgroup is None:
            # Only a cgroup holds (and kills) everything of a gVisor seat: the operator's
            # rlimit fallback plays on the host's kernel, as it did before gVisor.
            self.kernel = "host"
            kernel_reason = "the host's kernel (gVisor needs a per-seat cgroup)"
        self.mode_reason = f"{self.mode_reason}; {kernel_reason}"
        self.mode = self._cgroup.mode if self._cgroup is not None else "rlimit"
        # KAISER_SANDBOX_TMP_MOUNT=0: bwrap's own tmpfs, as in a container without the
        # capability to mount (tests use it to check that the memory cgroup holds then).
        slots = os.environ.get("KAISER_SANDBOX_TMP_SLOTS", "")
        if root and owner is not None and slots:
            try:
                self._tmp = _SlotTmp(Path(slots), owner)
            except OSError as exc:
                raise InfrastructureError(f"no seat /tmp slot in {slots}: {exc}") from exc
        elif root and owner is not None and os.environ.get("KAISER_SANDBOX_TMP_MOUNT", "1") != "0":
            _sweep_stale_tmp()
            try:
                self._tmp = _SeatTmp(self.limits, owner)
            except OSError as exc:
                self.mode_reason += (f"; /tmp without an inode limit ({exc.strerror or exc}):"
                                     + (" its files count against the seat's memory cgroup"
                                        if self._cgroup is not None else " unbounded"))
        if self.kernel == "gvisor":
            self._prepare_gvisor()
            return
        program = syscall_filter.filter_program(one_process=self._cgroup is None)
        if program is not None:
            self._fds.append(_filter_pipe(program))
            self.seccomp = True
        else:
            self.mode_reason += ("; NO system-call filter: libseccomp's Python bindings are "
                                 "not installed (apt-get install python3-seccomp)")

    def _prepare_gvisor(self) -> None:
        """The seat's OCI bundle. gVisor's kernel serves every call of the bot, so the host
        filter has nothing of the bot's to filter (gVisor filters its own Sentry's calls)."""
        self.seccomp = True  # syscall_filter.oci_rules, applied by gVisor inside its kernel
        state = _state_dir("gvisor")
        gvisor.sweep_stale(state)
        self._bundle_state = state
        self._usr, note = gvisor.sysroot()
        self.mode_reason += f"; {note}"

    def _gvisor_bundle(self, workdir: Path) -> gvisor.SeatBundle:
        inner = ["/bin/sh", "-c", _gvisor_inner_script(self.limits), "sh", _ZYGOTE]
        env = {**_environment(), "NODE_OPTIONS": f"--max-old-space-size={self.limits.memory_mb}"}
        # The seat's processes are held by the host's pids.max on the seat's cgroup (see
        # gvisor.TASKS_PER_PROCESS), so that a fork bomb ends in a 'resource' fault as on the
        # host's kernel. RLIMIT_CPU is not enforced by gVisor: the engine holds the seat's
        # CPU time from its cgroup instead (cpu_limit_hit).
        rlimits = {"RLIMIT_CORE": 0, "RLIMIT_NOFILE": 256,
                   "RLIMIT_FSIZE": self.limits.file_size_mb << 20}
        tmp = self._tmp.path if self._tmp is not None else None
        state = self._bundle_state
        config = gvisor.bundle_config(root=gvisor.rootfs(state), workdir=workdir, tmp=tmp,
                                      tmp_mb=self.limits.tmp_mb, args=inner, env=env,
                                      rlimits=rlimits, usr=self._usr)
        name = f"kaiser-{os.getpid()}-{next(_counter)}"
        return gvisor.SeatBundle(state, name, self.seat_uid, config)

    def host_paths(self) -> set[str]:
        """The folders this seat holds on the host: its cgroups and its /tmp."""
        group, paths = self._cgroup, set()
        if isinstance(group, _CgroupV1):
            paths |= {str(path) for path in group.paths.values()}
        elif isinstance(group, _CgroupV2):
            paths.add(str(group.path))
        if self._tmp is not None:
            paths.add(str(self._tmp.path))
        return paths

    @property
    def seat_uid(self) -> int | None:
        return self._seat_uid.uid if self._seat_uid is not None else None

    @property
    def tmp_inodes_limited(self) -> bool:
        return self._tmp is not None

    def _spawn(self, workdir: Path, run: Sequence[str] | None, started_w: int,
               info_w: int) -> subprocess.Popen[bytes]:
        if run is None and not self.unsandboxed and self._cgroup is None:
            raise InfrastructureError("a seat without a cgroup is booted for its program only")
        inner = ["/bin/sh", "-c", _inner_script(self.limits, run, self._cgroup is not None),
                 "sh", _ZYGOTE]
        cgroup_files = self._cgroup.procs_files() if self._cgroup is not None else []
        outer = [_bash_path(), "-c", _outer_script(started_w, cgroup_files), "bash"]
        pipe = subprocess.PIPE
        if self.unsandboxed:
            self._dev_tmp = tempfile.mkdtemp(prefix="kaiser-bot-tmp-")
            env = {**_environment(), "TMPDIR": self._dev_tmp, "HOME": self._dev_tmp}
            return subprocess.Popen([*outer, *inner], cwd=workdir, env=env, stdin=pipe,
                                    stdout=pipe, stderr=pipe, pass_fds=(started_w,),
                                    start_new_session=True)
        if self.kernel == "gvisor":
            return self._spawn_gvisor(workdir, cgroup_files)
        seccomp_args = ["--seccomp", str(self._fds[0])] if self._fds else []
        tmp = self._tmp.path if self._tmp is not None else None
        command = [_bwrap_path(), *_namespace_args(), "--info-fd", str(info_w),
                   *seccomp_args, *_filesystem_args(workdir, self.limits, tmp),
                   *itertools.chain.from_iterable(("--setenv", k, v)
                                                  for k, v in _environment().items()),
                   "--", *inner]
        return subprocess.Popen([*outer, *_run_as(self.seat_uid), *command], env={},
                                stdin=pipe, stdout=pipe, stderr=pipe,
                                pass_fds=(started_w, info_w, *self._fds))

    def _spawn_gvisor(self, workdir: Path,
                      cgroup_files: Sequence[Path]) -> subprocess.Popen[bytes]:
        runsc = gvisor.runsc_path()
        if runsc is None:
            raise InfrastructureError("runsc (gVisor) is not installed: apt-get install runsc")
        self._bundle = self._gvisor_bundle(workdir)
        if self._cgroup is not None:
            # Where the seat's processes are, for checking that nothing of it survives kill()
            # (tests): runsc, the Sentry, its gofer and stubs are spread over namespaces of
            # their own, but all in the seat's cgroup from the start.
            self.pid_namespace = f"cgroup:{self._cgroup.pids_file().parent}"
        outer = [_bash_path(), "-c", _gvisor_supervisor(cgroup_files, self._cgroup), "bash"]
        setpriv = _which("setpriv", os.environ.get("PATH"))
        if setpriv is not None:  # the supervisor hears of the worker's death (root: kept)
            outer = [setpriv, "--pdeathsig=TERM", "--", *outer]
        pipe = subprocess.PIPE
        # 'started' comes on the bot's stdout (one byte, before the bot runs): no extra pipe
        # crosses into gVisor.
        self._started_on_stdout = True
        return subprocess.Popen([*outer, *_run_as(self.seat_uid), *self._bundle.command(runsc)],
                                env={"PATH": SANDBOX_PATH}, stdin=pipe, stdout=pipe,
                                stderr=pipe, cwd="/")

    @staticmethod
    def _close_fds(*fds: int) -> None:
        for fd in fds:
            with contextlib.suppress(OSError):
                os.close(fd)

    @property
    def pid(self) -> int:
        return self._proc.pid

    def hand(self, folder: Path, run: Sequence[str]) -> None:
        """The program this seat plays: its files copied into the seat's own /bot (read-only
        to the bot), its command sent through the gate by wait_started()."""
        if self._bot_dir is None or self._line_sent or (self._run not in (None, tuple(run))):
            raise ValueError("this seat has its program already")
        try:
            shutil.copytree(folder, self._bot_dir, dirs_exist_ok=True, symlinks=True)
        except OSError as exc:
            raise InfrastructureError(f"could not copy the program into its seat: {exc}") from exc
        self._run = tuple(run)

    def wait_booted(self, deadline: float) -> bool:
        """True once the seat's zygote is up and waiting at the gate; False if not by deadline.

        Raises InfrastructureError if the sandbox itself failed to set up (it exited before
        the zygote said it was up): that is never the bot's fault."""
        if self._booted:
            return True
        byte = self._started_byte(deadline)
        if byte is None:
            return False
        self._check_started(byte)
        self._open_inner_pidfd()
        self._booted = True
        return True

    def wait_started(self, deadline: float) -> bool:
        """True once the bot program is let through the gate (engine.zygote) and runs; False if
        the seat is not that far by deadline. Raises InfrastructureError as wait_booted(), or
        if the program's interpreter is not installed here."""
        if self._gate_open:
            return True
        if not self.wait_booted(deadline):
            return False
        if not self._line_sent:
            if self._run is None:
                raise InfrastructureError("no program was handed to this seat")
            folder = str(self.workdir) if self.unsandboxed else BOT_DIR
            line = json.dumps({"run": list(self._run), "dir": folder}) + "\n"
            with contextlib.suppress(OSError):  # a sandbox gone already: its death tells why
                os.write(self.stdin_fd, line.encode())
            self._line_sent = True
        byte = self._started_byte(deadline)
        if byte is None:
            return False
        self._check_started(byte)
        if not self._started_on_stdout:
            self._close_fds(self._started_fd)
            self._started_fd = -1
        self._gate_open = True
        return True

    def _started_byte(self, deadline: float) -> bytes | None:
        """The zygote's next byte on the 'started' channel (the bot's stdout under gVisor,
        a pipe of its own elsewhere); b"" if it closed; None if none by deadline."""
        fd = self.stdout_fd if self._started_on_stdout else self._started_fd
        if fd < 0 or not _readable(fd, deadline - time.monotonic()):
            return None
        try:
            return os.read(fd, 1)
        except BlockingIOError:
            return None

    def _check_started(self, byte: bytes) -> None:
        """'.': the zygote is up, or the bot runs; '?': an interpreter is missing here; else
        the sandbox itself failed. Neither failure is ever the bot's fault."""
        if byte == b".":
            return
        self._proc.wait()
        if byte == b"?":
            name = self._run[0] if self._run and self._line_sent else "python3"
            raise InfrastructureError(f"{name!r} is not available in the sandbox")
        raise InfrastructureError(f"the sandbox failed to start: {self._setup_error()}")

    def _setup_error(self) -> str:
        with contextlib.suppress(OSError):
            text = os.read(self.stderr_fd, 4096).decode(errors="replace").strip()
            if text:
                return text.splitlines()[0]
        launcher = "runsc" if self.kernel == "gvisor" else "bwrap"
        return f"{launcher} exited with status {self._proc.returncode}"

    def _open_inner_pidfd(self, wait_s: float = 0.0) -> None:
        """Hold a pidfd on pid 1 of the bot's pid namespace: killing it kills the namespace."""
        if self.unsandboxed or self._inner_pidfd is not None or self._info_fd < 0:
            return
        with contextlib.suppress(OSError, ValueError, KeyError):
            if not _readable(self._info_fd, wait_s):
                return
            info = json.loads(os.read(self._info_fd, 4096))
            child = int(info["child-pid"])
            self._inner_pidfd = os.pidfd_open(child)
            self._inner_pid = child
            self.pid_namespace = os.readlink(f"/proc/{child}/ns/pid")

    # --- turns: only the seat on move runs ---------------------------------------------------
    def _bot_pids(self) -> set[int]:
        """Every process of the seat but the two bwrap processes that hold it."""
        if self._pids_fd < 0:
            self._pids_fd = self._open_pids_file()
            if self._pids_fd < 0:
                return {self._proc.pid} if self.unsandboxed else set()
        try:
            pids = {int(p) for p in os.pread(self._pids_fd, 1 << 16, 0).split()}
        except (OSError, ValueError):
            return set()
        finally:
            if isinstance(self._cgroup, _CgroupV1):
                # v1 keeps the list of an open cgroup.procs for a second after each read: a
                # kept file would miss the processes forked meanwhile. Opened afresh each time.
                self._close_fds(self._pids_fd)
                self._pids_fd = -1
        pids.discard(self._proc.pid)
        if self._inner_pid is not None:
            pids.discard(self._inner_pid)
        return pids

    def _open_pids_file(self) -> int:
        """The seat's cgroup.procs; without a cgroup (one process a seat), pid 1's children."""
        if self._cgroup is not None:
            path = self._cgroup.pids_file()
        elif self._inner_pid is not None:
            path = Path(f"/proc/{self._inner_pid}/task/{self._inner_pid}/children")
        else:
            return -1
        try:
            return os.open(path, os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            return -1

    def stop_step(self) -> bool:
        """One step of stopping the seat; True once it is settled. The engine takes these
        steps while another seat thinks.

        With a cgroup freezer (the rule on a server): one step asks the kernel to freeze the
        whole seat, and settles it.
        A frozen task runs nothing whatever signal it gets, so no bot can wake itself.
        Without one: SIGSTOP every process not stopped yet; settled once no new process
        appears and every one is really stopped (so none can be inside fork() still)."""
        group = self._cgroup
        if group is not None and self._freezer:
            if not self._freezing:
                self._freezing = self._freezer = group.freeze()
            if self._freezing:
                # Settled when the write returns: the kernel has marked every task of the
                # seat and kicked the running ones, which enter the freezer at once (before
                # they run another instruction of the bot's). On v1 a gVisor stub stopped
                # under ptrace stays "FREEZING", held by its frozen Sentry; the tests read
                # the tasks' states (test_fair_play.seat_states).
                self.frozen = True
                return True
        stopped = self._stopped
        found = self._bot_pids()
        self.processes = len(found | stopped)
        fresh = found - stopped
        for pid in fresh:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGSTOP)
        stopped |= fresh
        if fresh:
            return False
        if not stopped:  # no process found: settled only once the bot is gone for good
            self.frozen = self._proc.poll() is not None
            return self.frozen
        # One process with no cgroup cannot fork (the filter): nothing to wait for.
        self.frozen = self._cgroup is None or all(_is_stopped(pid) for pid in stopped)
        return self.frozen

    def resume(self) -> None:
        """Thaw the seat, or SIGCONT what stop_step() stopped (on the critical path: one
        write, or one kill a process)."""
        if self._freezing:
            self._cgroup.thaw()  # type: ignore[union-attr]
            self._freezing = False
        for pid in self._stopped:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGCONT)
        self._stopped.clear()
        self.frozen = False

    def cpu_ns(self) -> int | None:
        """CPU time the seat has used so far, every process and thread of it, in ns.

        The seat's cgroup counts it (cpuacct, or cpu.stat on v2); a seat without one is a
        single process, whose CPU clock the kernel keeps. None: nothing can count it."""
        if self._cgroup is not None:
            used = self._cgroup.cpu_ns()
            if used is not None:
                return used
        pids = self._bot_pids() if not self.unsandboxed else {self._proc.pid}
        if not pids:
            return None
        return sum(_process_cpu_ns(pid) for pid in pids)

    @property
    def stopped(self) -> bool:
        return self._freezing or bool(self._stopped)

    @property
    def freezes(self) -> bool:
        """Stopped through the cgroup freezer (one write), not signal by signal."""
        return self._cgroup is not None and self._freezer

    def poll(self) -> int | None:
        return self._proc.poll()

    def close_stdin(self) -> None:
        """End of the bot's input, through the file object: its fd number is then never
        closed twice (a second close could hit another thread's newly opened file)."""
        with contextlib.suppress(OSError):
            if self._proc.stdin is not None:
                self._proc.stdin.close()

    def wait(self, timeout: float) -> int | None:
        try:
            return self._proc.wait(timeout)
        except subprocess.TimeoutExpired:
            return None

    def death(self) -> tuple[str, str]:
        """Classify a dead (or output-closed) bot: ('resource' | 'crash', one-line detail)."""
        code = self._proc.poll()
        hit = self.limit_hit()
        if hit is not None:
            return "resource", f"the sandbox's {hit} limit stopped the bot"
        if code is None:
            return "crash", "the bot closed its standard input or output"
        signum = -code if code < 0 else code - 128 if code > 128 else 0
        if signum in (signal.SIGXCPU, signal.SIGKILL):  # RLIMIT_CPU sends both; we send none
            return "resource", f"killed by the sandbox's CPU time limit (signal {signum})"
        if signum == signal.SIGXFSZ:
            return "resource", "killed by the file size limit"
        if signum == signal.SIGSYS:
            return "crash", "killed for a system call of another architecture (signal 31)"
        if signum:
            return "crash", f"killed by signal {signum}"
        return "crash", f"exited with status {code}"

    def cpu_limit_hit(self, used: int | None = None) -> str | None:
        """'CPU time' once the seat has used more than its limits.cpu_seconds in all (used:
        its CPU time in ns if just read). Under gVisor this is how the limit holds (its
        kernel does not enforce RLIMIT_CPU); the seat is killed, as the host's kernel kills a
        process at its RLIMIT_CPU."""
        if self.kernel != "gvisor" or self._cpu_over:
            return "CPU time" if self._cpu_over else None
        if used is None:
            used = self.cpu_ns()
        if used is not None and used > self.limits.cpu_seconds * 1_000_000_000:
            self._cpu_over = True
            if self._cgroup is not None:
                self._cgroup.kill_all()
            return "CPU time"
        return None

    def limit_hit(self) -> str | None:
        if self._cpu_over:
            return "CPU time"
        if self._cgroup is not None:
            hit = self._cgroup.limit_hit()
            if hit is not None:
                return hit
        return self.tmp_limit_hit()

    def tmp_limit_hit(self) -> str | None:
        """'/tmp inode' once the seat has used every inode of its /tmp (one statvfs)."""
        if self._tmp is not None and self._tmp.inodes_exhausted():
            return f"/tmp inode ({self._tmp.inodes} files)"
        return None

    def kill(self) -> None:
        """Kill every process of the bot and reap the sandbox. Idempotent; never raises."""
        if self.kernel == "gvisor" and self._cgroup is not None:
            self._cgroup.kill_all()  # the Sentry, the gofer, the stubs and runsc itself
        self._freezing = False
        # If start() never ran (a table made early, then not played): bwrap tells it as soon
        # as it has made the namespace, which on a busy host can take more than a second.
        self._open_inner_pidfd(wait_s=5.0)
        if self._inner_pidfd is not None:
            # pid 1 of the namespace first: the kernel then kills every process in it, and the
            # outer bwrap reaps it and exits by itself (no orphaned zombie for init to collect).
            with contextlib.suppress(OSError):
                signal.pidfd_send_signal(self._inner_pidfd, signal.SIGKILL)
                # The pidfd turns readable when pid 1 has exited, which the kernel lets happen
                # only once every other process of the namespace is gone: a bot that has just
                # touched a lot of memory can take a while to tear down on a busy host.
                _readable(self._inner_pidfd, 10.0)
            self._close_fds(self._inner_pidfd)
            self._inner_pidfd = None
            with contextlib.suppress(subprocess.TimeoutExpired):
                self._proc.wait(1)
        if self.unsandboxed:
            with contextlib.suppress(OSError):
                os.killpg(self._proc.pid, signal.SIGKILL)
        with contextlib.suppress(OSError):
            self._proc.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self._proc.wait(5)
        self._stopped.clear()
        self.frozen = True  # nothing left to stop
        if self._cgroup is not None:
            self._cgroup.kill_all()
        self._release()
        for stream in (self._proc.stdin, self._proc.stdout, self._proc.stderr):
            with contextlib.suppress(OSError):
                stream.close()  # type: ignore[union-attr]
        self._close_fds(self._info_fd, self._started_fd)
        self._info_fd = self._started_fd = -1
        if self._dev_tmp is not None:
            shutil.rmtree(self._dev_tmp, ignore_errors=True)

    def _release(self) -> None:
        """The seat's cgroup, /tmp and uid, once none of its processes is left."""
        if self._cgroup is not None:
            self._cgroup.remove()
            self._cgroup = None
        if self._tmp is not None:
            self._tmp.remove()
            self._tmp = None
        if self._bundle is not None:
            self._bundle.remove()
            self._bundle = None
        if self._seat_uid is not None:
            self._seat_uid.release()
            self._seat_uid = None
        if self._bot_dir is not None:
            shutil.rmtree(self._bot_dir, ignore_errors=True)
        self._close_fds(*self._fds, self._pids_fd)
        self._fds, self._pids_fd = [], -1


def _process_cpu_ns(pid: int) -> int:
    """A process's CPU time (all its threads) from its CPU-time clock; 0 once it is gone."""
    clock = (~pid << 3) | 2  # the kernel's MAKE_PROCESS_CPUCLOCK(pid, CPUCLOCK_SCHED)
    try:
        return time.clock_gettime_ns(clock)
    except OSError:
        return 0


def _is_stopped(pid: int) -> bool:
    """True if the process is stopped (T), dead or gone: nothing it can do any more."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            state = handle.read().rsplit(b")", 1)[1].split()[0]
    except (OSError, IndexError):
        return True
    return state in (b"T", b"t", b"Z", b"X")


def warn_unsandboxed() -> None:
    """Said for every bot program set up without the sandbox, so no log can miss it."""
    print("\n" + "!" * 78 + "\nWARNING: running bot programs WITHOUT the sandbox "
          "(unsandboxed=True or KAISER_UNSANDBOXED=1).\nA bot can read, write and delete "
          "anything this user can. Local development only.\n" + "!" * 78,
          file=sys.stderr, flush=True)
