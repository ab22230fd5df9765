"""Reads of the ladder: leaderboards with the fitted ratings, rating history, the
leaderboard page's rows and a bot's standings, each in a fixed number of queries whatever
the number of rows (aggregates and window functions instead of a query per row)."""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.core.cache import cache
from django.db import connection
from django.db.models import Count, Exists, F, Max, Min, OuterRef, Q, QuerySet, Window
from django.db.models.functions import Coalesce, RowNumber
from django.shortcuts import get_object_or_404

from bots.models import Bot, default_game
from engine.games import GAMES
from ladder import ratings
from ladder.models import HOUSE_USER, Ladder, LadderEntry, PairTally, RatingChange
from matches import selectors as match_selectors
from matches.models import Match, MatchSide

# The ladder shown at / and challenged on when none is named.
MAIN_LADDER = "main"


@dataclass(frozen=True)
class LeaderboardRow:
    rank: int
    entry: LadderEntry
    elo: float
    games: int
    provisional: bool
    pinned: bool
    fitted: float | None
    fitted_low: float | None
    fitted_high: float | None


def ladder_tallies(*, ladder: Ladder) -> ratings.Tallies:
    """The ladder's rated results added up per pair of versions (PairTally, kept with the
    ratings by services.ratings_apply), as numpy arrays: a pair a row, whatever the number of
    matches (367,000 rows for a million matches between 10,000 bots)."""
    import numpy as np  # loaded where a fit runs, as ladder.bradley_terry is

    low, high, games, wins = tally_columns(ladder_id=ladder.pk)
    # The versions that played, in id order, and each one's place: a table by id (the ids
    # are small integers), eight times faster than np.unique's sort.
    top = int(max(low.max(initial=0), high.max(initial=0))) + 1
    played = (np.bincount(low, minlength=top) + np.bincount(high, minlength=top)) > 0
    place = np.cumsum(played) - 1
    return ratings.Tallies(players=np.flatnonzero(played).tolist(), a=place[low],
                           b=place[high], games=games, wins=wins)


# The tally table's columns as the fit reads them, and how PostgreSQL packs each (below).
TALLY_COLUMNS = (("low_id", "int8send", ">i8"), ("high_id", "int8send", ">i8"),
                 ("CAST(games AS DOUBLE PRECISION)", "float8send", ">f8"),
                 ("low_wins", "float8send", ">f8"))


def tally_columns(*, ladder_id: int, packed: bool | None = None) -> list[Any]:
    """The ladder's PairTally rows as four numpy columns: low, high (version ids), games, the
    low version's wins. Packed by PostgreSQL (the default there): each column comes back as
    one string of big-endian binary values (int8send, float8send), so 367,000 rows cost four
    values instead of 1.5 million Python objects (about 150 ms where fetching the rows took
    260, bench/scale_sim.py's tallies); row by row elsewhere (SQLite)."""
    import numpy as np

    table = PairTally._meta.db_table
    if packed is None:
        packed = connection.vendor == "postgresql"
    if packed:
        import psycopg

        connection.ensure_connection()
        # psycopg's own cursor on Django's connection (same transaction): its results come in
        # binary, where Django's cursor has each string sent as hex text, twice the size
        # (250 ms instead of 150 at 367,000 pairs).
        with psycopg.Cursor(connection.connection) as cursor:
            cursor.execute("SELECT " + ", ".join(f"string_agg({send}({c}), '')"
                                                 for c, send, _ in TALLY_COLUMNS)
                           + f" FROM {table} WHERE ladder_id = %s", [ladder_id], binary=True)
            blobs = cursor.fetchone()
        return [np.frombuffer(blob or b"", dtype=kind).astype(kind[1:])
                for blob, (_, _, kind) in zip(blobs, TALLY_COLUMNS, strict=True)]
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {', '.join(c for c, _, _ in TALLY_COLUMNS)} FROM {table} "
                       f"WHERE ladder_id = %s", [ladder_id])
        rows = np.array(cursor.fetchall(), dtype=float).reshape(-1, 4)
    return [rows[:, 0].astype(np.int64), rows[:, 1].astype(np.int64), rows[:, 2], rows[:, 3]]


