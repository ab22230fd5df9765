"""No table remembers the other (issue 31): every game of a match is played by new processes,
each with a new copy of the program and a new /tmp, and nothing one seat leaves, in a file, a
time stamp or an extended attribute, reaches another game, another match or its partner.

Tried as an attacker would, with real bots in real sandboxes (gVisor on this machine as root):
tests/engine/hostile/leave_marks.py marks everything it can and looks for marks everywhere;
tests/engine/fairplay/usr_atime.py passes its hand through the access times of /usr. The
positive controls put back what the fix took away (a /tmp slot handed on with its times, a
/usr whose access times move), which shows each probe would see a mark.
"""

from __future__ import annotations

import ctypes
import os
import re
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest

from engine.botproc import ProgramPlayer
from engine.builtin import resolve_player
from engine.kaiser.match import run_match
from engine.sandbox import SandboxLimits, SandboxProcess, gvisor
from engine.sandbox.procs import _readable
from engine.sandbox.tmp import _empty, _SlotTmp
from engine.sandbox.uids import _state_dir
from engine.sergeant_major.match import run_match as sm_run_match
from tests.engine.sandbox_support import HOSTILE, RELAXED, processes_in, program
from tests.engine.test_kernel_channels import RULES, channel_bot, hands_passed

pytestmark = [pytest.mark.sandbox, pytest.mark.timeout(300)]
MARKER = HOSTILE / "leave_marks.py"
SM_BOT = Path(__file__).parent / "programs" / "sm_bot.py"
FOUND = re.compile(r"^FOUND .*$", re.M)


def lines(player: Any, tag: str) -> list[str]:
    return [line.split(" ", 1)[1] if " " in line else "" for line in
            player.stderr_text().splitlines() if line.startswith(tag + " ") or line == tag]


