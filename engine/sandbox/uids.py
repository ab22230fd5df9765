"""Each seat a host uid of its own, from the range reserved for seats (KAISER_SEAT_UIDS), and
the worker's root-only state folder (uid locks, seat /tmp mounts, gVisor bundles)."""

from __future__ import annotations

import fcntl
import itertools
import os
from collections.abc import Sequence
from pathlib import Path

from engine.faults import InfrastructureError
from engine.sandbox.config import config

# Numbers the names of a worker's seat cgroups, /tmp mounts and bundles (kaiser-OWNER-N).
_counter = itertools.count()
_owners: dict[int, str] = {}


def _start_ticks(pid: int) -> str:
    """The process's start time, in clock ticks since the host booted (/proc/PID/stat's 22nd
    field): "" if no such process. A pid is reused; a pid and its start time are not."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            return handle.read().rsplit(b")", 1)[1].split()[19].decode()
    except (OSError, IndexError):
        return ""


def owner_token() -> str:
    """This process in names of what it leaves on the host: "PID.START". A worker killed and
    restarted in the same container gets the same pids as the dead one (issue 44: 'File
    exists' on its seat folders), never the same start times."""
    pid = os.getpid()  # a forked child is an owner of its own
    if pid not in _owners:
        _owners[pid] = f"{pid}.{_start_ticks(pid)}"
    return _owners[pid]


def owner_gone(owner: str) -> bool:
    """Whether the process named by an owner token ("PID.START", or an older name's "PID")
    has died: no such pid, or the pid now another process's (its start time differs)."""
    pid, _, start = owner.partition(".")
    if not pid.isdigit():
        return False  # not a name of ours: left alone
    now = _start_ticks(int(pid))
    return not now or bool(start) and now != start


def left_by_the_dead(path: Path, part: int = 1) -> bool:
    """A file named kaiser-OWNER-... (the owner at dash-separated `part`) whose owner died."""
    parts = path.name.split("-")
    return len(parts) > part and owner_gone(parts[part])


def _seat_name() -> str:
    return f"kaiser-{owner_token()}-{next(_counter)}"


def _state_dir(name: str) -> Path:
    """A root-only folder of the worker's machine-wide state (uid locks, seat /tmp mounts)."""
    base = config().state_dir
    path = base / name
    path.mkdir(parents=True, exist_ok=True)
    os.chmod(base, 0o711)  # seats must traverse it to reach their own /tmp
    return path


def _hold_first_free(paths: Sequence[Path | str], start: int,
                     flags: int) -> tuple[Path | str, int] | None:
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


class _Names(Sequence[str]):
    """prefix + each number of a range, as a sequence: made when asked for."""

    def __init__(self, prefix: str, numbers: range) -> None:
        self._prefix, self._numbers = prefix, numbers

    def __len__(self) -> int:
        return len(self._numbers)

    def __getitem__(self, index: int) -> str:  # type: ignore[override]
        return f"{self._prefix}{self._numbers[index]}"


class _SeatUid:
    """A uid of the reserved range, held (flock on its lock file) by one seat at a time.

    The lock lives as long as the worker process holds the file open, so a worker that dies
    frees its uids, and two workers on one host never give a uid to two seats.
    """

    def __init__(self, uids: range) -> None:
        folder = _state_dir("uids")
        start = (os.getpid() * 7 + next(_counter) * 4) % len(uids)
        # The lock files' names, made as they are tried (a list of every uid's Path cost
        # 100 ms of the engine's CPU a seat: 4,000 of them, where the first try mostly holds).
        held = _hold_first_free(_Names(f"{folder}/", uids), start, os.O_RDWR | os.O_CREAT)
        if held is None:
            raise InfrastructureError(f"all {len(uids)} seat uids (KAISER_SEAT_UIDS) are in use")
        self.uid, self._fd = int(os.path.basename(held[0])), held[1]

    def release(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1
