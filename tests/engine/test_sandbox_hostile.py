"""Hostile bot programs in the real sandbox, in real matches against builtin:random.

Each ends with the right fault in the replay, the opponent winning every game, and no process
of the bot's sandboxes left running. Where the fault is the clock, time limits are small
(FAST) to keep the suite quick; pytest-timeout bounds each match instead of a wall-clock
assertion.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import pytest

from engine.players import TimeControl
from engine.sandbox import SandboxLimits
from tests.engine.sandbox_support import (
    FAST,
    HOSTILE,
    RELAXED,
    leftover_cgroups,
    play,
    processes_in,
    program,
)

pytestmark = [pytest.mark.sandbox, pytest.mark.timeout(60)]

# For faults that need some CPU first (a limit to reach): generous, so that a loaded test
# machine cannot turn them into timeouts. These matches end at the fault, not the clock.
GENEROUS = TimeControl(move_ms=20000, bank_ms=1000, startup_ms=5000)
# The fork bomb never stops by itself: its fault comes at the clock, so not too generous.
BOMB_CLOCK = TimeControl(move_ms=2000, bank_ms=300, startup_ms=5000)


@dataclass(frozen=True)
class Case:
    bot: str
    reason: str
    message_id: int
    time: TimeControl = RELAXED  # FAST only where the fault is the clock
    limits: SandboxLimits = SandboxLimits()
    detail: str = ""
    kernel: str = ""  # "host" or "gvisor"; "": the default (gVisor where runsc is installed)


CASES = [
    Case("fork_bomb", "resource", 1, time=BOMB_CLOCK, detail="processes limit"),
    Case("memory_hog", "resource", 1, time=GENEROUS, detail="memory limit"),
    Case("cpu_loop", "timeout", 1, time=FAST, detail="no reply in time"),
    Case("cpu_loop", "resource", 1, time=GENEROUS, limits=SandboxLimits(cpu_seconds=1),
         detail="CPU time limit"),
    Case("cpu_burner", "resource", -1, limits=SandboxLimits(cpu_seconds=1),
         detail="CPU time limit"),
    Case("slow_reply", "timeout", 1, time=FAST),
    Case("silent_hello", "timeout", 0, time=FAST, detail="2000 ms"),
    Case("stdout_flood", "protocol", 1, detail="longer than 64 KiB"),
    Case("not_json", "protocol", 1, detail="not JSON"),
    Case("wrong_id", "protocol", 1, detail="expected id 1"),
    Case("illegal_card", "illegal", -1, detail="may not be played"),
    Case("illegal_bid", "illegal", 1, detail="bid 13"),
    Case("exit_mid_deal", "crash", 3, detail="exited with status 0"),
    Case("close_stdout", "crash", 1, detail="closed its standard input or output",
         kernel="host"),
    # gVisor's runsc keeps the seat's output pipe open itself: a bot that closes its output
    # and lives on is a bot that does not answer (one that exits is a crash, as above).
    Case("close_stdout", "timeout", 1, time=FAST, detail="no reply in time", kernel="gvisor"),
    Case("orphan_child", "crash", 2, detail="exited with status 0"),
    Case("big_file", "crash", 0),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c.bot}-{c.reason}")
def test_hostile_bot_forfeits_with_the_right_fault_and_leaves_nothing(
        case: Case, monkeypatch: pytest.MonkeyPatch) -> None:
    if case.kernel:
        monkeypatch.setenv("KAISER_SANDBOX_KERNEL", case.kernel)
    bot = program(HOSTILE / f"{case.bot}.py", time=case.time, limits=case.limits)

    replay = play(bot, time=case.time)

    forfeit = replay["result"]["forfeit"]
    assert forfeit is not None, "the hostile bot was not caught"
    assert (forfeit["player"], forfeit["reason"]) == ("A", case.reason), forfeit
    if case.message_id >= 0:
        assert forfeit["message_id"] == case.message_id
    assert case.detail in forfeit["detail"]
    assert replay["result"]["games"] == {"A": 0, "B": 2}
    assert replay["games"][-1]["result"]["forfeit"] == forfeit
    assert replay["games"][-1]["result"]["winner"] == 1 - forfeit["seat"] % 2
    assert processes_in(bot.namespaces) == []
    assert leftover_cgroups() == []


def stderr_of(bot_name: str, **kwargs: object) -> tuple[dict, str]:
    bot = program(HOSTILE / f"{bot_name}.py")
    replay = play(bot, **kwargs)  # type: ignore[arg-type]
    assert processes_in(bot.namespaces) == []
    return replay["result"]["forfeit"], bot.players[0].stderr_text()


def test_network_is_unreachable_from_the_sandbox() -> None:
    forfeit, stderr = stderr_of("probe_network")

    assert forfeit["reason"] == "crash" and "status 3" in forfeit["detail"]
    assert "ESCAPED" not in stderr
    assert stderr.count("blocked") == 5, stderr


def test_server_files_settings_and_environment_are_invisible(
        monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    token = "kaiser-" + "secret-token"
    monkeypatch.setenv("KAISER_TEST_SECRET", token)
    monkeypatch.setenv("DATABASE_URL", f"postgres://user:{token}@127.0.0.1/kaiser")
    (tmp_path / "settings.py").write_text(f"SECRET_KEY = '{token}'\n")

    forfeit, stderr = stderr_of("probe_files")

    assert forfeit["reason"] == "crash" and "status 3" in forfeit["detail"]
    assert "SEES" not in stderr, stderr
    assert "sees nothing of the server" in stderr
    # gVisor's kernel has an (empty) /sys of its own.
    assert re.search(r"root holds: bin bot dev etc lib lib64 proc sbin (sys )?tmp usr", stderr)


def test_only_tmpdir_is_writable() -> None:
    forfeit, stderr = stderr_of("write_outside")

    assert forfeit["reason"] == "crash"
    assert "WROTE /tmp/allowed.txt" in stderr
    # Under gVisor /dev is its kernel's own, in the seat's memory (docs/sandbox.md).
    shared_kernel = "WROTE /dev/planted.txt" not in stderr
    assert stderr.count("WROTE") == (1 if shared_kernel else 2), stderr
    assert stderr.count("blocked") == (7 if shared_kernel else 6), stderr


def test_filling_tmpdir_stops_at_its_size_limit() -> None:
    forfeit, stderr = stderr_of("fill_tmp")

    assert forfeit["reason"] == "crash"
    written_mib = int(stderr.split("stopped after ")[1].split(" MiB")[0])
    assert 0 < written_mib <= SandboxLimits().tmp_mb


def test_a_file_beyond_the_file_size_limit_is_refused() -> None:
    _, stderr = stderr_of("big_file")

    assert "File too large" in stderr


def test_endless_stderr_is_capped_and_never_blocks_the_match() -> None:
    bot = program(HOSTILE / "stderr_flood.py")

    replay = play(bot)

    assert replay["result"]["forfeit"] is None
    assert len(bot.players) == 4  # a process a seat a game
    for player in bot.players:
        text = player.stderr_text()
        assert f"more bytes of standard error in game {player.game} dropped" in text
        assert len(text.encode()) < 64 * 1024 + 1000
    assert processes_in(bot.namespaces) == []


def test_a_daemon_grandchild_of_a_finished_match_is_killed() -> None:
    bot = program(HOSTILE / "daemon_survivor.py")

    replay = play(bot)

    assert replay["result"]["forfeit"] is None
    assert len(bot.namespaces) == 4  # two seats in each of two games
    assert processes_in(bot.namespaces) == []
    assert leftover_cgroups() == []


@pytest.mark.parametrize("bot", ["memory_hog", "fork_bomb"])
def test_without_cgroups_rlimits_still_stop_the_bot_and_nothing_survives(
        monkeypatch: pytest.MonkeyPatch, bot: str) -> None:
    monkeypatch.setenv("KAISER_SANDBOX_CGROUP", "0")  # as on a host without a memory cgroup
    clock = GENEROUS if bot == "memory_hog" else FAST
    factory = program(HOSTILE / f"{bot}.py", time=clock)

    replay = play(factory, time=clock)

    forfeit = replay["result"]["forfeit"]
    assert forfeit["player"] == "A" and replay["result"]["games"] == {"A": 0, "B": 2}
    if bot == "memory_hog":  # the address-space limit makes allocation fail inside the bot
        assert "MemoryError" in factory.players[0].stderr_text()
        assert forfeit["reason"] == "resource" and "memory limit" in forfeit["detail"]
    else:  # one process a seat: the filter refuses every fork, the bomb spins to its clock
        assert forfeit["reason"] == "timeout"
    assert processes_in(factory.namespaces) == []
    assert leftover_cgroups() == []


def test_the_two_seats_of_a_bot_share_no_channel_outside_the_game() -> None:
    bot = program(HOSTILE / "partner_channel.py")

    replay = play(bot, time=TimeControl(move_ms=1000, bank_ms=1000, startup_ms=5000))

    assert replay["result"]["forfeit"] is None
    reports = [p.stderr_text().strip() for p in bot.players]
    assert reports == ["channels: none"] * 4  # two seats in each of two games
