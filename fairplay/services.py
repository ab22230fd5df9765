"""Writes of fair play: the think-time check (engine.fairplay.fairplay_check) of a bot
version over its recent finished matches whose decision times were kept
(matches.times_store), stored as a FairPlayCheck. It flags; staff decide.

Idempotent: a version whose recent matches are the ones its last check looked at is not
checked again, so the periodic task (fairplay.tasks) may run twice, or overlap, and write
nothing new."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.conf import settings

from bots.models import BotVersion
from engine.fairplay import SideTimes, fairplay_check
from fairplay.models import FairPlayCheck
from fairplay.selectors import spread_bits
from matches.models import Match, MatchSide
from matches.replay_store import ReplayUnavailable
from matches.times_store import match_times

logger = logging.getLogger(__name__)

# A match that finished (its row written) while the last run read may commit after it: the
# next run looks this far back before the newest check, and skips what it already saw. (A
# run stopped halfway leaves the versions it did not reach to their next match.)
SLACK = timedelta(minutes=10)


@dataclass(frozen=True)
class _Seen:
    match_ids: list[int]
    sides: list[SideTimes]


def fairplay_check_version(*, version_id: int, matches: int | None = None
                           ) -> FairPlayCheck | None:
    """Check the version over its last `matches` (KAISER_FAIRPLAY_MATCHES) finished matches
    with times. None, writing nothing, when it has none or its last check saw the same ones
    (compared first by the matches' ids, before any replay is read)."""
    rows = _recent_sides(version_id=version_id, count=matches or settings.KAISER_FAIRPLAY_MATCHES)
    last = (FairPlayCheck.objects.filter(version_id=version_id)
            .order_by("-checked", "-id").values_list("match_ids", flat=True).first())
    if not rows or last == [row.match_id for row in rows]:
        return None
    seen = _read(rows)
    if not seen.match_ids or last == seen.match_ids:  # (the same, less an unreadable match)
        return None
    try:
        verdict = fairplay_check(seen.sides, spread_bits=spread_bits(),
                                 permutations=settings.KAISER_FAIRPLAY_PERMUTATIONS)
    except ValueError as error:  # too few decisions yet, or times that do not fit a replay
        return FairPlayCheck.objects.create(version_id=version_id, matches=len(seen.sides),
                                            match_ids=seen.match_ids, error=str(error)[:300])
    return FairPlayCheck.objects.create(
        version_id=version_id, matches=len(seen.sides), match_ids=seen.match_ids,
        figures=verdict.to_dict(), flagged=verdict.flagged)


def _recent_sides(*, version_id: int, count: int) -> list[MatchSide]:
    """The version's sides in its newest finished matches with times, newest first."""
    return list(MatchSide.objects.filter(version_id=version_id,
                                         match__status=Match.Status.FINISHED)
                .exclude(match__times_key="").select_related("match")
                .order_by("-match__finished", "-match_id")[:count])


def _read(rows: list[MatchSide]) -> _Seen:
    """Each match as the detector reads it. A match whose replay or times the store does not
    give back is left out (and logged)."""
    seen = _Seen([], [])
    for row in rows:
        side = _side_times(row.match, row.letter)
        if side is not None:
            seen.match_ids.append(row.match_id)
            seen.sides.append(side)
    return seen


def _side_times(match: Match, letter: str) -> SideTimes | None:
    try:
        times = match_times(match)
        replay: dict[str, Any] | None = match.replay()
    except ReplayUnavailable as error:
        logger.warning("match %s: not checked for fair play: %s", match.pk, error)
        return None
    clock = (times or {}).get(letter)
    if clock is None or replay is None:
        return None
    return SideTimes(replay=replay, side=letter, wall_ms=clock.wall_ms,
                     counted_ms=clock.counted_ms, sleep_ms=clock.sleep_ms)


def fairplay_check_recent() -> int:
    """The periodic run: every uploaded version with a match finished (with times) since
    shortly before the newest check is checked again over its recent matches; the number of
    checks written."""
    return sum(fairplay_check_version(version_id=version_id) is not None
               for version_id in _versions_to_check())


def _versions_to_check() -> list[int]:
    newest = FairPlayCheck.objects.order_by("-checked").values_list("checked", flat=True).first()
    finished = MatchSide.objects.filter(match__status=Match.Status.FINISHED).exclude(
        match__times_key="").exclude(version__kind=BotVersion.Kind.BUILTIN)
    if newest is not None:
        finished = finished.filter(match__finished__gte=newest - SLACK)
    return sorted(set(finished.values_list("version_id", flat=True)))
