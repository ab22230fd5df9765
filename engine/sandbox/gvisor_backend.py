"""Every seat its own gVisor kernel (runsc): the boundary of a server. engine.sandbox.gvisor
holds the layout (rootfs, sysroot, the OCI bundle); this starts a seat in it.

Only a cgroup holds (and kills) everything of a gVisor seat (runsc, the Sentry, its gofer and
stubs): without one the seat plays on the host's kernel instead (engine.sandbox.seat).
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path

from engine.faults import InfrastructureError
from engine.sandbox import gvisor
from engine.sandbox.backend import Backend, SeatParts
from engine.sandbox.config import SandboxConfig
from engine.sandbox.limits import SandboxLimits
from engine.sandbox.procs import _bash_path, _readable, _run_as, _which, search_path
from engine.sandbox.scripts import (
    _ZYGOTE,
    SANDBOX_PATH,
    _environment,
    _gvisor_inner_script,
    _gvisor_supervisor,
)
from engine.sandbox.uids import _seat_name, _state_dir


class GvisorBackend(Backend):
    """runsc under a supervisor shell: 'started' is the first byte on the bot's stdout (no
    extra pipe crosses into gVisor), the seat's processes are its cgroup's."""

    kernel = "gvisor"
    launcher = "runsc"
    # RLIMIT_CPU is not enforced by gVisor: the engine holds the seat's CPU time from its
    # cgroup instead (SandboxProcess.cpu_limit_hit).
    engine_holds_cpu_limit = True

    @staticmethod
    def extra(limits: SandboxLimits, cfg: SandboxConfig) -> tuple[int, int]:
        """The Sentry's memory and tasks (gvisor.MEMORY_EXTRA_MB and the TASKS_*, these by
        the platform the seat plays on)."""
        per_process = gvisor.TASKS_PER_PROCESS[gvisor.platform(cfg)]
        return (gvisor.MEMORY_EXTRA_MB,
                gvisor.TASKS_EXTRA + (per_process - 1) * limits.max_processes)

    def __init__(self, limits: SandboxLimits, parts: SeatParts) -> None:
        super().__init__(limits, parts)
        self._bundle: gvisor.SeatBundle | None = None

    def prepare(self, cfg: SandboxConfig) -> None:
        """The seat's bundle folder and /usr. gVisor's kernel serves every call of the bot, so
        the host filter has nothing of the bot's to filter (gVisor filters its own Sentry's)."""
        self.seccomp = True  # filter.oci_rules, applied by gVisor inside its kernel
        self._runsc, self._platform = gvisor.runsc_path(cfg), gvisor.platform(cfg)
        state = _state_dir("gvisor")
        gvisor.sweep_stale(state)
        self._bundle_state = state
        self._usr, note = gvisor.sysroot()
        self.parts.reason += f"; {note}"

    def _gvisor_bundle(self, workdir: Path) -> gvisor.SeatBundle:
        inner = ["/bin/sh", "-c", _gvisor_inner_script(self.limits), "sh", _ZYGOTE]
        env = {**_environment(), "NODE_OPTIONS": f"--max-old-space-size={self.limits.memory_mb}"}
        # The seat's processes are held by the host's pids.max on the seat's cgroup (see
        # gvisor.TASKS_PER_PROCESS), so that a fork bomb ends in a 'resource' fault as on the
        # host's kernel. RLIMIT_CPU is not enforced by gVisor (engine_holds_cpu_limit).
        rlimits = {"RLIMIT_CORE": 0, "RLIMIT_NOFILE": 256,
                   "RLIMIT_FSIZE": self.limits.file_size_mb << 20}
        tmp = self.tmp.path if self.tmp is not None else None
        state = self._bundle_state
        config = gvisor.bundle_config(root=gvisor.rootfs(state), workdir=workdir, tmp=tmp,
                                      tmp_mb=self.limits.tmp_mb, args=inner, env=env,
                                      rlimits=rlimits, usr=self._usr)
        return gvisor.SeatBundle(state, _seat_name(), self.seat_uid, config)

    def spawn(self, workdir: Path, run: Sequence[str] | None) -> subprocess.Popen[bytes]:
        runsc = self._runsc
        if runsc is None:
            raise InfrastructureError("runsc (gVisor) is not installed: apt-get install runsc")
        self._bundle = self._gvisor_bundle(workdir)
        cgroup_files = self.cgroup.procs_files() if self.cgroup is not None else []
        if self.cgroup is not None:
            # Where the seat's processes are, for checking that nothing of it survives kill()
            # (tests): runsc, the Sentry, its gofer and stubs are spread over namespaces of
            # their own, but all in the seat's cgroup from the start.
            self.pid_namespace = f"cgroup:{self.cgroup.pids_file().parent}"
        outer = [_bash_path(), "-c", _gvisor_supervisor(cgroup_files, self.cgroup), "bash"]
        setpriv = _which("setpriv", search_path())
        if setpriv is not None:  # the supervisor hears of the worker's death (root: kept)
            outer = [setpriv, "--pdeathsig=TERM", "--", *outer]
        pipe = subprocess.PIPE
        command = self._bundle.command(runsc, self._platform)
        return subprocess.Popen([*outer, *_run_as(self.seat_uid), *command],
                                env={"PATH": SANDBOX_PATH}, stdin=pipe, stdout=pipe,
                                stderr=pipe, cwd="/")

    def read_started(self, stdout_fd: int, deadline: float) -> bytes | None:
        """Inside gVisor the zygote says 'started' on the bot's stdout, before the bot."""
        if not _readable(stdout_fd, deadline - time.monotonic()):
            return None
        try:
            return os.read(stdout_fd, 1)
        except BlockingIOError:
            return None

    def started_done(self) -> None:
        pass  # stdout is the bot's from now on

    def note_program(self, run: Sequence[str]) -> None:
        """program.json beside the bundle's config.json: the command line of the bot (the
        zygote gets it through the gate, so config.json names only the zygote)."""
        if self._bundle is not None:
            (self._bundle.path / "program.json").write_text(json.dumps({"run": list(run)}))

    def on_booted(self) -> None:
        """Before any code of the bot's runs, the seat's freezer keeps the Sentry and its
        ptrace stubs only (the tasks that run the bot's code and calls): runsc's launcher
        and gofer leave it, and stop paying two wake-ups a decision (docs/sandbox.md)."""
        if self.cgroup is not None:
            sentry = _process_named(self.cgroup.pids(), b"runsc-sandbox")
            if sentry is not None:
                self.cgroup.freeze_only_below(sentry)

    def kill(self, proc: subprocess.Popen[bytes]) -> None:
        if self.cgroup is not None:
            self.cgroup.kill_all()  # the Sentry, the gofer, the stubs and runsc itself

    def release(self) -> None:
        super().release()
        if self._bundle is not None:
            self._bundle.remove()
            self._bundle = None


def _process_named(pids: set[int], argv0: bytes) -> int | None:
    """The process among pids whose command line starts with argv0."""
    for pid in pids:
        with contextlib.suppress(OSError), open(f"/proc/{pid}/cmdline", "rb") as cmdline:
            if cmdline.read().split(b"\0", 1)[0] == argv0:
                return pid
    return None
