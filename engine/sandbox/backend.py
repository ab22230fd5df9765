"""The interface every boundary implements (Backend), and the parts a worker makes for a seat
before it starts (SeatParts: its uid, cgroup and /tmp), which every sandboxed boundary shares.

A backend owns what differs between boundaries: the seat's preparation, its spawn, how it says
'started', where its processes are, and the first steps of killing it. The seat
(engine.sandbox.seat.SandboxProcess) does the rest the same way for every boundary.
"""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path

from engine.sandbox.cgroups import _Cgroup, _make_cgroup
from engine.sandbox.config import SandboxConfig
from engine.sandbox.limits import SandboxLimits
from engine.sandbox.procs import _close_fds, _high_pipe, _process_cpu_ns, _readable
from engine.sandbox.tmp import _Tmpfs, make_seat_tmp
from engine.sandbox.uids import _SeatUid


class SeatParts:
    """The seat's own uid, cgroup and /tmp, and the mode they make (one line of why)."""

    def __init__(self, mode: str = "unsandboxed", reason: str = "KAISER_UNSANDBOXED=1") -> None:
        self.uid_lock: _SeatUid | None = None
        self.cgroup: _Cgroup | None = None
        self.tmp: _Tmpfs | None = None
        self.mode, self.reason = mode, reason

    @classmethod
    def make(cls, cfg: SandboxConfig, limits: SandboxLimits,
             extra: tuple[int, int]) -> SeatParts:
        """The uid (when the worker is root) and the cgroup, with extra memory (MB) and tasks
        for the boundary's own processes; raises when the seat may not play."""
        parts = cls()
        try:
            if os.geteuid() == 0:
                parts.uid_lock = _SeatUid(cfg.seat_uids)
            parts.cgroup, parts.reason = _make_cgroup(limits, parts.uid, extra, cfg)
        except BaseException:
            parts.release()
            raise
        parts.mode = parts.cgroup.mode if parts.cgroup is not None else "rlimit"
        return parts

    def add_tmp(self, cfg: SandboxConfig, limits: SandboxLimits) -> None:
        self.tmp, note = make_seat_tmp(cfg, limits, self.uid, self.cgroup is not None)
        self.reason += note

    @property
    def uid(self) -> int | None:
        return self.uid_lock.uid if self.uid_lock is not None else None

    def release(self) -> None:
        """The seat's cgroup, /tmp and uid, once none of its processes is left."""
        if self.cgroup is not None:
            self.cgroup.remove()
            self.cgroup = None
        if self.tmp is not None:
            self.tmp.remove()
            self.tmp = None
        if self.uid_lock is not None:
            self.uid_lock.release()
            self.uid_lock = None


class Backend:
    """One boundary between a bot and the host (HostBackend, GvisorBackend, NoneBackend)."""

    kernel = "host"  # "gvisor": every seat its own kernel; "host": the host's, shared
    launcher = "bwrap"  # what failed when the seat did not start
    # The boundary's kernel does not enforce RLIMIT_CPU: the engine holds the seat's CPU limit
    # from its cgroup (SandboxProcess.cpu_limit_hit).
    engine_holds_cpu_limit = False

    def __init__(self, limits: SandboxLimits, parts: SeatParts) -> None:
        self.limits, self.parts = limits, parts
        self.seccomp = False
        self.pid_namespace: str | None = None  # e.g. "pid:[4026532301]", kept after kill()
        self.inner_pid: int | None = None  # a process that holds the seat (bwrap's pid 1)
        self.started_fd = -1  # the read end of the 'started' pipe, until it has said
        self._pids_fd = -1

    @property
    def cgroup(self) -> _Cgroup | None:
        return self.parts.cgroup

    @property
    def tmp(self) -> _Tmpfs | None:
        return self.parts.tmp

    @property
    def seat_uid(self) -> int | None:
        return self.parts.uid

    @property
    def mode(self) -> str:
        return self.parts.mode

    @property
    def mode_reason(self) -> str:
        return self.parts.reason

    def prepare(self, cfg: SandboxConfig) -> None:
        """The boundary's own preparation, after the seat's parts (raises if it cannot play)."""

    def spawn(self, workdir: Path, run: Sequence[str] | None) -> subprocess.Popen[bytes]:
        """Start the seat up to its gate (the zygote, scripts._ZYGOTE), its stdio on pipes.
        run: the program, where the seat's limits depend on it (else None)."""
        raise NotImplementedError

    def _started_pipe(self) -> int:
        """The 'started' pipe: its read end kept, its write end returned (to pass on)."""
        self.started_fd, write = _high_pipe()
        return write

    def read_started(self, stdout_fd: int, deadline: float) -> bytes | None:
        """The zygote's next 'started' byte ('.': up, or the bot runs; '?': no interpreter;
        b"": the seat died), or None if none by deadline. Here: on the 'started' pipe."""
        if self.started_fd < 0 or not _readable(self.started_fd, deadline - time.monotonic()):
            return None
        return os.read(self.started_fd, 1)

    def started_done(self) -> None:
        """The bot runs: the 'started' channel has said all it will."""
        _close_fds(self.started_fd)
        self.started_fd = -1

    def note_program(self, run: Sequence[str]) -> None:
        """The program handed to the seat, where an operator looking at the host finds it
        (a gVisor seat's host processes name only its bundle)."""

    def on_booted(self) -> None:
        """The seat is up, its zygote waiting at the gate: no code of the bot's has run."""

    def bot_pids(self, holder: int) -> set[int]:
        """Every process of the seat but those that hold it (holder: the process we started)."""
        if self._pids_fd < 0:
            self._pids_fd = self._open_pids_file()
            if self._pids_fd < 0:
                return set()
        try:
            pids = {int(p) for p in os.pread(self._pids_fd, 1 << 16, 0).split()}
        except (OSError, ValueError):
            return set()
        finally:
            if self.cgroup is not None and self.cgroup.reopen_procs:
                _close_fds(self._pids_fd)
                self._pids_fd = -1
        pids.discard(holder)
        if self.inner_pid is not None:
            pids.discard(self.inner_pid)
        return pids

    def _open_pids_file(self) -> int:
        """The seat's cgroup.procs; without a cgroup (one process a seat), pid 1's children."""
        if self.cgroup is not None:
            path = self.cgroup.pids_file()
        elif self.inner_pid is not None:
            path = Path(f"/proc/{self.inner_pid}/task/{self.inner_pid}/children")
        else:
            return -1
        try:
            return os.open(path, os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            return -1

    def cpu_ns(self, holder: int) -> int | None:
        """CPU time the seat has used so far, every process and thread of it, in ns.

        The seat's cgroup counts it (cpuacct, or cpu.stat on v2); a seat without one is a
        single process, whose CPU clock the kernel keeps. None: nothing can count it."""
        if self.cgroup is not None:
            used = self.cgroup.cpu_ns()
            if used is not None:
                return used
        pids = self.bot_pids(holder)
        if not pids:
            return None
        return sum(_process_cpu_ns(pid) for pid in pids)

    def kill(self, proc: subprocess.Popen[bytes]) -> None:
        """The boundary's own first steps of killing the seat (the seat does the rest)."""

    def release(self) -> None:
        """Everything the seat held, once none of its processes is left. Idempotent."""
        self.parts.release()
        _close_fds(self._pids_fd, self.started_fd)
        self._pids_fd = self.started_fd = -1
