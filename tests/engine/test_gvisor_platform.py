"""gVisor's platform (issue 44): KAISER_GVISOR_PLATFORM chooses ptrace or systrap, unset the
seat plays on gvisor.DEFAULT_PLATFORM where the runsc has it; a runsc that lacks the platform
asked for is named in the error, with its version; the seat's reason (/health/, the worker's
log) names the runsc and the platform; the seat's pids.max follows the platform's host tasks a
process. The runsc's facts are read from the runsc itself: stand-ins here print what Debian 12's
(ptrace only) and bookworm-backports' (systrap too) print; the real seat runs the installed
one."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from engine.faults import InfrastructureError
from engine.sandbox import gvisor
from engine.sandbox.config import SandboxConfig
from engine.sandbox.gvisor_backend import GvisorBackend
from engine.sandbox.limits import SandboxLimits

# What `runsc flags` says of --platform, in each version (on standard error).
FLAGS = {"0.0~20221219.0": "specifies which platform to use: ptrace (default), kvm.",
         "0.0~20240729.0": "specifies which platform to use: systrap (default), ptrace, kvm."}


def stand_in(tmp_path: Path, version: str) -> Path:
    runsc = tmp_path / version / "runsc"
    runsc.parent.mkdir()
    runsc.write_text(
        "#!/bin/sh\n"
        f'if [ "$1" = --version ]; then echo "runsc version {version}"; echo "spec: 1.0.2"; fi\n'
        f'if [ "$1" = flags ]; then\n'
        f'  printf "  -platform string\\n    \\t{FLAGS[version]}\\n" >&2\nfi\n')
    runsc.chmod(0o755)
    return runsc


def test_the_facts_of_a_runsc_are_its_version_and_its_platforms(tmp_path: Path) -> None:
    old, new = stand_in(tmp_path, "0.0~20221219.0"), stand_in(tmp_path, "0.0~20240729.0")
    assert gvisor.runsc_facts(str(old)) == ("0.0~20221219.0", ("ptrace", "kvm"))
    assert gvisor.runsc_facts(str(new)) == ("0.0~20240729.0", ("systrap", "ptrace", "kvm"))


def test_a_runsc_without_the_platform_asked_for_is_named_in_the_error(tmp_path: Path) -> None:
    old = stand_in(tmp_path, "0.0~20221219.0")
    cfg = SandboxConfig(runsc=old, gvisor_platform="systrap")
    with pytest.raises(InfrastructureError) as raised:
        gvisor.platform(cfg)
    assert str(raised.value).startswith(
        f"KAISER_GVISOR_PLATFORM=systrap, but {old} (0.0~20221219.0) has no systrap platform "
        "(it has ptrace, kvm): install the runsc of bookworm-backports")


def test_unset_the_default_platform_else_ptrace_asked_the_one_asked(tmp_path: Path) -> None:
    old, new = stand_in(tmp_path, "0.0~20221219.0"), stand_in(tmp_path, "0.0~20240729.0")
    assert gvisor.platform(SandboxConfig(runsc=old)) == "ptrace"
    assert gvisor.platform(SandboxConfig(runsc=new)) == gvisor.DEFAULT_PLATFORM
    assert gvisor.platform(SandboxConfig(runsc=new, gvisor_platform="systrap")) == "systrap"
    assert gvisor.platform(SandboxConfig(runsc=new, gvisor_platform="ptrace")) == "ptrace"


def test_a_runsc_that_is_not_there_is_no_runsc(tmp_path: Path) -> None:
    assert gvisor.runsc_path(SandboxConfig(runsc=tmp_path / "none")) is None
    with pytest.raises(InfrastructureError, match="runsc .gVisor. is not installed"):
        gvisor.platform(SandboxConfig(runsc=tmp_path / "none"))


def test_the_seats_tasks_follow_the_platforms_tasks_a_process(tmp_path: Path) -> None:
    """Under systrap a process of the bot costs fewer host tasks: a fork bomb must meet
    pids.max as soon (tests/engine/test_sandbox_hostile.py's ends as 'resource' on either)."""
    new = stand_in(tmp_path, "0.0~20240729.0")
    limits = SandboxLimits(max_processes=16)
    tasks = {platform: GvisorBackend.extra(limits, SandboxConfig(runsc=new,
                                                                 gvisor_platform=platform))[1]
             for platform in ("ptrace", "systrap")}
    assert tasks == {platform: gvisor.TASKS_EXTRA + (per - 1) * 16
                     for platform, per in gvisor.TASKS_PER_PROCESS.items()}
    assert tasks["systrap"] < tasks["ptrace"]


@pytest.mark.sandbox
@pytest.mark.skipif(os.geteuid() != 0 or gvisor.runsc_path() is None,
                    reason="gVisor seats need root and runsc")
def test_a_seat_says_which_runsc_and_platform_it_plays_on() -> None:
    from engine.sandbox.probe import probe_sandbox

    report = probe_sandbox()
    runsc = gvisor.runsc_path()
    assert runsc is not None
    version = gvisor.runsc_facts(runsc)[0]
    assert report.ok and report.kernel == "gvisor", report
    assert f"runsc {version}, {gvisor.DEFAULT_PLATFORM} platform" in report.reason, report.reason
