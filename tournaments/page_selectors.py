"""Reads for the HTML pages: each page's rows in a fixed number of queries, whatever the number
of rows shown (aggregates and window functions instead of a query per row)."""

from __future__ import annotations

import hashlib
from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db.models import Count, F, Max, Q, QuerySet, Sum, Window
from django.db.models.functions import RowNumber

from bots.models import Bot, BotVersion
from tournaments import selectors
from tournaments.models import Ladder, LadderEntry, Match, RatingChange, Tournament

TREND_POINTS = 20
FIT_INLINE_MAX = selectors.FIT_INLINE_MAX
HISTORY_POINTS = 300
# Head-to-head rows on the bot page: the most-played opponents (rendering a row per opponent
# of a bot that met hundreds was most of the page's time); the match list has the rest.
HEAD_TO_HEAD_ROWS = 30
LIGHT_FIELDS = ("replay_gz", "stderr_a", "stderr_b", "forfeit", "error", "lease_token")


def matches_light(queryset: QuerySet[Match] | None = None) -> QuerySet[Match]:
    """Matches with both bots and the ladder joined, without the heavy columns."""
    qs = Match.objects.all() if queryset is None else queryset
    return qs.select_related("version_a__bot", "version_b__bot", "ladder").defer(*LIGHT_FIELDS)


def matches_slice(matches: QuerySet[Match], start: int, stop: int) -> list[Match]:
    """matches[start:stop] (ordered newest first, by id) in two queries: the page's ids alone,
    then those rows with their joins. One query would join every matching row (all of a bot's
    matches) to the bots and ladders before the LIMIT cut them down."""
    ids = list(matches.values_list("id", flat=True)[start:stop])
    return list(matches_light(Match.objects.filter(id__in=ids)).order_by("-id"))


# --- Leaderboard ------------------------------------------------------------------------------


@dataclass(frozen=True)
class BoardRow:
    board: selectors.LeaderboardRow
    matches: int
    wins: int
    last_played: datetime | None
    trend: list[float]

    @property
    def win_rate(self) -> float | None:
        return self.wins / self.matches if self.matches else None


def _side_stats(ladder: Ladder, side: str, ids: list[int]) -> QuerySet[Any]:
    won = Q(score__gt=0.5) if side == "a" else Q(score__lt=0.5)
    return (Match.objects.filter(ladder=ladder, status=Match.Status.FINISHED,
                                 **{f"version_{side}_id__in": ids})
            .order_by().values(f"version_{side}_id")
            .annotate(n=Count("id"), w=Count("id", filter=won), last=Max("finished")))


def _match_stats(ladder: Ladder, ids: list[int]) -> dict[int, tuple[int, int, datetime | None]]:
    """Per version: finished matches on the ladder, matches won, the last one's time."""
    stats: dict[int, tuple[int, int, datetime | None]] = {}
    for side in ("a", "b"):
        for row in _side_stats(ladder, side, ids):
            version = row[f"version_{side}_id"]
            n, w, last = stats.get(version, (0, 0, None))
            times = [t for t in (last, row["last"]) if t is not None]
            stats[version] = (n + row["n"], w + row["w"], max(times, default=None))
    return stats


def ratings_recent(*, entry_ids: list[int], points: int) -> dict[int, list[float]]:
    """The last `points` ratings of each entry, oldest first (starting with the rating before
    the first change shown), in one query."""
    rows = (RatingChange.objects.filter(entry_id__in=entry_ids)
            .annotate(n=Window(RowNumber(), partition_by=[F("entry_id")], order_by=F("id").desc()))
            .filter(n__lte=points).order_by("id").values_list("entry_id", "before", "after"))
    out: dict[int, list[float]] = defaultdict(list)
    for entry_id, before, after in rows:
        out[entry_id].extend((before, after) if entry_id not in out else (after,))
    return out


