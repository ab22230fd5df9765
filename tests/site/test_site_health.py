"""The health endpoints report the database, the broker and the workers as they really are:
a real Celery worker is started for the "ok" case, a dead broker address for the "down" one."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from rest_framework.test import APIClient

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.django_db
ENDPOINTS = ["/health/", "/api/v1/health/"]


@pytest.fixture
def worker(private_broker: Path) -> Iterator[str]:
    """A real worker on the private filesystem broker; yields its node name."""
    name = f"health-{uuid.uuid4().hex[:8]}@test"
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "DATABASE_URL")}
    env["KAISER_VAR_DIR"] = str(private_broker)
    proc = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "kaiser_site", "worker", "--pool=solo",
         "-n", name, "--without-mingle", "--without-gossip", "-l", "WARNING"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        yield name
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(10)


@pytest.mark.parametrize("url", ENDPOINTS)
def test_no_worker_listening_is_degraded_but_up(
    url: str, private_broker: Path, anon_client: APIClient
) -> None:
    response = anon_client.get(url)
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "degraded"
    assert body["database"]["ok"] is True
    assert body["broker"] == {"ok": True, "transport": "filesystem"}
    assert body["workers"] == {"ok": False, "count": 0, "names": []}


@pytest.mark.worker
def test_a_running_worker_makes_health_ok(worker: str, anon_client: APIClient) -> None:
    for _ in range(60):  # the worker needs a few seconds to start; each ping waits up to 1 s
        body = anon_client.get("/api/v1/health/").json()
        if worker in body["workers"]["names"]:
            break
        time.sleep(0.5)
    assert body["status"] == "ok"
    assert worker in body["workers"]["names"]
    assert body["workers"]["ok"] is True
    assert body["workers"]["count"] == len(body["workers"]["names"])


@pytest.mark.parametrize("url", ENDPOINTS)
def test_unreachable_broker_is_down_with_503(
    url: str, dead_broker: None, anon_client: APIClient
) -> None:
    response = anon_client.get(url)
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "down"
    assert body["database"]["ok"] is True
    assert body["broker"]["ok"] is False
    assert "refused" in body["broker"]["error"].lower()
    assert body["workers"]["ok"] is False


def test_configured_broker_is_reachable(anon_client: APIClient) -> None:
    """The broker this run is configured with (Redis in CI, else the filesystem) answers."""
    body = anon_client.get("/health/").json()
    expected = "redis" if os.environ.get("REDIS_URL") else "filesystem"
    assert body["broker"] == {"ok": True, "transport": expected}
