"""seat-thaw (deploy/seat-thaw.sh), the cgroup v1 service that thaws the frozen seats of a
dead worker container so that it can exit (issue 31: "the stop holds where the server runs").

What must hold: a worker's liveness does not depend on which PID namespace reads it (on v1 a
cgroup.procs read from a namespace of its own is empty, so every live worker looked dead and
its seats were thawed a second after each freeze); the seats of a live worker are never
thawed; a worker killed while its seats are frozen exits; compose stops the workers before
seat-thaw. The compose files are read as files (CI runs no Docker); the liveness rule is run
for real on this machine's cgroup v1 freezer, from the host's PID namespace and from one of
its own. deploy/smoke.sh checks the same on a running stack.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.deploy.test_worker_container import WORKERS, compose_file

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "deploy" / "seat-thaw.sh"
FREEZER = Path("/sys/fs/cgroup/freezer")
FAST = {"PATH": "/usr/bin:/bin", "KAISER_SEAT_THAW_INTERVAL": "0.05"}


# --- the compose files --------------------------------------------------------------------

def test_cgroup_v1_hosts_run_seat_thaw_in_the_hosts_pid_namespace_without_capabilities() -> None:
    v1 = compose_file("deploy/compose-cgroup-v1.yml")["services"]
    thaw = v1["seat-thaw"]
    assert thaw["pid"] == "host"  # liveness read where every worker's process has a pid
    assert thaw["cap_drop"] == ["ALL"] and "cap_add" not in thaw
    assert thaw["network_mode"] == "none"
    assert thaw["read_only"] is True
    assert thaw["volumes"] == ["/sys/fs/cgroup/freezer/kaiser-arena:/run/kaiser-arena/freezer"]
    assert "seat-thaw" not in compose_file("deploy/compose-cgroup-v2.yml")["services"]


@pytest.mark.parametrize("name", WORKERS)
def test_compose_stops_the_workers_before_seat_thaw(name: str) -> None:
    """Compose stops a service before the services it depends on (down, stop): a worker
    stopped with frozen seats can only exit while seat-thaw still runs."""
    v1 = compose_file("deploy/compose-cgroup-v1.yml")["services"]
    assert v1[name]["depends_on"]["seat-thaw"] == {"condition": "service_started"}
    assert "depends_on" not in v1["seat-thaw"]  # it starts first and stops last


def test_the_base_file_keeps_the_workers_own_dependencies() -> None:
    """The override adds seat-thaw to depends_on; Compose merges the two maps."""
    base = compose_file("docker-compose.yml")["services"]
    for name in WORKERS:
        assert set(base[name]["depends_on"]) == {"db", "redis", "web"}


# --- the rule on plain files ----------------------------------------------------------------

def fake_container(root: Path, name: str, procs: str, seats: dict[str, str]) -> Path:
    """A worker container's freezer cgroup as seat-thaw sees it (plain files)."""
    container = root / name
    container.mkdir()
    (container / "cgroup.procs").write_text(procs)
    for seat, state in seats.items():
        (container / seat).mkdir()
        (container / seat / "freezer.state").write_text(state)
    return container


def fake_proc(root: Path, pid1: str, me: str) -> Path:
    proc = root / "proc"
    for pid, text in (("1", pid1), ("self", me)):
        (proc / pid).mkdir(parents=True)
        (proc / pid / "cgroup").write_text(text)
    return proc


def run_for_a_second(root: Path, proc: Path) -> subprocess.CompletedProcess[str]:
    env = {**FAST, "KAISER_SEAT_THAW_PROC": str(proc)}
    return subprocess.run(["timeout", "1", "sh", str(SCRIPT), str(root)], env=env,
                          capture_output=True, text=True, check=False)


def test_seat_thaw_thaws_the_frozen_seats_of_a_dead_worker_container_only(tmp_path: Path) -> None:
    cgroups = tmp_path / "cgroups"
    cgroups.mkdir()
    dead = fake_container(cgroups, "dead", "", {"kaiser-7-1": "FROZEN", "kaiser-7-2": "THAWED"})
    alive = fake_container(cgroups, "alive", "1\n7\n", {"kaiser-7-1": "FROZEN"})
    proc = fake_proc(tmp_path, "4:freezer:/\n", "4:freezer:/docker/seat-thaw\n")
    done = run_for_a_second(cgroups, proc)
    assert done.returncode == 124  # it watches until stopped
    assert (dead / "kaiser-7-1" / "freezer.state").read_text().strip() == "THAWED"
    assert (dead / "kaiser-7-2" / "freezer.state").read_text().strip() == "THAWED"
    assert (alive / "kaiser-7-1" / "freezer.state").read_text() == "FROZEN"
    assert f"thawed {dead}/kaiser-7-1/" in done.stderr
    assert "kaiser-7-2" not in done.stderr


def test_seat_thaw_refuses_to_run_where_pid_1_is_its_own_containers(tmp_path: Path) -> None:
    """Pid 1 in seat-thaw's own cgroups: a PID namespace of its own (no pid: host), where
    every worker would look dead. It thaws nothing and exits, saying why."""
    cgroups = tmp_path / "cgroups"
    cgroups.mkdir()
    dead = fake_container(cgroups, "dead", "", {"kaiser-7-1": "FROZEN"})
    same = "4:freezer:/docker/seat-thaw\n"
    done = run_for_a_second(cgroups, fake_proc(tmp_path, same, same))
    assert done.returncode == 1
    assert "not in the host's PID namespace (compose: pid: host)" in done.stderr
    assert (dead / "kaiser-7-1" / "freezer.state").read_text() == "FROZEN"


