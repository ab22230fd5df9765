"""Reads of matches: the match list's rows, a bot's newest matches and head to head, the
replay export. Each page's rows in a fixed number of queries."""

from __future__ import annotations

import json
import logging
from collections import defaultdict
from collections.abc import Iterator
from datetime import datetime
from typing import TYPE_CHECKING, Any

from django.db import connection
from django.db.models import BooleanField, ExpressionWrapper, F, QuerySet
from django.utils import timezone
from django.utils.timezone import localtime

from bots.faults import replay_public
from bots.models import Bot, BotVersion, default_game, game_players
from engine.runner import replay_json
from kaiser_site.ago import ago_phrase
from matches.models import (
    HAS_REPLAY,
    REPLAY_FIELDS,
    Match,
    MatchSide,
    side_letter,
    sides_with_bots,
)
from matches.replay_store import ReplayUnavailable

if TYPE_CHECKING:  # a hint only: this app does not import the ladder above it
    from ladder.models import Ladder

logger = logging.getLogger(__name__)


def match_list(
    *, bot: int | None = None, version: int | None = None, opponent: int | None = None,
    ladder: Ladder | None = None, tournament: int | None = None, status: str | None = None,
    since: datetime | None = None, until: datetime | None = None,
) -> QuerySet[Match]:
    """Matches, newest first, filtered by bot (any side), its opponent bot, version,
    ladder, tournament, status, and the time they finished."""
    qs = Match.objects.select_related("ladder").defer("replay_gz")
    for bot_id in (bot, opponent):
        if bot_id is not None:
            qs = qs.filter(pk__in=MatchSide.objects.filter(version__bot_id=bot_id)
                           .values("match_id"))
    if version is not None:
        qs = qs.filter(pk__in=MatchSide.objects.filter(version_id=version).values("match_id"))
    if ladder is not None:
        qs = qs.filter(ladder=ladder)
    if tournament is not None:
        qs = qs.filter(tournament_id=tournament)
    if status:
        qs = qs.filter(status=status)
    if since is not None:
        qs = qs.filter(finished__gte=since)
    if until is not None:
        qs = qs.filter(finished__lt=until)
    return qs.order_by("-created", "-id")


def _exportable(matches: QuerySet[Match]) -> QuerySet[Match]:
    return matches.filter(HAS_REPLAY, status=Match.Status.FINISHED)


def replays_export_count(*, matches: QuerySet[Match]) -> int:
    """How many replays replays_export would write."""
    return _exportable(matches).count()


def replays_export(*, matches: QuerySet[Match], chunk: int = 200,
                   public: bool = True) -> Iterator[str]:
    """JSON Lines: one finished match's replay per line, oldest first, streamed in chunks.
    `public`: fault details clipped (bots.faults); only a replay with a fault is parsed."""
    ids = list(_exportable(matches).order_by("finished", "id").values_list("pk", flat=True))
    for start in range(0, len(ids), chunk):
        batch = Match.objects.filter(pk__in=ids[start:start + chunk]).order_by("finished", "id")
        for match in batch.only("pk", "forfeit", *REPLAY_FIELDS):
            try:
                text = match.replay_text()
            except ReplayUnavailable as error:  # the export goes on; the log says which
                logger.error("export: match %s left out: %s", match.pk, error)
                continue
            if text and public and match.forfeit:
                text = replay_json(replay_public(json.loads(text)))
            if text:
                yield text + "\n"


LIGHT_FIELDS = ("replay_gz", "forfeit", "error", "lease_token")


# A match row on the pages, read as plain values under flat names: rows are shown, never saved,
# and model instances a row (the match, its sides, their versions and bots, the ladder),
# looked up by attribute in the template, were most of a list's time.
# The ladder, one small table, joins into the rows' query; the sides are read apart.
ROW_LADDER = {"ladder_slug": F("ladder__slug"), "ladder_name": F("ladder__name")}
ROW_FIELDS = ("id", "status", "kind", "rated", "game", "score", "tournament_id", "round",
              "created", "finished")


