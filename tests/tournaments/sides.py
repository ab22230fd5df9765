"""A match's sides as the tests read and make them: MatchSide rows, never Match's side
columns (issue 42). `match_made` (also the fixture of tests/tournaments/conftest.py) makes a
match with its result."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.utils import timezone

from bots.models import BotVersion
from matches.models import Match, MatchSide
from matches.services import match_create, match_sides_result


def sides(match: Match | int) -> list[MatchSide]:
    """The match's sides in side order (A, B, ...)."""
    match_id = match if isinstance(match, int) else match.pk
    return list(MatchSide.objects.filter(match_id=match_id).order_by("order"))


def versions(match: Match | int) -> list[int]:
    """The versions of the match's sides, in side order."""
    return [side.version_id for side in sides(match)]


def games(match: Match | int) -> list[int | None]:
    """The games each side won, in side order."""
    return [side.games for side in sides(match)]


def by_version(match: Match | int) -> dict[int, MatchSide]:
    return {side.version_id: side for side in sides(match)}


def fault(match: Match | int) -> tuple[str, str]:
    """(letter, reason) of the first side with a fault, or ("", "")."""
    return next(((s.letter, s.fault) for s in sides(match) if s.fault), ("", ""))


def match_made(players: Sequence[BotVersion], *, conditions: Any, kind: str = "ladder",
               status: str = Match.Status.FINISHED, score: float | None = None,
               won: Sequence[int] | None = None, points: Sequence[float] | None = None,
               fault: tuple[str, str] = ("", ""), **fields: Any) -> Match:
    """A match of `players` (in side order) made by matches.services.match_create, with a
    result written as the finish writes it: the status, A's share, and each side's games
    `won`, `points` and `fault` (letter, reason) on its MatchSide row. `fields`: more of the
    match's row (ladder, rated, finished, ...)."""
    made = match_create(versions=players, kind=kind, conditions=conditions,
                        ladder=fields.pop("ladder", None), rated=fields.pop("rated", False))
    letters = [side.letter for side in sides(made)]
    Match.objects.filter(pk=made.pk).update(
        status=status, score=score, finished=fields.pop("finished", timezone.now()), **fields)
    match_sides_result(match_id=made.pk,
                       games=dict(zip(letters, won, strict=True)) if won else None,
                       points=dict(zip(letters, points, strict=True)) if points else None,
                       fault=fault)
    made.refresh_from_db()
    return made
