"""Reads: leaderboards with fitted ratings, rating history, head to head, match lists,
tournament tables, replay export."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.core.cache import cache
from django.db.models import Max, Min, Q, QuerySet

from bots.faults import replay_public
from engine.match import replay_json
from tournaments import ratings
from tournaments.models import (
    Ladder,
    LadderEntry,
    Match,
    RatingChange,
    Tournament,
    TournamentBye,
)

# --- Ladders ---------------------------------------------------------------------------------


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


def ladder_results(*, ladder: Ladder) -> list[ratings.Result]:
    """Every rated, finished match of the ladder, oldest first, as the rating code takes them."""
    rows = (Match.objects.filter(ladder=ladder, rated=True, status=Match.Status.FINISHED)
            .order_by("finished", "id")
            .values_list("version_a_id", "version_b_id", "score", "games_per_match"))
    return [ratings.Result(a, b, score, games) for a, b, score, games in rows]


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
    fitted = ratings.ratings_fit(results=ladder_results(ladder=ladder), pinned=pins)
    cache.set(_fit_key(ladder.pk), (version, fitted), FIT_CACHE_SECONDS)
    return fitted


def ladder_fit_is_current(*, ladder: Ladder) -> bool:
    cached = cache.get(_fit_key(ladder.pk))
    return cached is not None and cached[0] == _fit_version(ladder)[0]


FIT_CACHE_SECONDS = 7 * 24 * 3600


def _fit_key(ladder_id: int) -> str:
    return f"ladder-fit:v2:{ladder_id}"


def ladder_leaderboard(*, ladder: Ladder, include_inactive: bool = False,
                       fit: bool | None = None) -> list[LeaderboardRow]:
    entries = LadderEntry.objects.filter(ladder=ladder).select_related(
        "version__bot", "version__bot__owner").order_by("-elo", "pk")
    if not include_inactive:
        entries = entries.filter(active=True)
    fitted = ladder_fit(ladder=ladder, compute=fit)
    rows = []
    for rank, e in enumerate(entries, start=1):
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
    rows = (Match.objects.filter(ladder=ladder).annotate(first_change=Min("rating_changes__id"))
            .filter(first_change__isnull=False).order_by("first_change")
            .values_list("version_a_id", "version_b_id", "score", "games_per_match"))
    results = [ratings.Result(a, b, s, g) for a, b, s, g in rows]
    return ratings.elo_replay(results=results, pinned=pins)


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


# --- Matches ---------------------------------------------------------------------------------


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
    return matches.filter(status=Match.Status.FINISHED, replay_gz__isnull=False)


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
        for match in batch.only("pk", "replay_gz", "forfeit_player"):
            text = match.replay_text()
            if text and public and match.forfeit_player:
                text = replay_json(replay_public(json.loads(text)))
            if text:
                yield text + "\n"


# --- Tournaments -----------------------------------------------------------------------------


@dataclass
class TableRow:
    version_id: int
    name: str
    seed: int | None
    played: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    byes: int = 0
    points: float = 0.0
    games_won: int = 0
    buchholz: float = 0.0
    opponents: list[int] = field(default_factory=list)
    eliminated_round: int | None = None
    final_rank: int | None = None
    bot_id: int | None = None
    withdrawn: bool = False


def _outcome(score: float | None) -> float:
    """Match points of side A: a win 1, a draw 0.5 (also a void match), a loss 0."""
    if score is None:
        return 0.5
    return 1.0 if score > 0.5 else 0.0 if score < 0.5 else 0.5


def _tally(row: TableRow, points: float, games_won: int, opponent: int) -> None:
    row.played += 1
    row.points += points
    row.games_won += games_won
    row.opponents.append(opponent)
    row.wins += points == 1.0
    row.draws += points == 0.5
    row.losses += points == 0.0


def tournament_table(*, tournament: Tournament,
                     matches: list[dict[str, Any]] | None = None) -> list[TableRow]:
    """Standings: points (win 1, draw or void ½, bye 1), then Buchholz (the points of the
    opponents met), then games won, then seed. `matches`: the tournament's matches as values
    (status, version_a_id, version_b_id, score, games_a, games_b) when the caller has them."""
    rows = {e["version_id"]: TableRow(e["version_id"], e["version__bot__name"], e["seed"],
                                      eliminated_round=e["eliminated_round"],
                                      final_rank=e["final_rank"], bot_id=e["version__bot_id"],
                                      withdrawn=e["withdrawn"] is not None)
            for e in tournament.entrants.values(
                "version_id", "version__bot__name", "version__bot_id", "seed",
                "eliminated_round", "final_rank", "withdrawn")}
    ended = [Match.Status.FINISHED, Match.Status.VOID, Match.Status.FAILED]
    if matches is None:
        done = list(tournament.matches.filter(status__in=ended).values_list(
            "version_a_id", "version_b_id", "score", "games_a", "games_b"))
    else:
        done = [(m["version_a_id"], m["version_b_id"], m["score"], m["games_a"], m["games_b"])
                for m in matches if m["status"] in ended]
    for a, b, score, ga, gb in done:
        _tally(rows[a], _outcome(score), ga or 0, b)
        _tally(rows[b], 1.0 - _outcome(score), gb or 0, a)
    for version_id in tournament.byes.values_list("version_id", flat=True):
        rows[version_id].byes += 1
        rows[version_id].points += 1.0
    for row in rows.values():
        row.buchholz = sum(rows[o].points for o in row.opponents)
    return sorted(rows.values(),
                  key=lambda r: (-r.points, -r.buchholz, -r.games_won, r.seed or 10**6))


def tournament_progress(*, tournament: Tournament) -> dict[str, int]:
    """Matches done of the total the format will play."""
    n = tournament.entrants.count()
    done = tournament.matches.exclude(status__in=[Match.Status.QUEUED,
                                                  Match.Status.RUNNING]).count()
    if tournament.format == Tournament.Format.ROUND_ROBIN:
        total = tournament.rounds * n * (n - 1) // 2
    elif tournament.format == Tournament.Format.SWISS:
        total = tournament.rounds * (n // 2)
    else:
        total = max(n - 1, 0)  # every match of a knockout knocks one entrant out
    if tournament.status == Tournament.Status.FINISHED:
        total = tournament.matches.count()  # Swiss may stop early when no pairing is left
    return {"done": done, "total": max(total, done)}


@dataclass(frozen=True)
class BracketResult:
    position: int
    winner: int
    loser: int | None


def _points_margin(match: Match) -> int:
    """A's total game points minus B's over the replay: a knockout draw's first tie-break."""
    replay = match.replay() or {}
    margin = 0
    for game in replay.get("games", []):
        team_a = 0 if game["seats"][0] == "A" else 1
        score = game["result"]["score"]
        margin += score[team_a] - score[1 - team_a]
    return margin


