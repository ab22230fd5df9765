"""The host's kernel, shared, with bubblewrap's namespaces and the system-call filter: the
boundary of KAISER_SANDBOX_KERNEL=host (and of a laptop without gVisor).

Layout of a seat (host view):

    worker (root)  ->  bash (joins the seat's cgroups, moves the pipes to fds 3-5)
                   ->  setpriv (becomes the seat's own uid)  ->  bwrap (outer)
                   ->  bwrap (pid 1 of a new pid namespace)
                   ->  /bin/sh (pipes onto 0 and 1, rlimits, 'started')  ->  the bot
    (each arrow after the first bash is an exec or, for the pid-1 bwrap, a fork)

Fresh namespaces (user, pid, net, ipc, uts, cgroup), a read-only /usr, the bot's files
read-only at /bot, a size- and inode-limited tmpfs at /tmp (TMPDIR), nothing else of the host.
Host-wide counters under /proc (free memory, CPU times, page faults, open files) are replaced
by constant or empty files. Killing pid 1 of the pid namespace kills every process in it,
which is how kill() cleans up.

--die-with-parent ties the sandbox to the *thread* that started it (PR_SET_PDEATHSIG): create,
play and close a match's players in one thread, which is what every game's run_match does.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import json
import os
import signal
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path

from engine.faults import InfrastructureError
from engine.sandbox import filter as syscall_filter
from engine.sandbox.backend import Backend, SeatParts
from engine.sandbox.config import SandboxConfig
from engine.sandbox.limits import SandboxLimits
from engine.sandbox.procs import (
    _bash_path,
    _close_fds,
    _filter_pipe,
    _high_pipe,
    _readable,
    _run_as,
    _which,
    search_path,
    setup_once,
)
from engine.sandbox.scripts import (
    _ZYGOTE,
    BOT_DIR,
    _environment,
    _inner_script,
    _outer_script,
)

NOBODY = 65534


def _bwrap_path() -> str:
    found = _which("bwrap", search_path())
    if found is None:
        raise InfrastructureError("bubblewrap (bwrap) is not installed: apt-get install bubblewrap")
    return found


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


@setup_once
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


class HostBackend(Backend):
    """bubblewrap on the host's kernel: 'started' on a pipe of its own, pid 1 of the seat's
    pid namespace found through bwrap's --info-fd and killed first."""

    @staticmethod
    def extra(limits: SandboxLimits, cfg: SandboxConfig) -> tuple[int, int]:
        return 0, 2  # the two bwrap processes

    def __init__(self, limits: SandboxLimits, parts: SeatParts) -> None:
        super().__init__(limits, parts)
        self.info_fd = -1
        self._inner_pidfd: int | None = None
        self._filter_fds: list[int] = []

    def prepare(self, cfg: SandboxConfig) -> None:
        program = syscall_filter.filter_program(one_process=self.cgroup is None)
        if program is not None:
            self._filter_fds.append(_filter_pipe(program))
            self.seccomp = True
        else:
            self.parts.reason += ("; NO system-call filter: libseccomp's Python bindings are "
                                  "not installed (apt-get install python3-seccomp)")

    def spawn(self, workdir: Path, run: Sequence[str] | None) -> subprocess.Popen[bytes]:
        started_w = self._started_pipe()
        self.info_fd, info_w = _high_pipe()
        try:
            if run is None and self.cgroup is None:
                raise InfrastructureError("a seat with no cgroup is booted for its program only")
            inner = ["/bin/sh", "-c", _inner_script(self.limits, run, self.cgroup is not None),
                     "sh", _ZYGOTE]
            cgroup_files = self.cgroup.procs_files() if self.cgroup is not None else []
            outer = [_bash_path(), "-c", _outer_script(started_w, cgroup_files), "bash"]
            seccomp_args = ["--seccomp", str(self._filter_fds[0])] if self._filter_fds else []
            tmp = self.tmp.path if self.tmp is not None else None
            command = [_bwrap_path(), *_namespace_args(), "--info-fd", str(info_w),
                       *seccomp_args, *_filesystem_args(workdir, self.limits, tmp),
                       *itertools.chain.from_iterable(("--setenv", k, v)
                                                      for k, v in _environment().items()),
                       "--", *inner]
            pipe = subprocess.PIPE
            return subprocess.Popen([*outer, *_run_as(self.seat_uid), *command], env={},
                                    stdin=pipe, stdout=pipe, stderr=pipe,
                                    pass_fds=(started_w, info_w, *self._filter_fds))
        finally:
            _close_fds(started_w, info_w, *self._filter_fds)
            self._filter_fds = []

    def on_booted(self) -> None:
        self._open_inner_pidfd()

    def _open_inner_pidfd(self, wait_s: float = 0.0) -> None:
        """Hold a pidfd on pid 1 of the bot's pid namespace: killing it kills the namespace."""
        if self._inner_pidfd is not None or self.info_fd < 0:
            return
        with contextlib.suppress(OSError, ValueError, KeyError):
            if not _readable(self.info_fd, wait_s):
                return
            info = json.loads(os.read(self.info_fd, 4096))
            child = int(info["child-pid"])
            self._inner_pidfd = os.pidfd_open(child)
            self.inner_pid = child
            self.pid_namespace = os.readlink(f"/proc/{child}/ns/pid")

    def kill(self, proc: subprocess.Popen[bytes]) -> None:
        # If start() never ran (a table made early, then not played): bwrap tells it as soon
        # as it has made the namespace, which on a busy host can take more than a second.
        self._open_inner_pidfd(wait_s=5.0)
        if self._inner_pidfd is None:
            return
        # pid 1 of the namespace first: the kernel then kills every process in it, and the
        # outer bwrap reaps it and exits by itself (no orphaned zombie for init to collect).
        with contextlib.suppress(OSError):
            signal.pidfd_send_signal(self._inner_pidfd, signal.SIGKILL)
            # The pidfd turns readable when pid 1 has exited, which the kernel lets happen
            # only once every other process of the namespace is gone: a bot that has just
            # touched a lot of memory can take a while to tear down on a busy host.
            _readable(self._inner_pidfd, 10.0)
        _close_fds(self._inner_pidfd)
        self._inner_pidfd = None
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(1)

    def release(self) -> None:
        super().release()
        _close_fds(self.info_fd, *self._filter_fds)
        self.info_fd, self._filter_fds = -1, []
