"""Every seat its own kernel: the gVisor side of the sandbox (engine.sandbox starts the seat).

On one host kernel, two sandboxes still meet in every global counter, cache and allocator the
kernel keeps (socket cookies, pipe and pidfd inode numbers, the page cache, TCP memory): the
two seats of one bot could pass a hand through any of them, and a filter that refuses calls
one by one can never list them all. So each seat runs under gVisor (Debian's `runsc`): an
application kernel of its own (the Sentry) serves every system call of the bot, and the host
kernel sees only the Sentry's few calls under gVisor's own seccomp filter. Partners never
share a kernel; docs/sandbox.md says what still crosses.

Layout of a seat (host view), after engine.sandbox has made the seat's cgroup, uid and /tmp:

    worker (root) -> bash (joins the seat's cgroups) -> setpriv (the seat's own host uid)
                  -> runsc --rootless run (a user namespace of its own; the Sentry, the
                     gofer that serves the files, and the ptrace stubs, all in the cgroup)
                  -> /bin/sh inside gVisor (rlimits, 'started' on stdout) -> the bot

Inside, the bot is uid 0 of the seat's own user namespace with no capability at all: root of
nothing (its files on the host belong to the seat's uid), which lets the gofer create its files
in the seat's /tmp (a rootless gofer cannot give them to any other uid).

The ptrace platform: `kvm` hangs on our workers (nested virtualisation), and the newer
`systrap` is not in Debian's runsc. The Sentry and its helpers cost memory and tasks of their
own, which the seat's cgroup gets on top of the bot's limits (MEMORY_EXTRA_MB, TASKS_EXTRA).
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import shutil
from collections.abc import Sequence
from pathlib import Path

from engine.faults import InfrastructureError

# What the Sentry, the gofer and the ptrace stubs use beside the bot (measured: an idle Python
# seat's Sentry holds about 40 MB and 30 to 40 host tasks, mostly Go runtime threads).
MEMORY_EXTRA_MB = 128
TASKS_EXTRA = 96
PLATFORM = "ptrace"
_ROOT_DIRS = ("bot", "dev", "etc", "proc", "tmp", "usr")
_ETC_FILES = ("/etc/ld.so.cache", "/etc/localtime", "/etc/alternatives")


def runsc_path() -> str | None:
    return shutil.which("runsc", path=os.environ.get("PATH"))


def choose_kernel() -> tuple[str, str]:
    """('gvisor' | 'host', why): where the seats of this worker play.

    gVisor wherever runsc is installed and the worker is root (a server); the host's kernel
    only by the operator's choice (KAISER_SANDBOX_KERNEL=host, or ..._ALLOW_SHARED_KERNEL=1,
    which the local runner sets), never silently on a server.
    """
    asked = os.environ.get("KAISER_SANDBOX_KERNEL", "")
    if asked not in ("", "gvisor", "host"):
        raise InfrastructureError(f"KAISER_SANDBOX_KERNEL must be gvisor or host, not {asked!r}")
    if asked == "host":
        return "host", "the host's kernel, shared by every seat (KAISER_SANDBOX_KERNEL=host)"
    missing = None
    if runsc_path() is None:
        missing = "runsc (gVisor) is not installed (apt-get install runsc)"
    elif os.geteuid() != 0:
        missing = "not root, so no seat cgroups to hold gVisor's kernels"
    if missing is None:
        return "gvisor", f"every seat its own gVisor kernel (runsc, {PLATFORM} platform)"
    if asked != "gvisor" and os.environ.get("KAISER_SANDBOX_ALLOW_SHARED_KERNEL", "") == "1":
        return "host", f"the host's kernel, shared by every seat: {missing}"
    raise InfrastructureError(
        f"{missing}; this worker will not play with the seats of a match on one kernel "
        "(install runsc as root, or set KAISER_SANDBOX_ALLOW_SHARED_KERNEL=1 to play on the "
        "host's kernel: partners could then signal through its shared state, see "
        "docs/sandbox.md)")


@functools.cache
def rootfs(state: Path) -> Path:
    """The read-only root every seat's bundle shares: empty mount points and the /usr links.

    Made once a worker; nothing in it is ever written (the seat's root is mounted read-only)."""
    root = state / f"rootfs-{os.getpid()}"
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(mode=0o755, parents=True)
    for name in _ROOT_DIRS:
        (root / name).mkdir(mode=0o755)
    for name in ("bin", "lib", "lib32", "lib64", "sbin"):
        host = Path("/") / name
        if host.is_symlink():
            (root / name).symlink_to(os.readlink(host))
        elif host.is_dir():
            (root / name).mkdir(mode=0o755)
    for etc in _ETC_FILES:
        if os.path.isdir(etc):
            (root / etc.lstrip("/")).mkdir(mode=0o755)
        elif os.path.exists(etc):
            (root / etc.lstrip("/")).touch(mode=0o644)
    return root


def _bind(source: str, destination: str, *, writable: bool = False) -> dict[str, object]:
    return {"destination": destination, "type": "bind", "source": source,
            "options": ["rbind", "rw" if writable else "ro", "nosuid", "nodev"]}


def _mounts(root: Path, workdir: Path | None, tmp: Path | None, tmp_mb: int) -> list[object]:
    mounts: list[object] = [{"destination": "/proc", "type": "proc", "source": "proc"},
                            _bind("/usr", "/usr")]
    for name in ("bin", "lib", "lib32", "lib64", "sbin"):
        if (root / name).is_dir() and not (root / name).is_symlink():
            mounts.append(_bind(f"/{name}", f"/{name}"))
    mounts += [_bind(etc, etc) for etc in _ETC_FILES if os.path.exists(etc)]
    if tmp is not None:
        mounts.append(_bind(str(tmp), "/tmp", writable=True))
    else:  # gVisor's own tmpfs: its files live in the Sentry's memory, under the seat's cgroup
        mounts.append({"destination": "/tmp", "type": "tmpfs", "source": "tmpfs",
                       "options": ["nosuid", "nodev", f"size={tmp_mb << 20}", "mode=1777"]})
    if workdir is not None:
        mounts.append(_bind(str(workdir), "/bot"))
    return mounts


def _rlimits(entries: dict[str, int]) -> list[dict[str, object]]:
    return [{"type": name, "hard": value, "soft": value} for name, value in entries.items()]


def bundle_config(*, root: Path, workdir: Path | None, tmp: Path | None, tmp_mb: int,
                  args: Sequence[str], env: dict[str, str], rlimits: dict[str, int]) -> str:
    """The OCI config.json of one seat."""
    config = {
        "ociVersion": "1.0.2",
        "process": {
            "terminal": False, "user": {"uid": 0, "gid": 0}, "args": list(args),
            "env": [f"{key}={value}" for key, value in env.items()],
            "cwd": "/bot" if workdir is not None else "/",
            "capabilities": {kind: [] for kind in ("bounding", "effective", "inheritable",
                                                   "permitted", "ambient")},
            "noNewPrivileges": True,
            "rlimits": _rlimits(rlimits),
        },
        "root": {"path": str(root), "readonly": True},
        "hostname": "bot",
        "mounts": _mounts(root, workdir, tmp, tmp_mb),
        "linux": {"namespaces": [{"type": kind} for kind in
                                 ("pid", "network", "ipc", "uts", "mount")]},
    }
    return json.dumps(config)


class SeatBundle:
    """The seat's OCI bundle and runsc state folder, removed with the seat."""

    def __init__(self, state: Path, name: str, owner: int | None, config: str) -> None:
        self.path = state / name
        self.path.mkdir(mode=0o755)
        (self.path / "config.json").write_text(config)
        os.chmod(self.path / "config.json", 0o644)
        self.runsc_root = self.path / "runsc"
        self.runsc_root.mkdir(mode=0o700)
        if owner is not None:
            os.chown(self.runsc_root, owner, owner)
        self.name = name

    def command(self, runsc: str) -> list[str]:
        # --ignore-cgroups: the seat's cgroups are made and joined before runsc starts, so
        # runsc, the Sentry and the gofer all live in them; runsc must not move them.
        return [runsc, "--rootless", f"--root={self.runsc_root}", f"--platform={PLATFORM}",
                "--network=none", "--ignore-cgroups", "run", "--bundle", str(self.path),
                self.name]

    def remove(self) -> None:
        with contextlib.suppress(OSError):
            shutil.rmtree(self.path)


def sweep_stale(state: Path) -> None:
    """Bundles and roots of workers that died without cleaning up."""
    with contextlib.suppress(OSError):
        for path in state.glob("*-*"):
            owner = path.name.split("-")[1]
            if owner.isdigit() and not Path(f"/proc/{owner}").exists():
                shutil.rmtree(path, ignore_errors=True)
