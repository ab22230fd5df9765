"""The seat's /tmp, one of three ways: a slot of the worker container's pool of tmpfs mounts
(KAISER_SANDBOX_TMP_SLOTS), a tmpfs the (root) worker mounts for the seat, or, where neither
can be had, the boundary's own tmpfs (bwrap's or gVisor's; make_seat_tmp returns None then).
The first two have an inode limit; the last only a size.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import os
import shutil
import tempfile
from pathlib import Path

from engine.faults import InfrastructureError
from engine.sandbox.config import SandboxConfig
from engine.sandbox.limits import SandboxLimits
from engine.sandbox.procs import setup_once
from engine.sandbox.uids import (
    _counter,
    _hold_first_free,
    _seat_name,
    _state_dir,
    left_by_the_dead,
    owner_token,
)

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
        self.path = _state_dir("tmp") / _seat_name()
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
        self.path, self._fd = Path(held[0]), held[1]
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


@setup_once
def _sweep_stale_tmp() -> None:
    with contextlib.suppress(OSError):
        for path in _state_dir("tmp").glob("kaiser-*-*"):
            if left_by_the_dead(path):
                _libc.umount2(bytes(path), MNT_DETACH)
                with contextlib.suppress(OSError):
                    path.rmdir()


def make_seat_tmp(cfg: SandboxConfig, limits: SandboxLimits, owner: int | None,
                  held_by_cgroup: bool) -> tuple[_Tmpfs | None, str]:
    """The seat's /tmp for a seat of its own uid (owner; None: not root, no uid, no /tmp of
    its own), and a note for the probe's reason when it has no inode limit."""
    if owner is None:
        return None, ""
    if cfg.tmp_slots is not None:
        try:
            return _SlotTmp(cfg.tmp_slots, owner), ""
        except OSError as exc:
            raise InfrastructureError(f"no seat /tmp slot in {cfg.tmp_slots}: {exc}") from exc
    # KAISER_SANDBOX_TMP_MOUNT=0: bwrap's own tmpfs, as in a container without the
    # capability to mount (tests use it to check that the memory cgroup holds then).
    if not cfg.tmp_mount:
        return None, ""
    _sweep_stale_tmp()
    try:
        return _SeatTmp(limits, owner), ""
    except OSError as exc:
        return None, (f"; /tmp without an inode limit ({exc.strerror or exc}):"
                      + (" its files count against the seat's memory cgroup"
                         if held_by_cgroup else " unbounded"))


def own_bot_dir(cfg: SandboxConfig) -> Path:
    """An empty folder that becomes a seat's /bot (the seat's copy of its program): in the
    worker's state folder when root (seats traverse it), else in the temporary folder."""
    base = _state_dir("bots") if os.geteuid() == 0 and not cfg.unsandboxed else \
        Path(tempfile.gettempdir())
    _sweep_stale_bot_dirs(base)
    path = Path(tempfile.mkdtemp(prefix=f"kaiser-seat-{owner_token()}-", dir=base))
    os.chmod(path, 0o755)
    return path


_swept_bot_dirs: set[Path] = set()


def _sweep_stale_bot_dirs(base: Path) -> None:
    """Once a process and folder: remove the seats' folders of workers that were killed."""
    if base in _swept_bot_dirs:
        return
    _swept_bot_dirs.add(base)
    for path in base.glob("kaiser-seat-*-*"):
        if left_by_the_dead(path, part=2):
            shutil.rmtree(path, ignore_errors=True)
