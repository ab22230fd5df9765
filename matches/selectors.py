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
from django.db.models import BooleanField, ExpressionWrapper, F, Q, QuerySet
from django.utils import timezone
from django.utils.timezone import localtime

from bots.faults import replay_public
from bots.models import Bot, BotVersion, default_game, game_players
from engine.runner import replay_json
from kaiser_site.ago import ago
from matches.models import HAS_REPLAY, REPLAY_FIELDS, Match
from matches.replay_store import ReplayUnavailable

if TYPE_CHECKING:  # a hint only: this app does not import the ladder above it
    from ladder.models import Ladder

logger = logging.getLogger(__name__)


def head_to_head(*, version_a: int, version_b: int) -> dict[str, Any]:
    """Finished matches between two versions, from A's side."""
    matches = Match.objects.filter(status=Match.Status.FINISHED).filter(
        Q(version_a_id=version_a, version_b_id=version_b)
        | Q(version_a_id=version_b, version_b_id=version_a))
    score = games = 0.0
    for a, s, g in matches.values_list("version_a_id", "score", "games_per_match"):
        share = s if a == version_a else 1.0 - s
        score += share * g
        games += g
    return {"matches": matches.count(), "games": games, "score": score,
            "share": score / games if games else None}


def match_list(
    *, bot: int | None = None, version: int | None = None, opponent: int | None = None,
    ladder: Ladder | None = None, tournament: int | None = None, status: str | None = None,
    since: datetime | None = None, until: datetime | None = None,
) -> QuerySet[Match]:
    """Matches, newest first, filtered by bot (either side), its opponent bot, version,
    ladder, tournament, status, and the time they finished."""
    qs = Match.objects.select_related("version_a__bot", "version_b__bot", "ladder").defer(
        "replay_gz", "stderr_a", "stderr_b")
    if bot is not None:
        qs = qs.filter(Q(version_a__bot_id=bot) | Q(version_b__bot_id=bot))
        if opponent is not None:
            qs = qs.filter(Q(version_a__bot_id=bot, version_b__bot_id=opponent)
                           | Q(version_b__bot_id=bot, version_a__bot_id=opponent))
    elif opponent is not None:
        qs = qs.filter(Q(version_a__bot_id=opponent) | Q(version_b__bot_id=opponent))
    if version is not None:
        qs = qs.filter(Q(version_a_id=version) | Q(version_b_id=version))
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
        for match in batch.only("pk", "forfeit_player", *REPLAY_FIELDS):
            try:
                text = match.replay_text()
            except ReplayUnavailable as error:  # the export goes on; the log says which
                logger.error("export: match %s left out: %s", match.pk, error)
                continue
            if text and public and match.forfeit_player:
                text = replay_json(replay_public(json.loads(text)))
            if text:
                yield text + "\n"


LIGHT_FIELDS = ("replay_gz", "stderr_a", "stderr_b", "stderr_c", "forfeit", "error", "lease_token")


# A match row on the pages, read as plain values under flat names: rows are shown, never saved,
# and six model instances a row (the match, two versions, two bots, the ladder), looked up by
# attribute in the template, were most of a list's time.
ROW_IDS = ("version_a_id", "version_b_id", "version_c_id")
# The ladder, one small table, joins into the rows' query; the sides' bots are read apart.
ROW_LADDER = {"ladder_slug": F("ladder__slug"), "ladder_name": F("ladder__name")}


