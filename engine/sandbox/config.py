"""The sandbox's configuration: the one place that reads the environment for the sandbox.

Architecture invariant: no other module reads a KAISER_SANDBOX_* variable, KAISER_SEAT_UIDS or
KAISER_UNSANDBOXED (tests/architecture/test_sandbox_package.py holds it); they ask `config()`.

`config()` parses the variables once and again only when one of their values changes (tests
monkeypatch them), so a seat costs a few dictionary look-ups, not a parse. An invalid value is
an InfrastructureError of one line naming the variable and what it accepts.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any, TypeVar

from engine.faults import InfrastructureError
from engine.sandbox.limits import SandboxLimits

DEFAULT_SEAT_UIDS = "620000-623999"
DEFAULT_STATE_DIR = "/run/kaiser-arena"
# One a host, whatever state folder a worker has (engine.sandbox.gvisor.sysroot).
DEFAULT_SYSROOT = "/run/kaiser-arena/gvisor/sysroot"
KERNELS = ("", "gvisor", "host")
_TRUE, _FALSE = ("1", "true", "yes", "on"), ("0", "false", "no", "off")
# The limits: SandboxLimits's field, its variable.
LIMIT_VARIABLES = {"memory_mb": "KAISER_SANDBOX_MEMORY_MB",
                   "cpu_seconds": "KAISER_SANDBOX_CPU_SECONDS",
                   "max_processes": "KAISER_SANDBOX_PROCESSES",
                   "file_size_mb": "KAISER_SANDBOX_FILE_MB",
                   "tmp_mb": "KAISER_SANDBOX_TMP_MB",
                   "tmp_inodes": "KAISER_SANDBOX_TMP_INODES"}
VARIABLES = ("KAISER_UNSANDBOXED", "KAISER_SANDBOX_KERNEL", "KAISER_SANDBOX_ALLOW_SHARED_KERNEL",
             "KAISER_SANDBOX_CGROUP", "KAISER_SANDBOX_ALLOW_RLIMIT",
             "KAISER_SANDBOX_CGROUP_ROOT", "KAISER_SANDBOX_TMP_MOUNT",
             "KAISER_SANDBOX_TMP_SLOTS", "KAISER_SANDBOX_STATE_DIR", "KAISER_SANDBOX_SYSROOT",
             "KAISER_SEAT_UIDS", "KAISER_SANDBOX_FREEZE", "KAISER_SANDBOX_PROBE_SECONDS",
             "KAISER_SANDBOX_POOL", "KAISER_GVISOR_PLATFORM", "KAISER_RUNSC",
             *LIMIT_VARIABLES.values())
PLATFORMS = ("", "ptrace", "systrap")  # gVisor's ways to catch a bot's system calls
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class SandboxConfig:
    """Every sandbox setting of this process, validated (docs/sandbox.md lists them)."""

    unsandboxed: bool = False  # KAISER_UNSANDBOXED: no sandbox at all (local development)
    kernel: str = ""  # KAISER_SANDBOX_KERNEL: "" (gVisor where it can run), gvisor, host
    allow_shared_kernel: bool = False  # ..._ALLOW_SHARED_KERNEL: host's kernel without gVisor
    cgroup: bool = True  # KAISER_SANDBOX_CGROUP=0: no per-seat cgroups (rlimits instead)
    allow_rlimit: bool = False  # ..._ALLOW_RLIMIT: rlimits where no seat cgroup can be made
    cgroup_root: Path | None = None  # ..._CGROUP_ROOT: the delegated cgroup v2 subtree
    tmp_mount: bool = True  # ..._TMP_MOUNT=0: bwrap's or gVisor's own tmpfs for /tmp
    tmp_slots: Path | None = None  # ..._TMP_SLOTS: a folder of slot-N tmpfs mounts
    state_dir: Path = Path(DEFAULT_STATE_DIR)  # ..._STATE_DIR: uid locks, /tmp mounts, bundles
    sysroot: Path = Path(DEFAULT_SYSROOT)  # ..._SYSROOT: gVisor seats' in-memory /usr
    seat_uids: range = range(620000, 624000)  # KAISER_SEAT_UIDS: FIRST-LAST
    freeze: bool = True  # KAISER_SANDBOX_FREEZE=0: seats off move are not stopped (benches)
    probe_seconds: int = 60  # ..._PROBE_SECONDS: a worker probes its sandbox this often
    pool: int = 4  # KAISER_SANDBOX_POOL: seats kept booted ahead per worker process
    gvisor_platform: str = ""  # KAISER_GVISOR_PLATFORM: "" (engine.sandbox.gvisor's), ptrace...
    runsc: Path | None = None  # KAISER_RUNSC: the runsc to run (else the one on PATH)
    limits: SandboxLimits = field(default_factory=SandboxLimits)

    @property
    def rlimit_fallback_allowed(self) -> bool:
        """The operator's explicit choice to play without per-seat cgroups."""
        return self.allow_rlimit or not self.cgroup

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> SandboxConfig:
        """The configuration these variables give; InfrastructureError names a bad one."""
        read, defaults = _Reader(env), SandboxLimits()
        return cls(
            unsandboxed=read.flag("KAISER_UNSANDBOXED", False),
            kernel=read.choice("KAISER_SANDBOX_KERNEL", KERNELS),
            allow_shared_kernel=read.flag("KAISER_SANDBOX_ALLOW_SHARED_KERNEL", False),
            cgroup=read.flag("KAISER_SANDBOX_CGROUP", True),
            allow_rlimit=read.flag("KAISER_SANDBOX_ALLOW_RLIMIT", False),
            cgroup_root=read.path("KAISER_SANDBOX_CGROUP_ROOT"),
            tmp_mount=read.flag("KAISER_SANDBOX_TMP_MOUNT", True),
            tmp_slots=read.path("KAISER_SANDBOX_TMP_SLOTS"),
            state_dir=read.path("KAISER_SANDBOX_STATE_DIR") or Path(DEFAULT_STATE_DIR),
            sysroot=read.path("KAISER_SANDBOX_SYSROOT") or Path(DEFAULT_SYSROOT),
            seat_uids=read.uid_range("KAISER_SEAT_UIDS"),
            freeze=read.flag("KAISER_SANDBOX_FREEZE", True),
            probe_seconds=read.integer("KAISER_SANDBOX_PROBE_SECONDS", 60, least=1),
            pool=read.integer("KAISER_SANDBOX_POOL", 4, least=0),
            gvisor_platform=read.choice("KAISER_GVISOR_PLATFORM", PLATFORMS),
            runsc=read.path("KAISER_RUNSC"),
            limits=SandboxLimits(**{
                name: read.integer(variable, getattr(defaults, name), least=1)
                for name, variable in LIMIT_VARIABLES.items()}),
        )

    def to_dict(self) -> dict[str, Any]:
        """For display (/health/, the probe): paths as strings, the uids as FIRST-LAST."""
        shown: dict[str, Any] = {}
        for item in fields(self):
            value = getattr(self, item.name)
            if isinstance(value, Path):
                value = str(value)
            elif isinstance(value, range):
                value = f"{value.start}-{value.stop - 1}"
            elif isinstance(value, SandboxLimits):
                value = asdict(value)
            shown[item.name] = value
        return shown


