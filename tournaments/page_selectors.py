"""Reads for the HTML pages: each page's rows in a fixed number of queries, whatever the number
of rows shown (aggregates and window functions instead of a query per row)."""

from __future__ import annotations

import hashlib
from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import connection
from django.db.models import Count, F, Max, Q, QuerySet, Window
from django.db.models.functions import RowNumber
from django.utils import timezone
from django.utils.timesince import timesince
from django.utils.timezone import localtime

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
# A match row on the pages, read as plain values under flat names: rows are shown, never saved,
# and six model instances a row (the match, two versions, two bots, the ladder), looked up by
# attribute in the template, were most of a list's time.
ROW_VALUES = {
    "a_bot": F("version_a__bot_id"), "a_name": F("version_a__bot__name"),
    "a_number": F("version_a__number"), "b_bot": F("version_b__bot_id"),
    "b_name": F("version_b__bot__name"), "b_number": F("version_b__number"),
    "ladder_slug": F("ladder__slug"), "ladder_name": F("ladder__name"),
}
ROW_FIELDS = ("id", "status", "kind", "rated", "score", "games_a", "games_b", "forfeit_player",
              "forfeit_reason", "tournament_id", "round", "created", "finished")


def matches_light(queryset: QuerySet[Match] | None = None) -> QuerySet[Match]:
    """Matches with both bots and the ladder joined, without the heavy columns."""
    qs = Match.objects.all() if queryset is None else queryset
    return qs.select_related("version_a__bot", "version_b__bot", "ladder").defer(*LIGHT_FIELDS)


def match_rows(queryset: QuerySet[Match]) -> list[dict[str, Any]]:
    """The queryset's matches (in its order) as rows for tournaments/_match_rows.html: plain
    dicts with the bots' names and numbers, the ladder, who won, and when, already worked out."""
    now = timezone.now()
    rows = list(queryset.values(*ROW_FIELDS, **ROW_VALUES))
    for row in rows:
        score, when = row["score"], row["finished"] or row["created"]
        row["a_won"] = score is not None and score > 0.5
        row["b_won"] = score is not None and score < 0.5
        row["ago"] = timesince(when, now)  # as the timesince filter would show it
        row["iso"] = localtime(row["created"]).isoformat()  # as the date:"c" filter would
    return rows


def matches_slice(matches: QuerySet[Match], start: int, stop: int) -> list[dict[str, Any]]:
    """matches[start:stop] (ordered newest first, by id) as match_rows: the page's ids are cut
    in a subquery first, so only those rows are joined to their bots and ladder (joined before
    the LIMIT, every matching row, all of a bot's matches, would be)."""
    page = matches.values("id")[start:stop]
    return match_rows(Match.objects.filter(id__in=page).order_by("-id"))


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
    fields), without loading every entry of a large ladder. Only rated entries: a version
    without a rated match yet is listed apart (unrated_entries), not ranked at its start
    rating above bots that played."""
    entries = LadderEntry.objects.filter(ladder=ladder, active=True).filter(
        Q(games__gt=0) | Q(pinned=True))
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


def unrated_entries(*, ladder: Ladder, limit: int = 50) -> list[LadderEntry]:
    """The ladder's playing versions that have no rated match yet, newest first."""
    return list(LadderEntry.objects.filter(ladder=ladder, active=True, games=0, pinned=False)
                .select_related("version__bot__owner").order_by("-pk")[:limit])


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


def match_replay_pruned(*, match: Match) -> bool:
    """A finished match whose replay the retention dropped (services.replays_prune): every
    finished match had one. One query on the primary key, replay_gz itself never loaded."""
    return match.status == Match.Status.FINISHED and not Match.objects.filter(
        pk=match.pk, replay_gz__isnull=False).exists()


def latest_matches(*, ladder: Ladder | None = None, limit: int = 10) -> list[dict[str, Any]]:
    qs = Match.objects.filter(status=Match.Status.FINISHED)
    if ladder is not None:
        qs = qs.filter(ladder=ladder)
    return match_rows(qs.order_by("-finished")[:limit])


# --- Bot page ---------------------------------------------------------------------------------


# What the bot page shows of its entries: not the versions' check replay, stderr and summary.
ENTRY_FIELDS = ("ladder_id", "version_id", "elo", "games", "pinned", "active", "updated",
                "ladder__slug", "ladder__name", "version__number")


@dataclass(frozen=True)
class BotFacts:
    """What the bot page's public part is drawn from, read once: the bot's versions, its ladder
    entries, and a token that changes whenever that part can (the cache key)."""

    bot: Bot
    version_ids: list[int]
    entries: list[LadderEntry]
    version: str