def ups_scale(game: str) -> float:
    """The ratings' unit of the game's ups (engine.games.Game.ups_scale); 0: not rated, or a
    game no longer registered."""
    return GAMES[game].ups_scale if game in GAMES else 0.0


def _result(score: float, games: int, sides: list[tuple[int, float | None, float | None]],
            ups_scale: float = ratings.UPS_SCALE) -> ratings.Result | ratings.MultiResult:
    """A match's result for the rating code from its sides (version, points, ups) in order:
    a match of more than two by each version's points (and ups, where it has them, on its
    game's scale)."""
    if len(sides) == 2 or any(points is None for _, points, _ in sides):
        return ratings.Result(sides[0][0], sides[1][0], score, games)
    ups = {version: u for version, _, u in sides}
    return ratings.MultiResult({version: p for version, p, _ in sides}, games,
                               None if None in ups.values() else ups, ups_scale)


# Up to this many active bots a request may fit a stale ladder itself (tens of milliseconds
# with the O(pairs) fit); above it only the beat's task fits, and requests read its last fit.
FIT_INLINE_MAX = 150


def _fit_version(ladder: Ladder) -> tuple[str, dict[Any, float]]:
    """What the fit depends on: the last rated result and the anchors' pins."""
    last = Match.objects.filter(ladder=ladder, rated=True, status=Match.Status.FINISHED
                                ).aggregate(n=Max("finished"))["n"]
    pins = dict(LadderEntry.objects.filter(ladder=ladder, pinned=True)
                .values_list("version_id", "elo"))
    return f"{last.isoformat() if last else 'none'}:{sorted(pins.items())}", pins


def ladder_fit(*, ladder: Ladder, compute: bool | None = None) -> dict[Any, ratings.Fitted]:
    """The fitted ratings, {version id: Fitted}.

    The last fit is cached per ladder with the version of the results it covers. A stale one
    is refitted here when `compute` is True, or when it is None and the ladder has at most
    FIT_INLINE_MAX active bots; otherwise (a large ladder, or compute=False) the last fit is
    returned as it is, a few results behind, and {} before the first: the beat's
    ladder_fits_refresh task keeps it fresh, so no request waits for a large ladder's fit."""
    version, pins = _fit_version(ladder)
    cached = cache.get(_fit_key(ladder.pk))
    if cached is not None and cached[0] == version:
        return cached[1]  # type: ignore[no-any-return]
    if compute is None:
        compute = LadderEntry.objects.filter(ladder=ladder, active=True).count() <= FIT_INLINE_MAX
    if not compute:
        return cached[1] if cached is not None else {}
    fitted = ratings.ratings_fit(tallies=ladder_tallies(ladder=ladder), pinned=pins,
                                 start=_fit_start(ladder, cached[1] if cached else {}))
    cache.set(_fit_key(ladder.pk), (version, fitted), FIT_CACHE_SECONDS)
    return fitted


def _fit_start(ladder: Ladder, last: dict[Any, ratings.Fitted]) -> dict[Any, float]:
    """Where the fit's Newton steps start: the last fit, a few results behind, where it has
    a version; else the version's Elo (near its fitted rating, with no replay of the
    results). Any start gives the same fit; a near one takes fewer steps."""
    start = dict(LadderEntry.objects.filter(ladder=ladder).values_list("version_id", "elo"))
    start.update((version, fit.rating) for version, fit in last.items())
    return start


def ladder_fit_is_current(*, ladder: Ladder) -> bool:
    cached = cache.get(_fit_key(ladder.pk))
    return cached is not None and cached[0] == _fit_version(ladder)[0]


FIT_CACHE_SECONDS = 7 * 24 * 3600


def _fit_key(ladder_id: int) -> str:
    return f"ladder-fit:v2:{ladder_id}"


# What orders the leaderboards (pages and API): the fitted rating, which converges on the true
# order where Elo keeps swapping close pairs (bench/rating_convergence.py); Elo beside it.
ORDERED_BY = "fitted"
ORDER_WORDS = ("Ordered by the fitted rating: it is worked out again from every result the "
               "ladder has, so its order settles on the true one sooner than Elo's; bots "
               "marked provisional have fewer than 20 rated matches, and a bot not in the "
               "fit yet follows the others, by Elo.")