def _board_rows(ladder: Ladder, offset: int, limit: int) -> tuple[list[selectors.LeaderboardRow],
                                                                  int]:
    """Rows `offset`..`offset + limit` of selectors.ladder_leaderboard (same order, same
    fields), without loading every entry of a large ladder."""
    entries = LadderEntry.objects.filter(ladder=ladder, active=True)
    total = entries.count()
    # A page refits a small ladder itself; a large one shows the beat task's last fit.
    fitted = selectors.ladder_fit(ladder=ladder, compute=total <= FIT_INLINE_MAX)
    shown = entries.select_related("version__bot__owner").order_by("-elo", "pk")[
        offset:offset + limit]
    rows = []
    for rank, e in enumerate(shown, start=offset + 1):
        f = fitted.get(e.version_id)
        rows.append(selectors.LeaderboardRow(
            rank=rank, entry=e, elo=e.elo, games=e.games, provisional=e.provisional,
            pinned=e.pinned, fitted=f.rating if f else None, fitted_low=f.low if f else None,
            fitted_high=f.high if f else None))
    return rows, total


def board_version(*, ladder: Ladder) -> str:
    """A token that changes whenever the ladder's board can: a finished match (ratings, the
    statistics, the latest matches), an entry added, (de)activated or saved."""
    last = Match.objects.filter(ladder=ladder, status=Match.Status.FINISHED).aggregate(
        n=Max("finished"))["n"]
    entries = LadderEntry.objects.filter(ladder=ladder).aggregate(
        active=Count("id", filter=Q(active=True)), top=Max("id"), saved=Max("updated"))
    raw = f"{ladder.pk}:{last}:{entries['active']}:{entries['top']}:{entries['saved']}"
    return hashlib.sha256(raw.encode()).hexdigest()


def leaderboard_page(*, ladder: Ladder, offset: int = 0, limit: int = 50
                     ) -> tuple[list[BoardRow], int]:
    """A page of the ladder's leaderboard with match statistics and a trend, and the number
    of rows there are."""
    shown, total = _board_rows(ladder, offset, limit)
    stats = _match_stats(ladder, [r.entry.version_id for r in shown])
    trends = ratings_recent(entry_ids=[r.entry.pk for r in shown], points=TREND_POINTS)
    rows = []
    for r in shown:
        n, w, last = stats.get(r.entry.version_id, (0, 0, None))
        rows.append(BoardRow(board=r, matches=n, wins=w, last_played=last,
                             trend=trends.get(r.entry.pk, [])))
    return rows, total


def latest_matches(*, ladder: Ladder | None = None, limit: int = 10) -> list[Match]:
    qs = Match.objects.filter(status=Match.Status.FINISHED)
    if ladder is not None:
        qs = qs.filter(ladder=ladder)
    return list(matches_light(qs).order_by("-finished")[:limit])


# --- Bot page ---------------------------------------------------------------------------------


@dataclass
class HeadToHead:
    bot_id: int
    name: str
    matches: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    points: float = 0.0  # this bot's share of the games, summed over matches

    @property
    def share(self) -> float | None:
        return self.points / self.matches if self.matches else None


def _h2h_side(version_ids: list[int], side: str) -> QuerySet[Any]:
    other = "b" if side == "a" else "a"
    return (Match.objects.filter(status=Match.Status.FINISHED,
                                 **{f"version_{side}_id__in": version_ids})
            .order_by().values(f"version_{other}__bot_id", f"version_{other}__bot__name")
            .annotate(n=Count("id"), s=Sum("score"),
                      w=Count("id", filter=Q(score__gt=0.5)),
                      d=Count("id", filter=Q(score=0.5)),
                      lo=Count("id", filter=Q(score__lt=0.5))))


