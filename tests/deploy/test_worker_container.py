"""The worker container's configuration, read from the files (CI runs no Docker).

What must hold (issue 19): no process of the worker container holds CAP_SYS_ADMIN, pid 1 and
`docker compose exec` included, so the container is never granted it; each seat's /tmp is a
tmpfs with an inode limit that Docker mounts (a slot); the seats' cgroups are writable without
a remount; the seccomp profile lets the sandboxes (bubblewrap, rootless runsc) build their
namespaces without any capability. deploy/smoke.sh checks the same on a running stack.
"""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from django.conf import settings

ROOT = Path(__file__).resolve().parents[2]
WORKERS = ("worker", "play-worker", "strict-worker")
# What the worker needs, measured (docs/operations.md, "The worker container").
WORKER_CAPS = {"CHOWN", "DAC_OVERRIDE", "KILL", "SETGID", "SETUID"}
SANDBOX_CALLS = {"clone", "unshare", "setns", "mount", "umount2", "pivot_root", "chroot"}
SLOT = re.compile(r"^/run/kaiser-arena/tmp-slots/slot-(\d+):(.*)$")


def interpolated(text: str) -> str:
    """Compose's ${NAME:-default}, with nothing set: the defaults."""
    return re.sub(r"\$\{[A-Z_]+:-([^}]*)\}", r"\1", text)