class _Reader:
    """Parses one variable at a time; every error is one line naming the variable."""

    def __init__(self, env: Mapping[str, str]) -> None:
        self.env = env

    def _raw(self, name: str) -> str:
        return (self.env.get(name) or "").strip()

    def _parse(self, name: str, default: T, parse: Callable[[str], T | None],
               accepted: str) -> T:
        raw = self._raw(name)
        if not raw:
            return default
        value = parse(raw)
        if value is None:
            raise InfrastructureError(f"{name}={self.env.get(name)!r} is not {accepted}")
        return value

    def flag(self, name: str, default: bool) -> bool:
        def parse(raw: str) -> bool | None:
            lowered = raw.lower()
            return True if lowered in _TRUE else False if lowered in _FALSE else None

        return self._parse(name, default, parse, "a boolean (use 1/0, true/false, yes/no)")

    def choice(self, name: str, accepted: tuple[str, ...]) -> str:
        listed = " or ".join(value for value in accepted if value)
        return self._parse(name, "", lambda raw: raw if raw in accepted else None,
                           f"accepted: it must be {listed} (or empty)")

    def integer(self, name: str, default: int, *, least: int) -> int:
        def parse(raw: str) -> int | None:
            try:
                value = int(raw)
            except ValueError:
                raise InfrastructureError(f"{name}={self.env.get(name)!r} is not an integer "
                                          f"(a whole number, at least {least})") from None
            return value if value >= least else None

        return self._parse(name, default, parse, f"accepted: it must be at least {least}")

    def path(self, name: str) -> Path | None:
        return self._parse(name, None, lambda raw: Path(raw) if raw.startswith("/") else None,
                           "an absolute path")

    def uid_range(self, name: str) -> range:
        def parse(raw: str) -> range | None:
            try:
                first, last = (int(part) for part in raw.split("-"))
            except ValueError:
                return None
            return range(first, last + 1) if 1000 <= first <= last < 2**31 else None

        default = parse(DEFAULT_SEAT_UIDS)
        assert default is not None
        return self._parse(name, default, parse,
                           "a range of ordinary uids: FIRST-LAST, 1000 <= FIRST <= LAST")


_cached: tuple[tuple[str | None, ...], SandboxConfig] | None = None


def config() -> SandboxConfig:
    """The current configuration: parsed again only when one of its variables has changed."""
    global _cached
    key = tuple(map(os.environ.get, VARIABLES))
    cached = _cached
    if cached is not None and cached[0] == key:
        return cached[1]
    parsed = SandboxConfig.from_env({name: value for name, value in zip(VARIABLES, key, strict=True)
                                     if value is not None})
    _cached = (key, parsed)
    return parsed


def unsandboxed_requested() -> bool:
    return config().unsandboxed


def prefer_local_fallbacks() -> None:
    """The local runner's defaults (engine.cli): a laptop seldom has per-seat cgroups, runsc
    or root, so unless told otherwise its seats play with rlimits on its own kernel. Set in
    the environment, as the operator would, so that every later config() sees them."""
    os.environ.setdefault("KAISER_SANDBOX_ALLOW_RLIMIT", "1")
    os.environ.setdefault("KAISER_SANDBOX_ALLOW_SHARED_KERNEL", "1")
