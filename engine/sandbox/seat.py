"""Run one untrusted bot program in a sandbox of its own, and make sure it is gone afterwards.

SandboxProcess is the seat, the same for every boundary: it starts the seat (its backend
spawns it), lets the bot through its gate, stops it (the cgroup freezer, or SIGSTOP) between
its turns, counts its CPU time, tells how it died, and removes it. What differs between
boundaries is its backend's (engine.sandbox.backend): gVisor, the host's kernel with
bubblewrap, or none.

Fair play between seats (docs/sandbox.md says the same for bot authors):
- Every seat runs as a host uid of its own, taken from a range reserved for seats
  (KAISER_SEAT_UIDS), so per-uid kernel state (process counts, keyrings, accounting) is never
  shared, not even by the two seats of one bot. Without root the seat runs as the worker's uid.
- Every seat has its own copy of the program's files (engine.botproc), its own /tmp, and the
  system-call filter of engine.sandbox.filter (keyrings, locks, inotify, ptrace, mounts,
  namespaces and the like are refused).
- Only the seat on move runs: stop_step() and resume() freeze the others (engine.botproc
  decides when), reaching every process of the seat; the filter refuses SIGCONT to the bots
  themselves, so a stopped seat stays stopped.

Per-seat limits: a cgroup of the seat's own holds the memory and the processes of the whole
seat, and one core of CPU (engine.sandbox.cgroups). With the operator's rlimit fallback the
seat is one process (the filter refuses fork), whose address space is the seat's memory.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
from collections.abc import Sequence
from pathlib import Path

from engine.faults import InfrastructureError
from engine.sandbox.backend import Backend, SeatParts
from engine.sandbox.config import SandboxConfig, config
from engine.sandbox.gvisor import PINNED_ATIME_NS, choose_kernel
from engine.sandbox.gvisor_backend import GvisorBackend
from engine.sandbox.host import HostBackend
from engine.sandbox.limits import SandboxLimits
from engine.sandbox.none import NoneBackend
from engine.sandbox.procs import _is_stopped
from engine.sandbox.scripts import BOT_DIR
from engine.sandbox.tmp import own_bot_dir


def _make_backend(limits: SandboxLimits, unsandboxed: bool, cfg: SandboxConfig) -> Backend:
    """The seat's boundary, prepared: its kernel, uid, cgroup and /tmp, before anything
    starts. Raises InfrastructureError (never the bot's fault) when the seat may not play."""
    if unsandboxed:
        return NoneBackend(limits)
    try:
        kernel, kernel_reason = choose_kernel(cfg)
        backend_class = GvisorBackend if kernel == "gvisor" else HostBackend
        parts = SeatParts.make(cfg, limits, backend_class.extra(limits, cfg))
    except OSError as exc:  # the worker is out of file descriptors, uids or mounts
        raise InfrastructureError(f"could not start the sandbox: {exc}") from exc
    try:
        if backend_class is GvisorBackend and parts.cgroup is None:
            # Only a cgroup holds (and kills) everything of a gVisor seat: the operator's
            # rlimit fallback plays on the host's kernel, as it did before gVisor.
            backend_class = HostBackend
            kernel_reason = "the host's kernel (gVisor needs a per-seat cgroup)"
        parts.reason += f"; {kernel_reason}"
        parts.add_tmp(cfg, limits)
        backend = backend_class(limits, parts)
        backend.prepare(cfg)
    except (OSError, InfrastructureError) as exc:
        parts.release()
        if isinstance(exc, InfrastructureError):
            raise
        raise InfrastructureError(f"could not start the sandbox: {exc}") from exc
    return backend


class SandboxProcess:
    """One running bot program: its pipes, its turn, its death, and its complete removal."""

    def __init__(self, *, workdir: Path | None = None, run: Sequence[str] | None = None,
                 limits: SandboxLimits, unsandboxed: bool = False) -> None:
        """Boots the seat up to its gate (the zygote). With workdir and run, the program is
        the one in that folder (bound as it is); without, the seat has a /bot of its own,
        empty until hand() copies a program into it: a seat booted ahead (engine.sandbox.pool).
        run without workdir: the program to come, where the seat's limits depend on it (a
        seat with no cgroup is one process, whose address space is its memory)."""
        self.limits = limits
        self.unsandboxed = unsandboxed
        self.config = config()  # what it was booted with (the pool keeps seats of one kind)
        self._run = tuple(run) if run else None
        self._booted = False  # the zygote said it is up
        self._line_sent = False  # the gate line (the program) went to the zygote
        self._stopped: set[int] = set()
        self.frozen = False  # stopped, and every process of it found stopped
        self.processes = 0  # how many processes the last stopping step found (0: not known)
        self._gate_open = False  # wait_started() has let the bot run (the zygote's gate)
        self._cpu_over = False
        self._freezing = False  # the seat's cgroup is asked to freeze (or frozen)
        self._freezer = True  # until its cgroup says it has none
        self._bot_dir = own_bot_dir(self.config) if workdir is None else None
        self.workdir = workdir if workdir is not None else self._bot_dir
        try:
            self.backend = _make_backend(limits, unsandboxed, self.config)
        except BaseException:
            self._remove_bot_dir()
            raise
        self._proc = self._spawn(self.workdir, self._run)
        assert self._proc.stdin and self._proc.stdout and self._proc.stderr
        self.stdin_fd = self._proc.stdin.fileno()
        self.stdout_fd = self._proc.stdout.fileno()
        self.stderr_fd = self._proc.stderr.fileno()
        for fd in (self.stdin_fd, self.stdout_fd, self.stderr_fd):
            os.set_blocking(fd, False)

    def _spawn(self, workdir: Path, run: Sequence[str] | None) -> subprocess.Popen[bytes]:
        try:
            return self.backend.spawn(workdir, run)
        except (OSError, InfrastructureError) as exc:
            self.backend.release()
            self._remove_bot_dir()
            if isinstance(exc, InfrastructureError):
                raise
            raise InfrastructureError(f"could not start the sandbox: {exc}") from exc

    # --- what the backend made ---------------------------------------------------------------
    @property
    def kernel(self) -> str:
        return self.backend.kernel

    @property
    def mode(self) -> str:
        return self.backend.mode

    @property
    def mode_reason(self) -> str:
        return self.backend.mode_reason

    @property
    def seccomp(self) -> bool:
        return self.backend.seccomp

    @property
    def seat_uid(self) -> int | None:
        return self.backend.seat_uid

    @property
    def tmp_inodes_limited(self) -> bool:
        return self.backend.tmp is not None

    @property
    def pid_namespace(self) -> str | None:
        """Where the seat's processes are (e.g. "pid:[4026532301]"), kept after kill()."""
        return self.backend.pid_namespace

    @property
    def pid(self) -> int:
        return self._proc.pid

    def host_paths(self) -> set[str]:
        """The folders this seat holds on the host: its cgroups and its /tmp."""
        paths = set(self.backend.cgroup.folders()) if self.backend.cgroup is not None else set()
        if self.backend.tmp is not None:
            paths.add(str(self.backend.tmp.path))
        return paths

    # --- start -------------------------------------------------------------------------------
    def hand(self, folder: Path, run: Sequence[str]) -> None:
        """The program this seat plays: its files copied into the seat's own /bot (read-only
        to the bot), its command sent through the gate by wait_started()."""
        if self._bot_dir is None or self._line_sent or self._run not in (None, tuple(run)):
            raise ValueError("this seat has its program already")
        try:
            shutil.copytree(folder, self._bot_dir, dirs_exist_ok=True, symlinks=True)
            pin_times(self._bot_dir)
        except OSError as exc:
            raise InfrastructureError(f"could not copy the program into its seat: {exc}") from exc
        self._run = tuple(run)
        self.backend.note_program(self._run)

    def wait_booted(self, deadline: float) -> bool:
        """True once the seat's zygote is up and waiting at the gate; False if not by deadline.

        Raises InfrastructureError if the sandbox itself failed to set up (it exited before
        the zygote said it was up): that is never the bot's fault."""
        if self._booted:
            return True
        byte = self.backend.read_started(self.stdout_fd, deadline)
        if byte is None:
            return False
        self._check_started(byte)
        self._booted = True
        self.backend.on_booted()
        return True

    def wait_started(self, deadline: float) -> bool:
        """True once the bot program is let through the gate (the zygote) and runs; False if
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
        byte = self.backend.read_started(self.stdout_fd, deadline)
        if byte is None:
            return False
        self._check_started(byte)
        self.backend.started_done()
        self._gate_open = True
        return True

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
        return f"{self.backend.launcher} exited with status {self._proc.returncode}"

    # --- turns: only the seat on move runs ---------------------------------------------------
    def stop_step(self) -> bool:
        """One step of stopping the seat; True once it is settled. The engine takes these
        steps while another seat thinks.

        With a cgroup freezer (the rule on a server): one step asks the kernel to freeze the
        whole seat, and settles it.
        A frozen task runs nothing whatever signal it gets, so no bot can wake itself.
        Without one: SIGSTOP every process not stopped yet; settled once no new process
        appears and every one is really stopped (so none can be inside fork() still)."""
        group = self.backend.cgroup
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
        return self._stop_by_signals(group is None)

    def _stop_by_signals(self, one_process: bool) -> bool:
        stopped = self._stopped
        found = self.backend.bot_pids(self._proc.pid)
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
        self.frozen = one_process or all(_is_stopped(pid) for pid in stopped)
        return self.frozen

    def resume(self) -> None:
        """Thaw the seat, or SIGCONT what stop_step() stopped (on the critical path: one
        write, or one kill a process)."""
        if self._freezing:
            group = self.backend.cgroup
            if group is not None:
                group.thaw()
            self._freezing = False
        for pid in self._stopped:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGCONT)
        self._stopped.clear()
        self.frozen = False

    def cpu_ns(self) -> int | None:
        """CPU time the seat has used so far, every process and thread of it, in ns (None:
        nothing can count it)."""
        return self.backend.cpu_ns(self._proc.pid)

    @property
    def stopped(self) -> bool:
        return self._freezing or bool(self._stopped)

    @property
    def freezes(self) -> bool:
        """Stopped through the cgroup freezer (one write), not signal by signal."""
        return self.backend.cgroup is not None and self._freezer

    # --- its pipes and its end ---------------------------------------------------------------
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
        its CPU time in ns if just read). Where the boundary's kernel does not enforce
        RLIMIT_CPU (gVisor) this is how the limit holds; the seat is killed, as the host's
        kernel kills a process at its RLIMIT_CPU."""
        if not self.backend.engine_holds_cpu_limit or self._cpu_over:
            return "CPU time" if self._cpu_over else None
        if used is None:
            used = self.cpu_ns()
        if used is not None and used > self.limits.cpu_seconds * 1_000_000_000:
            self._cpu_over = True
            if self.backend.cgroup is not None:
                self.backend.cgroup.kill_all()
            return "CPU time"
        return None

    def limit_hit(self) -> str | None:
        if self._cpu_over:
            return "CPU time"
        if self.backend.cgroup is not None:
            hit = self.backend.cgroup.limit_hit()
            if hit is not None:
                return hit
        return self.tmp_limit_hit()

    def tmp_limit_hit(self) -> str | None:
        """'/tmp inode' once the seat has used every inode of its /tmp (one statvfs)."""
        tmp = self.backend.tmp
        if tmp is not None and tmp.inodes_exhausted():
            return f"/tmp inode ({tmp.inodes} files)"
        return None

    def kill(self) -> None:
        """Kill every process of the bot and reap the sandbox. Idempotent; never raises."""
        self._freezing = False
        self.backend.kill(self._proc)
        with contextlib.suppress(OSError):
            self._proc.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self._proc.wait(5)
        self._stopped.clear()
        self.frozen = True  # nothing left to stop
        if self.backend.cgroup is not None:
            self.backend.cgroup.kill_all()
        self.backend.release()
        self._remove_bot_dir()
        for stream in (self._proc.stdin, self._proc.stdout, self._proc.stderr):
            with contextlib.suppress(OSError):
                stream.close()  # type: ignore[union-attr]

    def _remove_bot_dir(self) -> None:
        if self._bot_dir is not None:
            shutil.rmtree(self._bot_dir, ignore_errors=True)


# Every file and folder of a seat's /bot is modified at this time (2020-01-01 UTC), and
# accessed in 2100 (a read moves no access time that is ahead of it): when its copy was made
# (as the last table began) would tell the seat how long the last table played. The change
# time (ctime) no call can set: it says when the seat was made, as the seat's age does.
BOT_MTIME_NS = 1_577_836_800 * 10**9


def pin_times(root: Path) -> None:
    """BOT_MTIME_NS and PINNED_ATIME_NS on every file and folder under root, root too
    (symbolic links keep their own)."""
    times = (PINNED_ATIME_NS, BOT_MTIME_NS)
    for folder, dirs, files in os.walk(root):
        for name in files + dirs:
            os.utime(os.path.join(folder, name), ns=times, follow_symlinks=False)
    os.utime(root, ns=times)
