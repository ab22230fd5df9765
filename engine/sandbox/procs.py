"""Small helpers on processes and file descriptors that every backend and the seat share."""

from __future__ import annotations

import contextlib
import fcntl
import functools
import os
import select
import shutil
import threading
import time

from engine.faults import InfrastructureError


def setup_once(function):  # type: ignore[no-untyped-def]
    """functools.cache for set-up with side effects (folders made, copies): one thread does
    it, the others wait (the seat pool's thread boots seats beside the matches' threads)."""
    cached, lock = functools.cache(function), threading.Lock()

    @functools.wraps(function)
    def once(*args, **kwargs):  # type: ignore[no-untyped-def]
        with lock:
            return cached(*args, **kwargs)

    once.cache_clear = cached.cache_clear  # type: ignore[attr-defined]
    return once


def search_path() -> str | None:
    """The worker's own PATH, where bwrap, runsc, setpriv and bash are looked for (not a
    sandbox setting: tests empty it to play a host without them)."""
    return os.environ.get("PATH")


@functools.cache
def _which(name: str, path: str | None) -> str | None:
    """shutil.which, remembered per PATH: it stats every PATH entry, for every seat."""
    return shutil.which(name, path=path)


def _bash_path() -> str:
    found = _which("bash", search_path()) or "/bin/bash"
    if not os.path.exists(found):
        raise InfrastructureError("bash is needed to start the sandbox and is not installed")
    return found


def _run_as(uid: int | None) -> list[str]:
    """The command prefix that makes bwrap run as the seat's uid (when the worker is root).

    setpriv rather than Popen(user=...): Popen must then fork the whole worker instead of
    vfork-ing it, which for a worker with a 200 MB heap measured 95 ms against 0.4 ms.
    """
    if uid is None:
        return []
    setpriv = _which("setpriv", search_path())
    if setpriv is None:
        raise InfrastructureError("setpriv (util-linux) is needed to run bots as their own "
                                  "user and is not installed")
    # --pdeathsig: the sandbox dies with the thread that started it (bwrap has its own
    # --die-with-parent; runsc has none).
    return [setpriv, f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--pdeathsig=KILL",
            "--"]


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


def _close_fds(*fds: int) -> None:
    for fd in fds:
        with contextlib.suppress(OSError):
            os.close(fd)


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