def _with_sides(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each row's "sides" in side order: {letter, bot, name, number, games, fault}, read for
    the rows in one small query (sides, versions, bots). Joined into the rows' query (nine
    tables when the sides were columns), PostgreSQL spent 10 ms planning it on every page
    that lists matches, five times its run."""
    ids = [row["id"] for row in rows]
    sides: dict[int, list[dict[str, Any]]] = defaultdict(list)
    if ids:  # in SQL: the ORM's building of this join was half of its 1 ms
        order = connection.ops.quote_name("order")
        with connection.cursor() as cursor:
            cursor.execute(
                f"SELECT s.match_id, s.{order}, s.games, s.fault, v.bot_id, b.name, v.number "
                f"FROM {MatchSide._meta.db_table} s "
                f"JOIN {BotVersion._meta.db_table} v ON v.id = s.version_id "
                f"JOIN {Bot._meta.db_table} b ON b.id = v.bot_id "
                f"WHERE s.match_id IN ({', '.join(['%s'] * len(ids))}) "
                f"ORDER BY s.match_id, s.{order}", ids)
            for match_id, place, games, fault, bot, name, number in cursor.fetchall():
                sides[match_id].append({"letter": side_letter(place), "bot": bot, "name": name,
                                        "number": number, "games": games, "fault": fault})
    for row in rows:
        row["sides"] = sides[row["id"]]
    return rows


def _winners(row: dict[str, Any]) -> None:
    """Who won a finished row: of two sides, A above a half of the score, B below; of more,
    the one with the most games won, if only one has it ("shared" otherwise)."""
    sides, finished = row["sides"], row["status"] == Match.Status.FINISHED
    score = row["score"] if finished else None
    if len(sides) == 2:
        for side, won in zip(sides, (score is not None and score > 0.5,
                                     score is not None and score < 0.5), strict=True):
            side["won"] = won
        return
    best = max((s["games"] for s in sides if s["games"] is not None), default=None)
    top = [s for s in sides if s["games"] is not None and s["games"] == best]
    for side in sides:
        side["won"] = finished and top == [side]
    row["shared"] = finished and len(top) > 1


def _with_tournament_names(rows: list[dict[str, Any]]) -> None:
    """Each tournament row's `tournament_name` ("Spring Cup, round 3" on the row, not
    "tournament r3"): read apart, one query for the rows' tournaments and only when a row has
    one, so that the list's own query keeps its plan (matches_slice). Through the match's
    foreign key: matches sit below tournaments and import nothing of theirs."""
    ids = {row["tournament_id"] for row in rows if row["tournament_id"]}
    tournaments = Match._meta.get_field("tournament").related_model._default_manager
    names = dict(tournaments.filter(pk__in=ids).values_list("pk", "name")) if ids else {}
    for row in rows:
        row["tournament_name"] = names.get(row["tournament_id"], "")


def match_rows(queryset: QuerySet[Match]) -> list[dict[str, Any]]:
    """The queryset's matches (in its order) as rows for matches/_match_rows.html: plain
    dicts with their sides (the bots' names and numbers, games, faults), the ladder, who
    won, and when, already worked out."""
    now = timezone.now()
    rows = _with_sides(list(queryset.values(*ROW_FIELDS, **ROW_LADDER)))
    _with_tournament_names(rows)
    for row in rows:
        when = row["finished"] or row["created"]
        _winners(row)
        at_fault = next((side for side in row["sides"] if side["fault"]), None)
        row["fault"] = at_fault["letter"] if at_fault else ""
        row["fault_reason"] = at_fault["fault"] if at_fault else ""
        row["ago"] = ago_phrase(when, now)  # "just now", "3 minutes ago"
        row["iso"] = localtime(row["created"]).isoformat()  # as the date:"c" filter would
    return rows


def matches_slice(matches: QuerySet[Match], start: int, stop: int) -> list[dict[str, Any]]:
    """matches[start:stop] (ordered newest first, by id) as match_rows, in one query with the
    ladder joined and the bots read apart (_with_names). Under the nine joins the rows once
    had (past PostgreSQL's join_collapse_limit) a filtered list was planned join first: the
    million matches joined to their bots, then cut (8 s for one bot's list at a million)."""
    return match_rows(matches[start:stop])


def match_replay_pruned(*, match: Match) -> bool:
    """A finished match whose replay the retention dropped (services.replays_prune): every
    finished match had one. One query on the primary key, replay_gz itself never loaded; none
    when the match was read with_replay_flag."""
    if match.status != Match.Status.FINISHED:
        return False
    flag = getattr(match, "has_replay_row", None)
    if flag is None:
        flag = Match.objects.filter(HAS_REPLAY, pk=match.pk).exists()
    return not flag


def with_replay_flag(queryset: QuerySet[Match]) -> QuerySet[Match]:
    """The matches with `has_replay_row` (a replay in the row or the store), for
    match_replay_pruned without a query of its own."""
    return queryset.annotate(has_replay_row=ExpressionWrapper(HAS_REPLAY, BooleanField()))


def match_page_match(*, pk: int) -> Match:
    """The match of the match page (Match.DoesNotExist if none), with its replay flag, ladder,
    tournament and requester, and its sides with their versions and bots: two queries. As
    one query joining the ten tables, PostgreSQL took 2 ms to plan it and 0.25 ms to run it;
    the two plan in 0.4 ms."""
    return with_replay_flag(Match.objects.select_related("ladder", "tournament", "requested_by")
                            .defer("replay_gz", "stats")
                            .prefetch_related(sides_with_bots())).get(pk=pk)


def latest_matches(*, ladder: Ladder | None = None, limit: int = 10) -> list[dict[str, Any]]:
    qs = Match.objects.filter(status=Match.Status.FINISHED)
    if ladder is not None:
        qs = qs.filter(ladder=ladder)
    return match_rows(qs.order_by("-finished")[:limit])


# Head-to-head rows on the bot page: the most-played opponents (rendering a row per opponent
# of a bot that met hundreds was most of the page's time); the match list has the rest.
HEAD_TO_HEAD_ROWS = 30


# The head to head of a bot of a game of more than two players reads its newest matches, at
# most this many.
HEAD_TO_HEAD_MANY_MATCHES = 5000


def head_to_head_records(*, version_ids: list[int], limit: int, game: str = ""
                         ) -> tuple[list[dict[str, Any]], int]:
    """The bot's record against each opponent bot, most played first: the first `limit` rows
    (opponent bot_id and name, matches, wins, draws, losses, share of the games) and how many
    opponents there are. Two queries: both sides' finished matches as (opponent, this bot's
    score) grouped by opponent version, then those versions' bots; grouped by bot here. A bot
    of a game of more players: head_to_head_many."""
    if not version_ids:
        return [], 0
    if game_players(game or default_game()) > 2:
        return head_to_head_many(version_ids=version_ids, limit=limit)
    marks, sides = ", ".join(["%s"] * len(version_ids)), MatchSide._meta.db_table
    order = connection.ops.quote_name("order")
    # Per opponent version in the database (the bot's sides from matchside_version_recent,
    # each match and its other side by key), then to bots here: joined in SQL, PostgreSQL
    # hashed all 10,000 versions for a bot's few hundred matches.
    sql = f"""
        SELECT t.opponent, COUNT(*), SUM(t.points),
               SUM(CASE WHEN t.points > 0.5 THEN 1 ELSE 0 END),
               SUM(CASE WHEN t.points = 0.5 THEN 1 ELSE 0 END),
               SUM(CASE WHEN t.points < 0.5 THEN 1 ELSE 0 END)
        FROM (SELECT o.version_id AS opponent,
                     CASE WHEN s.{order} = 0 THEN m.score ELSE 1 - m.score END AS points
              FROM {sides} s JOIN {Match._meta.db_table} m ON m.id = s.match_id
              JOIN {sides} o ON o.match_id = s.match_id AND o.{order} <> s.{order}
              WHERE s.version_id IN ({marks}) AND m.status = %s) t
        GROUP BY t.opponent"""
    with connection.cursor() as cursor:
        cursor.execute(sql, [*version_ids, Match.Status.FINISHED])
        per_version = cursor.fetchall()
    owner = {pk: (bot_id, name) for pk, bot_id, name in BotVersion.objects.filter(
        pk__in=[row[0] for row in per_version]).values_list("pk", "bot_id", "bot__name")}
    tally: dict[int, list[Any]] = {}  # bot_id: [name, matches, points, wins, draws, losses]
    for version, n, points, w, d, lo in per_version:
        bot_id, name = owner[version]
        t = tally.setdefault(bot_id, [name, 0, 0.0, 0, 0, 0])
        for k, value in enumerate((n, points or 0.0, w, d, lo), start=1):
            t[k] += value
    ordered = sorted(tally.items(), key=lambda kv: (-kv[1][1], kv[1][0].lower(), kv[0]))
    rows = [{"bot_id": bot_id, "name": name, "matches": n, "wins": int(w), "draws": int(d),
             "losses": int(lo), "share": points / n}
            for bot_id, (name, n, points, w, d, lo) in ordered[:limit]]
    return rows, len(tally)


def head_to_head_many(*, version_ids: list[int], limit: int) -> tuple[list[dict[str, Any]], int]:
    """head_to_head_records for a bot of a game of more than two players, over its newest
    HEAD_TO_HEAD_MANY_MATCHES finished matches: each match meets several opponents, and
    against each the bot scores as the ratings count it (ladder.ratings): its share of the
    two players' points (a half when neither has any); more points than the opponent is a
    win."""
    versions = set(version_ids)
    newest = list(MatchSide.objects.filter(version_id__in=version_ids,
                                           match__status=Match.Status.FINISHED)
                  .order_by("-match_id").values_list("match_id", flat=True)
                  [:HEAD_TO_HEAD_MANY_MATCHES])
    by_match: dict[int, list[tuple[int, float]]] = defaultdict(list)
    for match_id, version, points in MatchSide.objects.filter(match_id__in=newest).values_list(
            "match_id", "version_id", "points"):
        by_match[match_id].append((version, float(points or 0.0)))
    tally: dict[int, list[float]] = defaultdict(lambda: [0, 0.0, 0, 0, 0])
    for sides in by_match.values():
        me = next(points for version, points in sides if version in versions)
        for opponent, them in sides:
            if opponent in versions:
                continue
            row = tally[opponent]
            row[0] += 1
            row[1] += me / (me + them) if me + them else 0.5
            row[2 if me > them else 3 if me == them else 4] += 1
    by_bot: dict[int, list[float]] = defaultdict(lambda: [0, 0.0, 0, 0, 0])
    names: dict[int, str] = {}
    for version_id, bot_id, name in BotVersion.objects.filter(pk__in=list(tally)).values_list(
            "pk", "bot_id", "bot__name"):
        names[bot_id] = name
        by_bot[bot_id] = [x + y for x, y in zip(by_bot[bot_id], tally[version_id], strict=True)]
    order = sorted(by_bot, key=lambda bot_id: (-by_bot[bot_id][0], names[bot_id].lower(), bot_id))
    rows = [{"bot_id": bot_id, "name": names[bot_id], "matches": int(n), "wins": int(w),
             "draws": int(d), "losses": int(lo), "share": share / n}
            for bot_id in order[:limit] for n, share, w, d, lo in [by_bot[bot_id]]]
    return rows, len(order)


def newest_match_ids(*, version_ids: list[int], limit: int) -> list[int]:
    """The ids of the newest `limit` matches played by any of the versions, newest first, in
    one query of their sides (matchside_version_recent: a match seats one version of a bot at
    most, so no id comes twice)."""
    if not version_ids:
        return []
    return list(MatchSide.objects.filter(version_id__in=version_ids).order_by("-match_id")
                .values_list("match_id", flat=True)[:limit])


def challenge_versions(*, user: Any, opponent: Bot) -> list[BotVersion]:
    """The user's bots that could challenge `opponent` now (their playing versions): bots of
    the same game."""
    from bots.selectors import active_versions

    if not getattr(user, "is_authenticated", False):
        return []
    return list(active_versions().filter(bot__owner=user, bot__game=opponent.game)
                .exclude(bot=opponent).order_by("bot__name"))


def third_player_versions(*, opponent: Bot, limit: int = 200) -> list[BotVersion]:
    """The bots that could take the third seat of a challenge to `opponent` in a
    three-player game (playing versions of that game, any owner); none for two players."""
    from bots.selectors import active_versions

    if game_players(opponent.game) == 2:
        return []
    return list(active_versions().filter(bot__game=opponent.game, bot__retired=False)
                .exclude(bot=opponent).select_related("bot").order_by("bot__name")[:limit])


def match_boards(*, match_id: int) -> list[dict[str, Any]] | None:
    """The match's board comparison (Match.board_comparison: computed from its replay); None
    without a replay (not finished, or pruned), or in a game without boards."""
    return Match.objects.only("pk", "game", *REPLAY_FIELDS).get(pk=match_id).board_comparison()


# A bot's costliest boards are taken from its newest matches (and from every match against a
# chosen opponent): an author studies what the version does now.
COSTLIEST_RECENT_MATCHES = 500


def costliest_boards(*, version_id: int, opponent_bot_id: int | None = None,
                     limit: int = 10) -> list[dict[str, Any]]:
    """The version's biggest negative swings (BoardLoss rows, worst first): over its newest
    COSTLIEST_RECENT_MATCHES matches, or over all its matches against one opponent bot. Each
    an index scan of a few rows (boardloss_costliest, boardloss_costliest_against)."""
    from matches.models import BoardLoss

    rows = BoardLoss.objects.filter(version_id=version_id)
    if opponent_bot_id is not None:
        rows = rows.filter(opponent_bot_id=opponent_bot_id)
    else:
        newest = newest_match_ids(version_ids=[version_id], limit=COSTLIEST_RECENT_MATCHES)
        if not newest:
            return []
        rows = rows.filter(match_id__gte=newest[-1])
    return list(rows.order_by("swing", "-match_id").values(
        "match_id", "side", "game", "deal", "swing", "kind", "step",
        opponent_name=F("opponent__bot__name"), opponent_number=F("opponent__number"),
        finished=F("match__finished"))[:limit])
