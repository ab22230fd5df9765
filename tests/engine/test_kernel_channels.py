"""Partners cannot meet in the kernel (issue 19), tried as an attacker would: a real bot that
plays legally and at the same time passes its hand to its partner through one of the host
kernel's shared objects, in a real match against builtin:random, one channel a test.

The probes are in tests/engine/fairplay/. A hand-passing probe prints, for every deal, the
hand it sent and the partner's hand it decoded (_channel.py); a test holds each decoded hand
against the partner's sent one. A stopping probe keeps a helper process running while its
seat should be stopped and prints the share of that time it ran (_offmove.py).

Each channel is tried under the default kernel, where the partner must learn nothing, and,
where the channel is open there, under the host kernel or the design before issue 19 (the
positive controls, marked so): that is what shows each probe works, so the test can fail.
"""

from __future__ import annotations

import dataclasses
import glob
import os
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from engine.builtin import resolve_player
from engine.kaiser.match import run_match
from engine.kaiser.rules import DEFAULT_RULES
from engine.sandbox import cgroups
from engine.sandbox import filter as syscall_filter
from tests.engine.sandbox_support import RELAXED, processes_in, program

pytestmark = [pytest.mark.sandbox, pytest.mark.timeout(300)]
PROBES = Path(__file__).parent / "fairplay"
# Two games of at most three deals: each seat sends up to six hands.
RULES = dataclasses.replace(DEFAULT_RULES, max_deals=3)
HAND_LINE = re.compile(r"^(SENT|DECODED) (game=\d+ deal=\d+) hand=(\S+)$", re.M)
STOPPED_AT_MOST = 0.05  # of its time off move, a stopped seat's helper ran (0 to 0.01)
# Pages far enough apart that read-ahead never joins two (page_cache.py).
STRIDE = 128 << 10


def channel_bot(tmp_path: Path, name: str) -> Path:
    folder = tmp_path / name
    folder.mkdir()
    shutil.copy(PROBES / f"{name}.py", folder / "bot.py")
    for shared in ("_play.py", "_channel.py", "_offmove.py"):
        shutil.copy(PROBES / shared, folder / shared)
    if name == "page_cache":
        (folder / "page_cache.txt").write_text(" ".join([str(STRIDE), *cold_shared_files()]))
    return folder


