"""Reads of tournaments, in SQL or the ORM: a tournament's rows (entrants, matches with their
sides, byes), its standings and knockout rounds (the rules are tournaments.standings', asked
here with the rows), its page's state, the tournaments open for entry, and a bot's
tournament history. The page's assembly and words are tournaments.page's and
tournaments.words'.

A tournament page is a fixed handful of queries whatever its size: the entrants, the
matches and their sides are read once as plain values (tournament_read)."""

from __future__ import annotations

import hashlib
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from django.db import connection
from django.db.models import Count, Q
from django.utils import timezone

from bots.models import Bot, BotVersion
from engine.games import get_game
from matches.models import REPLAY_FIELDS, Match, MatchSide
from tournaments import standings
from tournaments.models import Tournament, TournamentBye, TournamentEntrant, bye_points
from tournaments.standings import BracketResult, MatchRow, SideRow, TableRow

OPEN_STATUSES = (Match.Status.QUEUED, Match.Status.RUNNING)


@dataclass(frozen=True)
class TournamentRead:
    """A tournament's rows as its pages and standings use them: the entrants (fresh table
    rows) by seed, the matches by round, place and id, and the byes (round, place, version
    id) by round, place and id."""

    entrants: list[TableRow]
    matches: list[MatchRow]
    byes: list[tuple[int, int | None, int]]


def tournament_read(*, tournament: Tournament) -> TournamentRead:
    """Three plain SQL reads (the ORM's building of them was about half the reads' time on a
    64-bot tournament's page): entrants; matches with their sides (MatchSide rows), a row a
    side; byes."""
    with connection.cursor() as cursor:
        entrants = _entrants_read(cursor, tournament.pk)
        matches = _matches_read(cursor, tournament.pk)
        cursor.execute(
            f"SELECT round, position, version_id FROM {TournamentBye._meta.db_table}"
            f" WHERE tournament_id = %s ORDER BY round, position, id", [tournament.pk])
        byes = [tuple(row) for row in cursor.fetchall()]
    return TournamentRead(entrants, matches, byes)


def _entrants_read(cursor: Any, tournament_id: int) -> list[TableRow]:
    entrant, version, bot = (TournamentEntrant._meta.db_table, BotVersion._meta.db_table,
                             Bot._meta.db_table)
    cursor.execute(
        f"SELECT e.version_id, b.name, v.bot_id, v.number, e.seed, e.eliminated_round,"
        f" e.final_rank, e.withdrawn IS NOT NULL FROM {entrant} e"
        f" JOIN {version} v ON v.id = e.version_id JOIN {bot} b ON b.id = v.bot_id"
        f" WHERE e.tournament_id = %s ORDER BY e.seed, e.id", [tournament_id])
    return [TableRow(v, name, seed, eliminated_round=out, final_rank=rank, bot_id=bot_id,
                     withdrawn=bool(withdrawn), version_number=number)
            for v, name, bot_id, number, seed, out, rank, withdrawn in cursor.fetchall()]


def _matches_read(cursor: Any, tournament_id: int) -> list[MatchRow]:
    """The matches by round, place and id, each with its sides in side order."""
    cursor.execute(
        f"SELECT m.id, m.round, m.position, m.status, m.score, s.version_id, s.games,"
        f" s.points, s.fault FROM {Match._meta.db_table} m"
        f" JOIN {MatchSide._meta.db_table} s ON s.match_id = m.id WHERE m.tournament_id = %s"
        f" ORDER BY m.round, m.position, m.id, s.{connection.ops.quote_name('order')}",
        [tournament_id])
    heads: dict[int, tuple[Any, ...]] = {}
    sides: dict[int, list[SideRow]] = defaultdict(list)
    for pk, number, position, status, score, version_id, games, points, fault in (
            cursor.fetchall()):
        heads.setdefault(pk, (number, position, status, score))
        sides[pk].append(SideRow(version_id, games, points, fault or ""))
    return [MatchRow(pk, number or 0, position, status, status not in OPEN_STATUSES,
                     status == Match.Status.FINISHED, score, tuple(sides[pk]))
            for pk, (number, position, status, score) in heads.items()]