def ladder_leaderboard(*, ladder: Ladder, include_inactive: bool = False,
                       fit: bool | None = None, offset: int = 0,
                       limit: int | None = None) -> list[LeaderboardRow]:
    """The leaderboard's rows in its order (ratings.leaderboard_order), all of them or `limit` from
    `offset` (ranked from offset + 1)."""
    entries = LadderEntry.objects.filter(ladder=ladder)
    if not include_inactive:
        entries = entries.filter(active=True)
    fitted = ladder_fit(ladder=ladder, compute=fit)
    order = ratings.leaderboard_order(list(entries.values_list("pk", "version_id", "elo")), fitted)
    ids = order[offset:] if limit is None else order[offset:offset + limit]
    loaded = LadderEntry.objects.select_related("version__bot", "version__bot__owner"
                                                ).in_bulk(ids)
    shown = [loaded[pk] for pk in ids]
    rows = []
    for rank, e in enumerate(shown, start=offset + 1):
        f = fitted.get(e.version_id)
        rows.append(LeaderboardRow(
            rank=rank, entry=e, elo=e.elo, games=e.games, provisional=e.provisional,
            pinned=e.pinned, fitted=f.rating if f else None, fitted_low=f.low if f else None,
            fitted_high=f.high if f else None,
        ))
    return rows


def rating_history(*, entry: LadderEntry) -> QuerySet[RatingChange]:
    return entry.changes.select_related("match").order_by("id")


def ratings_recomputed(*, ladder: Ladder) -> dict[Any, tuple[float, int]]:
    """Elo replayed from the stored history: must agree with the stored ratings."""
    pins = dict(LadderEntry.objects.filter(ladder=ladder, pinned=True)
                .values_list("version_id", "elo"))
    rows = list(Match.objects.filter(ladder=ladder)
                .annotate(first_change=Min("rating_changes__id"))
                .filter(first_change__isnull=False).order_by("first_change")
                .values_list("pk", Coalesce("outcome", "score"), "games_per_match"))
    sides: dict[int, list[tuple[int, float | None, float | None]]] = defaultdict(list)
    for match_id, *side in MatchSide.objects.filter(match_id__in=[r[0] for r in rows]).order_by(
            "match_id", "order").values_list("match_id", "version_id", "points", "ups"):
        sides[match_id].append(tuple(side))  # type: ignore[arg-type]
    scale = ups_scale(ladder.game)
    results = [_result(score, games, sides[pk], scale) for pk, score, games in rows]
    return ratings.elo_replay(results=results, pinned=pins)


TREND_POINTS = 20


HISTORY_POINTS = 300


@dataclass(frozen=True)
class BoardRow:
    board: LeaderboardRow
    matches: int
    wins: int
    last_played: datetime | None
    trend: list[float]

    @property
    def win_rate(self) -> float | None:
        return self.wins / self.matches if self.matches else None


def _match_stats(ladder: Ladder, ids: list[int]) -> dict[int, tuple[int, int, datetime | None]]:
    """Per version: finished matches on the ladder, matches won (as the match rows show it:
    of two sides, A above a half of the score, B below; of more, the most games, alone), the
    last one's time. One grouped read of the versions' sides joined to their matches (an
    index-only scan of match_side_facts a side)."""
    if ladder.players == 2:
        won = Q(order=0, match__score__gt=0.5) | Q(order=1, match__score__lt=0.5)
    else:  # (a correlated probe a side: a third of the page's time at a million matches)
        level = MatchSide.objects.filter(match_id=OuterRef("match_id"),
                                         games__gte=OuterRef("games")).exclude(pk=OuterRef("pk"))
        won = ~Q(Exists(level))
    rows = (MatchSide.objects.filter(version_id__in=ids, match__ladder=ladder,
                                     match__status=Match.Status.FINISHED)
            .order_by().values("version_id")
            # (counted by match_id: in matchside_version_recent, so its scan is index-only;
            # the side's own id sent PostgreSQL to 5,000 scattered pages of the table)
            .annotate(n=Count("match_id"), w=Count("match_id", filter=won),
                      last=Max("match__finished")))
    return {row["version_id"]: (row["n"], row["w"], row["last"]) for row in rows}


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


