"""The health endpoints report the database, the broker and each worker's sandbox as they
really are: real Celery workers (one with a working sandbox, one on a host without bubblewrap)
on a private broker, a dead broker address for the "failing" case."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from django.core.cache import cache
from rest_framework.test import APIClient

from kaiser_site.health import WORKERS_CACHE_KEY, WORKERS_LOCK_KEY
from tests.processes import LoggedProcess

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.django_db
ENDPOINTS = ["/health/", "/api/v1/health/"]
NO_WORKERS = {"ok": False, "count": 0, "names": [], "sandboxed": 0, "sandbox": {}}


@pytest.fixture
def start_worker(private_broker: Path, tmp_path: Path) -> Iterator[Callable[..., tuple]]:
    """start(**env) -> (node name, process): a real worker on the private filesystem broker,
    returned once its first sandbox probe is done."""
    started: list[LoggedProcess] = []

    def start(**extra_env: str) -> tuple[str, LoggedProcess]:
        name = f"health-{uuid.uuid4().hex[:8]}@test"
        env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "DATABASE_URL")}
        env.update(KAISER_VAR_DIR=str(private_broker), PYTHONUNBUFFERED="1", **extra_env)
        log = tmp_path / f"{name}.log"
        with log.open("wb") as sink:
            proc = subprocess.Popen(
                [sys.executable, "-m", "celery", "-A", "kaiser_site", "worker", "--pool=solo",
                 "-n", name, "-Q", f"q-{name}", "--without-mingle", "--without-gossip",
                 "-l", "INFO"],
                cwd=ROOT, env=env, stdout=sink, stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        worker = LoggedProcess(proc, log)
        started.append(worker)
        worker.wait_for_log(r"sandbox probe of " + name.replace(".", r"\."))
        return name, worker

    yield start
    for worker in started:
        worker.stop()


def _no_bwrap(tmp_path: Path) -> str:
    """A PATH on which bubblewrap is missing (the worker's own Python is found by its path)."""
    empty = tmp_path / "no-bwrap-here"
    empty.mkdir(exist_ok=True)
    return str(empty)


def _health_seeing(client: APIClient, url: str, *names: str) -> Any:
    """GET `url` until the health report has every one of these workers in it: on a busy host
    a worker may miss the one-second broadcast (and the missed answer is cached, so the cache
    is emptied before each ask). After 60 s the last answer is returned, whatever it holds."""
    deadline = time.monotonic() + 60
    while True:
        cache.delete(WORKERS_CACHE_KEY)
        response = client.get(url)
        seen = response.json().get("workers", {}).get("sandbox", {})
        if all(name in seen for name in names) or time.monotonic() > deadline:
            return response


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
    assert body["workers"] == NO_WORKERS


@pytest.mark.worker
@pytest.mark.sandbox
def test_a_worker_that_can_sandbox_makes_health_ok_with_its_sandbox_mode(
    start_worker: Callable[..., Any], anon_client: APIClient
) -> None:
    name, _ = start_worker()
    body = _health_seeing(anon_client, "/api/v1/health/", name).json()
    assert body["status"] == "ok"
    assert body["workers"]["names"] == [name]
    assert body["workers"]["ok"] is True and body["workers"]["sandboxed"] == 1
    entry = body["workers"]["sandbox"][name]
    assert entry["ok"] is True
    assert entry["mode"] in ("cgroup-v1", "cgroup-v2", "rlimit")
    assert entry["reason"] and entry["checked"]
    assert entry["seccomp"] is True
    # Every seat its own gVisor kernel wherever runsc is installed and the worker is root,
    # as on every server and in CI.
    assert entry["kernel"] == "gvisor", entry


@pytest.mark.worker
@pytest.mark.sandbox
def test_each_worker_shows_its_sandbox_config(
    start_worker: Callable[..., Any], anon_client: APIClient
) -> None:
    """The settings a worker's sandbox runs with (engine.sandbox.config), as it read them:
    here a worker told to keep two seats booted and to play on the host's kernel."""
    name, _ = start_worker(KAISER_SANDBOX_POOL="2", KAISER_SANDBOX_KERNEL="host",
                           KAISER_SANDBOX_MEMORY_MB="300")
    entry = _health_seeing(anon_client, "/health/", name).json()["workers"]["sandbox"][name]
    assert entry["ok"] is True and entry["kernel"] == "host", entry
    shown = entry["config"]
    assert (shown["pool"], shown["kernel"], shown["unsandboxed"]) == (2, "host", False)
    assert shown["limits"]["memory_mb"] == 300
    assert shown["state_dir"].startswith("/") and "-" in shown["seat_uids"]


def test_a_worker_report_carries_its_config_and_an_invalid_one_its_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """What the `sandbox` inspect command answers (worker_sandbox.sandbox_probe), and what
    /health/ keeps of it (health._sandbox_entry), without a worker: the probe is a stand-in."""
    from engine.sandbox.limits import SandboxReport
    from kaiser_site import health, worker_sandbox

    report = SandboxReport("cgroup-v1", True, "stand-in", True, True, True, kernel="gvisor")
    monkeypatch.setattr("engine.sandbox.probe_sandbox", lambda: report)
    monkeypatch.setattr(worker_sandbox, "_latest", {})  # this process's own report, kept
    monkeypatch.setenv("KAISER_SANDBOX_POOL", "3")
    entry = health._sandbox_entry(worker_sandbox.sandbox_probe())
    assert entry["config"]["pool"] == 3 and entry["config"]["limits"]["tmp_mb"] == 32
    monkeypatch.setenv("KAISER_SANDBOX_POOL", "-3")
    entry = health._sandbox_entry(worker_sandbox.sandbox_probe())
    assert entry["config"] == "KAISER_SANDBOX_POOL='-3' is not accepted: it must be at least 0"


@pytest.mark.worker
@pytest.mark.parametrize("url", ENDPOINTS)
def test_a_worker_that_cannot_sandbox_makes_health_failing_with_the_reason(
    url: str, start_worker: Callable[..., Any], anon_client: APIClient, tmp_path: Path
) -> None:
    name, worker = start_worker(PATH=_no_bwrap(tmp_path))
    response = _health_seeing(anon_client, url, name)
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "failing"
    assert body["database"]["ok"] is True and body["broker"]["ok"] is True
    entry = body["workers"]["sandbox"][name]
    assert entry["mode"] == "broken" and entry["ok"] is False
    # Nothing on its PATH: the first thing missing is gVisor, which a server never plays
    # without (unless told to share the host's kernel).
    assert "runsc (gVisor) is not installed" in entry["reason"]
    assert body["workers"]["ok"] is False and body["workers"]["sandboxed"] == 0
    assert "stops taking matches and upload checks" in worker.text()


@pytest.mark.worker
@pytest.mark.sandbox
def test_a_worker_without_per_seat_cgroups_refuses_unless_the_rlimit_fallback_is_chosen(
    start_worker: Callable[..., Any], anon_client: APIClient
) -> None:
    nowhere = {"KAISER_SANDBOX_CGROUP_ROOT": "/nonexistent/kaiser-seats"}
    refusing, worker = start_worker(**nowhere)
    response = _health_seeing(anon_client, "/health/", refusing)
    assert response.status_code == 503 and response.json()["status"] == "failing"
    entry = response.json()["workers"]["sandbox"][refusing]
    assert entry["mode"] == "broken" and entry["ok"] is False
    assert "will not play without per-seat memory and process limits" in entry["reason"]
    assert "stops taking matches and upload checks" in worker.text()

    opted_in, worker = start_worker(**nowhere, KAISER_SANDBOX_ALLOW_RLIMIT="1")
    body = _health_seeing(anon_client, "/health/", refusing, opted_in).json()
    assert body["status"] == "degraded"  # one of the two workers can play
    entry = body["workers"]["sandbox"][opted_in]
    assert entry["mode"] == "rlimit" and entry["ok"] is True
    assert "KAISER_SANDBOX_ALLOW_RLIMIT=1" in entry["reason"]
    assert "stops taking" not in worker.text()


@pytest.mark.worker
@pytest.mark.sandbox
def test_one_worker_of_two_without_a_sandbox_is_degraded(
    start_worker: Callable[..., Any], anon_client: APIClient, tmp_path: Path
) -> None:
    good, _ = start_worker()
    bad, _ = start_worker(PATH=_no_bwrap(tmp_path))
    response = _health_seeing(anon_client, "/health/", good, bad)
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "degraded"
    assert body["workers"]["names"] == sorted([good, bad])
    assert body["workers"]["sandboxed"] == 1
    assert body["workers"]["sandbox"][good]["ok"] is True
    assert body["workers"]["sandbox"][bad]["mode"] == "broken"


@pytest.mark.worker
def test_the_workers_answer_is_cached_between_requests(
    start_worker: Callable[..., Any], anon_client: APIClient, settings: Any
) -> None:
    settings.KAISER_HEALTH_CACHE_SECONDS = 600
    assert anon_client.get("/health/").json()["workers"] == NO_WORKERS
    name, _ = start_worker()
    # The worker is up, but the answer of a moment ago still stands: nobody was asked again.
    assert anon_client.get("/health/").json()["workers"] == NO_WORKERS
    # As when the cached answer expires: asked again, the worker answers (on a busy host it
    # may miss the one-second ping; a missed answer is cached too, so it expires again).
    names = _health_seeing(anon_client, "/health/", name).json()["workers"]["names"]
    assert names == [name]


def test_while_one_request_asks_the_workers_the_others_serve_the_previous_answer(
    private_broker: Path, anon_client: APIClient
) -> None:
    previous = {**NO_WORKERS, "count": 1, "names": ["old@host"], "sandbox": {"old@host": {
        "mode": "pending", "ok": False, "reason": "x", "seccomp": False, "checked": None}}}
    cache.set(WORKERS_CACHE_KEY, {"at": 0.0, "workers": previous}, 600)  # long due
    cache.add(WORKERS_LOCK_KEY, 1, 600)  # as if another request were asking at this moment
    assert anon_client.get("/health/").json()["workers"] == previous
    cache.delete(WORKERS_LOCK_KEY)  # that request is done: the next one asks for itself
    assert anon_client.get("/health/").json()["workers"] == NO_WORKERS


@pytest.mark.parametrize("url", ENDPOINTS)
def test_unreachable_broker_is_failing_with_503_and_no_error_text(
    url: str, dead_broker: None, anon_client: APIClient, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="kaiser_site.health"):
        response = anon_client.get(url)
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "failing"
    assert body["database"]["ok"] is True
    assert body["broker"] == {"ok": False, "error": "unreachable"}
    assert "refused" not in response.content.decode().lower()
    assert body["workers"] == NO_WORKERS
    logged = [r.getMessage() for r in caplog.records if "broker unreachable" in r.getMessage()]
    assert logged and "refused" in logged[0].lower()  # the real error stays in the server log


@pytest.mark.parametrize("url", ENDPOINTS)
def test_health_is_throttled_per_address(
    url: str, private_broker: Path, settings: Any
) -> None:
    rates = {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "health": "3/min"}
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates}
    monitor, other = APIClient(REMOTE_ADDR="10.0.0.7"), APIClient(REMOTE_ADDR="10.0.0.8")
    assert [monitor.get(url).status_code for _ in range(3)] == [200] * 3
    refused = monitor.get(url)
    assert refused.status_code == 429
    assert refused.json()["code"] == "throttled"
    assert int(refused["Retry-After"]) > 0
    assert other.get(url).status_code == 200


def test_configured_broker_is_reachable(anon_client: APIClient) -> None:
    """The broker this run is configured with (Redis in CI, else the filesystem) answers."""
    body = anon_client.get("/health/").json()
    expected = "redis" if os.environ.get("REDIS_URL") else "filesystem"
    assert body["broker"] == {"ok": True, "transport": expected}