def tournament_table(*, tournament: Tournament,
                     read: TournamentRead | None = None) -> list[TableRow]:
    """The standings (tournaments.standings.table). `read`: the tournament's rows
    (tournament_read) when the caller has them."""
    read = read or tournament_read(tournament=tournament)
    return standings.table(read.entrants, read.matches, [v for _, _, v in read.byes],
                           bye_points=bye_points(tournament.game))


def tournament_groups(*, tournament: Tournament) -> list[tuple[int, ...]]:
    """Who met whom: each match's versions in side order (a Swiss pairs them no more)."""
    groups: dict[int, list[int]] = defaultdict(list)
    for match_id, version_id in MatchSide.objects.filter(
            match__tournament=tournament).order_by("match_id", "order").values_list(
            "match_id", "version_id"):
        groups[match_id].append(version_id)
    return [tuple(versions) for versions in groups.values()]


def _progress_of(tournament: Tournament, entrants: int, made: int, done: int
                 ) -> dict[str, int]:
    return {"done": done, "total": standings.matches_total(
        format=tournament.format, players=tournament.players, entrants=entrants,
        rounds=tournament.rounds, finished=tournament.status == Tournament.Status.FINISHED,
        made=made, done=done)}


def tournament_progress(*, tournament: Tournament) -> dict[str, int]:
    """Matches done of the total the format will play."""
    matches = tournament.matches
    return _progress_of(tournament, tournament.entrants.count(), matches.count(),
                        matches.exclude(status__in=OPEN_STATUSES).count())


def read_progress(tournament: Tournament, read: TournamentRead) -> dict[str, int]:
    """tournament_progress, from the rows already read."""
    done = sum(m.ended for m in read.matches)
    return _progress_of(tournament, len(read.entrants), len(read.matches), done)


def _round_read(tournament: Tournament, number: int
                ) -> tuple[list[MatchRow], list[tuple[int | None, int]], dict[int, int],
                           dict[int, dict[str, float]]]:
    """A round's matches and byes (place, version), the seeds, and the game's tie-break of
    each match whose sides tied (read from its replay)."""
    read = tournament_read(tournament=tournament)
    matches = [m for m in read.matches if m.round == number]
    byes = [(position, v) for r, position, v in read.byes if r == number]
    seeds = {row.version_id: row.seed or standings.UNSEEDED for row in read.entrants}
    game = get_game(tournament.game)
    tiebreaks = {}
    for m in matches:
        if m.played and standings.tied(m):
            replay = Match.objects.only(*REPLAY_FIELDS).get(pk=m.id).replay() or {}
            tiebreaks[m.id] = game.match_tiebreak(replay)
    return matches, byes, seeds, tiebreaks


def knockout_round_results(*, tournament: Tournament, round: int) -> list[BracketResult]:
    """Who goes through from each place of a knockout round, in bracket order."""
    matches, byes, seeds, tiebreaks = _round_read(tournament, round)
    return standings.knockout_results(matches, byes, seeds, tiebreaks)


def groups_round_results(*, tournament: Tournament, round: int) -> tuple[list[int], list[int]]:
    """A knockout round in groups of three: (who goes through, who goes out)."""
    matches, byes, seeds, tiebreaks = _round_read(tournament, round)
    return standings.groups_results(matches, [v for _, v in byes], seeds, tiebreaks)


def tournament_ranking(*, tournament: Tournament) -> list[int]:
    """The final order of the entrants' versions (tournaments.standings.ranking)."""
    return standings.ranking(tournament_table(tournament=tournament),
                             knockout=tournament.format == Tournament.Format.KNOCKOUT)


@dataclass(frozen=True)
class PageState:
    """What the tournament page needs before its body: the progress, the entrants' count, and
    a token that changes whenever the body can (a match made, started, finished or voided, an
    entry, a withdrawal, a rank or elimination written, the status or round moved)."""

    version: str
    progress: dict[str, int]
    entrants: int


_STATE_SQL = """
    SELECT m.n, m.done, m.running, m.top, m.last,
           e.n, e.entered, e.withdrawn, e.ranked, e.out, e.seeded
    FROM (SELECT COUNT(id) AS n,
                 COUNT(CASE WHEN status NOT IN (%s, %s) THEN 1 END) AS done,
                 COUNT(CASE WHEN status = %s THEN 1 END) AS running,
                 MAX(id) AS top, MAX(finished) AS last
          FROM {match} WHERE tournament_id = %s) m,
         (SELECT COUNT(id) AS n, MAX(entered) AS entered, COUNT(withdrawn) AS withdrawn,
                 COUNT(final_rank) AS ranked, COUNT(eliminated_round) AS out,
                 COUNT(seed) AS seeded
          FROM {entrant} WHERE tournament_id = %s) e"""


