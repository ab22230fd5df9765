"""The match runner's glue: from a Match row to the engine's replay.

The bots app builds the players (bots.runner.bot_version_player: `builtin:NAME` or the
version's unpacked program folder, through engine.builtin.resolve_player) so the upload check
and the matches hand bots to the engine the same way.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from bots.runner import bot_version_player
from engine.match import run_match
from engine.players import TimeControl
from engine.rules import get_rules
from matches.models import Match

STDERR_LIMIT = 64 * 1024


@dataclass(frozen=True)
class Played:
    replay: dict[str, Any]
    stderr_a: str
    stderr_b: str
    play_ms: int
    decisions: dict[str, list[int]] | None = None  # side -> counted ms of each decision


def match_time_control(*, match: Match) -> TimeControl:
    return TimeControl(move_ms=match.move_ms, bank_ms=match.bank_ms,
                       startup_ms=match.startup_ms)


def match_play_engine(*, match: Match) -> Played:
    """Play the match in the engine (sandboxed bots). A bot's fault is in the replay;
    engine.faults.InfrastructureError propagates."""
    clock = match_time_control(match=match)
    a = bot_version_player(version=match.version_a, time=clock)
    b = bot_version_player(version=match.version_b, time=clock)
    began = time.monotonic()
    replay = run_match(a, b, games=match.games_per_match, seed=match.seed,
                       rules=get_rules(match.rules), time=clock)
    elapsed = int((time.monotonic() - began) * 1000)
    return Played(replay=replay, stderr_a=a.stderr_text(limit=STDERR_LIMIT),
                  stderr_b=b.stderr_text(limit=STDERR_LIMIT), play_ms=elapsed,
                  decisions={"A": a.decision_ms(), "B": b.decision_ms()})
