"""Subprocesses that the worker and hardening tests start: a Celery worker, a sweeper, a
private redis-server. Each runs in a session of its own, its output in a log file."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from django.db import connection

ROOT = Path(__file__).resolve().parents[1]


def database_url_of_this_test() -> str:
    """The URL of the database the running test uses, for a subprocess's DATABASE_URL."""
    s = connection.settings_dict
    if connection.vendor == "sqlite":
        name = str(s["NAME"])
        assert "memory" not in name, "a subprocess cannot open an in-memory database"
        return f"sqlite:///{name}"
    auth = quote(s["USER"] or "") + (f":{quote(s['PASSWORD'])}" if s["PASSWORD"] else "")
    return f"postgres://{auth}@{s['HOST'] or 'localhost'}:{s['PORT'] or 5432}/{s['NAME']}"


@dataclass
class LoggedProcess:
    """A subprocess in its own session, its output in a log file."""

    proc: subprocess.Popen[bytes]
    log: Path

    def text(self) -> str:
        return self.log.read_text(errors="replace")

    def wait_for_log(self, pattern: str, count: int = 1, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while len(re.findall(pattern, self.text())) < count:
            if self.proc.poll() is not None:
                raise AssertionError(f"{self.log.name}: exited:\n{self.text()[-3000:]}")
            if time.monotonic() > deadline:
                raise AssertionError(f"{self.log.name}: no {count} x {pattern!r}:\n"
                                     f"{self.text()[-3000:]}")
            time.sleep(0.1)

    def kill_group(self) -> None:
        """SIGKILL the process and everything in its process group (a pool's children)."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(10)

    def stop(self, grace_s: float = 20) -> None:
        """SIGTERM (a worker's warm shutdown: it finishes what it runs), then after grace_s
        the whole group killed."""
        if self.proc.poll() is None:
            self.proc.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(grace_s)
        self.kill_group()

    def kill(self) -> None:
        """SIGKILL the process alone (a worker dying mid-match)."""
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(10)


def celery_worker_start(log: Path, *, queue: str, name: str, pool: str, concurrency: int,
                        env: dict[str, str]) -> LoggedProcess:
    """A Celery worker of the project on one queue, in a session of its own, its output in
    `log`. The caller keeps it (to stop it whatever happens), then waits for "ready."."""
    command = [sys.executable, "-m", "celery", "-A", "kaiser_site", "worker", "-P", pool,
               "-c", str(concurrency), "-Q", queue, "-n", f"{name}@%h", "--without-gossip",
               "--without-mingle", "--without-heartbeat", "-l", "INFO"]
    with log.open("wb") as sink:
        proc = subprocess.Popen(command, cwd=ROOT, env=env, stdout=sink,
                                stderr=subprocess.STDOUT, start_new_session=True)
    return LoggedProcess(proc, log)
