"""What a seat may use (SandboxLimits) and what the sandbox probe found (SandboxReport)."""

from __future__ import annotations

from dataclasses import asdict, dataclass


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
    tmp_inodes: int = 4096  # files and folders in /tmp (each costs kernel memory)


@dataclass(frozen=True, slots=True)
class SandboxReport:
    """What a real sandboxed probe found on this machine (engine.sandbox.probe)."""

    mode: str  # "cgroup-v1" | "cgroup-v2" | "rlimit" | "broken" | "unsandboxed"
    ok: bool  # bots can be played here
    reason: str  # one line: why this mode
    seccomp: bool  # the system-call filter is applied
    seat_uids: bool  # each seat runs as a host uid of its own
    tmp_inodes: bool  # /tmp has an inode limit
    kernel: str = "host"  # "gvisor": every seat its own kernel; "host": the host's, shared

    def to_dict(self) -> dict[str, object]:
        return asdict(self)
