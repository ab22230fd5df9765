"""The sandbox itself: what a bot process sees, what it may do, and that it is gone after kill."""

from __future__ import annotations

import json
import os
import select
import shutil
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.archive import program_unpack
from engine.faults import InfrastructureError
from engine.sandbox import SandboxLimits, SandboxProcess, check_sandbox, probe_sandbox
from tests.engine.sandbox_support import leftover_cgroups, processes_in

pytestmark = [pytest.mark.sandbox, pytest.mark.timeout(30)]

INSPECT = r'''
import ctypes, json, os, resource, sys
limits = {name: resource.getrlimit(getattr(resource, name))[0]
          for name in ("RLIMIT_CPU", "RLIMIT_FSIZE", "RLIMIT_CORE", "RLIMIT_NOFILE")}
CLONE_NEWUSER = 0x10000000
nested_userns = ctypes.CDLL(None, use_errno=True).unshare(CLONE_NEWUSER) == 0
status = dict(line.split(":\t", 1) for line in open("/proc/self/status").read().splitlines()
              if ":\t" in line)
report = {"uid": os.getuid(), "gid": os.getgid(), "cwd": os.getcwd(), "env": dict(os.environ),
          "limits": limits, "pid": os.getpid(), "caps": status["CapEff"].strip(),
          "hostname": os.uname().nodename, "interfaces": sorted(os.listdir("/sys/class/net"))
          if os.path.exists("/sys/class/net") else [], "cwd_writable": os.access(".", os.W_OK),
          "files": sorted(os.listdir(".")), "nested_userns": nested_userns}
print(json.dumps(report), flush=True)
sys.stdin.readline()
'''


@pytest.fixture
def staging() -> Iterator[Path]:
    """A folder the sandbox's user may enter (pytest's tmp_path is private to root)."""
    root = Path(tempfile.mkdtemp(prefix="kaiser-test-"))
    root.chmod(0o755)
    yield root
    shutil.rmtree(root)


def run_inspect(staging: Path, limits: SandboxLimits | None = None) -> tuple[dict, SandboxProcess]:
    source = staging / f"inspect{len(list(staging.iterdir()))}.py"
    source.write_text(INSPECT)
    program = program_unpack(source, staging / source.stem)
    proc = SandboxProcess(workdir=program.directory, run=program.run,
                          limits=limits or SandboxLimits())
    assert proc.wait_started(time.monotonic() + 5)
    assert select.select([proc.stdout_fd], [], [], 10)[0]
    os.set_blocking(proc.stdout_fd, True)
    line = os.read(proc.stdout_fd, 1 << 16).split(b"\n")[0]
    return json.loads(line), proc


def test_check_sandbox_passes_on_this_machine() -> None:
    check_sandbox()