def tournament_state(*, tournament: Tournament) -> PageState:
    """One query of two aggregates: the matches' counts and newest changes, the entrants'.
    In SQL: the ORM's building of the two took about 1 ms of every view of the page (and of
    its live poll), their running a tenth of that."""
    sql = _STATE_SQL.format(match=Match._meta.db_table,
                            entrant=TournamentEntrant._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(sql, [*OPEN_STATUSES, Match.Status.RUNNING, tournament.pk,
                             tournament.pk])
        row = cursor.fetchone()
    t = tournament
    raw = f"{t.pk}:{t.created}:{t.status}:{t.current_round}:{t.rounds}:{t.name}:" \
          f"{t.cancel_reason}:{row}"
    entrants, made, done = row[5], row[0], row[1]
    progress = _progress_of(tournament, entrants, made, done)
    return PageState(hashlib.sha256(raw.encode()).hexdigest(), progress, entrants)


def tournaments_open() -> list[Tournament]:
    """Tournaments open for entry whose deadline has not passed, soonest deadline first."""
    return list(Tournament.objects.filter(status=Tournament.Status.OPEN,
                                          entry_deadline__gt=timezone.now())
                .annotate(entrant_count=Count("entrants")).order_by("entry_deadline", "pk"))


def entered_bot_ids(*, tournaments: list[Tournament]) -> dict[int, set[int]]:
    """{tournament id: ids of the bots entered}."""
    out: dict[int, set[int]] = defaultdict(set)
    for tournament_id, bot_id in TournamentEntrant.objects.filter(
            tournament__in=tournaments).values_list("tournament_id", "version__bot_id"):
        out[tournament_id].add(bot_id)
    return out


def entries_owned(*, tournament: Tournament, user: Any) -> list[TournamentEntrant]:
    """The user's bots' entries in `tournament` (the page offers to withdraw them)."""
    if not getattr(user, "is_authenticated", False):
        return []
    return list(tournament.entrants.filter(version__bot__owner=user)
                .select_related("version__bot").order_by("version__bot__name"))


def enterable_versions(*, user: Any, game: str | None = None) -> list[BotVersion]:
    """The user's bots that could enter a tournament now (their playing versions); of `game`
    only, when given (a tournament takes bots of its game)."""
    from bots.selectors import active_versions

    if not getattr(user, "is_authenticated", False):
        return []
    versions = active_versions().filter(bot__owner=user, bot__retired=False)
    if game is not None:
        versions = versions.filter(bot__game=game)
    return list(versions.select_related("bot").order_by("bot__name"))


@dataclass(frozen=True)
class HistoryRow:
    tournament: Tournament
    version_number: int
    final_rank: int | None
    eliminated_round: int | None
    withdrawn: bool
    entrants: int


def bot_tournament_history(*, bot: Bot, limit: int = 50) -> list[HistoryRow]:
    """The tournaments the bot entered (any version), newest first."""
    entries = list(TournamentEntrant.objects.filter(version__bot=bot)
                   .select_related("tournament", "version")
                   .order_by("-tournament__created", "-pk")[:limit])
    counts = dict(TournamentEntrant.objects.filter(
        tournament_id__in=[e.tournament_id for e in entries]).values_list(
        "tournament_id").annotate(n=Count("id")).values_list("tournament_id", "n"))
    return [HistoryRow(e.tournament, e.version.number, e.final_rank, e.eliminated_round,
                       e.withdrawn is not None, counts.get(e.tournament_id, 0))
            for e in entries]


def tournaments_page() -> list[tuple[Tournament, dict[str, int]]]:
    """Every tournament, newest first, with its progress (from annotated counts)."""
    qs = Tournament.objects.select_related("ladder").annotate(
        entrant_count=Count("entrants", distinct=True),
        match_count=Count("matches", distinct=True),
        done_count=Count("matches", filter=~Q(matches__status__in=OPEN_STATUSES),
                         distinct=True),
    ).order_by("-created")
    return [(t, _progress_of(t, t.entrant_count, t.match_count, t.done_count)) for t in qs]