def _knockout_winner(match: Match, seeds: dict[int, int]) -> tuple[int, int]:
    a, b = match.version_a_id, match.version_b_id
    if match.score is not None and match.score != 0.5:  # (also a walkover, a void match)
        return (a, b) if match.score > 0.5 else (b, a)
    margin = _points_margin(match) if match.status == Match.Status.FINISHED else 0
    if margin:
        return (a, b) if margin > 0 else (b, a)
    return (a, b) if seeds[a] < seeds[b] else (b, a)  # then the better seed


def knockout_round_results(*, tournament: Tournament, round: int) -> list[BracketResult]:
    """Who goes through from each place of a knockout round, in bracket order."""
    seeds = dict(tournament.entrants.values_list("version_id", "seed"))
    out = [BracketResult(b.position or 0, b.version_id, None)
           for b in TournamentBye.objects.filter(tournament=tournament, round=round)]
    for match in tournament.matches.filter(round=round):
        winner, loser = _knockout_winner(match, seeds)
        out.append(BracketResult(match.position or 0, winner, loser))
    return sorted(out, key=lambda r: r.position)


def tournament_ranking(*, tournament: Tournament) -> list[int]:
    """The final order of the entrants' versions: by table, or for a knockout by how
    far each went (the champion first), then the table."""
    table = tournament_table(tournament=tournament)
    if tournament.format != Tournament.Format.KNOCKOUT:
        return [r.version_id for r in table]
    position = {r.version_id: i for i, r in enumerate(table)}
    far = 10**6
    return sorted(position, key=lambda v: (
        -(next(r for r in table if r.version_id == v).eliminated_round or far), position[v]))
