"""deploy/healthcheck.py, the web container's healthcheck, against a real live server.

The container's healthcheck must pass with whatever ALLOWED_HOSTS the operator sets (a plain
request to 127.0.0.1 is a 400 DisallowedHost as soon as the site has its real name), and must
fail when the web server cannot reach its database.
"""

from __future__ import annotations

import os
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any
from unittest import mock

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "deploy" / "healthcheck.py"

pytestmark = pytest.mark.django_db(transaction=True)


def run_healthcheck(port: int, allowed_hosts: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PORT": str(port), "ALLOWED_HOSTS": allowed_hosts}
    return subprocess.run([sys.executable, str(SCRIPT)], env=env, capture_output=True,
                          text=True, timeout=60, check=False)


def port_of(live_server: Any) -> int:
    return int(live_server.url.rsplit(":", 1)[1])


@pytest.mark.parametrize("allowed", ["arena.example.org", "arena.example.org,www.example.org",
                                     ".example.org", "*"])
def test_the_healthcheck_passes_with_the_sites_real_name(
    live_server: Any, settings: Any, allowed: str
) -> None:
    settings.ALLOWED_HOSTS = [name.strip() for name in allowed.split(",")]
    if allowed != "*":  # what the old healthcheck did: a 400
        with pytest.raises(urllib.error.HTTPError) as plain:
            urllib.request.urlopen(f"http://127.0.0.1:{port_of(live_server)}/health/",
                                   timeout=30)
        assert plain.value.code == 400

    result = run_healthcheck(port_of(live_server), allowed)

    assert result.returncode == 0, result.stdout
    assert '"database": {"ok": true' in result.stdout


def test_the_healthcheck_fails_with_a_name_the_site_refuses(
    live_server: Any, settings: Any
) -> None:
    settings.ALLOWED_HOSTS = ["arena.example.org"]

    result = run_healthcheck(port_of(live_server), "other.example.org")

    assert result.returncode == 1
    assert result.stdout.startswith("400 ")


def test_the_healthcheck_fails_when_the_database_is_unreachable(
    live_server: Any, settings: Any
) -> None:
    settings.ALLOWED_HOSTS = ["arena.example.org"]
    # The fault injected where /health/ meets the database (the server runs in this process).
    down = {"ok": False, "error": "unreachable"}
    with mock.patch("kaiser_site.health._check_database", return_value=down):
        result = run_healthcheck(port_of(live_server), "arena.example.org")

    assert result.returncode == 1
    assert result.stdout.startswith("503 ")


def test_no_server_is_unhealthy() -> None:
    result = run_healthcheck(1, "arena.example.org")  # nothing listens on port 1

    assert result.returncode == 1
    assert result.stdout.startswith("unhealthy: ")


def test_workers_that_cannot_sandbox_leave_the_web_container_healthy(
    live_server: Any, settings: Any
) -> None:
    settings.ALLOWED_HOSTS = ["arena.example.org"]
    broken = {"mode": "broken", "ok": False, "reason": "bwrap: pivot_root: Operation not "
              "permitted", "seccomp": False, "checked": None}
    workers = {"ok": False, "count": 1, "names": ["celery@w1"], "sandboxed": 0,
               "sandbox": {"celery@w1": broken}}
    with mock.patch("kaiser_site.health._check_workers", return_value=workers):
        result = run_healthcheck(port_of(live_server), "arena.example.org")

    assert result.stdout.startswith("503 ")  # /health/ tells the truth about the workers
    assert '"status": "failing"' in result.stdout
    assert result.returncode == 0  # but the web server itself answers and reaches its services
