"""Run one untrusted bot program in a bubblewrap sandbox, and make sure it is gone afterwards.

Layout of a sandboxed seat (host view):

    worker (root)  ->  bash (joins the seat's cgroups, moves the pipes to fds 3-5)
                   ->  setpriv (becomes nobody)  ->  bwrap (uid 65534, outer)
                   ->  bwrap (pid 1 of a new pid namespace)
                   ->  /bin/sh (pipes onto 0 and 1, rlimits, 'started')  ->  the bot
    (each arrow after the first bash is an exec or, for the pid-1 bwrap, a fork)

bwrap runs as the unprivileged host user `nobody` (65534) when the worker is root, so even a
process that escaped every namespace would be nobody. Each seat gets fresh namespaces (user,
pid, net, ipc, uts, cgroup), a read-only /usr, the bot's files read-only at /bot, a size-limited
tmpfs at /tmp (TMPDIR) and nothing else of the host. Killing pid 1 of the pid namespace kills
every process in it (forks, double forks, orphans), which is how close() cleans up.

--die-with-parent ties the sandbox to the *thread* that started it (PR_SET_PDEATHSIG): create,
play and close a match's players in one thread, which is what engine.match.run_match does.
If the worker dies, its sandboxes die with it.

Memory and process limits use a per-seat cgroup (v1 memory + pids) when the worker may create
one: an OOM kill or a refused fork is then known for certain and reported as `resource`.
Otherwise they fall back to rlimits (address space, processes), set inside the user namespace so
that one bot's processes never count against another's.
"""

from __future__ import annotations

import contextlib
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
from dataclasses import dataclass
from pathlib import Path

from engine.faults import InfrastructureError

NOBODY = 65534
SANDBOX_PATH = "/usr/local/bin:/usr/bin:/bin"
BOT_DIR = "/bot"
# V8 reserves far more address space than it uses: with an address-space rlimit (the fallback
# when no memory cgroup is available) node needs this much on top of the memory limit to start.
NODE_ADDRESS_SPACE_EXTRA_MB = 4096
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


def check_sandbox() -> None:
    """Raise InfrastructureError (one clear line) unless a trivial sandbox starts and exits 0."""
    bwrap = _bwrap_path()
    command = [bwrap, *_namespace_args(), *_filesystem_args(None, SandboxLimits()), "--",
               "/bin/sh", "-c", "command -v python3 >/dev/null"]
    try:
        prefix, uid, groups = _run_as()
        done = subprocess.run(prefix + command, capture_output=True, timeout=20, env={}, user=uid,
                              group=uid, extra_groups=groups)
    except (OSError, subprocess.SubprocessError) as exc:
        raise InfrastructureError(f"bubblewrap could not start: {exc}") from exc
    if done.returncode != 0:
        first = (done.stderr.decode(errors="replace").strip().splitlines() or ["no message"])[0]
        raise InfrastructureError(
            f"bubblewrap sandbox failed (exit {done.returncode}): {first}"
        )


def unsandboxed_requested() -> bool:
    return os.environ.get("KAISER_UNSANDBOXED", "") == "1"


@functools.cache
def _which(name: str, path: str | None) -> str | None:
    """shutil.which, remembered per PATH: it stats every PATH entry, for every seat."""
    return shutil.which(name, path=path)


def _bwrap_path() -> str:
    found = _which("bwrap", os.environ.get("PATH"))
    if found is None:
        raise InfrastructureError("bubblewrap (bwrap) is not installed: apt-get install bubblewrap")
    return found


