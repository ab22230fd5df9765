"""Matches made straight into the tables, with their sides: the one way a test makes a match
row without playing it (a played match comes from matches.services: match_create, then
match_play or match_finish). Tests name sides, never columns."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from django.db.models import QuerySet

from bots.models import BotVersion
from matches.models import Match, MatchSide, side_letter


def match_make(*, versions: Sequence[BotVersion], games: Sequence[int | None] = (),
               points: Sequence[float | None] = (), ups: Sequence[float | None] = (),
               stderr: Sequence[str] = (), fault: tuple[str, str] = ("", ""),
               **fields: Any) -> Match:
    """A Match of `versions` (A, B, ... in order) with its MatchSide rows: each side's games,
    points, ups and stderr by side order, `fault` the letter and reason of the side that
    forfeited. `fields` are the match's own (status, score, ladder, game, ...); seed, kind and
    the game (the first version's bot's) have defaults."""
    fields.setdefault("seed", "test")
    fields.setdefault("kind", Match.Kind.LADDER)
    fields.setdefault("game", versions[0].bot.game)
    match = Match.objects.create(**fields)
    MatchSide.objects.bulk_create(sides_of(match, versions, games=games, points=points,
                                           ups=ups, stderr=stderr, fault=fault))
    return match


def sides_of(match: Match, versions: Sequence[BotVersion | int], *,
             games: Sequence[int | None] = (), points: Sequence[float | None] = (),
             ups: Sequence[float | None] = (), stderr: Sequence[str] = (),
             fault: tuple[str, str] = ("", "")) -> list[MatchSide]:
    """The (unsaved) MatchSide rows of `match` for `versions` (objects or ids), for a bulk
    load: `MatchSide.objects.bulk_create(side for m, vs in ... for side in sides_of(m, vs))`."""
    def at(values: Sequence[Any], order: int, default: Any = None) -> Any:
        return values[order] if order < len(values) else default

    return [MatchSide(match=match, order=order,
                      version_id=version if isinstance(version, int) else version.pk,
                      games=at(games, order), points=at(points, order), ups=at(ups, order),
                      stderr=at(stderr, order, ""),
                      fault=fault[1] if fault[0] == side_letter(order) else "")
            for order, version in enumerate(versions)]


def side_rows(match: Match | int) -> list[MatchSide]:
    """A match's sides as stored now, in side order."""
    match_id = match if isinstance(match, int) else match.pk
    return list(MatchSide.objects.filter(match_id=match_id).select_related("version__bot")
                .order_by("order"))


def games_of(match: Match | int) -> list[int | None]:
    """The games each side won, in side order."""
    return [side.games for side in side_rows(match)]


def versions_of(matches: Iterable[Match]) -> list[list[int]]:
    """Each match's versions in side order."""
    return [[side.version_id for side in side_rows(match)] for match in matches]


def played_by(version: BotVersion, *others: BotVersion) -> QuerySet[Match]:
    """The matches `version` played (against all of `others`, if given)."""
    matches = Match.objects.filter(sides__version=version)
    for other in others:
        matches = matches.filter(sides__version=other)
    return matches


def share_of(match: Match, version: BotVersion) -> float:
    """The version's share of a two-side match's score (the score is A's)."""
    assert match.score is not None
    return match.score if match.version_ids[0] == version.pk else 1 - match.score