def test_check_sandbox_names_a_missing_bubblewrap(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KAISER_SANDBOX_KERNEL", "host")
    monkeypatch.setenv("PATH", "/nonexistent")

    with pytest.raises(InfrastructureError, match="bubblewrap .* not installed"):
        check_sandbox()


def test_a_server_without_gvisor_refuses_to_play_on_a_shared_kernel(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("KAISER_SANDBOX_KERNEL", raising=False)
    monkeypatch.delenv("KAISER_SANDBOX_ALLOW_SHARED_KERNEL", raising=False)
    monkeypatch.setenv("PATH", "/nonexistent")

    with pytest.raises(InfrastructureError, match="runsc .* not installed.*one kernel"):
        check_sandbox()


def test_the_operator_may_choose_the_shared_kernel_and_the_probe_says_so(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KAISER_SANDBOX_KERNEL", "host")

    report = probe_sandbox()

    assert report.ok and report.kernel == "host" and report.seccomp
    assert "the host's kernel, shared by every seat" in report.reason


def test_every_seat_has_a_gvisor_kernel_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("KAISER_SANDBOX_KERNEL", raising=False)

    report = probe_sandbox()

    assert report.ok and report.kernel == "gvisor", report
    assert "every seat its own gVisor kernel" in report.reason


def test_a_sandbox_that_cannot_be_set_up_is_an_infrastructure_error(tmp_path: Path) -> None:
    proc = SandboxProcess(workdir=tmp_path / "missing", run=["python3", "bot.py"],
                          limits=SandboxLimits())
    try:
        with pytest.raises(InfrastructureError, match="sandbox failed to start"):
            proc.wait_started(time.monotonic() + 5)
    finally:
        proc.kill()
    assert leftover_cgroups() == []


KERNELS = ["host", "gvisor"]


@pytest.mark.parametrize("kernel", KERNELS)
def test_the_bot_runs_as_nobody_inside_and_a_seat_uid_outside_in_its_read_only_folder(
        staging: Path, monkeypatch: pytest.MonkeyPatch, kernel: str) -> None:
    monkeypatch.setenv("KAISER_SANDBOX_KERNEL", kernel)
    monkeypatch.setenv("DJANGO_SECRET_KEY", "do-not-leak")
    report, proc = run_inspect(staging)
    try:
        # Under gVisor proc.pid is the seat's supervisor (root, outside the freezer): runsc
        # is its child, as the seat's uid.
        pid = proc.pid if kernel == "host" else int(
            Path(f"/proc/{proc.pid}/task/{proc.pid}/children").read_text().split()[0])
        host_status = Path(f"/proc/{pid}/status").read_text()
    finally:
        proc.kill()

    # gVisor: uid 0 of the seat's own kernel, without any capability (its files on the host
    # belong to the seat's uid); the host's kernel: nobody.
    assert (report["uid"], report["gid"]) == ((65534, 65534) if kernel == "host" else (0, 0))
    # On the host, a uid of the range reserved for seats (not root, not a shared nobody).
    host_uid = int(host_status.split("Uid:\t")[1].split()[0])
    assert 620000 <= host_uid <= 623999
    assert report["cwd"] == "/bot" and report["files"] == ["bot.py"]
    assert report["cwd_writable"] is False
    assert report["caps"] == "0000000000000000"
    assert report["hostname"] == "bot"
    # NODE_OPTIONS under gVisor: Node's heap sized to the seat's memory (gVisor's
    # /proc/meminfo shows the host's total, which the host kernel's sandbox masks).
    assert set(report["env"]) <= {"PATH", "HOME", "TMPDIR", "LANG", "PWD", "NODE_OPTIONS",
                                  "PYTHONDONTWRITEBYTECODE", "PYTHONHASHSEED"}
    assert report["env"]["TMPDIR"] == "/tmp"
    assert report["pid"] <= 4  # its own pid namespace: bwrap (or gVisor's sh) is 1
    assert report["nested_userns"] is False


def _argv0(pid: int) -> str:
    return Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[0].decode()


def _parent(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])


def test_a_gvisor_seat_freezes_its_sentry_and_stubs_and_holds_the_rest_in_its_cgroups(
        staging: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The seat's freezer holds the Sentry (every call of the bot) and its ptrace stubs (the
    bot's code); runsc's launcher and gofer, which serve the Sentry alone, are left out of it
    (a frozen task is woken at every freeze and thaw) but stay in the seat's pids and memory
    cgroups, which limit and kill them. (This project's test machines have cgroup v1.)"""
    monkeypatch.setenv("KAISER_SANDBOX_KERNEL", "gvisor")
    report, proc = run_inspect(staging)
    try:
        group = proc.backend.cgroup
        assert "freezer" in getattr(group, "paths", {}), "no cgroup v1 freezer here"
        frozen = {int(pid) for pid in
                  (group.paths["freezer"] / "cgroup.procs").read_text().split()}
        held = group.pids()
        names = {pid: _argv0(pid) for pid in held}
        parents = {pid: _parent(pid) for pid in frozen}
    finally:
        proc.kill()

    assert frozen < held
    sentry = [pid for pid in frozen if names[pid] == "runsc-sandbox"]
    assert len(sentry) == 1
    assert all(parents[pid] in frozen for pid in frozen - set(sentry))  # its stubs
    assert "runsc-gofer" in {names[pid] for pid in held - frozen}


@pytest.mark.parametrize("kernel", KERNELS)
def test_limits_are_in_force_inside(staging: Path, monkeypatch: pytest.MonkeyPatch,
                                    kernel: str) -> None:
    monkeypatch.setenv("KAISER_SANDBOX_KERNEL", kernel)
    limits = SandboxLimits(cpu_seconds=7, file_size_mb=3)
    report, proc = run_inspect(staging, limits)
    proc.kill()

    # gVisor does not enforce RLIMIT_CPU: the engine holds the seat's CPU time from its
    # cgroup (test_sandbox_hostile's cpu_loop and cpu_burner cases).
    assert report["limits"]["RLIMIT_CPU"] == (7 if kernel == "host" else -1)
    assert report["limits"]["RLIMIT_FSIZE"] == 3 << 20
    assert report["limits"]["RLIMIT_CORE"] == 0
    assert report["limits"]["RLIMIT_NOFILE"] == 256


@pytest.mark.parametrize("kernel", KERNELS)
def test_every_seat_gets_its_own_namespaces(staging: Path, monkeypatch: pytest.MonkeyPatch,
                                            kernel: str) -> None:
    monkeypatch.setenv("KAISER_SANDBOX_KERNEL", kernel)
    first, proc_a = run_inspect(staging)
    second, proc_b = run_inspect(staging)
    namespaces = [proc_a.pid_namespace, proc_b.pid_namespace]
    proc_a.kill()
    proc_b.kill()

    assert namespaces[0] != namespaces[1] and all(namespaces)
    # No /sys (gVisor's is an empty folder): nothing to enumerate.
    assert first["interfaces"] == second["interfaces"] == []


def test_kill_leaves_no_process_and_no_cgroup(staging: Path) -> None:
    _, proc = run_inspect(staging)
    namespace = proc.pid_namespace
    assert namespace and processes_in([namespace])

    proc.kill()
    proc.kill()  # idempotent

    assert processes_in([namespace]) == []
    assert leftover_cgroups() == []
    assert proc.poll() is not None


def test_a_missing_interpreter_is_an_infrastructure_error_not_a_crash(staging: Path) -> None:
    proc = SandboxProcess(workdir=staging, run=["no-such-interpreter", "bot.py"],
                          limits=SandboxLimits())
    try:
        with pytest.raises(InfrastructureError, match="'no-such-interpreter' is not available"):
            proc.wait_started(time.monotonic() + 5)
    finally:
        proc.kill()


def test_cgroups_left_by_a_dead_worker_are_swept() -> None:
    from engine.sandbox.cgroups import _own_cgroup_v1, _sweep_stale_cgroups

    dead_pid = 4194304 + 1  # above the kernel's pid_max ceiling: never a live process
    stale = [_own_cgroup_v1(c) / f"kaiser-{dead_pid}-0" for c in ("memory", "pids", "cpu")]
    for path in stale:
        path.mkdir()

    _sweep_stale_cgroups.__wrapped__()

    assert [p for p in stale if p.exists()] == []


def test_cgroup_v2_seats_get_their_limits_and_report_a_kill(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """This host's controllers are all on cgroup v1, so no real v2 subtree can be delegated
    here: a stand-in folder plays the delegated subtree (KAISER_SANDBOX_CGROUP_ROOT), and the
    test checks what the sandbox writes to and reads from a v2 kernel's files. The Docker
    smoke test (deploy/smoke.sh) runs the real thing on a v2 host."""
    from engine.sandbox.cgroups import _make_cgroup

    root = tmp_path / "kaiser-seats"
    root.mkdir()
    monkeypatch.setenv("KAISER_SANDBOX_CGROUP_ROOT", str(root))
    group, reason = _make_cgroup(SandboxLimits(memory_mb=300, max_processes=7), owner=None)
    assert group is not None and group.mode == "cgroup-v2"
    assert reason == f"per-seat cgroup v2 below {root}"
    seat = group.path  # type: ignore[attr-defined]
    assert seat.parent == root
    assert (seat / "memory.max").read_text() == str(300 << 20)
    assert (seat / "memory.swap.max").read_text() == "0"
    assert (seat / "pids.max").read_text() == "9"  # and the two bwrap processes
    assert (seat / "cpu.max").read_text() == "100000 100000"  # one core
    assert group.procs_files() == [seat / "cgroup.procs"]
    assert group.limit_hit() is None
    (seat / "memory.events").write_text("low 0\nhigh 0\nmax 3\noom 1\noom_kill 1\n")
    assert group.limit_hit() == "memory"
    (seat / "memory.events").write_text("oom_kill 0\n")
    (seat / "pids.events").write_text("max 2\n")
    assert group.limit_hit() == "processes"


def test_without_a_cgroup_the_worker_refuses_to_play_unless_told(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from engine.sandbox import probe_sandbox

    monkeypatch.setenv("KAISER_SANDBOX_CGROUP_ROOT", str(tmp_path / "missing"))
    monkeypatch.delenv("KAISER_SANDBOX_ALLOW_RLIMIT", raising=False)
    with pytest.raises(InfrastructureError, match="will not play without per-seat memory"):
        SandboxProcess(workdir=tmp_path, run=["python3", "bot.py"], limits=SandboxLimits())
    report = probe_sandbox()
    assert (report.mode, report.ok) == ("broken", False)
    assert "no per-seat cgroup could be made" in report.reason

    monkeypatch.setenv("KAISER_SANDBOX_ALLOW_RLIMIT", "1")
    report = probe_sandbox()
    assert (report.mode, report.ok, report.seccomp) == ("rlimit", True, True)
    assert report.reason.startswith("per-process rlimits (KAISER_SANDBOX_ALLOW_RLIMIT=1)")
    assert leftover_cgroups() == []