def head_to_head_all(*, bot: Bot) -> list[HeadToHead]:
    """The bot's record against each opponent bot, most played first."""
    version_ids = list(bot.versions.values_list("pk", flat=True))
    records: dict[int, HeadToHead] = {}
    for side in ("a", "b"):
        other = "b" if side == "a" else "a"
        for row in _h2h_side(version_ids, side):
            opp = row[f"version_{other}__bot_id"]
            rec = records.setdefault(opp, HeadToHead(opp, row[f"version_{other}__bot__name"]))
            wins, losses = (row["w"], row["lo"]) if side == "a" else (row["lo"], row["w"])
            rec.matches += row["n"]
            rec.wins += wins
            rec.losses += losses
            rec.draws += row["d"]
            rec.points += (row["s"] or 0.0) if side == "a" else row["n"] - (row["s"] or 0.0)
    return sorted(records.values(), key=lambda r: (-r.matches, r.name.lower()))


def newest_match_ids(*, version_ids: list[int], limit: int,
                     queryset: QuerySet[Match] | None = None) -> list[int]:
    """The ids of the newest `limit` matches (of `queryset`) played by any of the versions,
    newest first: one short index scan per side (match_version_{a,b}_newest) instead of
    reading every match of the versions, or scanning all matches newest first, for the OR."""
    qs = Match.objects.all() if queryset is None else queryset
    ids: set[int] = set()
    for side in ("a", "b"):
        ids.update(qs.filter(**{f"version_{side}_id__in": version_ids}).order_by("-id")
                   .values_list("id", flat=True)[:limit])
    return sorted(ids, reverse=True)[:limit]


def bot_matches(*, bot: Bot, limit: int = 20) -> list[Match]:
    version_ids = list(bot.versions.values_list("pk", flat=True))
    ids = newest_match_ids(version_ids=version_ids, limit=limit)
    return list(matches_light(Match.objects.filter(id__in=ids)).order_by("-id"))


@dataclass(frozen=True)
class LadderStanding:
    entry: LadderEntry
    history: list[tuple[float, int]]  # (rating after, version number), oldest first


def bot_standings(*, bot: Bot) -> list[LadderStanding]:
    """The bot's playing entry on each ladder, with the bot's rating history there (all its
    versions, the last HISTORY_POINTS changes)."""
    entries = list(LadderEntry.objects.filter(version__bot=bot).select_related("ladder", "version")
                   .order_by("ladder__name", "-version__number"))
    changes = (RatingChange.objects.filter(entry__version__bot=bot)
               .annotate(n=Window(RowNumber(), partition_by=[F("entry__ladder_id")],
                                  order_by=F("id").desc()))
               .filter(n__lte=HISTORY_POINTS).order_by("id")
               .values_list("entry__ladder_id", "after", "entry__version__number"))
    history: dict[int, list[tuple[float, int]]] = defaultdict(list)
    for ladder_id, after, number in changes:
        history[ladder_id].append((after, number))
    seen: set[int] = set()
    out = []
    for entry in entries:  # the newest version's entry speaks for the bot on each ladder
        if entry.ladder_id not in seen:
            seen.add(entry.ladder_id)
            out.append(LadderStanding(entry, history.get(entry.ladder_id, [])))
    return out


def challenge_versions(*, user: Any, opponent: Bot) -> list[BotVersion]:
    """The user's bots that could challenge `opponent` now (their playing versions)."""
    from bots.selectors import active_versions

    if not getattr(user, "is_authenticated", False):
        return []
    return list(active_versions().filter(bot__owner=user).exclude(bot=opponent)
                .order_by("bot__name"))


# --- Match list -------------------------------------------------------------------------------

RESULTS = {"won": "won", "lost": "lost", "draw": "drawn", "decisive": "decisive"}