def cold_shared_files() -> list[str]:
    """Big files under /usr that no bot maps, dropped from the host's page cache so that
    every page starts cold whatever the kernel: libLLVM (which Chromium's Mesa brings) or
    Chromium itself (the project installs Chromium everywhere), and last Node's executable,
    which a seat with its own copy of /usr still has (the probe takes the first it sees)."""
    need = 2 * 2 * 3 * 32 * STRIDE  # 2 games x 3 deals x 2 halves x 32 cards
    found = [*sorted(glob.glob("/usr/lib/*/libLLVM*.so*")), "/usr/lib/chromium/chromium",
             os.path.realpath(shutil.which("node") or "/usr/bin/node")]
    big = [path for path in found if os.path.isfile(path) and os.path.getsize(path) >= need]
    assert big, "no big shared file under /usr for the page cache probe"
    for path in big:
        handle = os.open(path, os.O_RDONLY)
        try:
            os.posix_fadvise(handle, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(handle)
    return big


def play_channel(bot: Any) -> dict[str, Any]:
    replay = run_match(bot, resolve_player("builtin:random"), games=2, seed="7", rules=RULES,
                       time=RELAXED)
    assert replay["result"]["forfeit"] is None
    assert processes_in(bot.namespaces) == []
    return replay


@dataclasses.dataclass
class Hands:
    sent: int  # hands sent, both seats
    decoded: int  # partner hands decoded correctly
    reports: list[str]


def hands_passed(bot: Any) -> Hands:
    """Each game's two seats of the bot (a table of their own) against each other."""
    texts = [player.stderr_text() for player in bot.players]
    lines = [{(kind, deal): hand for kind, deal, hand in HAND_LINE.findall(text)}
             for text in texts]
    games = sorted({player.game for player in bot.players})
    pairs = [[i for i, player in enumerate(bot.players) if player.game == game]
             for game in games]
    assert all(len(pair) == 2 for pair in pairs), pairs
    decoded = sum(1 for first, second in pairs for me, partner in ((first, second),
                                                                   (second, first))
                  for (kind, deal), hand in lines[me].items()
                  if kind == "DECODED" and lines[partner].get(("SENT", deal)) == hand)
    sent = sum(1 for seat in lines for kind, _ in seat if kind == "SENT")
    others = [line for text in texts for line in text.splitlines()
              if not HAND_LINE.match(line)]
    return Hands(sent, decoded, others)


def offmove_shares(bot: Any) -> list[float]:
    """What share of its time off move each seat's helpers ran."""
    found = [re.search(r"^OFFMOVE .* fraction=([0-9.]+) ", player.stderr_text(), re.M)
             for player in bot.players]
    assert all(found), [player.stderr_text() for player in bot.players]
    return [float(match.group(1)) for match in found if match]


def the_filter_before_issue_19(monkeypatch: pytest.MonkeyPatch) -> None:
    """Argument rules that compare all 64 bits, as before issue 19."""
    monkeypatch.setattr(syscall_filter, "LOW_32", (1 << 64) - 1)
    syscall_filter.filter_program.cache_clear()


def stopping_by_signals(monkeypatch: pytest.MonkeyPatch) -> None:
    """Seats stopped with SIGSTOP, as before issue 19: no cgroup freezer."""
    for cgroup in (cgroups._CgroupV1, cgroups._CgroupV2):
        monkeypatch.setattr(cgroup, "freeze", lambda self: False)


@pytest.fixture(autouse=True)
def _fresh_filter() -> Any:
    yield
    syscall_filter.filter_program.cache_clear()  # a test may have built the old one


HAND_CHANNELS = ["socket_cookie", "pipe_inode", "pidfd_inode", "tcp_sockstat", "page_cache",
                 "ofd_lock_wide"]


@pytest.mark.parametrize("name", HAND_CHANNELS)
def test_partners_pass_no_hand_through_the_kernel(tmp_path: Path, name: str) -> None:
    bot = program(channel_bot(tmp_path, name), time=RELAXED)

    play_channel(bot)

    hands = hands_passed(bot)
    assert hands.sent >= 8, hands  # both seats went through the deals
    assert hands.decoded == 0, hands


# Positive controls: the same probes where the channel is open. pidfd_inode has none: its
# counter is moved by every process and thread the host starts, and on a test machine that
# runs other suites beside this one no hand got through whole (0 of 12, in three matches),
# though the two seats' numbers interleave. The others run alone, in one test (one wait for
# the other test workers instead of four): pipe inode numbers and the host's TCP socket count
# move with every other test's pipes and connections (in CI, at load 6.5, pipe_inode decoded
# 0 of 12 hands and tcp_sockstat 4 of 12).
@pytest.mark.alone
def test_positive_control_the_host_kernel_carries_the_hand(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KAISER_SANDBOX_KERNEL", "host")
    passed = {}
    for name in ("socket_cookie", "pipe_inode", "tcp_sockstat", "page_cache"):
        bot = program(channel_bot(tmp_path, name), time=RELAXED)
        play_channel(bot)
        passed[name] = hands_passed(bot)

    for name, hands in passed.items():  # most hands, though the host is noisy
        assert hands.sent >= 8 and hands.decoded * 2 >= hands.sent, (name, hands)


def test_positive_control_wide_fcntl_locks_carry_the_hand_past_the_old_filter(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KAISER_SANDBOX_KERNEL", "host")
    the_filter_before_issue_19(monkeypatch)
    bot = program(channel_bot(tmp_path, "ofd_lock_wide"), time=RELAXED)

    play_channel(bot)

    hands = hands_passed(bot)
    assert hands.decoded * 2 >= hands.sent, hands


def test_on_the_host_kernel_the_filter_refuses_wide_fcntl_locks(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KAISER_SANDBOX_KERNEL", "host")
    bot = program(channel_bot(tmp_path, "ofd_lock_wide"), time=RELAXED)

    play_channel(bot)

    hands = hands_passed(bot)
    assert hands.decoded == 0
    assert "ERROR PermissionError: [Errno 1] fcntl 37 | 1 << 32: Operation not permitted" \
        in hands.reports


# The stopping probes count wall-clock time: the engine's stop comes late on a host that other
# tests keep busy, so these run alone (the helpers ran 5-7% off move beside two more workers).
@pytest.mark.alone
@pytest.mark.parametrize("name", ["sigcont_timer", "kill_wide"])
def test_a_seat_off_move_stays_stopped(tmp_path: Path, name: str) -> None:
    bot = program(channel_bot(tmp_path, name), time=RELAXED)

    play_channel(bot)

    shares = offmove_shares(bot)
    assert max(shares) < STOPPED_AT_MOST, shares


@pytest.mark.alone
def test_positive_control_a_sigcont_timer_undid_a_stop_by_signals(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The design before issue 19 (SIGSTOP, on the host kernel): the timer's helper ran 24%
    # to 54% of its time off move on a 2-CPU test machine.
    monkeypatch.setenv("KAISER_SANDBOX_KERNEL", "host")
    stopping_by_signals(monkeypatch)
    bot = program(channel_bot(tmp_path, "sigcont_timer"), time=RELAXED)

    play_channel(bot)

    shares = offmove_shares(bot)
    assert min(shares) > 2 * STOPPED_AT_MOST, shares


# kill_wide has no positive control: with the filter before issue 19 and stopping by signals,
# its helpers win the race against the engine's stop signals on a 2-CPU machine only now and
# then (1% to 12% of the time off move measured, against 0% to 3% for a refused kill): too
# close to tell apart every time. test_syscall_filter_args.py shows the wide kill passes the
# old filter and is the real call.