# --- the rule on real cgroups (this machine's cgroup v1 freezer) ------------------------------

@dataclass
class Worker:
    """A stand-in worker container: its own freezer cgroup with one live process (its
    'worker'), and below it one seat whose process is frozen."""

    cgroup: Path
    seat: Path
    worker: subprocess.Popen[bytes]
    seat_process: subprocess.Popen[bytes]

    def seat_state(self) -> str:
        return (self.seat / "freezer.state").read_text().strip()


def sleeper_in(cgroup: Path) -> subprocess.Popen[bytes]:
    """A process that joins `cgroup` before it runs anything else."""
    process = subprocess.Popen(["sh", "-c", f"echo $$ > {cgroup}/cgroup.procs && exec sleep 600"])
    wait_until(lambda: str(process.pid) in (cgroup / "cgroup.procs").read_text().split())
    return process


def wait_until(condition: object, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < deadline, "gave up waiting"
        time.sleep(0.01)


def make_worker(root: Path, name: str) -> Worker:
    cgroup = root / name
    seat = cgroup / "kaiser-1-1"
    seat.mkdir(parents=True)
    worker = sleeper_in(cgroup)
    seat_process = sleeper_in(seat)
    (seat / "freezer.state").write_text("FROZEN")
    wait_until(lambda: (seat / "freezer.state").read_text().strip() == "FROZEN")
    return Worker(cgroup, seat, worker, seat_process)


def remove(path: Path) -> None:
    for child in sorted(path.rglob("*"), key=lambda p: -len(p.parts)):
        if child.is_dir():
            child.rmdir()
    path.rmdir()


@pytest.fixture
def arena() -> Iterator[Path]:
    """A kaiser-arena subtree of the real freezer hierarchy, and seat-thaw's own cgroup
    beside it (in a container it has one: Docker's)."""
    assert FREEZER.is_dir(), "this machine's cgroup v1 freezer hierarchy"
    root = FREEZER / f"kaiser-thaw-test-{uuid.uuid4().hex[:8]}"
    (root / "arena").mkdir(parents=True)
    (root / "seat-thaw").mkdir()
    yield root
    for state in root.rglob("freezer.state"):
        state.write_text("THAWED")
    for procs in root.rglob("cgroup.procs"):
        for pid in procs.read_text().split():
            with contextlib.suppress(ProcessLookupError):
                os.kill(int(pid), signal.SIGKILL)
    wait_until(lambda: not any(p.read_text().strip() for p in root.rglob("cgroup.procs")))
    remove(root)


def start_seat_thaw(root: Path, *prefix: str) -> subprocess.Popen[str]:
    """seat-thaw.sh in a cgroup of its own (as in its container), with the real /proc."""
    joined = f"echo $$ > {root}/seat-thaw/cgroup.procs && exec sh {SCRIPT} {root}/arena"
    return subprocess.Popen([*prefix, "sh", "-c", joined], env=FAST, stderr=subprocess.PIPE,
                            text=True)


def test_a_cgroup_procs_read_from_another_pid_namespace_lists_nothing(arena: Path) -> None:
    """The kernel's behaviour behind the rule (cgroup v1): the same live worker's list,
    read from the host's PID namespace and from one of its own."""
    worker = make_worker(arena / "arena", "worker")
    procs = worker.cgroup / "cgroup.procs"
    assert str(worker.worker.pid) in procs.read_text().split()
    elsewhere = subprocess.run(["unshare", "--pid", "--fork", "--mount-proc", "cat", str(procs)],
                               capture_output=True, text=True, check=True)
    assert elsewhere.stdout == ""


def test_seat_thaw_thaws_no_seat_of_a_live_worker_and_a_killed_one_exits(arena: Path) -> None:
    live = make_worker(arena / "arena", "a-live")
    dead = make_worker(arena / "arena", "b-dead")
    dead.worker.kill()
    dead.worker.wait()
    os.kill(dead.seat_process.pid, signal.SIGKILL)  # pending until thawed: as in a dying container
    seat_thaw = start_seat_thaw(arena)
    try:
        # One pass looks at a-live before b-dead: once b-dead is thawed, a-live was looked at.
        wait_until(lambda: dead.seat_state() == "THAWED")
        assert dead.seat_process.wait(timeout=30) == -signal.SIGKILL
        assert live.seat_state() == "FROZEN"
        assert live.seat_process.poll() is None
        live.worker.kill()  # the worker is killed while its seat is frozen
        live.worker.wait()
        os.kill(live.seat_process.pid, signal.SIGKILL)
        assert live.seat_process.wait(timeout=30) == -signal.SIGKILL  # thawed, so it dies
    finally:
        seat_thaw.kill()
        _, said = seat_thaw.communicate()
    assert f"thawed {arena}/arena/b-dead/kaiser-1-1/" in said
    assert f"thawed {arena}/arena/a-live/kaiser-1-1/" in said


def test_seat_thaw_in_a_pid_namespace_of_its_own_thaws_nothing(arena: Path) -> None:
    """Without pid: host every live worker's list is empty from where it reads: it refuses."""
    live = make_worker(arena / "arena", "live")
    seat_thaw = start_seat_thaw(arena, "unshare", "--pid", "--fork", "--mount-proc")
    _, said = seat_thaw.communicate(timeout=30)
    assert seat_thaw.returncode == 1
    assert "not in the host's PID namespace" in said
    assert live.seat_state() == "FROZEN"