def match_list_page(*, bot: Bot | None, opponent: Bot | None, ladder: Ladder | None,
                    tournament: int | None, status: str | None, result: str | None,
                    faults: bool) -> QuerySet[Match]:
    """The match list's filters on top of selectors.match_list; `result` is from `bot`'s side
    when a bot is given (won, lost), else draw or decisive."""
    qs = selectors.match_list(ladder=ladder, tournament=tournament, status=status)
    mine: list[int] = []
    if bot is not None:  # by version ids: two index lookups instead of a join on each side
        mine = list(bot.versions.values_list("pk", flat=True))
        qs = qs.filter(Q(version_a_id__in=mine) | Q(version_b_id__in=mine))
    if opponent is not None:
        theirs = list(opponent.versions.values_list("pk", flat=True))
        qs = qs.filter(Q(version_a_id__in=theirs) | Q(version_b_id__in=theirs))
    if faults:
        qs = qs.exclude(forfeit_player="")
    if result == "draw":
        qs = qs.filter(score=0.5)
    elif result == "decisive":
        qs = qs.exclude(score=0.5).filter(score__isnull=False)
    elif result in ("won", "lost") and bot is not None:
        a_won, b_won = Q(score__gt=0.5), Q(score__lt=0.5)
        if result == "lost":
            a_won, b_won = b_won, a_won
        qs = qs.filter(Q(version_a_id__in=mine) & a_won | Q(version_b_id__in=mine) & b_won)
    return matches_light(qs).order_by("-id")  # newest first: ids follow creation (indexed)


# --- Tournaments ------------------------------------------------------------------------------


def _progress_total(t: Tournament) -> int:
    """The same totals as selectors.tournament_progress, from annotated counts."""
    n, done, made = t.entrant_count, t.done_count, t.match_count  # type: ignore[attr-defined]
    if t.status == Tournament.Status.FINISHED:
        return max(made, done)
    if t.format == Tournament.Format.ROUND_ROBIN:
        total = t.rounds * n * (n - 1) // 2
    elif t.format == Tournament.Format.SWISS:
        total = t.rounds * (n // 2)
    else:
        total = max(n - 1, 0)
    return int(max(total, done))


def tournaments_page() -> list[tuple[Tournament, dict[str, int]]]:
    open_ = [Match.Status.QUEUED, Match.Status.RUNNING]
    qs = Tournament.objects.select_related("ladder").annotate(
        entrant_count=Count("entrants", distinct=True),
        match_count=Count("matches", distinct=True),
        done_count=Count("matches", filter=~Q(matches__status__in=open_), distinct=True),
    ).order_by("-created")
    return [(t, {"done": t.done_count, "total": _progress_total(t)})  # type: ignore[attr-defined]
            for t in qs]


@dataclass(frozen=True)
class Round:
    number: int
    matches: list[Match]
    byes: list[str]


def tournament_rounds(*, tournament: Tournament) -> list[Round]:
    matches = matches_light(tournament.matches.all()).order_by("round", "position", "id")
    byes: dict[int, list[str]] = defaultdict(list)
    for number, name in tournament.byes.order_by("round", "position").values_list(
            "round", "version__bot__name"):
        byes[number].append(name)
    by_round: dict[int, list[Match]] = defaultdict(list)
    for match in matches:
        by_round[match.round or 0].append(match)
    numbers = sorted(set(by_round) | set(byes))
    return [Round(n, by_round.get(n, []), byes.get(n, [])) for n in numbers]


def bot_activity_version(*, bot: Bot) -> str:
    """A token that changes whenever the bot's ratings, results or match list can: a match of
    its versions made, started or finished, a version added."""
    ids = list(bot.versions.values_list("pk", flat=True))
    agg = Match.objects.filter(Q(version_a_id__in=ids) | Q(version_b_id__in=ids)).aggregate(
        top=Max("id"), last=Max("finished"), started=Max("started"),
        open=Count("id", filter=Q(status__in=[Match.Status.QUEUED, Match.Status.RUNNING])))
    raw = f"{bot.pk}:{ids}:{agg['top']}:{agg['last']}:{agg['started']}:{agg['open']}"
    return hashlib.sha256(raw.encode()).hexdigest()


def bot_activity(*, bot: Bot) -> dict[str, Any]:
    """The bot page's public part: ratings with their history, head to head (the
    HEAD_TO_HEAD_ROWS most-played opponents, and how many there are), recent matches."""
    records = head_to_head_all(bot=bot)
    return {
        "bot": bot,
        "standings": bot_standings(bot=bot),
        "matches": bot_matches(bot=bot),
        "head_to_head": records[:HEAD_TO_HEAD_ROWS],
        "head_to_head_total": len(records),
    }