def bot_facts(*, bot: Bot) -> BotFacts:
    """Three queries. The token covers the bot's name, its entries as read (Elo, games, anchor,
    activity) and its matches: one made, started, put back in the queue, finished or cancelled
    (top id, latest start and end, how many are queued and running), so the cache never
    answers past the bot's next result."""
    ids = list(bot.versions.values_list("pk", flat=True))
    entries = list(LadderEntry.objects.filter(version_id__in=ids).select_related(
        "ladder", "version").only(*ENTRY_FIELDS).order_by("ladder__name", "-version__number"))
    agg = Match.objects.filter(Q(version_a_id__in=ids) | Q(version_b_id__in=ids)).aggregate(
        top=Max("id"), last=Max("finished"), started=Max("started"),
        queued=Count("id", filter=Q(status=Match.Status.QUEUED)),
        running=Count("id", filter=Q(status=Match.Status.RUNNING)))
    state = [(e.pk, e.elo, e.games, e.pinned, e.active, e.updated) for e in entries]
    raw = f"{bot.pk}:{bot.name}:{ids}:{state}:{sorted(agg.items())}"
    return BotFacts(bot, ids, entries, hashlib.sha256(raw.encode()).hexdigest())


def head_to_head(*, version_ids: list[int], limit: int) -> tuple[list[dict[str, Any]], int]:
    """The bot's record against each opponent bot, most played first: the first `limit` rows
    (opponent bot_id and name, matches, wins, draws, losses, share of the games) and how many
    opponents there are. One query: both sides' finished matches as (opponent, this bot's
    score), grouped by opponent bot; only the rows shown leave the database."""
    if not version_ids:
        return [], 0
    marks = ", ".join(["%s"] * len(version_ids))
    match, version, bot = (m._meta.db_table for m in (Match, BotVersion, Bot))
    sql = f"""
        SELECT v.bot_id, b.name, COUNT(*), SUM(s.points),
               SUM(CASE WHEN s.points > 0.5 THEN 1 ELSE 0 END),
               SUM(CASE WHEN s.points = 0.5 THEN 1 ELSE 0 END),
               SUM(CASE WHEN s.points < 0.5 THEN 1 ELSE 0 END), COUNT(*) OVER ()
        FROM (SELECT version_b_id AS opponent, score AS points FROM {match}
              WHERE status = %s AND version_a_id IN ({marks})
              UNION ALL
              SELECT version_a_id, 1 - score FROM {match}
              WHERE status = %s AND version_b_id IN ({marks})) s
        JOIN {version} v ON v.id = s.opponent JOIN {bot} b ON b.id = v.bot_id
        GROUP BY v.bot_id, b.name ORDER BY COUNT(*) DESC, LOWER(b.name), v.bot_id LIMIT %s"""
    finished = Match.Status.FINISHED
    with connection.cursor() as cursor:
        cursor.execute(sql, [finished, *version_ids, finished, *version_ids, limit])
        found = cursor.fetchall()
    rows = [{"bot_id": bot_id, "name": name, "matches": n, "wins": int(w), "draws": int(d),
             "losses": int(lo), "share": (points or 0.0) / n}
            for bot_id, name, n, points, w, d, lo, _ in found]
    return rows, (found[0][-1] if found else 0)


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


@dataclass(frozen=True)
class LadderStanding:
    entry: LadderEntry
    history: list[tuple[float, int, datetime]]  # (rating after, version, when), oldest first


def bot_standings(*, entries: list[LadderEntry]) -> list[LadderStanding]:
    """The bot's playing entry on each ladder (`entries`: all of the bot's, by ladder name and
    newest version first), with the bot's rating history there (all its versions, the last
    HISTORY_POINTS changes)."""
    number = {e.pk: e.version.number for e in entries}
    changes = (RatingChange.objects.filter(entry_id__in=list(number))
               .annotate(n=Window(RowNumber(), partition_by=[F("entry__ladder_id")],
                                  order_by=F("id").desc()))
               .filter(n__lte=HISTORY_POINTS).order_by("id")
               .values_list("entry__ladder_id", "after", "entry_id", "created"))
    history: dict[int, list[tuple[float, int, datetime]]] = defaultdict(list)
    for ladder_id, after, entry_id, created in changes:
        history[ladder_id].append((after, number[entry_id], created))
    seen: set[int] = set()
    out = []
    for entry in entries:  # the newest version's entry speaks for the bot on each ladder
        if entry.ladder_id not in seen:
            seen.add(entry.ladder_id)
            out.append(LadderStanding(entry, history.get(entry.ladder_id, [])))
    return out


def bot_activity(*, facts: BotFacts, matches: int = 20) -> dict[str, Any]:
    """The bot page's public part: ratings with their history, head to head (the
    HEAD_TO_HEAD_ROWS most-played opponents, and how many there are), recent matches."""
    records, total = head_to_head(version_ids=facts.version_ids, limit=HEAD_TO_HEAD_ROWS)
    ids = newest_match_ids(version_ids=facts.version_ids, limit=matches)
    return {
        "bot": facts.bot,
        "standings": bot_standings(entries=facts.entries),
        "matches": match_rows(Match.objects.filter(id__in=ids).order_by("-id")),
        "head_to_head": records,
        "head_to_head_total": total,
    }


def challenge_versions(*, user: Any, opponent: Bot) -> list[BotVersion]:
    """The user's bots that could challenge `opponent` now (their playing versions)."""
    from bots.selectors import active_versions

    if not getattr(user, "is_authenticated", False):
        return []
    return list(active_versions().filter(bot__owner=user).exclude(bot=opponent)
                .order_by("bot__name"))


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

