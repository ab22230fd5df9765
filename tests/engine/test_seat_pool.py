"""Seats booted ahead (issue 33): the zygote that becomes the bot, and the pool that keeps
booted seats. Real sandboxes on both kernels; no mock.

The zygote must run a Python bot as `python3 bot.py` would (the bot cannot tell), run nothing
of it before the gate, and leave every other program to exec. The pool must hand out booted
seats, each once, and leave nothing of a used seat behind.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.faults import InfrastructureError
from engine.kaiser.match import run_match
from engine.sandbox import SandboxLimits, SandboxProcess
from engine.sandbox import pool as seat_pool
from engine.sandbox.config import config
from engine.sandbox.procs import _readable
from tests.engine.sandbox_support import RELAXED, leftover_cgroups, processes_in, program

pytestmark = [pytest.mark.sandbox, pytest.mark.timeout(300)]
KERNELS = ["gvisor", "host"]

INSPECT = '''import json, os, sys
line = sys.stdin.readline()
print(json.dumps({"argv": sys.argv, "file": __file__, "path0": sys.path[0],
                  "name": __name__, "cwd": os.getcwd(), "line": line,
                  "helper": __import__("helper").VALUE}), file=sys.stderr, flush=True)
sys.exit(3)
'''
FAILING = '''import sys
print("up", file=sys.stderr, flush=True)


def decide():
    raise ValueError("no legal card")


decide()
'''
IMPORTER = ('import sys\nprint("IMPORTED", file=sys.stderr, flush=True)\n'
            "print(sys.stdin.readline().strip())\n")


@pytest.fixture
def folder() -> Iterator[Path]:
    """A program folder the seat's user may read (pytest's tmp_path is private to root)."""
    root = Path(tempfile.mkdtemp(prefix="kaiser-test-"))
    root.chmod(0o755)
    yield root
    shutil.rmtree(root)


def write(folder: Path, name: str, text: str) -> None:
    (folder / name).write_text(text)
    (folder / name).chmod(0o644)


def booted(limits: SandboxLimits | None = None) -> SandboxProcess:
    seat = SandboxProcess(limits=limits or SandboxLimits())
    assert seat.wait_booted(time.monotonic() + 60), "the seat never came up"
    return seat


def read_all(fd: int, until: bytes, timeout_s: float = 30.0) -> bytes:
    data = b""
    deadline = time.monotonic() + timeout_s
    while until not in data and _readable(fd, deadline - time.monotonic()):
        chunk = os.read(fd, 4096)
        if not chunk:
            break
        data += chunk
    return data


@pytest.mark.parametrize("kernel", KERNELS)
def test_a_python_bot_runs_in_the_booted_interpreter_as_python3_would_run_it(
        folder: Path, monkeypatch: pytest.MonkeyPatch, kernel: str) -> None:
    monkeypatch.setenv("KAISER_SANDBOX_KERNEL", kernel)
    write(folder, "bot.py", INSPECT)
    write(folder, "helper.py", "VALUE = 42\n")
    seat = booted()
    try:
        seat.hand(folder, ("python3", "bot.py"))
        assert seat.wait_started(time.monotonic() + 30)
        os.write(seat.stdin_fd, b'{"type": "hello"}\n')
        seen = json.loads(read_all(seat.stderr_fd, b"\n"))
        assert seat.wait(30) == 3  # its own exit status
    finally:
        seat.kill()
    assert seen == {"argv": ["bot.py"], "file": "/bot/bot.py", "path0": "/bot",
                    "name": "__main__", "cwd": "/bot", "line": '{"type": "hello"}\n',
                    "helper": 42}


@pytest.mark.parametrize("kernel", KERNELS)
def test_a_bots_exception_shows_its_own_traceback_and_exits_1(
        folder: Path, monkeypatch: pytest.MonkeyPatch, kernel: str) -> None:
    monkeypatch.setenv("KAISER_SANDBOX_KERNEL", kernel)
    write(folder, "bot.py", FAILING)
    seat = booted()
    try:
        seat.hand(folder, ("python3", "bot.py"))
        assert seat.wait_started(time.monotonic() + 30)
        text = read_all(seat.stderr_fd, b"ValueError: no legal card").decode()
        assert seat.wait(30) == 1
    finally:
        seat.kill()
    assert text.startswith("up\nTraceback (most recent call last):\n"), text
    assert 'File "/bot/bot.py", line 9, in <module>' in text
    assert 'File "/bot/bot.py", line 6, in decide' in text
    assert "runpy" not in text and "<string>" not in text and "zygote" not in text


@pytest.mark.parametrize("kernel", KERNELS)
def test_a_missing_interpreter_is_the_machines_failing_not_the_bots(
        folder: Path, monkeypatch: pytest.MonkeyPatch, kernel: str) -> None:
    monkeypatch.setenv("KAISER_SANDBOX_KERNEL", kernel)
    write(folder, "bot.lua", "print('hi')\n")
    seat = booted()
    try:
        seat.hand(folder, ("lua5.9", "bot.lua"))
        with pytest.raises(InfrastructureError, match="'lua5.9' is not available"):
            seat.wait_started(time.monotonic() + 30)
    finally:
        seat.kill()


@pytest.mark.parametrize("kernel", KERNELS)
def test_another_program_is_execed_in_the_zygotes_place(
        folder: Path, monkeypatch: pytest.MonkeyPatch, kernel: str) -> None:
    monkeypatch.setenv("KAISER_SANDBOX_KERNEL", kernel)
    write(folder, "bot.sh", 'read line; echo "sh got $line"; echo "$0 $1" >&2\n')
    seat = booted()
    try:
        seat.hand(folder, ("sh", "bot.sh", "arg"))
        assert seat.wait_started(time.monotonic() + 30)
        os.write(seat.stdin_fd, b"ping\n")
        assert read_all(seat.stdout_fd, b"\n") == b"sh got ping\n"
        assert read_all(seat.stderr_fd, b"\n") == b"bot.sh arg\n"
    finally:
        seat.kill()


@pytest.fixture
def fresh_pool(monkeypatch: pytest.MonkeyPatch) -> Iterator[seat_pool.SeatPool]:
    """A pool of this test's own, of 4 seats, in place of the process's."""
    monkeypatch.setenv("KAISER_SANDBOX_POOL", "4")
    pool = seat_pool.SeatPool()
    monkeypatch.setattr(seat_pool, "_pool", pool)
    yield pool
    pool.close()


def test_a_seat_booted_ahead_runs_no_bot_code_before_its_gate(
        folder: Path, fresh_pool: seat_pool.SeatPool) -> None:
    write(folder, "bot.py", IMPORTER)
    fresh_pool.take(SandboxLimits()).kill()  # the first ask starts the pool
    assert fresh_pool.wait_full(120), fresh_pool.last_error
    seat = fresh_pool.take(SandboxLimits())
    try:
        assert fresh_pool.served == 1
        seat.hand(folder, ("python3", "bot.py"))
        assert not _readable(seat.stderr_fd, 1.0)  # its import-time line waits
        assert seat.wait_started(time.monotonic() + 30)
        assert read_all(seat.stderr_fd, b"\n") == b"IMPORTED\n"
        os.write(seat.stdin_fd, b"ping\n")
        assert read_all(seat.stdout_fd, b"\n") == b"ping\n"  # its first line was left for it
    finally:
        seat.kill()


def test_a_match_plays_on_booted_seats_each_used_once_and_removed(
        fresh_pool: seat_pool.SeatPool) -> None:
    fresh_pool.take(SandboxLimits()).kill()
    assert fresh_pool.wait_full(120), fresh_pool.last_error
    bots = [program(Path(__file__).parents[2] / "bench" / "trivial_bot.py", time=RELAXED)
            for _ in range(2)]

    replay = run_match(bots[0], bots[1], games=2, seed="pool", time=RELAXED)

    assert replay["result"]["forfeit"] is None
    players = [player for bot in bots for player in bot.players]
    assert len(players) == 8 and len({p.pid_namespace for p in players}) == 8
    assert fresh_pool.served >= 4  # the first table at least came booted
    assert processes_in([p.pid_namespace for p in players]) == []
    assert leftover_cgroups() == []  # but the pool's own, booted for the next match
    used = {p.pid_namespace.rsplit("/", 1)[-1] for p in players}
    assert fresh_pool.wait_full(120)  # booted anew: none of the used seats went back
    with fresh_pool.paused() as held:
        assert held and not {Path(path).name for path in held} & used


def test_a_seat_of_other_limits_boots_when_asked_and_the_pool_keeps_its_own(
        fresh_pool: seat_pool.SeatPool) -> None:
    fresh_pool.take(SandboxLimits()).kill()
    assert fresh_pool.wait_full(120), fresh_pool.last_error

    other = fresh_pool.take(SandboxLimits(memory_mb=256))
    try:
        assert fresh_pool.served == 0 and fresh_pool.ready() == 4
        assert other.limits.memory_mb == 256 and other.wait_booted(time.monotonic() + 60)
    finally:
        other.kill()


def test_the_pool_size_is_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KAISER_SANDBOX_POOL", "lots")
    with pytest.raises(InfrastructureError, match="KAISER_SANDBOX_POOL='lots' is not"):
        config()
    monkeypatch.setenv("KAISER_SANDBOX_POOL", "0")
    pool = seat_pool.SeatPool()
    seat = pool.take(SandboxLimits())
    try:
        assert pool.served == 0 and pool.ready() == 0 and pool.booted == 0
    finally:
        seat.kill()
        pool.close()