@pytest.fixture
def seat_visible() -> Any:
    """A folder that a seat's own uid may pass through (a test's tmp_path is root's only), in
    the sandbox's state folder, as the worker's own seat folders are."""
    if os.geteuid() != 0:
        pytest.fail("the seats' own uids need root (the sandbox tests run as root)")
    folder = Path(tempfile.mkdtemp(prefix="test-", dir=_state_dir("tests")))
    os.chmod(folder, 0o755)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def make_slots(folder: Path, count: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """/tmp slots, as the worker container has them (KAISER_SANDBOX_TMP_SLOTS)."""
    os.chmod(folder.parent, 0o711)
    for n in range(count):
        (folder / f"slot-{n}").mkdir(mode=0o700)
    monkeypatch.setenv("KAISER_SANDBOX_TMP_SLOTS", str(folder))


@pytest.fixture
def slots(seat_visible: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Eight slots, a match's worth (a table plays while the next one boots): the seats of
    every game, and of the next match, get the same eight back."""
    make_slots(seat_visible, 8, monkeypatch)
    return seat_visible


def play_marked(matches: int = 2) -> list[Any]:
    """`matches` matches of the marking bot against itself; every player made, in order."""
    made = []
    for n in range(matches):
        a, b = program(MARKER, time=RELAXED), program(MARKER, time=RELAXED)
        replay = run_match(a, b, games=2, seed=f"marks{n}", rules=RULES, time=RELAXED)
        assert replay["result"]["forfeit"] is None, replay["result"]
        assert processes_in(a.namespaces + b.namespaces) == []
        made += [*a.players, *b.players]
    return made


def test_every_game_has_new_processes_told_their_one_game() -> None:
    a, b = program(MARKER, time=RELAXED), program(MARKER, time=RELAXED)
    run_match(a, b, games=4, seed="fresh", rules=RULES, time=RELAXED)

    players = [*a.players, *b.players]
    assert sorted((p.game, p.seat) for p in players) == [(g, s) for g in range(4)
                                                         for s in range(4)]
    assert len({p.pid_namespace for p in players}) == 16  # sixteen sandboxes, one a seat a game
    assert all(isinstance(p, ProgramPlayer) for p in players)


@pytest.mark.parametrize("kernel", ["gvisor", "host"])
def test_nothing_a_seat_leaves_reaches_another_game_match_or_seat(
        slots: Path, monkeypatch: pytest.MonkeyPatch, kernel: str) -> None:
    monkeypatch.setenv("KAISER_SANDBOX_KERNEL", kernel)
    players = play_marked()

    assert len(players) == 16  # two matches, two games, four seats
    for player in players:
        left = lines(player, "LEFT")[0].split(",")
        # What a seat can do to its own /tmp it did, and its own look saw it: the probe works.
        assert {"tmp-file", "tmp-file-times", "tmp-times"} <= set(left), player.stderr_text()
        assert not {"bot-file", "bot-times", "bot-xattr"} & set(left)  # its program: read-only
        assert "/tmp times" in lines(player, "SELF")[0], player.stderr_text()
        assert int(lines(player, "LOOKED")[0]) >= 3
        assert FOUND.findall(player.stderr_text()) == []


def test_positive_control_a_slot_handed_on_with_its_times_carries_the_mark(
        slots: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def reset_as_before(self: Any) -> None:  # emptied, owner and mode reset, times kept
        _empty(self.path)
        os.chown(self.path, 0, 0)
        os.chmod(self.path, 0o700)

    monkeypatch.setattr(_SlotTmp, "_reset", reset_as_before)
    players = play_marked(matches=2)

    found = [line for p in players for line in FOUND.findall(p.stderr_text())]
    assert any(line.startswith("FOUND start /tmp times") for line in found), found


def test_with_room_for_one_table_only_each_table_is_made_when_the_last_has_left(
        seat_visible: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    make_slots(seat_visible, 4, monkeypatch)  # no room to boot the next table early
    a, b = program(MARKER, time=RELAXED), program(MARKER, time=RELAXED)

    replay = run_match(a, b, games=2, seed="room", rules=RULES, time=RELAXED)

    assert replay["result"]["forfeit"] is None, replay["result"]
    played = [p for p in (*a.players, *b.players) if p.pid_namespace]
    # Every seat of both games played; on a busy host a seat made while the last table's
    # seats still held their slots found no room, and was made again once they had left.
    assert sorted({(p.game, p.seat) for p in played}) == [(g, s) for g in range(2)
                                                          for s in range(4)]
    assert processes_in([p.pid_namespace for p in played]) == []
    assert all(FOUND.findall(p.stderr_text()) == [] for p in played)


def test_sergeant_major_plays_every_game_with_new_processes() -> None:
    bots = [program(SM_BOT, time=RELAXED) for _ in range(3)]
    replay = sm_run_match(bots, games=3, seed="fresh", time=RELAXED)

    assert replay["result"]["forfeit"] is None
    players = [p for bot in bots for p in bot.players]
    assert sorted((p.game, p.seat) for p in players) == [(g, s) for g in range(3)
                                                         for s in range(3)]
    assert len({p.pid_namespace for p in players}) == 9


def test_partners_pass_no_hand_through_usr_access_times(tmp_path: Path) -> None:
    bot = program(channel_bot(tmp_path, "usr_atime"), time=RELAXED)
    replay = run_match(bot, resolve_player("builtin:random"), games=2, seed="7", rules=RULES,
                       time=RELAXED)

    assert replay["result"]["forfeit"] is None
    hands = hands_passed(bot)
    assert hands.sent >= 8, hands
    assert hands.decoded == 0, hands


# Not alone: it reads access times on a /usr copy of its own (no clock, no CPU share), and
# passed 3 runs of 3 beside two busy loops on two cores.
def test_positive_control_usr_access_times_carry_the_hand_when_they_move(
        tmp_path: Path, seat_visible: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A /usr copy of its own whose access times move (not pinned, a relatime tmpfs): the
    same probe then passes hands, so the test above could fail."""
    os.chmod(seat_visible.parent, 0o711)
    base = seat_visible / "sysroot"
    base.mkdir()
    monkeypatch.setenv("KAISER_SANDBOX_SYSROOT", str(base))
    monkeypatch.setattr(gvisor, "pin_atimes", lambda root: None)
    monkeypatch.setattr(gvisor, "MS_NOATIME", 0)
    gvisor.sysroot.cache_clear()
    gvisor.rootfs.cache_clear()
    try:
        bot = program(channel_bot(tmp_path, "usr_atime"), time=RELAXED)
        replay = run_match(bot, resolve_player("builtin:random"), games=2, seed="7",
                           rules=RULES, time=RELAXED)
    finally:
        gvisor.sysroot.cache_clear()
        gvisor.rootfs.cache_clear()
        ctypes.CDLL(None, use_errno=True).umount2(bytes(base), 2)  # MNT_DETACH

    assert replay["result"]["forfeit"] is None
    hands = hands_passed(bot)
    assert hands.decoded >= 4, hands


IMPORTER = """import sys
print("IMPORTED", file=sys.stderr, flush=True)
sys.stdout.write(sys.stdin.readline())
sys.stdout.flush()
"""


@pytest.mark.parametrize("kernel", ["gvisor", "host"])
def test_a_seat_made_early_boots_but_runs_no_bot_code_until_its_game(
        seat_visible: Path, monkeypatch: pytest.MonkeyPatch, kernel: str) -> None:
    """The gate (engine.sandbox.zygote): a sandbox made for the next game starts up to the
    point where the bot would run, and the bot's first line of code runs only once the
    engine lets it through (wait_started, when its game begins)."""
    monkeypatch.setenv("KAISER_SANDBOX_KERNEL", kernel)
    folder = seat_visible / "importer"
    folder.mkdir(mode=0o755)
    (folder / "bot.py").write_text(IMPORTER)
    os.chmod(folder / "bot.py", 0o644)
    proc = SandboxProcess(workdir=folder, run=("python3", "bot.py"), limits=SandboxLimits())
    try:
        started = proc.stdout_fd if kernel == "gvisor" else proc.backend.started_fd
        assert _readable(started, 60.0), "the sandbox never came up"
        # Up, and waiting: the bot's import-time line must not come while it waits.
        assert not _readable(proc.stderr_fd, 1.0)
        assert proc.wait_started(time.monotonic() + 30)
        assert _readable(proc.stderr_fd, 30.0)
        assert os.read(proc.stderr_fd, 100) == b"IMPORTED\n"
        os.write(proc.stdin_fd, b"ping\n")
        assert _readable(proc.stdout_fd, 30.0)
        assert os.read(proc.stdout_fd, 100) == b"ping\n"  # the gate left the bot its line
    finally:
        proc.kill()
