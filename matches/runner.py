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
from engine.clock import DecisionTime
from engine.games import get_game
from engine.players import TimeControl
from matches.models import Match, side_letter

STDERR_LIMIT = 64 * 1024


@dataclass(frozen=True)
class Played:
    replay: dict[str, Any]
    stderr: list[str]  # each side's, in side order
    play_ms: int
    decisions: dict[str, list[int]] | None = None  # side -> counted ms of each decision
    # side -> each decision's counted, wall and sleep time in the engine's order (bot
    # programs only), for the fair-play check (matches.times_store keeps them)
    times: dict[str, list[DecisionTime]] | None = None


def match_time_control(*, match: Match) -> TimeControl:
    return TimeControl(move_ms=match.move_ms, bank_ms=match.bank_ms,
                       startup_ms=match.startup_ms, strict_ms=match.strict_ms)


def match_play_engine(*, match: Match) -> Played:
    """Play the match in the engine of its game (sandboxed bots), its sides in order. A bot's
    fault is in the replay; engine.faults.InfrastructureError propagates."""
    clock = match_time_control(match=match)
    factories = [bot_version_player(version=side.version, time=clock)
                 for side in match.side_list]
    game = get_game(match.game)
    began = time.monotonic()
    replay = game.run_match(factories, games=match.games_per_match, seed=match.seed,
                            rules=game.get_rules(match.rules), time=clock)
    elapsed = int((time.monotonic() - began) * 1000)
    letters = [side_letter(order) for order in range(len(factories))]
    return Played(replay=replay, stderr=[f.stderr_text(limit=STDERR_LIMIT) for f in factories],
                  play_ms=elapsed,
                  decisions={side: f.decision_ms()
                             for side, f in zip(letters, factories, strict=True)},
                  times={side: f.decision_times()
                         for side, f in zip(letters, factories, strict=True)})
