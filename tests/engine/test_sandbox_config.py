"""SandboxConfig: every sandbox setting read from the environment in one place, validated
with one line that names the variable and what it accepts, parsed again when they change."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.faults import InfrastructureError
from engine.sandbox.config import VARIABLES, SandboxConfig, config
from engine.sandbox.limits import SandboxLimits


@pytest.fixture
def clean(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    """No sandbox variable set, as on a fresh host."""
    for name in VARIABLES:
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def test_no_variable_gives_the_defaults() -> None:
    got = SandboxConfig.from_env({})
    assert got == SandboxConfig()
    assert (got.unsandboxed, got.kernel, got.allow_shared_kernel) == (False, "", False)
    assert (got.cgroup, got.allow_rlimit, got.rlimit_fallback_allowed) == (True, False, False)
    assert (got.cgroup_root, got.tmp_slots, got.tmp_mount) == (None, None, True)
    assert got.state_dir == Path("/run/kaiser-arena")
    assert got.sysroot == Path("/run/kaiser-arena/gvisor/sysroot")
    assert got.seat_uids == range(620000, 624000)
    assert (got.freeze, got.probe_seconds, got.pool) == (True, 60, 4)
    assert (got.gvisor_platform, got.runsc) == ("", None)
    assert got.limits == SandboxLimits()


def test_every_variable_is_read() -> None:
    got = SandboxConfig.from_env({
        "KAISER_UNSANDBOXED": "yes", "KAISER_SANDBOX_KERNEL": "host",
        "KAISER_SANDBOX_ALLOW_SHARED_KERNEL": "1", "KAISER_SANDBOX_CGROUP": "0",
        "KAISER_SANDBOX_ALLOW_RLIMIT": "true", "KAISER_SANDBOX_CGROUP_ROOT": "/sys/fs/cgroup/k",
        "KAISER_SANDBOX_TMP_MOUNT": "off", "KAISER_SANDBOX_TMP_SLOTS": "/run/slots",
        "KAISER_SANDBOX_STATE_DIR": "/var/k", "KAISER_SANDBOX_SYSROOT": "/var/k/usr",
        "KAISER_SEAT_UIDS": "70000-70099", "KAISER_SANDBOX_FREEZE": "0",
        "KAISER_SANDBOX_PROBE_SECONDS": "5", "KAISER_SANDBOX_POOL": "0",
        "KAISER_SANDBOX_MEMORY_MB": "256", "KAISER_SANDBOX_CPU_SECONDS": "60",
        "KAISER_SANDBOX_PROCESSES": "8", "KAISER_SANDBOX_FILE_MB": "4",
        "KAISER_SANDBOX_TMP_MB": "8", "KAISER_SANDBOX_TMP_INODES": "100",
        "KAISER_GVISOR_PLATFORM": "systrap", "KAISER_RUNSC": "/opt/gvisor/runsc"})
    assert got == SandboxConfig(
        unsandboxed=True, kernel="host", allow_shared_kernel=True, cgroup=False,
        allow_rlimit=True, cgroup_root=Path("/sys/fs/cgroup/k"), tmp_mount=False,
        tmp_slots=Path("/run/slots"), state_dir=Path("/var/k"), sysroot=Path("/var/k/usr"),
        seat_uids=range(70000, 70100), freeze=False, probe_seconds=5, pool=0,
        gvisor_platform="systrap", runsc=Path("/opt/gvisor/runsc"),
        limits=SandboxLimits(memory_mb=256, cpu_seconds=60, max_processes=8, file_size_mb=4,
                             tmp_mb=8, tmp_inodes=100))


def test_empty_values_are_the_defaults() -> None:
    assert SandboxConfig.from_env(dict.fromkeys(VARIABLES, " ")) == SandboxConfig()


def test_cgroups_turned_off_allow_the_rlimit_fallback() -> None:
    assert SandboxConfig.from_env({"KAISER_SANDBOX_CGROUP": "0"}).rlimit_fallback_allowed


@pytest.mark.parametrize(("name", "value", "message"), [
    ("KAISER_UNSANDBOXED", "maybe",
     "KAISER_UNSANDBOXED='maybe' is not a boolean (use 1/0, true/false, yes/no)"),
    ("KAISER_SANDBOX_KERNEL", "kvm",
     "KAISER_SANDBOX_KERNEL='kvm' is not accepted: it must be gvisor or host (or empty)"),
    ("KAISER_SANDBOX_ALLOW_SHARED_KERNEL", "2", "KAISER_SANDBOX_ALLOW_SHARED_KERNEL='2' is not"
     " a boolean"),
    ("KAISER_SANDBOX_CGROUP", "v2", "KAISER_SANDBOX_CGROUP='v2' is not a boolean"),
    ("KAISER_SANDBOX_ALLOW_RLIMIT", "please", "KAISER_SANDBOX_ALLOW_RLIMIT='please' is not a"
     " boolean"),
    ("KAISER_SANDBOX_CGROUP_ROOT", "kaiser-seats",
     "KAISER_SANDBOX_CGROUP_ROOT='kaiser-seats' is not an absolute path"),
    ("KAISER_SANDBOX_TMP_MOUNT", "tmpfs", "KAISER_SANDBOX_TMP_MOUNT='tmpfs' is not a boolean"),
    ("KAISER_SANDBOX_TMP_SLOTS", "slots", "KAISER_SANDBOX_TMP_SLOTS='slots' is not an absolute"
     " path"),
    ("KAISER_SANDBOX_STATE_DIR", "run", "KAISER_SANDBOX_STATE_DIR='run' is not an absolute path"),
    ("KAISER_SANDBOX_SYSROOT", "./usr", "KAISER_SANDBOX_SYSROOT='./usr' is not an absolute path"),
    ("KAISER_SEAT_UIDS", "620000", "KAISER_SEAT_UIDS='620000' is not a range of ordinary uids: "
     "FIRST-LAST, 1000 <= FIRST <= LAST"),
    ("KAISER_SEAT_UIDS", "0-99", "KAISER_SEAT_UIDS='0-99' is not a range of ordinary uids"),
    ("KAISER_SEAT_UIDS", "9000-8000", "KAISER_SEAT_UIDS='9000-8000' is not a range"),
    ("KAISER_SANDBOX_FREEZE", "sometimes", "KAISER_SANDBOX_FREEZE='sometimes' is not a boolean"),
    ("KAISER_SANDBOX_PROBE_SECONDS", "0",
     "KAISER_SANDBOX_PROBE_SECONDS='0' is not accepted: it must be at least 1"),
    ("KAISER_SANDBOX_POOL", "-1",
     "KAISER_SANDBOX_POOL='-1' is not accepted: it must be at least 0"),
    ("KAISER_SANDBOX_POOL", "four", "KAISER_SANDBOX_POOL='four' is not an integer (a whole "
     "number, at least 0)"),
    ("KAISER_GVISOR_PLATFORM", "kvm",
     "KAISER_GVISOR_PLATFORM='kvm' is not accepted: it must be ptrace or systrap (or empty)"),
    ("KAISER_RUNSC", "runsc", "KAISER_RUNSC='runsc' is not an absolute path"),
    ("KAISER_SANDBOX_MEMORY_MB", "lots", "KAISER_SANDBOX_MEMORY_MB='lots' is not an integer"),
    ("KAISER_SANDBOX_CPU_SECONDS", "0", "KAISER_SANDBOX_CPU_SECONDS='0' is not accepted"),
    ("KAISER_SANDBOX_PROCESSES", "1.5", "KAISER_SANDBOX_PROCESSES='1.5' is not an integer"),
    ("KAISER_SANDBOX_FILE_MB", "-4", "KAISER_SANDBOX_FILE_MB='-4' is not accepted"),
    ("KAISER_SANDBOX_TMP_MB", "32M", "KAISER_SANDBOX_TMP_MB='32M' is not an integer"),
    ("KAISER_SANDBOX_TMP_INODES", "0", "KAISER_SANDBOX_TMP_INODES='0' is not accepted"),
])
def test_an_invalid_value_is_one_line_naming_the_variable(name: str, value: str,
                                                          message: str) -> None:
    with pytest.raises(InfrastructureError) as raised:
        SandboxConfig.from_env({name: value})
    assert str(raised.value).startswith(message)
    assert "\n" not in str(raised.value)


def test_every_variable_has_a_validity_case() -> None:
    """The table above covers every variable the config reads."""
    cases = test_an_invalid_value_is_one_line_naming_the_variable.pytestmark[0].args[1]
    assert {name for name, _, _ in cases} == set(VARIABLES)


def test_config_is_parsed_again_when_a_variable_changes(clean: pytest.MonkeyPatch) -> None:
    first = config()
    assert config() is first  # unchanged: the same object, no parse
    clean.setenv("KAISER_SANDBOX_KERNEL", "host")
    assert config().kernel == "host"
    clean.setenv("KAISER_SANDBOX_POOL", "0")
    assert config().pool == 0 and config().kernel == "host"
    clean.delenv("KAISER_SANDBOX_KERNEL")
    clean.delenv("KAISER_SANDBOX_POOL")
    assert config() == first
    clean.setenv("KAISER_SANDBOX_POOL", "many")
    with pytest.raises(InfrastructureError, match="KAISER_SANDBOX_POOL='many'"):
        config()


def test_to_dict_shows_paths_and_uids_as_text() -> None:
    shown = SandboxConfig.from_env({"KAISER_SANDBOX_TMP_SLOTS": "/run/slots",
                                    "KAISER_SEAT_UIDS": "70000-70099"}).to_dict()
    assert shown["tmp_slots"] == "/run/slots" and shown["cgroup_root"] is None
    assert shown["state_dir"] == "/run/kaiser-arena"
    assert shown["seat_uids"] == "70000-70099"
    assert shown["limits"] == {"memory_mb": 512, "cpu_seconds": 600, "max_processes": 32,
                               "file_size_mb": 16, "tmp_mb": 32, "tmp_inodes": 4096}
    assert shown["pool"] == 4 and shown["kernel"] == ""
    assert set(shown) == {"unsandboxed", "kernel", "allow_shared_kernel", "cgroup",
                          "allow_rlimit", "cgroup_root", "tmp_mount", "tmp_slots", "state_dir",
                          "sysroot", "seat_uids", "freeze", "probe_seconds", "pool",
                          "gvisor_platform", "runsc", "limits"}
