"""The README's first command in miniature: scripts/devserver.py starts the web server, the
ladder's worker, the play queue's worker, the strict queue's worker and beat on the embedded
defaults (SQLite, filesystem broker), and one SIGINT stops them all."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.worker


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _health(port: int) -> dict[str, object] | None:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/health/", timeout=5) as reply:
            return json.loads(reply.read())
    except OSError:
        return None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_devserver_runs_web_workers_and_beat_and_one_sigint_stops_all(tmp_path: Path) -> None:
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    env.update(KAISER_VAR_DIR=str(tmp_path / "var"), PORT=str(port), DEBUG="1",
               KAISER_WORKER_CONCURRENCY="1")
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT,
                   env=env, check=True, timeout=120)
    proc = subprocess.Popen([sys.executable, "scripts/devserver.py"], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        banner = proc.stdout.readline() if proc.stdout else ""
        assert banner.startswith("devserver: started web (pid ")
        pids = [int(part.split(")")[0]) for part in banner.split("(pid ")[1:]]
        assert len(pids) == 5  # web, the ladder's, the play queue's and the strict queue's
        # workers, beat
        health = None
        for _ in range(120):
            health = _health(port)
            if health and health["status"] == "ok":
                break
            time.sleep(0.5)
        assert health is not None and health["status"] == "ok", health
        assert health["database"] == {"ok": True, "vendor": "sqlite"}
        assert health["broker"] == {"ok": True, "transport": "filesystem"}
        proc.send_signal(signal.SIGINT)
        output, _ = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0
    assert "devserver: all stopped" in output
    assert "[beat  ]" in output and "[worker]" in output and "[play  ]" in output
    assert "[strict]" in output
    assert not [pid for pid in pids if _alive(pid)]