# What a leaderboard row shows of its entry: not the versions' check output nor the owners'
# accounts.
BOARD_FIELDS = ("id", "ladder_id", "version_id", "elo", "games", "pinned", "active",
                "version__number", "version__bot_id", "version__bot__name",
                "version__bot__owner_id", "version__bot__owner__username")


def _board_rows(ladder: Ladder, offset: int, limit: int) -> tuple[list[LeaderboardRow],
                                                                  int]:
    """Rows `offset`..`offset + limit` of ladder_leaderboard (same order, same
    fields), without loading every entry of a large ladder. Only rated entries: a version
    without a rated match yet is listed apart (unrated_entries), not ranked at its start
    rating above bots that played."""
    entries = LadderEntry.objects.filter(ladder=ladder, active=True).filter(
        Q(games__gt=0) | Q(pinned=True))
    total = entries.count()
    # A page refits a small ladder itself; a large one shows the beat task's last fit.
    fitted = ladder_fit(ladder=ladder, compute=total <= FIT_INLINE_MAX)
    # The ladder's (entry, version, Elo) in the leaderboard's order, then only the page's rows
    # with their bots: the joins run over `limit` entries, not over every entry.
    ids = ratings.leaderboard_order(list(entries.values_list("pk", "version_id", "elo")), fitted)[
        offset:offset + limit]
    loaded = LadderEntry.objects.select_related("version__bot__owner").only(
        *BOARD_FIELDS).in_bulk(ids)
    rows = []
    for rank, e in enumerate((loaded[pk] for pk in ids), start=offset + 1):
        f = fitted.get(e.version_id)
        rows.append(LeaderboardRow(
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


def bot_facts(*, bot: Bot, version_ids: list[int] | None = None) -> BotFacts:
    """Three queries. The token covers the bot's name, its entries as read (Elo, games, anchor,
    activity) and its matches: one made, started, put back in the queue, finished or cancelled
    (top id, latest start and end, how many are queued and running), so the cache never
    answers past the bot's next result. `version_ids`: the bot's versions, newest first, if
    the caller has read them."""
    ids = (list(bot.versions.order_by("-number").values_list("pk", flat=True))
           if version_ids is None else version_ids)
    entries = list(LadderEntry.objects.filter(version_id__in=ids).select_related(
        "ladder", "version").only(*ENTRY_FIELDS).order_by("ladder__name", "-version__number"))
    state = [(e.pk, e.elo, e.games, e.pinned, e.active, e.updated) for e in entries]
    raw = f"{bot.pk}:{bot.name}:{ids}:{state}:{_matches_state(ids)}"
    return BotFacts(bot, ids, entries, hashlib.sha256(raw.encode()).hexdigest())


def _matches_state(ids: list[int]) -> tuple[Any, ...]:
    """The versions' matches as bot_facts' token sees them: top id, latest end and start, how
    many are queued and running: their sides (matchside_version_recent) joined to their
    matches by primary key."""
    if not ids:
        return ()
    marks = ", ".join(["%s"] * len(ids))
    sql = (f"SELECT MAX(m.id), MAX(m.finished), MAX(m.started), "
           f"SUM(CASE WHEN m.status = %s THEN 1 ELSE 0 END), "
           f"SUM(CASE WHEN m.status = %s THEN 1 ELSE 0 END) "
           f"FROM {MatchSide._meta.db_table} s JOIN {Match._meta.db_table} m "
           f"ON m.id = s.match_id WHERE s.version_id IN ({marks})")
    with connection.cursor() as cursor:
        cursor.execute(sql, [Match.Status.QUEUED, Match.Status.RUNNING, *ids])
        return tuple(cursor.fetchone())


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
    match_selectors.HEAD_TO_HEAD_ROWS most-played opponents, and how many there are), recent
    matches."""
    records, total = match_selectors.head_to_head_records(
        version_ids=facts.version_ids, limit=match_selectors.HEAD_TO_HEAD_ROWS,
        game=facts.bot.game)
    ids = match_selectors.newest_match_ids(version_ids=facts.version_ids, limit=matches)
    return {
        "bot": facts.bot,
        "standings": bot_standings(entries=facts.entries),
        "matches": match_selectors.match_rows(Match.objects.filter(id__in=ids).order_by("-id")),
        "head_to_head": records,
        "head_to_head_total": total,
    }


def bot_ladder_wait(*, bot: Bot, playing: Any) -> str:
    """What the bot waits for before its first rated match on its game's ladder, in words
    (empty once it has played one, or when nothing plays): not on the ladder yet, queued,
    playing, or a table short of bots of other owners (a match seats one bot an owner, each
    house bot counting as one of its own). `playing`: the bot's playing version, or None."""
    from bots.selectors import active_versions
    from engine.games import get_game

    if playing is None or bot.retired:
        return ""
    ladder = Ladder.objects.filter(game=bot.game, active=True).order_by("pk").first()
    if ladder is None:
        return ""
    entry = LadderEntry.objects.filter(ladder=ladder, version=playing, active=True).first()
    if entry is not None and entry.games:
        return ""
    open_matches = Match.objects.filter(
        sides__version=playing, ladder=ladder, rated=True,
        status__in=[Match.Status.QUEUED, Match.Status.RUNNING])
    if open_matches.filter(status=Match.Status.RUNNING).exists():
        return f"Playing its first rated match on the {ladder.name} now."
    if open_matches.exists():
        return f"Queued for its first rated match on the {ladder.name}."
    wanted = len(get_game(bot.game).sides) - 1
    needed = wanted - _tablemates(bot=bot, ladder=ladder, active_versions=active_versions(),
                                  wanted=wanted)
    if needed > 0:
        return (f"Waiting for a table on the {ladder.name}: it needs {needed} more "
                f"bot{'s' if needed > 1 else ''} of other owners (a match seats one bot an "
                f"owner; each house bot counts as its own).")
    if entry is None:
        return (f"Version {playing.number} joins the {ladder.name} at its next scheduling "
                f"round (every {SCHEDULE_SECONDS} s) and is queued for its first match then.")
    return (f"Waiting for its first match on the {ladder.name}: the ladder pairs it at its "
            f"next scheduling round (every {SCHEDULE_SECONDS} s).")


# How often Celery beat runs ladder_schedule (kaiser_site.settings, CELERY_BEAT_SCHEDULE).
SCHEDULE_SECONDS = 10


def _tablemates(*, bot: Bot, ladder: Ladder, active_versions: QuerySet[Any],
                wanted: int) -> int:
    """How many playing bots of the ladder's game may sit at a table with `bot` (counted up
    to `wanted`): one an owner other than its owner, and every house bot (ladder.services:
    the house is no one owner). Two small reads, whatever the number of bots."""
    playing = active_versions.filter(bot__game=ladder.game).exclude(bot__owner=bot.owner_id)
    house = playing.filter(bot__owner__username=HOUSE_USER).count()
    owners = (playing.exclude(bot__owner__username=HOUSE_USER).order_by()
              .values_list("bot__owner_id", flat=True).distinct()[:wanted])
    return house + len(owners)


def ladder_of_game(game: str) -> Ladder:
    """The ladder a game's challenges play on by default: the main ladder for the default
    game (Kaiser), else the ladder named after the game (404 if it is gone)."""
    slug = MAIN_LADDER if game == default_game() else game
    return get_object_or_404(Ladder, slug=slug)


def ladder_or_main(slug: str | None, *, among: Sequence[Ladder] = ()) -> Ladder | None:
    """The ladder at /ladders/<slug>/ (404 if none), or the main ladder, or any. `among`:
    ladders already read (the page's tabs), looked in first."""
    wanted = MAIN_LADDER if slug is None else slug
    for ladder in among:
        if ladder.slug == wanted:
            return ladder
    if slug is not None:
        return get_object_or_404(Ladder, slug=slug)
    return Ladder.objects.filter(slug=MAIN_LADDER).first() or Ladder.objects.first()