def _with_names(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each row's bots (a_bot, a_name, a_number, likewise b and c; None for an empty seat),
    read for the rows' few versions in one small query. Joined into the rows' query (nine
    tables with the versions' bots), PostgreSQL spent 10 ms planning it on every page that
    lists matches, five times its run."""
    versions = sorted({row[f"version_{side}_id"] for row in rows for side in "abc"} - {None})
    names: dict[int, tuple[int, str, int]] = {}
    if versions:  # in SQL: the ORM's building of this join was half of its 1 ms
        with connection.cursor() as cursor:
            cursor.execute(
                f"SELECT v.id, v.bot_id, b.name, v.number FROM {BotVersion._meta.db_table} v "
                f"JOIN {Bot._meta.db_table} b ON b.id = v.bot_id "
                f"WHERE v.id IN ({', '.join(['%s'] * len(versions))})", versions)
            names = {pk: (bot, name, number) for pk, bot, name, number in cursor.fetchall()}
    for row in rows:
        for side in "abc":
            row[f"{side}_bot"], row[f"{side}_name"], row[f"{side}_number"] = names.get(
                row.pop(f"version_{side}_id"), (None, None, None))
    return rows


ROW_FIELDS = ("id", "status", "kind", "rated", "game", "score", "games_a", "games_b", "games_c",
              "forfeit_player",
              "forfeit_reason", "tournament_id", "round", "created", "finished")


def _three_winners(row: dict[str, Any]) -> None:
    games = {side: row[f"games_{side}"] for side in "abc"}
    best = max((g for g in games.values() if g is not None), default=None)
    top = [side for side, g in games.items() if g is not None and g == best]
    for side in "abc":
        row[f"{side}_won"] = row["status"] == Match.Status.FINISHED and top == [side]
    row["shared"] = row["status"] == Match.Status.FINISHED and len(top) > 1


def match_rows(queryset: QuerySet[Match]) -> list[dict[str, Any]]:
    """The queryset's matches (in its order) as rows for matches/_match_rows.html: plain
    dicts with the bots' names and numbers, the ladder, who won, and when, already worked out."""
    now = timezone.now()
    rows = _with_names(list(queryset.values(*ROW_FIELDS, *ROW_IDS, **ROW_LADDER)))
    for row in rows:
        score, when = row["score"], row["finished"] or row["created"]
        if row["c_bot"] is None:
            row["a_won"] = score is not None and score > 0.5
            row["b_won"] = score is not None and score < 0.5
        else:  # three players: the one with the most games won, if only one has it
            _three_winners(row)
        row["ago"] = ago(when, now)  # as the timesince filter would show it
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
    tournament and requester, and each side's version with its bot: two queries. As one query
    joining the ten tables, PostgreSQL took 2 ms to plan it and 0.25 ms to run it; the two
    plan in 0.4 ms."""
    match = with_replay_flag(Match.objects.select_related("ladder", "tournament", "requested_by")
                             .defer("replay_gz", "stderr_a", "stderr_b", "stderr_c",
                                    "stats")).get(pk=pk)
    sides = {side: getattr(match, f"version_{side}_id") for side in "abc"}
    versions = BotVersion.objects.select_related("bot").in_bulk(
        [version_id for version_id in sides.values() if version_id is not None])
    for side, version_id in sides.items():
        if version_id is not None:
            setattr(match, f"version_{side}", versions[version_id])
    return match


def latest_matches(*, ladder: Ladder | None = None, limit: int = 10) -> list[dict[str, Any]]:
    qs = Match.objects.filter(status=Match.Status.FINISHED)
    if ladder is not None:
        qs = qs.filter(ladder=ladder)
    return match_rows(qs.order_by("-finished")[:limit])


# Head-to-head rows on the bot page: the most-played opponents (rendering a row per opponent
# of a bot that met hundreds was most of the page's time); the match list has the rest.
HEAD_TO_HEAD_ROWS = 30


# A three-player bot's head to head reads its newest matches, at most this many.
HEAD_TO_HEAD_THREE_MATCHES = 5000


def head_to_head_records(*, version_ids: list[int], limit: int, game: str = ""
                         ) -> tuple[list[dict[str, Any]], int]:
    """The bot's record against each opponent bot, most played first: the first `limit` rows
    (opponent bot_id and name, matches, wins, draws, losses, share of the games) and how many
    opponents there are. Two queries: both sides' finished matches as (opponent, this bot's
    score) grouped by opponent version, then those versions' bots; grouped by bot here. A bot
    of a three-player game: head_to_head_three."""
    if not version_ids:
        return [], 0
    if game_players(game or default_game()) > 2:
        return head_to_head_three(version_ids=version_ids, limit=limit)
    marks = ", ".join(["%s"] * len(version_ids))
    # Per opponent version in the database (index-only scans of match_version_{a,b}_recent),
    # then to bots here: joined in SQL, PostgreSQL hashed all 10,000 versions for a bot's
    # few hundred matches.
    sql = f"""
        SELECT s.opponent, COUNT(*), SUM(s.points),
               SUM(CASE WHEN s.points > 0.5 THEN 1 ELSE 0 END),
               SUM(CASE WHEN s.points = 0.5 THEN 1 ELSE 0 END),
               SUM(CASE WHEN s.points < 0.5 THEN 1 ELSE 0 END)
        FROM (SELECT version_b_id AS opponent, score AS points FROM {Match._meta.db_table}
              WHERE status = %s AND version_a_id IN ({marks})
              UNION ALL
              SELECT version_a_id, 1 - score FROM {Match._meta.db_table}
              WHERE status = %s AND version_b_id IN ({marks})) s
        GROUP BY s.opponent"""
    finished = Match.Status.FINISHED
    with connection.cursor() as cursor:
        cursor.execute(sql, [finished, *version_ids, finished, *version_ids])
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


def head_to_head_three(*, version_ids: list[int], limit: int) -> tuple[list[dict[str, Any]], int]:
    """head_to_head_records for a bot of a three-player game, over its newest
    HEAD_TO_HEAD_THREE_MATCHES finished matches: each match meets two opponents, and against
    each the bot scores as the ratings count it (ladder.ratings): its share of the two
    players' points (a half when neither has any); more points than the opponent is a win."""
    versions = set(version_ids)
    sides = (Match.objects.filter(status=Match.Status.FINISHED)
             .filter(Q(version_a_id__in=version_ids) | Q(version_b_id__in=version_ids)
                     | Q(version_c_id__in=version_ids))
             .order_by("-id").values_list("version_a_id", "version_b_id", "version_c_id",
                                          "points")[:HEAD_TO_HEAD_THREE_MATCHES])
    tally: dict[int, list[float]] = defaultdict(lambda: [0, 0.0, 0, 0, 0])
    for a, b, c, points in sides:
        seats = dict(zip("ABC", (a, b, c), strict=True))
        mine = next(side for side, version in seats.items() if version in versions)
        for side, opponent in seats.items():
            if side == mine or opponent is None or opponent in versions:
                continue
            me, them = (float((points or {}).get(s, 0.0)) for s in (mine, side))
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
    one query: each side's newest from its own index (match_version_{a,b}_recent,
    match_version_c_newest), united, then cut. An OR of the sides scanned all matches newest
    first; a query per side cost a round trip each."""
    if not version_ids:
        return []
    marks, table = ", ".join(["%s"] * len(version_ids)), Match._meta.db_table
    # Each side in a subselect of its own: SQLite, like PostgreSQL, takes an ORDER BY and a
    # LIMIT there (not on the bare members of a UNION).
    sides = " UNION ".join(
        f"SELECT id FROM (SELECT id FROM {table} WHERE version_{side}_id IN ({marks}) "
        f"ORDER BY id DESC LIMIT %s) {side}" for side in "abc")
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT id FROM ({sides}) s ORDER BY id DESC LIMIT %s",
                       [*version_ids, limit] * 3 + [limit])
        return [row[0] for row in cursor.fetchall()]


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
