"""No sandbox at all (KAISER_UNSANDBOXED=1 or unsandboxed=True): the bot runs as the worker's
user, with its files. Local development only: engine.sandbox.probe.warn_unsandboxed says so."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path

from engine.sandbox.backend import Backend, SeatParts
from engine.sandbox.limits import SandboxLimits
from engine.sandbox.procs import _bash_path, _close_fds
from engine.sandbox.scripts import _ZYGOTE, _environment, _inner_script, _outer_script


class NoneBackend(Backend):
    """The seat's scripts without a boundary: rlimits, the gate, and a /tmp folder of its own;
    the seat is the process we start (and its process group)."""

    def __init__(self, limits: SandboxLimits) -> None:
        super().__init__(limits, SeatParts())
        self._dev_tmp: str | None = None

    def spawn(self, workdir: Path, run: Sequence[str] | None) -> subprocess.Popen[bytes]:
        started_w = self._started_pipe()
        try:
            inner = ["/bin/sh", "-c", _inner_script(self.limits, run, False), "sh", _ZYGOTE]
            outer = [_bash_path(), "-c", _outer_script(started_w, []), "bash"]
            self._dev_tmp = tempfile.mkdtemp(prefix="kaiser-bot-tmp-")
            env = {**_environment(), "TMPDIR": self._dev_tmp, "HOME": self._dev_tmp}
            pipe = subprocess.PIPE
            return subprocess.Popen([*outer, *inner], cwd=workdir, env=env, stdin=pipe,
                                    stdout=pipe, stderr=pipe, pass_fds=(started_w,),
                                    start_new_session=True)
        finally:
            _close_fds(started_w)

    def bot_pids(self, holder: int) -> set[int]:
        return {holder}

    def kill(self, proc: subprocess.Popen[bytes]) -> None:
        with contextlib.suppress(OSError):
            os.killpg(proc.pid, signal.SIGKILL)

    def release(self) -> None:
        super().release()
        if self._dev_tmp is not None:
            shutil.rmtree(self._dev_tmp, ignore_errors=True)
            self._dev_tmp = None
