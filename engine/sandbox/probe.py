"""The sandbox probe: a tiny program in a real seat, as a match would run it, says whether and
how bots can be played here (the worker's /health/ report, the local runner's first line)."""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
import time
from pathlib import Path

from engine.faults import InfrastructureError
from engine.sandbox.config import config
from engine.sandbox.limits import SandboxLimits, SandboxReport
from engine.sandbox.procs import _readable
from engine.sandbox.seat import SandboxProcess


def check_sandbox() -> None:
    """Raise InfrastructureError (one clear line) unless a sandboxed probe runs."""
    report = probe_sandbox()
    if not report.ok:
        raise InfrastructureError(report.reason)


_PROBE_PROGRAM = "import sys\nsys.stdout.write(sys.stdin.readline())\n"


def probe_sandbox(limits: SandboxLimits | None = None, timeout_s: float = 20.0) -> SandboxReport:
    """Run a tiny program in a real sandbox seat, as a match would, and say how it went."""
    try:
        unsandboxed = config().unsandboxed
    except InfrastructureError as exc:  # a setting that makes no sense: nothing can play
        return SandboxReport("broken", False, str(exc), False, False, False)
    if unsandboxed:
        return SandboxReport("unsandboxed", True, "KAISER_UNSANDBOXED=1: bots run without the "
                             "sandbox (local development only)", False, False, False)
    with tempfile.TemporaryDirectory(prefix="kaiser-probe-") as folder:
        os.chmod(folder, 0o755)
        Path(folder, "bot.py").write_text(_PROBE_PROGRAM)
        os.chmod(Path(folder, "bot.py"), 0o644)
        try:
            proc = SandboxProcess(workdir=Path(folder), run=("python3", "bot.py"),
                                  limits=limits or SandboxLimits())
        except InfrastructureError as exc:
            return SandboxReport("broken", False, str(exc), False, False, False)
        try:
            return _probe_exchange(proc, time.monotonic() + timeout_s)
        finally:
            proc.kill()


def _probe_exchange(proc: SandboxProcess, deadline: float) -> SandboxReport:
    features = (proc.seccomp, proc.seat_uid is not None, proc.tmp_inodes_limited)
    try:
        if not proc.wait_started(deadline):
            return SandboxReport("broken", False, "the probe's sandbox did not start in time",
                                 *features)
        os.write(proc.stdin_fd, b"probe\n")
        reply = b""
        while not reply.endswith(b"\n") and _readable(proc.stdout_fd, deadline - time.monotonic()):
            chunk = os.read(proc.stdout_fd, 64)
            if not chunk:
                break
            reply += chunk
    except (InfrastructureError, OSError) as exc:
        return SandboxReport("broken", False, f"the probe failed: {exc}", *features)
    if reply != b"probe\n":
        detail = _first_line(proc) or f"it answered {reply[:40]!r}"
        return SandboxReport("broken", False, f"the probe program did not answer: {detail}",
                             *features)
    return SandboxReport(proc.mode, True, proc.mode_reason, *features, kernel=proc.kernel)


def _first_line(proc: SandboxProcess) -> str:
    with contextlib.suppress(OSError):
        text = os.read(proc.stderr_fd, 4096).decode(errors="replace").strip()
        if text:
            return text.splitlines()[0][:200]
    return ""


def warn_unsandboxed() -> None:
    """Said for every bot program set up without the sandbox, so no log can miss it."""
    print("\n" + "!" * 78 + "\nWARNING: running bot programs WITHOUT the sandbox "
          "(unsandboxed=True or KAISER_UNSANDBOXED=1).\nA bot can read, write and delete "
          "anything this user can. Local development only.\n" + "!" * 78,
          file=sys.stderr, flush=True)