def compose_file(name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load(interpolated((ROOT / name).read_text()))
    return loaded


@pytest.fixture(scope="module")
def services() -> dict[str, Any]:
    found: dict[str, Any] = compose_file("docker-compose.yml")["services"]
    return found


def tmpfs_options(service: dict[str, Any], target: str) -> dict[str, str]:
    for entry in service["tmpfs"]:
        path, _, options = entry.partition(":")
        if path == target:
            return dict(o.partition("=")[::2] for o in options.split(","))
    raise AssertionError(f"no tmpfs at {target}")


def slots(service: dict[str, Any]) -> dict[int, dict[str, str]]:
    found = {}
    for entry in service["tmpfs"]:
        if match := SLOT.match(entry):
            found[int(match[1])] = dict(o.partition("=")[::2] for o in match[2].split(","))
    return found


@pytest.mark.parametrize("name", WORKERS)
def test_the_worker_is_never_granted_cap_sys_admin(services: dict[str, Any], name: str) -> None:
    service = services[name]
    assert service["cap_drop"] == ["ALL"]
    assert set(service["cap_add"]) == WORKER_CAPS
    assert not service.get("privileged")


@pytest.mark.parametrize("name", WORKERS)
def test_the_entrypoint_mounts_nothing(services: dict[str, Any], name: str) -> None:
    script = (ROOT / services[name]["entrypoint"][0].removeprefix("/app/")).read_text()
    assert not re.search(r"^\s*(mount|unshare)\b", script, re.MULTILINE)
    assert "seccomp=./deploy/seccomp-worker.json" in services[name]["security_opt"]
    assert "no-new-privileges:true" in services[name]["security_opt"]


@pytest.mark.parametrize(("name", "seats"), [("worker", (8 + 4) * 2), ("play-worker", 3 * 8 + 4),
                                            ("strict-worker", 8 * 8 + 4)])
def test_every_seat_can_have_a_tmp_slot_with_the_sandboxes_inode_limit(
    services: dict[str, Any], name: str, seats: int
) -> None:
    """8 seats for each match of the default concurrency (2, and the strict worker's 8): a
    table of 4 plays while the next game's 4 boot; 3 bot seats for each of the play worker's
    8 games; and 4 seats a
    worker process keeps booted ahead (the seat pool); each slot the size and inode count of
    the sandbox's limits."""
    found = slots(services[name])
    assert sorted(found) == list(range(len(found)))
    assert len(found) >= seats
    limits = settings.KAISER_SANDBOX
    for options in found.values():
        assert options["nr_inodes"] == str(limits["tmp_inodes"])
        assert options["size"] == f"{limits['tmp_mb']}m"
        assert options["mode"] == "0700"
        assert {"nosuid", "nodev"} <= set(options)
    assert (
        services[name]["environment"]["KAISER_SANDBOX_TMP_SLOTS"] == "/run/kaiser-arena/tmp-slots"
    )


@pytest.mark.parametrize("name", WORKERS)
def test_the_seats_usr_copy_is_mounted_noatime(services: dict[str, Any], name: str) -> None:
    """Reads of the shared copy of /usr must move no access time another seat could read."""
    [sysroot] = [entry for entry in services[name]["tmpfs"]
                 if entry.startswith("/run/kaiser-arena/gvisor/sysroot:")]
    assert "noatime" in sysroot.split(":", 1)[1].split(",")


@pytest.mark.parametrize("name", WORKERS)
def test_the_cgroup_mount_is_replaced_by_an_empty_tmpfs(
    services: dict[str, Any], name: str
) -> None:
    """Docker's own cgroup mount is read-only; an empty tmpfs takes its place, so that the
    container sees no cgroup but its own subtree (the binds of the cgroup-v1/-v2 files)."""
    service = services[name]
    assert tmpfs_options(service, "/sys/fs/cgroup")["mode"] == "0755"
    assert service["cgroup"] == "host"
    assert service["cgroup_parent"] == "/kaiser-arena"


@pytest.mark.parametrize(
    ("layout", "controllers"),
    [("v1", ["memory", "pids", "cpu", "cpuacct", "freezer"]), ("v2", [""])],
)
def test_the_cgroup_binds_show_the_subtree_at_the_path_proc_self_cgroup_names(
    services: dict[str, Any], layout: str, controllers: list[str]
) -> None:
    parent = services["worker"]["cgroup_parent"]
    expected = [f"/sys/fs/cgroup/{c}{parent}".replace("//", "/") for c in controllers]
    override = compose_file(f"deploy/compose-cgroup-{layout}.yml")["services"]
    for name in WORKERS:
        binds = [v.split(":") for v in override[name]["volumes"]]
        assert [source for source, _ in binds] == expected
        assert all(source == target for source, target in binds)  # writable: no :ro


def seccomp_rules() -> list[dict[str, Any]]:
    profile = json.loads((ROOT / "deploy" / "seccomp-worker.json").read_text())
    rules: list[dict[str, Any]] = profile["syscalls"]
    return rules


def allowed_without_capabilities(call: str) -> bool:
    return any(
        call in rule["names"]
        and rule["action"] == "SCMP_ACT_ALLOW"
        and not rule.get("args")
        and "caps" not in (rule.get("includes") or {})
        for rule in seccomp_rules()
    )


def test_the_seccomp_profile_lets_the_sandboxes_make_namespaces_without_capabilities() -> None:
    for call in SANDBOX_CALLS:
        assert allowed_without_capabilities(call), call


def test_the_seccomp_profile_allows_gvisor_to_trace_its_own_stubs() -> None:
    """runsc's ptrace platform: the default profile allows these on Linux 4.8 and later."""
    for call in ("ptrace", "process_vm_readv", "process_vm_writev", "wait4", "tgkill"):
        assert allowed_without_capabilities(call), call


def test_the_seccomp_profile_is_what_make_seccomp_profile_writes() -> None:
    script = ROOT / "deploy" / "make-seccomp-profile.py"
    spec = importlib.util.spec_from_file_location("make_profile", script)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    profile = json.loads((ROOT / "deploy" / "seccomp-worker.json").read_text())
    assert module.worker_profile(profile) == profile
    assert set(module.ADDED) == SANDBOX_CALLS


def test_the_image_installs_gvisor_and_bubblewrap_from_debian() -> None:
    install = re.search(r"apt-get install[^&]*", (ROOT / "Dockerfile").read_text())
    assert install is not None
    assert {"runsc", "bubblewrap", "util-linux"} <= set(install[0].split())
