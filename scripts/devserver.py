#!/usr/bin/env python
"""Run the web server, the Celery workers and Celery beat together; one Ctrl-C stops all.

Used by scripts/run.sh. Each child runs in its own process group, so a signal reaches the
whole group (the worker's pool processes and their sandboxed bots too). If one child dies, the
others are stopped and the exit status says which. Output lines are prefixed with the child's
name.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import IO

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
STOP_GRACE_SECONDS = 15


def commands() -> dict[str, list[str]]:
    host = os.environ.get("KAISER_HOST", "127.0.0.1")
    port = os.environ.get("PORT", "8000")
    concurrency = os.environ.get("KAISER_WORKER_CONCURRENCY", str(os.cpu_count() or 2))
    var_dir = Path(os.environ.get("KAISER_VAR_DIR", ROOT / "var"))
    celery = [PYTHON, "-m", "celery", "-A", "kaiser_site"]
    return {
        # The ASGI app under uvicorn: the play page's event stream (server-sent events) needs
        # a server that holds a connection open without holding a worker.
        "web": [PYTHON, "-m", "uvicorn", "kaiser_site.asgi:application", "--host", host,
                "--port", port],
        "worker": [*celery, "worker", "-l", "INFO", "--concurrency", concurrency,
                   "-n", "worker@%h"],
        # Games of people against bots (play app): a queue and a worker of their own, so no
        # ladder worker waits for a person. Threads: a game mostly waits (for a move, a bot).
        "play": [*celery, "worker", "-l", "INFO", "-Q", os.environ.get("KAISER_PLAY_QUEUE", "play"),
                 "-P", "threads", "--concurrency", os.environ.get("KAISER_PLAY_CONCURRENCY", "8"),
                 "-n", "play@%h"],
        # Strict-time matches (docs/operations.md, "Strict time"): each mostly sleeps to its
        # slots, so one process plays many at once in threads, beside the capped worker.
        "strict": [*celery, "worker", "-l", "INFO", "-Q",
                   os.environ.get("KAISER_STRICT_QUEUE", "strict"), "-P", "threads",
                   "--concurrency", _strict_concurrency(), "-n", "strict@%h"],
        "beat": [*celery, "beat", "-l", "INFO",
                 "--schedule", str(var_dir / "celerybeat-schedule")],
    }


def _strict_concurrency() -> str:
    return os.environ.get("KAISER_STRICT_CONCURRENCY", "8")


def strict_environment() -> None:
    """Every child's view of the strict queue (web and beat send to it, the strict worker
    reads it), and a dispatch depth that lets both workers fill their pools: matches in the
    broker at once count the strict ones too."""
    os.environ.setdefault("KAISER_STRICT_QUEUE", "strict")
    worker = int(os.environ.get("KAISER_WORKER_CONCURRENCY", str(os.cpu_count() or 2)))
    os.environ.setdefault("KAISER_DISPATCH_DEPTH", str(worker + int(_strict_concurrency())))


def _pump(name: str, stream: IO[bytes]) -> None:
    for raw in iter(stream.readline, b""):
        line = raw.decode(errors="replace").rstrip("\n")
        sys.stdout.write(f"[{name:6}] {line}\n")
        sys.stdout.flush()


def start(name: str, command: list[str]) -> subprocess.Popen[bytes]:
    child = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, start_new_session=True)
    threading.Thread(target=_pump, args=(name, child.stdout), daemon=True).start()
    return child


def stop(children: dict[str, subprocess.Popen[bytes]]) -> None:
    for child in children.values():
        _signal_group(child, signal.SIGTERM)
    deadline = time.monotonic() + STOP_GRACE_SECONDS
    for child in children.values():
        with contextlib.suppress(subprocess.TimeoutExpired):
            child.wait(max(0.1, deadline - time.monotonic()))
    for child in children.values():
        _signal_group(child, signal.SIGKILL)  # whatever is left of each group
        child.wait()


def _signal_group(child: subprocess.Popen[bytes], sig: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(child.pid, sig)


def main() -> int:
    stopping = threading.Event()

    def on_signal(signum: int, frame: object) -> None:
        stopping.set()

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    strict_environment()
    children = {name: start(name, command) for name, command in commands().items()}
    print(f"devserver: started {', '.join(f'{n} (pid {c.pid})' for n, c in children.items())};"
          " Ctrl-C stops all", flush=True)
    status = 0
    while not stopping.wait(0.5):
        dead = {name: child.returncode for name, child in children.items()
                if child.poll() is not None}
        if dead:
            print(f"devserver: {', '.join(f'{n} exited ({c})' for n, c in dead.items())};"
                  " stopping the others", flush=True)
            status = 1
            break
    stop(children)
    print("devserver: all stopped", flush=True)
    return status


if __name__ == "__main__":
    sys.exit(main())