def _run_as() -> tuple[list[str], int | None, list[int] | None]:
    """How bwrap becomes nobody when the worker is root: (command prefix, uid, groups).

    setpriv is preferred: Popen(user=...) must fork the whole worker instead of vfork-ing it,
    which for a worker with a 200 MB heap measured 95 ms against 0.4 ms (on a loaded 2-core
    host).
    """
    if os.geteuid() != 0:
        return [], None, None
    setpriv = _which("setpriv", os.environ.get("PATH"))
    if setpriv is None:
        return [], NOBODY, []
    return [setpriv, f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", "--"], None, None


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


def _filesystem_args(workdir: Path | None, limits: SandboxLimits) -> list[str]:
    args = [*_system_args(), "--proc", "/proc", "--dev", "/dev",
             "--size", str(limits.tmp_mb << 20), "--tmpfs", "/tmp"]
    if workdir is not None:
        args += ["--ro-bind", str(workdir), BOT_DIR, "--chdir", BOT_DIR]
    # bwrap builds / and /dev as writable tmpfs; nothing outside /tmp may be written.
    return args + ["--remount-ro", "/dev", "--remount-ro", "/"]


def _environment() -> dict[str, str]:
    return {"PATH": SANDBOX_PATH, "HOME": "/tmp", "TMPDIR": "/tmp", "LANG": "C.UTF-8",
            "PYTHONDONTWRITEBYTECODE": "1", "PYTHONHASHSEED": "0"}


def _inner_script(limits: SandboxLimits, run: Sequence[str], cgroup: bool) -> str:
    """Runs inside the namespaces: the bot's pipes onto 0 and 1, rlimits, 'started', exec.

    The bot's stdin and stdout arrive as fds 3 and 4 (bwrap's own stdio is /dev/null), so the
    bot's process tree is the only holder of its output pipe: when it closes it, we see it.
    """
    kib = limits.memory_mb << 10
    if run and Path(run[0]).name == "node":
        kib += NODE_ADDRESS_SPACE_EXTRA_MB << 10
    parts = ["exec 0<&3 1>&4 3<&- 4>&-", "ulimit -c 0", "ulimit -n 256",
             f"ulimit -t {limits.cpu_seconds}",
             f"ulimit -f {(limits.file_size_mb << 20) // 512}"]  # dash counts 512-byte blocks
    if not cgroup:
        parts += [f"ulimit -v {kib}", f"ulimit -p {limits.max_processes + 2}"]
    # A missing interpreter (no node on this worker) is the machine's failing, not the bot's:
    # say so on the 'started' pipe, which the bot's own code never gets to write on.
    parts += ['command -v "$1" >/dev/null 2>&1 || { printf "?" >&5; exit 127; }',
              "printf . >&5", "exec 5>&-", 'exec "$@"']
    return "; ".join(parts)


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


class _Cgroup:
    """A per-seat cgroup v1 pair (memory, pids) below the worker's own cgroups."""

    def __init__(self, limits: SandboxLimits) -> None:
        name = f"kaiser-{os.getpid()}-{next(_counter)}"
        self.memory = _own_cgroup("memory") / name
        self.pids = _own_cgroup("pids") / name
        self.memory.mkdir()
        try:
            self.pids.mkdir()
            bytes_ = str(limits.memory_mb << 20)
            (self.memory / "memory.limit_in_bytes").write_text(bytes_)
            with contextlib.suppress(OSError):  # no swap accounting on this kernel
                (self.memory / "memory.memsw.limit_in_bytes").write_text(bytes_)
            # +2: the two bwrap processes (the outer one and pid 1) live in it too.
            (self.pids / "pids.max").write_text(str(limits.max_processes + 2))
            if os.geteuid() == 0:  # without setpriv the joining shell is already nobody
                for group in (self.memory, self.pids):
                    os.chown(group / "cgroup.procs", NOBODY, NOBODY)
        except OSError:
            self.remove()
            raise

    def procs_files(self) -> list[Path]:
        return [self.memory / "cgroup.procs", self.pids / "cgroup.procs"]

    def limit_hit(self) -> str | None:
        if _counter_after(self.memory / "memory.oom_control", "oom_kill"):
            return "memory"  # the kernel's OOM killer killed a process of this seat
        if _counter_after(self.pids / "pids.events", "max"):
            return "processes"  # a fork was refused at pids.max
        return None

    def kill_all(self) -> None:
        for _ in range(50):
            pids = _read_pids(self.pids) | _read_pids(self.memory)
            if not pids:
                return
            for pid in pids:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            time.sleep(0.01)

    def remove(self) -> None:
        for path in (self.pids, self.memory):
            with contextlib.suppress(FileNotFoundError):
                for _ in range(100):
                    try:
                        path.rmdir()
                        break
                    except OSError:  # EBUSY while the last processes are being reaped
                        time.sleep(0.01)


def _counter_after(path: Path, key: str) -> int:
    """N from a 'key N' line of a cgroup file; 0 if the file or the line is missing."""
    try:
        fields = path.read_text().split()
        return int(fields[fields.index(key) + 1])
    except (OSError, ValueError, IndexError):
        return 0


def _read_pids(path: Path) -> set[int]:
    try:
        return {int(p) for p in (path / "cgroup.procs").read_text().split()}
    except (OSError, ValueError):
        return set()


def _own_cgroup(controller: str) -> Path:
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, names, path = line.split(":", 2)
        if controller in names.split(","):
            return Path("/sys/fs/cgroup") / controller / path.lstrip("/")
    raise OSError(f"no {controller} cgroup")


@functools.cache
def _sweep_stale_cgroups() -> None:
    """Once a process: remove the seat cgroups of workers that died without cleaning up."""
    for controller in ("memory", "pids"):
        with contextlib.suppress(OSError):
            for path in _own_cgroup(controller).glob("kaiser-*-*"):
                owner = path.name.split("-")[1]
                if owner.isdigit() and not Path(f"/proc/{owner}").exists():
                    with contextlib.suppress(OSError):
                        path.rmdir()  # refused while a process is still in it


def _make_cgroup(limits: SandboxLimits) -> _Cgroup | None:
    if os.environ.get("KAISER_SANDBOX_CGROUP", "1") == "0":
        return None
    _sweep_stale_cgroups()
    try:
        return _Cgroup(limits)
    except OSError:
        return None


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


class SandboxProcess:
    """One running bot program: its pipes, its death, and its complete removal."""

    def __init__(self, *, workdir: Path, run: Sequence[str], limits: SandboxLimits,
                 unsandboxed: bool = False) -> None:
        self.limits = limits
        self.unsandboxed = unsandboxed
        self._run = tuple(run)
        self._inner_pidfd: int | None = None
        self.pid_namespace: str | None = None  # e.g. "pid:[4026532301]", kept after kill()
        self._dev_tmp: str | None = None
        self._cgroup = None if unsandboxed else _make_cgroup(limits)
        try:
            started_r, started_w = _high_pipe()
            info_r, info_w = _high_pipe()
        except OSError as exc:  # the worker is out of file descriptors
            if self._cgroup is not None:
                self._cgroup.remove()
            raise InfrastructureError(f"could not start the sandbox: {exc}") from exc
        self._started_fd, self._info_fd = started_r, info_r
        try:
            self._proc = self._spawn(workdir, run, started_w, info_w)
        except (OSError, InfrastructureError) as exc:
            self._close_fds(started_r, info_r)
            if self._cgroup is not None:
                self._cgroup.remove()
            if isinstance(exc, InfrastructureError):
                raise
            raise InfrastructureError(f"could not start the sandbox: {exc}") from exc
        finally:
            self._close_fds(started_w, info_w)
        assert self._proc.stdin and self._proc.stdout and self._proc.stderr
        self.stdin_fd = self._proc.stdin.fileno()
        self.stdout_fd = self._proc.stdout.fileno()
        self.stderr_fd = self._proc.stderr.fileno()
        for fd in (self.stdin_fd, self.stdout_fd, self.stderr_fd):
            os.set_blocking(fd, False)

    def _spawn(self, workdir: Path, run: Sequence[str], started_w: int,
               info_w: int) -> subprocess.Popen[bytes]:
        inner = ["/bin/sh", "-c", _inner_script(self.limits, run, self._cgroup is not None),
                 "sh", *run]
        cgroup_files = self._cgroup.procs_files() if self._cgroup is not None else []
        outer = [_bash_path(), "-c", _outer_script(started_w, cgroup_files), "bash"]
        pipe = subprocess.PIPE
        if self.unsandboxed:
            self._dev_tmp = tempfile.mkdtemp(prefix="kaiser-bot-tmp-")
            env = {**_environment(), "TMPDIR": self._dev_tmp, "HOME": self._dev_tmp}
            return subprocess.Popen([*outer, *inner], cwd=workdir, env=env, stdin=pipe,
                                    stdout=pipe, stderr=pipe, pass_fds=(started_w,),
                                    start_new_session=True)
        command = [_bwrap_path(), *_namespace_args(), "--info-fd", str(info_w),
                   *_filesystem_args(workdir, self.limits),
                   *itertools.chain.from_iterable(("--setenv", k, v)
                                                  for k, v in _environment().items()),
                   "--", *inner]
        prefix, uid, groups = _run_as()
        return subprocess.Popen([*outer, *prefix, *command], env={}, stdin=pipe, stdout=pipe,
                                stderr=pipe, pass_fds=(started_w, info_w), user=uid, group=uid,
                                extra_groups=groups)

    @staticmethod
    def _close_fds(*fds: int) -> None:
        for fd in fds:
            with contextlib.suppress(OSError):
                os.close(fd)

    @property
    def pid(self) -> int:
        return self._proc.pid

    def wait_started(self, deadline: float) -> bool:
        """True once the bot program is exec'd inside the sandbox; False if not yet by deadline.

        Raises InfrastructureError if the sandbox itself failed to set up (bwrap exited before
        the limit shell signalled): that is never the bot's fault.
        """
        if self._started_fd < 0:
            return True
        if not _readable(self._started_fd, deadline - time.monotonic()):
            return False
        byte = os.read(self._started_fd, 1)
        self._close_fds(self._started_fd)
        self._started_fd = -1
        if byte == b"?":
            self._proc.wait()
            raise InfrastructureError(f"{self._run[0]!r} is not available in the sandbox")
        if byte != b".":
            self._proc.wait()
            raise InfrastructureError(f"the sandbox failed to start: {self._setup_error()}")
        self._open_inner_pidfd()
        return True

    def _setup_error(self) -> str:
        with contextlib.suppress(OSError):
            text = os.read(self.stderr_fd, 4096).decode(errors="replace").strip()
            if text:
                return text.splitlines()[0]
        return f"bwrap exited with status {self._proc.returncode}"

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
            self.pid_namespace = os.readlink(f"/proc/{child}/ns/pid")

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
        hit = self._cgroup.limit_hit() if self._cgroup is not None else None
        if hit is not None:
            return "resource", f"the sandbox's {hit} limit stopped the bot"
        if code is None:
            return "crash", "the bot closed its standard input or output"
        signum = -code if code < 0 else code - 128 if code > 128 else 0
        if signum in (signal.SIGXCPU, signal.SIGKILL):  # RLIMIT_CPU sends both; we send none
            return "resource", f"killed by the sandbox's CPU time limit (signal {signum})"
        if signum == signal.SIGXFSZ:
            return "resource", "killed by the file size limit"
        if signum:
            return "crash", f"killed by signal {signum}"
        return "crash", f"exited with status {code}"

    def limit_hit(self) -> str | None:
        return self._cgroup.limit_hit() if self._cgroup is not None else None

    def kill(self) -> None:
        """Kill every process of the bot and reap the sandbox. Idempotent; never raises."""
        self._open_inner_pidfd(wait_s=1.0)  # if start() never ran: bwrap tells it at once
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
        if self._cgroup is not None:
            self._cgroup.kill_all()
            self._cgroup.remove()
            self._cgroup = None
        for stream in (self._proc.stdin, self._proc.stdout, self._proc.stderr):
            with contextlib.suppress(OSError):
                stream.close()  # type: ignore[union-attr]
        self._close_fds(self._info_fd, self._started_fd)
        self._info_fd = self._started_fd = -1
        if self._dev_tmp is not None:
            shutil.rmtree(self._dev_tmp, ignore_errors=True)


def warn_unsandboxed() -> None:
    """Said for every bot program set up without the sandbox, so no log can miss it."""
    print("\n" + "!" * 78 + "\nWARNING: running bot programs WITHOUT the sandbox "
          "(unsandboxed=True or KAISER_UNSANDBOXED=1).\nA bot can read, write and delete "
          "anything this user can. Local development only.\n" + "!" * 78,
          file=sys.stderr, flush=True)
