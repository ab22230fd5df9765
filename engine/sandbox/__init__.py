"""The sandbox: every bot program in a seat of its own, and nothing of it left afterwards.

The package's parts (docs/sandbox.md has the module map):

    config.py          SandboxConfig: the only module that reads the environment (config())
    limits.py          SandboxLimits, SandboxReport
    uids.py            each seat a host uid of its own; the worker's state folder
    cgroups.py         per-seat cgroups, v1 and v2 behind one interface; the stale sweep
    tmp.py             the seat's /tmp (a slot, a tmpfs of its own, or the boundary's)
    scripts.py         the shell scripts a seat starts with, ending in the zygote
    zygote.py          the seat's first process: the gate, then the bot (python3 -c)
    filter.py          the system-call filter (seccomp; its OCI form for gVisor)
    gvisor.py          gVisor's layout: the kernel choice, rootfs, sysroot, the OCI bundle
    backend.py         the Backend interface and SeatParts (uid, cgroup, /tmp)
    gvisor_backend.py  GvisorBackend: every seat its own gVisor kernel (a server)
    host.py            HostBackend: bubblewrap on the host's kernel
    none.py            NoneBackend: no sandbox (local development only)
    seat.py            SandboxProcess: the seat, the same for every backend
    pool.py            seats booted ahead (KAISER_SANDBOX_POOL), each used once
    probe.py           probe_sandbox, check_sandbox, warn_unsandboxed
"""

from engine.sandbox.config import SandboxConfig, unsandboxed_requested
from engine.sandbox.limits import SandboxLimits, SandboxReport
from engine.sandbox.probe import check_sandbox, probe_sandbox, warn_unsandboxed
from engine.sandbox.scripts import BOT_DIR, SANDBOX_PATH
from engine.sandbox.seat import SandboxProcess

__all__ = ["BOT_DIR", "SANDBOX_PATH", "SandboxConfig", "SandboxLimits", "SandboxProcess",
           "SandboxReport", "check_sandbox", "probe_sandbox", "unsandboxed_requested",
           "warn_unsandboxed"]
