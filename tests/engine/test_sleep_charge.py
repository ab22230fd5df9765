"""A sleeping seat is charged on any host (issue 41): a real seat under gVisor that sleeps
1.8 s on each of its moves at move_ms=100, bank_ms=1000 forfeits on time even when the host's
load reads 24, while a seat that computes for as long is stretched (not charged) at that load.

The load reading is faked (engine.clock.load_scale returns 10.0, its cap: what a load of 24
on two cores reads): a real load of 24 cannot be made cheaply here, and the clock's rule is
what is tried. The seat that "computes" then works as it would on such a host: in bursts, a
thirtieth of its wall time (tests/engine/fairplay/sleeper.py), well above what the clock takes
for computing there (engine.clock.COMPUTING of a core shared 10 ways)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from engine import clock
from engine.botproc import ProgramFactory, ProgramPlayer, program_player_factory
from engine.builtin import resolve_player
from engine.kaiser.match import run_match
from engine.players import TimeControl
from engine.sandbox.config import config
from engine.sandbox.gvisor import choose_kernel

pytestmark = [pytest.mark.sandbox, pytest.mark.timeout(180)]
PROBE = Path(__file__).parent / "fairplay" / "sleeper.py"
TIGHT = TimeControl(move_ms=100, bank_ms=1000, startup_ms=10000)
SLOW_S = 1.8
# The backstop's wall bank is 3 x 1000 ms; each 1.8 s move draws 1.8 s less the backstop's
# 1.3 s from it, charged in full: the seat forfeits on about its seventh move.
SLOW_MOVES = 8


def slow_seat(tmp_path: Path, mode: str) -> ProgramFactory:
    folder = tmp_path / mode
    folder.mkdir()
    shutil.copy(PROBE, folder / "bot.py")
    (folder / "sleeper.txt").write_text(f"{mode} {SLOW_S} {SLOW_MOVES}\n")
    return program_player_factory(folder, time=TIGHT)


def play(bot: ProgramFactory, monkeypatch: pytest.MonkeyPatch, load: float) -> dict[str, Any]:
    assert choose_kernel(config())[0] == "gvisor", "this seat is about gVisor's"
    monkeypatch.setattr(clock, "load_scale", lambda: load)
    return run_match(bot, resolve_player("builtin:greedy"), games=2, seed="sleeper",
                     time=TIGHT)


def slow_player(bot: ProgramFactory) -> ProgramPlayer:
    return next(p for p in bot.players if (p.game, p.seat) == (0, 0))


def test_a_seat_that_sleeps_forfeits_on_time_at_a_load_of_24(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bot = slow_seat(tmp_path, "sleep")

    replay = play(bot, monkeypatch, load=clock.MAX_LOAD_SCALE)

    forfeit = replay["result"]["forfeit"]
    assert (forfeit["player"], forfeit["seat"], forfeit["reason"]) == ("A", 0, "timeout")
    assert "past the backstop" in forfeit["detail"], forfeit["detail"]
    assert "for the host's load" not in forfeit["detail"]  # not stretched for it
    assert 6 <= forfeit["message_id"] <= 7, forfeit  # once the wall bank ran out
    slept = slow_moves(slow_player(bot))
    assert len(slept) >= 5 and all(counted < 10 for counted, _ in slept), slept


@pytest.mark.parametrize(("load", "charged"), [(clock.MAX_LOAD_SCALE, False), (1.0, True)])
def test_a_seat_that_computes_as_long_is_stretched_at_that_load_and_charged_on_a_quiet_host(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, load: float, charged: bool) -> None:
    bot = slow_seat(tmp_path, "compute")

    replay = play(bot, monkeypatch, load=load)

    forfeit = replay["result"]["forfeit"]
    player = slow_player(bot)
    worked = slow_moves(player)
    # It computed on every slow move (COMPUTING of a core shared 10 ways is 18 ms of 1.8 s),
    # about move_ms (its sleeps' system calls count too): its CPU clock never ends it.
    assert worked and all(30 <= counted <= 1.5 * TIGHT.move_ms for counted, _ in worked), worked
    if charged:
        assert (forfeit["player"], forfeit["seat"], forfeit["reason"]) == ("A", 0, "timeout")
        assert "past the backstop" in forfeit["detail"], forfeit["detail"]
        assert 6 <= forfeit["message_id"] <= 7, forfeit
    else:
        assert forfeit is None, forfeit
        assert len(worked) == SLOW_MOVES, worked
        assert player.clock.wall_bank_ms == 3 * TIGHT.bank_ms  # nothing drawn from it


def slow_moves(player: ProgramPlayer) -> list[tuple[int, float]]:
    """(counted ms, wall ms) of each of the seat's decisions that took SLOW_S or more."""
    return [(counted, t.wall_ms) for counted, t in zip(player.decision_ms(),
                                                       player.decision_times(), strict=True)
            if t.wall_ms >= SLOW_S * 1000]
