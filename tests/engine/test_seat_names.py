"""Seat folders and cgroups named so that they cannot collide across worker restarts (issue 44:
a worker killed and restarted in its container gets the dead worker's pids, and met its seat
folders: "[Errno 17] File exists: '/run/kaiser-arena/gvisor/kaiser-98-15'"). A name holds its
owner's pid AND start time; the stale sweeps remove what a dead owner left even when its pid
now belongs to a live process, and never what a live owner holds."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from engine.sandbox import gvisor
from engine.sandbox.uids import _seat_name, _start_ticks, left_by_the_dead, owner_gone, owner_token


def test_a_name_holds_the_owners_pid_and_start_time() -> None:
    pid, start = owner_token().split(".")
    assert int(pid) == os.getpid() and start == _start_ticks(os.getpid()) and start.isdigit()
    assert _seat_name().startswith(f"kaiser-{pid}.{start}-")


def test_a_restarted_worker_with_the_dead_ones_pid_names_its_seats_apart() -> None:
    """The dead worker is played by a name with this process's pid and another start time:
    exactly what a restarted worker meets. Its seat names differ, and its leftovers are the
    dead's, not this live process's."""
    pid, start = owner_token().split(".")
    dead = f"{pid}.{int(start) - 1}"
    assert owner_gone(dead) and not owner_gone(owner_token())
    ours = {_seat_name() for _ in range(50)}
    assert all(not name.startswith(f"kaiser-{dead}-") for name in ours)


def test_a_child_process_is_an_owner_of_its_own() -> None:
    child = subprocess.run(
        [sys.executable, "-c", "from engine.sandbox.uids import owner_token; print(owner_token())"],
        capture_output=True, text=True, check=True, cwd=Path(__file__).resolve().parents[2])
    theirs = child.stdout.strip()
    assert theirs != owner_token() and owner_gone(theirs)  # it has exited


@pytest.mark.parametrize("name", ["kaiser-{dead}-15", "rootfs-{dead}"])
def test_the_gvisor_sweep_removes_a_dead_workers_folders_though_its_pid_lives(
        tmp_path: Path, name: str) -> None:
    pid, start = owner_token().split(".")
    left = tmp_path / name.format(dead=f"{pid}.{int(start) - 1}")
    (left / "runsc").mkdir(parents=True)
    older = tmp_path / "kaiser-4194305-3"  # an older name, a pid above pid_max: gone
    older.mkdir()
    live = tmp_path / f"kaiser-{owner_token()}-0"
    live.mkdir()
    gvisor.sweep_stale(tmp_path)
    assert not left.exists() and not older.exists()
    assert live.exists()  # a live worker's seat is never swept


def test_only_names_of_ours_are_judged() -> None:
    assert not left_by_the_dead(Path("/run/kaiser-arena/gvisor/sysroot"))
    assert not left_by_the_dead(Path("/x/kaiser-notapid-3"))
