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

# Numbers the names of a worker's seat cgroups, /tmp mounts and bundles (kaiser-PID-N).
_counter = itertools.count()


def _seat_name() -> str:
    return f"kaiser-{os.getpid()}-{next(_counter)}"


def _state_dir(name: str) -> Path:
    """A root-only folder of the worker's machine-wide state (uid locks, seat /tmp mounts)."""
    base = config().state_dir
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

    def __init__(self, uids: range) -> None:
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
