"""Every seat its own kernel: gVisor's layout, sysroot and bundle (gvisor_backend starts it).

On one host kernel, two sandboxes still meet in every global counter, cache and allocator the
kernel keeps (socket cookies, pipe and pidfd inode numbers, the page cache, TCP memory): the
two seats of one bot could pass a hand through any of them, and a filter that refuses calls
one by one can never list them all. So each seat runs under gVisor (Debian's `runsc`): an
application kernel of its own (the Sentry) serves every system call of the bot, and the host
kernel sees only the Sentry's few calls under gVisor's own seccomp filter. Partners never
share a kernel; docs/sandbox.md says what still crosses.

Layout of a seat (host view), after the seat's cgroup, uid and /tmp are made:

    worker (root) -> bash, the seat's supervisor (scripts._gvisor_supervisor)
                  -> setpriv (the seat's own host uid)
                  -> runsc --rootless run (a user namespace of its own; the Sentry, the
                     gofer that serves the files, and the ptrace stubs, all in the cgroup)
                  -> /bin/sh inside gVisor (rlimits, 'started' on stdout) -> the bot

Inside, the bot is uid 0 of the seat's own user namespace with no capability at all: root of
nothing (its files on the host belong to the seat's uid), which lets the gofer create its files
in the seat's /tmp (a rootless gofer cannot give them to any other uid).

The platform (how the Sentry catches the bot's system calls): `kvm` hangs on our workers
(nested virtualisation); `ptrace` is in every runsc; `systrap` (faster calls, fewer host tasks a
process) is in the runsc of bookworm-backports and Debian 13 (0.0~20240729), not in Debian 12's
(0.0~20221219). KAISER_GVISOR_PLATFORM chooses; unset, a seat plays on DEFAULT_PLATFORM where
the runsc has it, else on ptrace (`platform`); the seat's reason (/health/, the worker's log)
names the runsc and the platform. The Sentry and its helpers cost memory and tasks of their own,
which the seat's cgroup gets on top of the bot's limits (MEMORY_EXTRA_MB, TASKS_EXTRA,
TASKS_PER_PROCESS).
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import functools
import hashlib
import json
import os
import re
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path

from engine.faults import InfrastructureError
from engine.sandbox.config import SandboxConfig, config
from engine.sandbox.filter import oci_rules
from engine.sandbox.procs import search_path, setup_once
from engine.sandbox.uids import left_by_the_dead, owner_token

# What the Sentry, the gofer and the ptrace stubs use beside the bot. Measured: an idle Python
# seat holds about 25 MB and 67 host tasks (runsc, the Sentry's and the gofer's Go threads);
# each process of the bot adds a ptrace stub and Sentry threads, 5 to 7 host tasks (30 busy
# children: 262 tasks). The seat's pids.max is TASKS_EXTRA + TASKS_PER_PROCESS a process.
# Under systrap a process of the bot costs 1.9 host tasks, not ptrace's 4.9 (no ptrace stub
# and tracer thread of its own): a fork bomb then meets pids.max, and ends as 'resource', as
# soon as under ptrace only with a smaller allowance a process.
MEMORY_EXTRA_MB = 128
TASKS_EXTRA = 96
TASKS_PER_PROCESS = {"ptrace": 8, "systrap": 4}
DEFAULT_PLATFORM = "ptrace"
_ROOT_DIRS = ("bot", "dev", "etc", "proc", "sys", "tmp", "usr")
_ETC_FILES = ("/etc/ld.so.cache", "/etc/localtime", "/etc/alternatives")
# Every file and folder a seat's binds show has its access time set this far ahead (2100):
# the host updates a relatime mount's access times only for one older than the file's change
# or a day old, so no seat's read ever changes a time another seat can look at (issue 31: a
# pair moved whole hands through the access times of a shared /usr).
PINNED_ATIME_NS = 4_102_444_800 * 10**9
MS_NOSUID, MS_NODEV, MS_NOATIME = 2, 4, 1024


def runsc_path(cfg: SandboxConfig | None = None) -> str | None:
    """KAISER_RUNSC if set (None if it is not an executable), else the runsc on PATH."""
    chosen = (cfg or config()).runsc
    if chosen is not None:
        return str(chosen) if os.access(chosen, os.X_OK) else None
    return shutil.which("runsc", path=search_path())


@functools.cache
def runsc_facts(runsc: str) -> tuple[str, tuple[str, ...]]:
    """(version, platforms) of a runsc: the first line of `runsc --version` ("runsc version
    0.0~20240729.0"), and the platforms its --platform flag names in `runsc flags`."""
    try:
        version = subprocess.run([runsc, "--version"], capture_output=True, text=True,
                                 timeout=30).stdout.strip().splitlines()
        flags = subprocess.run([runsc, "flags"], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError) as exc:
        raise InfrastructureError(f"could not run {runsc}: {exc}") from exc
    said = re.search(r"-platform string\s*\n\s*(.*)", flags)
    platforms = tuple(dict.fromkeys(re.findall(r"\b(ptrace|systrap|kvm)\b", said.group(1))
                                    if said else ["ptrace"]))
    return (version[0].removeprefix("runsc version ") if version else "of unknown version"), \
        platforms


def platform(cfg: SandboxConfig) -> str:
    """The platform this worker's seats play on: KAISER_GVISOR_PLATFORM's (an error that names
    the runsc if it lacks it), else DEFAULT_PLATFORM where the runsc has it, else ptrace."""
    runsc = runsc_path(cfg)
    if runsc is None:
        raise InfrastructureError("runsc (gVisor) is not installed: apt-get install runsc")
    version, platforms = runsc_facts(runsc)
    asked = cfg.gvisor_platform
    if asked and asked not in platforms:
        raise InfrastructureError(
            f"KAISER_GVISOR_PLATFORM={asked}, but {runsc} ({version}) has no {asked} platform "
            f"(it has {', '.join(platforms)}): install the runsc of bookworm-backports "
            "(scripts/bootstrap.sh does) or choose ptrace")
    return asked or (DEFAULT_PLATFORM if DEFAULT_PLATFORM in platforms else "ptrace")


def choose_kernel(cfg: SandboxConfig) -> tuple[str, str]:
    """('gvisor' | 'host', why): where the seats of this worker play.

    gVisor wherever runsc is installed and the worker is root (a server); the host's kernel
    only by the operator's choice (KAISER_SANDBOX_KERNEL=host, or ..._ALLOW_SHARED_KERNEL=1,
    which the local runner sets), never silently on a server.
    """
    asked = cfg.kernel
    if asked == "host":
        return "host", "the host's kernel, shared by every seat (KAISER_SANDBOX_KERNEL=host)"
    missing = None
    runsc = runsc_path(cfg)
    if runsc is None:
        missing = "runsc (gVisor) is not installed (apt-get install runsc)"
    elif os.geteuid() != 0:
        missing = "not root, so no seat cgroups to hold gVisor's kernels"
    if runsc is not None and missing is None:
        return "gvisor", (f"every seat its own gVisor kernel (runsc {runsc_facts(runsc)[0]}, "
                          f"{platform(cfg)} platform)")
    if asked != "gvisor" and cfg.allow_shared_kernel:
        return "host", f"the host's kernel, shared by every seat: {missing}"
    raise InfrastructureError(
        f"{missing}; this worker will not play with the seats of a match on one kernel "
        "(install runsc as root, or set KAISER_SANDBOX_ALLOW_SHARED_KERNEL=1 to play on the "
        "host's kernel: partners could then signal through its shared state, see "
        "docs/sandbox.md)")


@setup_once
def rootfs(state: Path) -> Path:
    """The read-only root every seat's bundle shares: empty mount points and the /usr links.

    Made once a worker; nothing in it is ever written (the seat's root is mounted read-only)."""
    root = state / f"rootfs-{owner_token()}"
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
    pin_atimes(root)
    return root


def pin_atimes(root: Path) -> None:
    """Every access time under root (root included) set ahead to PINNED_ATIME_NS, the
    modification times kept: reads there then change nothing on the host (see above)."""
    def pin(path: str) -> None:
        st = os.lstat(path)
        os.utime(path, ns=(PINNED_ATIME_NS, st.st_mtime_ns), follow_symlinks=False)

    for folder, folders, files in os.walk(root, topdown=False):
        for name in (*files, *folders):
            pin(os.path.join(folder, name))
    pin(str(root))


# --- the seat's /usr: a copy in memory ---------------------------------------------------------
# The seats' gofers read their files through the host's kernel, whose page cache every seat
# shares: a file or a page that nobody has read lately is slow to read the first time, so a
# seat that reads chosen pages of a cold file tells its partner, who times them, a bit each
# (the tests' page-cache probe read most hands so out of /usr/lib/chromium). The seats' /usr is
# therefore a copy, in a tmpfs, of what bots may run: Python 3.11 and its standard library,
# Node, sh, and the libraries they link. A tmpfs page is never cold: every read of it costs
# the same, whatever another seat did.
SYSROOT_LAYOUT = 2  # 2: /etc's files copied too, access times pinned
_SYSROOT_PROGRAMS = ("/usr/bin/python3.11", "/usr/bin/node", "/usr/bin/dash")
# /usr/share/nodejs: Debian's Node loads some of its own built-in modules from there.
_SYSROOT_TREES = ("/usr/lib/python3.11", "/usr/share/nodejs")
_SYSROOT_LINKS = {"usr/bin/python3": "python3.11", "usr/bin/sh": "dash"}
# The C and C++ runtime, for executables linked against them (docs/bot-authors.md).
_SYSROOT_LIBRARIES = ("libc.so.6", "libm.so.6", "libstdc++.so.6", "libgcc_s.so.1",
                      "libpthread.so.0", "libdl.so.2", "librt.so.1", "libz.so.1")


def _linked_libraries(files: list[str]) -> set[str]:
    """Every shared library the files link (ldd), by the path the loader asks for."""
    found: set[str] = set()
    for start in range(0, len(files), 64):
        result = subprocess.run(["ldd", *files[start:start + 64]], capture_output=True,
                                text=True, check=False)
        for line in result.stdout.splitlines():
            words = line.split()
            if "=>" in words and len(words) > words.index("=>") + 1:
                target = words[words.index("=>") + 1]
                if target.startswith("/"):
                    found.add(target)
            elif words and words[0].startswith("/") and not words[0].endswith(":"):
                found.add(words[0])  # the loader itself (a "FILE:" line heads each file)
    return found


def _sysroot_sources() -> dict[str, str]:
    """{path in the seat's root: host file} for the copy (/etc's files a seat sees too: a
    bind of the host's own would show the host's access times)."""
    files = [path for path in _SYSROOT_PROGRAMS if os.path.exists(path)]
    for tree in _SYSROOT_TREES:
        for folder, _, names in os.walk(tree, followlinks=True):
            if "__pycache__" in folder:
                continue
            files += [os.path.join(folder, name) for name in names]
    libdir = Path(os.path.realpath("/usr/lib/x86_64-linux-gnu"))
    wanted = [str(libdir / name) for name in _SYSROOT_LIBRARIES if (libdir / name).exists()]
    linked = _linked_libraries([f for f in files if f.endswith(".so") or f in
                                _SYSROOT_PROGRAMS] + wanted)
    sources = {}
    for path in [*files, *wanted, *linked]:
        # The name the loader asks for, in the folder it really is in (/lib -> /usr/lib).
        inside = os.path.join(os.path.realpath(os.path.dirname(path)), os.path.basename(path))
        sources[inside.lstrip("/")] = os.path.realpath(path)
    for etc in _ETC_FILES:
        if os.path.isfile(etc):  # /etc/localtime: the zone file it names
            sources[etc.lstrip("/")] = os.path.realpath(etc)
    return sources


def _etc_links() -> dict[str, str]:
    """/etc/alternatives, a folder of links into /usr: copied as links."""
    links = {}
    for etc in _ETC_FILES:
        if os.path.isdir(etc):
            for entry in os.scandir(etc):
                if entry.is_symlink():
                    links[os.path.join(etc, entry.name).lstrip("/")] = os.readlink(entry.path)
    return links


def _mount_of(path: Path) -> tuple[str, list[str]]:
    """The type and options of the mount that holds path."""
    best, kind, options = "", "", [""]
    with open("/proc/self/mounts") as mounts:
        for line in mounts:
            fields = line.split()
            point = fields[1]
            if (str(path) + "/").startswith(point.rstrip("/") + "/") and len(point) >= len(best):
                best, kind, options = point, fields[2], fields[3].split(",")
    return kind, options


def _on_tmpfs(path: Path) -> bool:
    kind, options = _mount_of(path)
    if "noexec" in options:  # gVisor maps the interpreters from it: they would not start
        raise InfrastructureError(f"{path} is mounted noexec: the seats' /usr cannot run "
                                  "from it (mount it with exec)")
    return kind == "tmpfs"


@setup_once
def sysroot() -> tuple[Path, str]:
    """The in-memory copy of /usr for every seat of this host (made once, under a lock, by
    the first worker that needs it; named by what it holds, so an upgrade makes a new one),
    and a line for the probe's reason."""
    # One a host, whatever state folder a worker has (tests give workers their own): the
    # copy is named by what it holds, so every worker of the host shares it.
    base = config().sysroot
    base.mkdir(mode=0o755, parents=True, exist_ok=True)
    note = "/usr a copy in memory"
    if not _on_tmpfs(base) and (os.geteuid() != 0 or _mount_tmpfs(base) != 0):
        note = f"/usr a copy NOT in memory ({base} is not a tmpfs): a page-cache channel"
    if "strictatime" in _mount_of(base)[1]:
        note += f"; {base} is mounted strictatime: reads there change access times"
    sources = _sysroot_sources()
    links = {**_etc_links(), **_SYSROOT_LINKS}
    digest = hashlib.sha256(json.dumps([SYSROOT_LAYOUT, sorted(links.items()), sorted(
        (inside, os.stat(source).st_size, os.stat(source).st_mtime_ns)
        for inside, source in sources.items())]).encode()).hexdigest()[:16]
    root = base / digest
    with open(base / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (root / ".complete").exists():
            shutil.rmtree(root, ignore_errors=True)
            for inside, source in sources.items():
                target = root / inside
                target.parent.mkdir(mode=0o755, parents=True, exist_ok=True)
                shutil.copy2(source, target)
            for link, points_to in links.items():
                (root / link).parent.mkdir(mode=0o755, parents=True, exist_ok=True)
                (root / link).symlink_to(points_to)
            pin_atimes(root)
            (root / ".complete").touch()
    return root, note


def _mount_tmpfs(path: Path) -> int:
    libc = ctypes.CDLL(None, use_errno=True)
    flags = MS_NOSUID | MS_NODEV | MS_NOATIME
    return int(libc.mount(b"tmpfs", bytes(path), b"tmpfs", flags, b"mode=0755,size=1g"))


def _bind(source: str, destination: str, *, writable: bool = False) -> dict[str, object]:
    return {"destination": destination, "type": "bind", "source": source,
            "options": ["rbind", "rw" if writable else "ro", "nosuid", "nodev"]}


def _mounts(root: Path, workdir: Path | None, tmp: Path | None, tmp_mb: int,
            usr: Path) -> list[object]:
    # /sys: gVisor would mount its own sysfs; nothing of it is a bot's business. /dev/shm
    # read-only, as on the host's kernel. /dev itself stays gVisor's (read-only, its device
    # files could not be opened for writing): the bot, uid 0 of its kernel, can make files
    # there, in the Sentry's memory, which the seat's memory limit holds (docs/sandbox.md).
    empty = ["ro", "nosuid", "nodev", "noexec", "size=4096"]
    mounts: list[object] = [{"destination": "/proc", "type": "proc", "source": "proc"},
                            {"destination": "/sys", "type": "tmpfs", "source": "tmpfs",
                             "options": empty},
                            {"destination": "/dev/shm", "type": "tmpfs", "source": "tmpfs",
                             "options": empty},
                            _bind(str(usr / "usr"), "/usr")]
    for name in ("bin", "lib", "lib32", "lib64", "sbin"):
        if (root / name).is_dir() and not (root / name).is_symlink():
            mounts.append(_bind(f"/{name}", f"/{name}"))
    mounts += [_bind(str(usr / etc.lstrip("/")), etc) for etc in _ETC_FILES
               if os.path.lexists(usr / etc.lstrip("/"))]
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
                  args: Sequence[str], env: dict[str, str], rlimits: dict[str, int],
                  usr: Path) -> str:
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
        "mounts": _mounts(root, workdir, tmp, tmp_mb, usr),
        "linux": {"namespaces": [{"type": kind} for kind in
                                 ("pid", "network", "ipc", "uts", "mount")],
                  "seccomp": oci_rules()},
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

    def command(self, runsc: str, platform: str) -> list[str]:
        # --ignore-cgroups: the seat's cgroups are made and joined before runsc starts, so
        # runsc, the Sentry and the gofer all live in them; runsc must not move them.
        # --oci-seccomp: the config's filter (filter.oci_rules) applies inside gVisor.
        return [runsc, "--rootless", f"--root={self.runsc_root}", f"--platform={platform}",
                "--network=none", "--ignore-cgroups", "--oci-seccomp", "run", "--bundle",
                str(self.path), self.name]

    def remove(self) -> None:
        with contextlib.suppress(OSError):
            shutil.rmtree(self.path)


def sweep_stale(state: Path) -> None:
    """Bundles and roots of workers that died without cleaning up."""
    with contextlib.suppress(OSError):
        for path in state.glob("*-*"):
            if left_by_the_dead(path):
                shutil.rmtree(path, ignore_errors=True)
