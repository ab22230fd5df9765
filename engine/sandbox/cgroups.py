"""Per-seat cgroups behind one small interface (_Cgroup): the memory and the processes of the
whole seat, one core of CPU, its CPU time, and its freezer. v1: a cgroup a controller below
the worker's own; v2: one cgroup in the delegated subtree (KAISER_SANDBOX_CGROUP_ROOT).

Where no such cgroup can be made the worker refuses to play (InfrastructureError, never the
bot's fault) unless the operator opted into the rlimit fallback (_make_cgroup).
"""

from __future__ import annotations

import contextlib
import errno
import os
import signal
import time
from pathlib import Path

from engine.faults import InfrastructureError
from engine.sandbox.config import SandboxConfig, config
from engine.sandbox.limits import SandboxLimits
from engine.sandbox.procs import setup_once
from engine.sandbox.uids import _seat_name, left_by_the_dead

CPU_PERIOD_US = 100_000  # the seat's CPU quota: one core (a full period of every period)
class _Cgroup:
    """The seat's cgroups: memory and processes of the whole seat, and one core of CPU."""

    mode = ""
    # v1 keeps the list of an open cgroup.procs for a second after each read: a kept file
    # would miss the processes forked meanwhile, so it is opened afresh each time there.
    reopen_procs = False

    def procs_files(self) -> list[Path]:
        raise NotImplementedError

    def pids_file(self) -> Path:
        """The cgroup.procs file that lists every process of the seat."""
        raise NotImplementedError

    def pids(self) -> set[int]:
        raise NotImplementedError

    def folders(self) -> list[str]:
        """The seat's folders in the cgroup hierarchy."""
        raise NotImplementedError

    def freeze_only_below(self, pid: int) -> None:
        """Only pid and its descendants stay in the seat's freezer (where that can be done)."""

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
    reopen_procs = True

    def __init__(self, limits: SandboxLimits, owner: int | None,
                 extra: tuple[int, int] = (0, 2)) -> None:
        name = _seat_name()
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

    def folders(self) -> list[str]:
        return sorted({str(path) for path in self.paths.values()})

    def freeze_only_below(self, pid: int) -> None:
        """Only pid and its descendants stay in the seat's freezer; the seat's other
        processes move to the worker's freezer cgroup, still held by the seat's memory, pids
        and CPU cgroups (kill_all finds them there).

        Every task of a freezer cgroup is woken to freeze and woken again to thaw, on the
        engine's critical path: under gVisor only the Sentry (pid) and its ptrace stubs run
        the bot's code or calls, and runsc's launcher and gofer (about half the seat's tasks,
        which serve the Sentry alone) need not pay that twice a decision."""
        folder = self.paths.get("freezer")
        if folder is None:
            return
        procs = _read_ids(folder / "cgroup.procs")
        keep = {pid}
        for _ in procs:  # descendants, whatever the order of the listing
            keep |= {child for child in procs if _parent_pid(child) in keep}
        for other in procs:
            if other not in keep:
                with contextlib.suppress(OSError):  # gone already
                    _write(folder.parent / "cgroup.procs", str(other))

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
        self.path = root / _seat_name()
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

    def folders(self) -> list[str]:
        return [str(self.path)]

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


def _parent_pid(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return int(stat.read().rsplit(b")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return 0


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


def _cgroup_v2_root(cfg: SandboxConfig) -> Path | None:
    """The delegated subtree for seat cgroups (cgroup v2), if this host has one."""
    if cfg.cgroup_root is not None:
        return cfg.cgroup_root
    if Path("/sys/fs/cgroup/cgroup.controllers").exists():  # a pure v2 host
        return Path("/sys/fs/cgroup/kaiser-seats")
    return None


@setup_once
def _sweep_stale_cgroups() -> None:
    """Once a process: remove the seat cgroups of workers that died without cleaning up."""
    parents = []
    # The freezer first: a frozen task cannot die (v1), so its seat is thawed, then killed.
    for controller in ("freezer", "memory", "pids", "cpu", "cpuacct"):
        with contextlib.suppress(OSError):
            parents.append(_own_cgroup_v1(controller))
    root = _cgroup_v2_root(config())
    if root is not None:
        parents.append(root)
    for parent in parents:
        with contextlib.suppress(OSError):
            for path in parent.glob("kaiser-*-*"):
                if left_by_the_dead(path):
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


def _make_cgroup(limits: SandboxLimits, owner: int | None, extra: tuple[int, int] = (0, 2),
                 cfg: SandboxConfig | None = None) -> tuple[_Cgroup | None, str]:
    """The seat's cgroup and a line saying why this mode; raises when the seat may not play.

    extra: the memory (MB) and tasks that the sandbox itself needs beside the bot's limits."""
    cfg = cfg or config()
    if not cfg.cgroup:
        return None, "per-process rlimits: per-seat cgroups turned off (KAISER_SANDBOX_CGROUP=0)"
    _sweep_stale_cgroups()
    root = _cgroup_v2_root(cfg)
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
    if cfg.rlimit_fallback_allowed:
        return None, f"per-process rlimits (KAISER_SANDBOX_ALLOW_RLIMIT=1): {why}"
    raise InfrastructureError(
        f"{why}; this worker will not play without per-seat memory and process limits "
        "(set up a delegated cgroup subtree, see docs/operations.md, or set "
        "KAISER_SANDBOX_ALLOW_RLIMIT=1 to play with per-process rlimits)")
