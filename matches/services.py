"""Writes of matches: making, dispatching, claiming, playing and finishing them.

Who plays a match is decided by the database, never by the broker: a task claims a match with
a guarded update that hands it a lease token, keeps the lease alive while the engine plays, and
stores the result only if its token still holds the match. Redis may deliver a task twice,
a worker may die: the second delivery finds nothing to claim, a dead worker's lease runs out
and `matches_requeue_stale` gives the match to someone else. The result, the replay and (by
matches.signals.match_finished, in the same transaction) the rating changes are written
together, guarded by that token, so a match counts once."""

from __future__ import annotations

import logging
import secrets
import threading
from collections import Counter
from collections.abc import Callable, Collection, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.core.files.base import ContentFile
from django.core.files.storage import Storage
from django.db import DatabaseError, connection, transaction
from django.db.models import F, Prefetch, Q
from django.utils import timezone

from bots.models import BotVersion
from engine.clock import DecisionTime
from engine.faults import InfrastructureError
from engine.games import get_game
from kaiser_site.page_cache import match_topics, pages_changed
from kaiser_site.task_send import task_send
from matches import signals
from matches.boards import board_losses
from matches.models import (
    HAS_REPLAY,
    REPLAY_FIELDS,
    BoardLoss,
    Match,
    MatchAttempt,
    MatchSide,
    PlayConditions,
    sides_with_bots,
)
from matches.replay_store import (
    ReplayUnavailable,
    archive_storage,
    key_match_id,
    replay_delete,
    replay_gzip,
    replay_put,
    replay_storage,
    storage_walk,
)
from matches.stats import replay_stats
from matches.times_store import times_encode, times_put

logger = logging.getLogger(__name__)

# The task that plays a match (matches.tasks.run_match), sent by name: see kaiser_site.task_send.
RUN_MATCH = "matches.tasks.run_match"


OPEN = (Match.Status.QUEUED, Match.Status.RUNNING)


DONE = (Match.Status.FINISHED, Match.Status.FAILED, Match.Status.VOID, Match.Status.WALKOVER)


STDERR_MAX = 64 * 1024


def setting_int(name: str, default: int) -> int:
    return int(getattr(settings, name, default))


def lease_seconds() -> int:
    return setting_int("KAISER_MATCH_LEASE_SECONDS", 120)


def max_attempts() -> int:
    return setting_int("KAISER_MATCH_MAX_ATTEMPTS", 3)


def dispatch_depth() -> int:
    """Matches handed to the broker (waiting or running) at once, over all competitions."""
    return setting_int("KAISER_DISPATCH_DEPTH", 4)


def bot_in_flight_max() -> int:
    """Matches of one bot version in the broker at once: a slow bot cannot hog the workers."""
    return setting_int("KAISER_BOT_IN_FLIGHT", 2)


def match_create(
    *,
    versions: Sequence[BotVersion],
    kind: str,
    conditions: PlayConditions,
    ladder: Any = None,
    tournament: Any = None,
    round: int | None = None,
    rated: bool = False,
    requested_by: AbstractBaseUser | None = None,
    position: int | None = None,
) -> Match:
    """A queued match, played under `conditions` (a ladder's or a tournament's settings, its
    game among them) by `versions` in side order (A, B, ...: as many as the game seats),
    each a MatchSide row: the one place a match's sides are written. It reaches the broker
    through `matches_dispatch`, after commit."""
    versions = match_players_check(game=conditions.game, versions=versions)
    match = Match.objects.create(
        kind=kind, ladder=ladder, tournament=tournament, round=round, rated=rated,
        requested_by=requested_by, seed=secrets.token_hex(8), position=position,
        game=conditions.game, rules=conditions.rules,
        games_per_match=conditions.games_per_match,
        move_ms=conditions.move_ms, bank_ms=conditions.bank_ms,
        startup_ms=conditions.startup_ms, strict_ms=conditions.strict_ms,
    )
    MatchSide.objects.bulk_create(MatchSide(match=match, order=order, version=version)
                                  for order, version in enumerate(versions))
    _dispatch_on_commit()
    pages_changed(*match_topics(match.pk, tuple(v.bot_id for v in versions)))
    return match


def match_players_check(*, game: str, versions: Sequence[BotVersion]) -> list[BotVersion]:
    """The players of a match of `game` in side order, checked: as many as the game seats
    sides, all bots of that game, no bot twice. ValidationError otherwise."""
    spec = get_game(game)
    players = list(versions)
    if len(players) != len(spec.sides):
        raise ValidationError(f"a {spec.title} match has {len(spec.sides)} players "
                              f"({', '.join(spec.sides)})")
    if len({v.bot_id for v in players}) < len(players):
        raise ValidationError("a bot cannot play itself")
    for v in players:
        if v.bot.game != game:
            raise ValidationError(f"{v.bot.name} plays {v.bot.game}, not {game}")
    return players


def _dispatch_on_commit() -> None:
    """One dispatch after the transaction commits, however many matches it made."""
    pending = getattr(connection, "run_on_commit", [])
    if not any(entry[1] is matches_dispatch for entry in pending):
        transaction.on_commit(matches_dispatch)


def _source(match: dict[str, Any]) -> str:
    if match["tournament_id"]:
        return f"t{match['tournament_id']}"
    if match["ladder_id"] and match["kind"] == Match.Kind.LADDER:
        return f"l{match['ladder_id']}"
    return "challenges"


def _pick_fairly(
    waiting: list[dict[str, Any]], in_flight: list[dict[str, Any]], free: int
) -> list[int]:
    """Which waiting matches go to the broker now. The competition with the fewest matches in
    flight goes first (one ladder or tournament cannot starve another), oldest match first
    within it, and no bot version gets more than its share of the broker."""
    load = Counter(_source(m) for m in in_flight)
    busy = Counter(v for m in in_flight for v in _players(m))
    cap = bot_in_flight_max()
    chosen: list[int] = []
    remaining = list(waiting)
    while len(chosen) < free:
        eligible = [m for m in remaining if all(busy[v] < cap for v in _players(m))]
        if not eligible:
            break
        pick = min(eligible, key=lambda m: (load[_source(m)], m["created"], m["id"]))
        remaining.remove(pick)
        chosen.append(pick["id"])
        load[_source(pick)] += 1
        busy.update(_players(pick))
    return chosen


def _players(match: dict[str, Any]) -> list[int]:
    """The versions of a match's values() row (_with_players)."""
    players: list[int] = match["players"]
    return players


def _with_players(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each values() row with its "players": its sides' versions, read in one query."""
    players: dict[int, list[int]] = {row["id"]: [] for row in rows}
    for match_id, version_id in MatchSide.objects.filter(match_id__in=list(players)).order_by(
            "match_id", "order").values_list("match_id", "version_id"):
        players[match_id].append(version_id)
    for row in rows:
        row["players"] = players[row["id"]]
    return rows


def matches_dispatch() -> list[int]:
    """Hand waiting matches to the broker, fairly, up to the dispatch depth."""
    fields = ("id", "kind", "ladder_id", "tournament_id", "created")
    in_flight = _with_players(list(
        Match.objects.filter(status__in=OPEN, dispatched__isnull=False).values(*fields)
    ))
    free = dispatch_depth() - len(in_flight)
    if free <= 0:
        return []
    waiting = _with_players(list(
        Match.objects.filter(status=Match.Status.QUEUED, dispatched__isnull=True)
        .order_by("created", "id").values(*fields)[:500]
    ))
    sent = []
    for match_id in _pick_fairly(waiting, in_flight, free):
        # Guarded: two dispatchers at once never send the same match twice.
        if Match.objects.filter(pk=match_id, dispatched__isnull=True).update(
            dispatched=timezone.now()
        ):
            sent.append(match_id)
    for match_id in sent:  # (at once in autocommit; never for a transaction rolled back)
        transaction.on_commit(lambda m=match_id: _enqueue(m))
    return sent


def _enqueue(match_id: int) -> None:
    """Send the match to its queue: a strict match to the strict worker's, with its own time
    limits (kaiser_site.worker_cores.match_send_options)."""
    from kaiser_site.worker_cores import match_send_options

    strict_ms, games = Match.objects.filter(pk=match_id).values_list(
        "strict_ms", "games_per_match").first() or (0, 0)
    task_send(RUN_MATCH, match_id, **match_send_options(strict_ms=strict_ms, games=games))


def match_start(*, match_id: int, worker: str) -> tuple[Match, str] | None:
    """Claim the match for this worker: (match, lease token), or None if it is not ours to
    play (finished, voided, or running under another worker's live lease)."""
    now = timezone.now()
    token = secrets.token_hex(16)
    # A running match whose lease ran out may be taken over directly (a redelivered task),
    # within the attempt budget; past it, the stale sweep voids it.
    claimable = Q(status=Match.Status.QUEUED) | Q(
        status=Match.Status.RUNNING, lease_expires__lt=now, attempts__lt=max_attempts())
    with transaction.atomic():
        claimed = Match.objects.filter(claimable, pk=match_id).update(
            status=Match.Status.RUNNING, lease_token=token,
            lease_expires=now + timedelta(seconds=lease_seconds()),
            started=now, attempts=F("attempts") + 1,
        )
        if not claimed:
            return None
        # A match taken over after its lease ran out had a worker that died.
        MatchAttempt.objects.filter(match_id=match_id, outcome=MatchAttempt.Outcome.RUNNING
                                    ).update(outcome=MatchAttempt.Outcome.LOST, ended=now)
        MatchAttempt.objects.create(match_id=match_id, token=token, worker=worker[:200],
                                    started=now)
    match = Match.objects.prefetch_related(Prefetch(
        "sides", queryset=MatchSide.objects.select_related("version__bot", "version__program")
        .order_by("order"))).get(pk=match_id)
    pages_changed(*match_topics(match.pk, tuple(s.version.bot_id for s in match.side_list)))
    return match, token


@contextmanager
def lease_kept(*, match_id: int, token: str) -> Iterator[None]:
    """Renew the lease while the engine plays, from a thread with its own connection.
    If the worker dies, the renewals stop and the lease runs out."""
    stop = threading.Event()
    period = max(0.5, lease_seconds() / 3)

    def renew() -> None:
        try:
            while not stop.wait(period):
                expires = timezone.now() + timedelta(seconds=lease_seconds())
                Match.objects.filter(pk=match_id, status=Match.Status.RUNNING,
                                     lease_token=token).update(lease_expires=expires)
        except DatabaseError as error:  # the next renewal or the sweep sorts it out
            logger.warning("lease renewal of match %s failed: %s", match_id, error)
        finally:
            connection.close()

    thread = threading.Thread(target=renew, name=f"lease-{match_id}", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()


def result_points(result: dict[str, Any]) -> dict[str, float]:
    """Each side's points in a match's result: its `points` where the game scores them, else
    the games it won (a game may leave `points` out: it is then rated by its games)."""
    points = result.get("points") or result["games"]
    return {side: float(v) for side, v in points.items()}


def _result_fields(replay: dict[str, Any]) -> dict[str, Any]:
    """The match's part of the result: A's share (Kaiser's score is A's share of the games;
    a game of more players gives each side's share of the points, A's is stored) and the
    fault that ended it. Each side's part is on its row (_sides_finish)."""
    result = replay["result"]
    score = result["score"]
    return {"score": float(score["A"] if isinstance(score, dict) else score),
            "forfeit": result.get("forfeit")}


def _sides_finish(*, match_id: int, replay: dict[str, Any], stderr: Sequence[str]) -> None:
    result = replay["result"]
    forfeit = result.get("forfeit") or {}
    # Points and ups where the game scores each side (more than two players); a forfeit's
    # pairs are rated by their points alone, as a two-player forfeit by its games.
    many = len(result["games"]) > 2
    match_sides_result(match_id=match_id, games=result["games"],
                       points=result_points(result) if many else None,
                       ups=result.get("ups") if many and not forfeit else None,
                       stderr=stderr, fault=(forfeit.get("player", ""),
                                             forfeit.get("reason", "") or ""))


def match_sides_result(*, match_id: int, games: dict[str, int] | None = None,
                       points: dict[str, float] | None = None,
                       ups: dict[str, float] | None = None, stderr: Sequence[str] = (),
                       fault: tuple[str, str] = ("", "")) -> None:
    """Each side's row of a match gets its part of the result (by side letter): the games it
    won, its points and ups where the game scores sides, its stderr (by side order), and,
    for the side that forfeited (`fault`: its letter and why), the reason."""
    sides = list(MatchSide.objects.filter(match_id=match_id).order_by("order"))
    for side in sides:
        letter = side.letter
        side.games = int(games[letter]) if games and letter in games else None
        side.points = float(points[letter]) if points and letter in points else None
        side.ups = float(ups[letter]) if ups and letter in ups else None
        side.stderr = (stderr[side.order] if side.order < len(stderr) else "")[:STDERR_MAX]
        side.fault = fault[1] if fault[0] == letter else ""
    MatchSide.objects.bulk_update(sides, ["games", "points", "ups", "stderr", "fault"])


def _held_game(*, match_id: int, token: str) -> str | None:
    """The match's game if this attempt still holds it, else None."""
    return Match.objects.filter(pk=match_id, status=Match.Status.RUNNING,
                                lease_token=token).values_list("game", flat=True).first()


def match_finish(
    *, match_id: int, token: str, replay: dict[str, Any], stderr: Sequence[str] = (),
    play_ms: int = 0, decisions: dict[str, list[int]] | None = None,
    times: dict[str, list[DecisionTime]] | None = None,
) -> bool:
    """Store the replay, then the result and the rating changes at once, if this attempt still
    holds the match. False (and nothing written but the attempt's outcome) otherwise.
    ReplayUnavailable if the replay store refused the replay (nothing written). `times`: each
    side's engine.clock.DecisionTime, stored beside the replay the same way
    (matches.times_store)."""
    from engine.runner import replay_json

    text = replay_json(replay).encode()
    # The replay is in the store before the transaction that records the result, so no result
    # ever stands without its replay. An attempt that lost the match writes nothing; one that
    # loses it between the write and the update leaves an orphan object, under a key of its
    # own (replay_store.replay_key), that replays_orphans removes.
    game = _held_game(match_id=match_id, token=token)
    stored = replay_put(match_id=match_id, blob=replay_gzip(text)) if game else None
    times_blob = times_encode(times) if game else None
    kept = times_put(match_id=match_id, blob=times_blob) if times_blob else None
    # An attempt that no longer holds the match writes nothing but its outcome (below).
    game = game or Match.objects.values_list("game", flat=True).get(pk=match_id)
    # Boards compare the two tables of a duplicate pair, in a game that has them (Kaiser).
    boards = get_game(game).board_comparison(replay)
    now = timezone.now()
    with transaction.atomic():
        won = stored is not None and Match.objects.filter(
            pk=match_id, status=Match.Status.RUNNING, lease_token=token
        ).update(
            # The lease ends with the match: its token stays on the attempt's row only
            # (33 bytes a match row less, issue 42).
            status=Match.Status.FINISHED, finished=now, lease_token="", lease_expires=None,
            replay_key=stored.key, replay_sha256=stored.sha256, replay_gz=None,
            replay_size=len(text),
            times_key=kept.key if kept else "", times_sha256=kept.sha256 if kept else "",
            play_ms=play_ms,
            # counted into the totals by play_stats_fold
            stats=replay_stats(replay, decisions=decisions, game=game),
            **_result_fields(replay),
        )
        outcome = MatchAttempt.Outcome.FINISHED if won else MatchAttempt.Outcome.SUPERSEDED
        MatchAttempt.objects.filter(token=token).update(outcome=outcome, ended=now)
        if not won:
            return False
        _sides_finish(match_id=match_id, replay=replay, stderr=stderr)
        match = Match.objects.prefetch_related(sides_with_bots()).get(pk=match_id)
        match.board_comparison_known(boards)  # the ladder's outcome reads it: not again
        # Each side's costliest boards, with the result (only a won attempt gets here).
        if boards is not None:
            BoardLoss.objects.bulk_create(board_losses(match=match, boards=boards))
        # In this transaction: the ladder's rating changes count exactly once with the result.
        signals.match_finished.send(sender=Match, match=match)
        signals.match_ended.send(sender=Match, match_id=match.pk,
                                 tournament_id=match.tournament_id)
    transaction.on_commit(lambda: _after_match(match))
    return True


def _after_match(match: Match) -> None:
    """Keep the pipeline fed: the match's maker refills (a ladder schedules its next matches,
    which sends them); failing that, send the next waiting matches."""
    refilled = signals.match_settled.send(sender=Match, match=match)
    if not any(done for _, done in refilled):
        matches_dispatch()


def match_release(*, match_id: int, token: str, error: str) -> str:
    """An attempt failed for the server's reasons (InfrastructureError, a time limit): the
    match goes back to the queue, or is void once the retry budget is spent. Returns the
    match's new status ('' if this attempt no longer held it)."""
    now = timezone.now()
    with transaction.atomic():
        MatchAttempt.objects.filter(token=token).update(
            outcome=MatchAttempt.Outcome.INFRASTRUCTURE, ended=now, error=error[:2000]
        )
        held = Match.objects.filter(pk=match_id, status=Match.Status.RUNNING, lease_token=token)
        if held.filter(attempts__gte=max_attempts()).exists():
            return _void(held, error=f"gave up after {max_attempts()} attempts: {error}")
        if held.update(status=Match.Status.QUEUED, lease_token="", lease_expires=None):
            matches_pages_changed([match_id])
            return Match.Status.QUEUED
    return ""


def match_fail(*, match_id: int, token: str, error: str) -> bool:
    """Our own code failed while playing the match: it is failed, kept for staff, not scored."""
    now = timezone.now()
    with transaction.atomic():
        MatchAttempt.objects.filter(token=token).update(
            outcome=MatchAttempt.Outcome.ERROR, ended=now, error=error[:2000]
        )
        failed = Match.objects.filter(
            pk=match_id, status=Match.Status.RUNNING, lease_token=token
        ).update(status=Match.Status.FAILED, finished=now, lease_token="", lease_expires=None,
                 error=error[:2000])
        if failed:
            _match_ended(match_id)
            matches_pages_changed([match_id])
    return bool(failed)


def match_void(*, match: Match, reason: str) -> bool:
    """Cancel a match that has not finished (staff): it is never played or scored."""
    with transaction.atomic():
        return bool(_void(Match.objects.filter(pk=match.pk, status__in=OPEN), error=reason))


def _void(matches: Any, *, error: str) -> str:
    ids = list(matches.values_list("pk", flat=True))
    if not matches.update(status=Match.Status.VOID, finished=timezone.now(), lease_token="",
                          lease_expires=None, error=error[:2000]):
        return ""
    for match_id in ids:
        _match_ended(match_id)
    matches_pages_changed(ids)
    return Match.Status.VOID


def matches_pages_changed(match_ids: list[int], *also: str) -> None:
    """The shared pages these matches show on (kaiser_site.page_cache) are built again."""
    bots: dict[int, list[int]] = {match_id: [] for match_id in match_ids}
    for match_id, bot_id in MatchSide.objects.filter(match_id__in=match_ids).order_by(
            "match_id", "order").values_list("match_id", "version__bot_id"):
        bots[match_id].append(bot_id)
    for match_id, sides in bots.items():
        pages_changed(*match_topics(match_id, tuple(sides), *also))


def _match_ended(match_id: int) -> None:
    tournament_id = Match.objects.filter(pk=match_id).values_list("tournament_id", flat=True)
    if tournament_id and tournament_id[0]:
        signals.match_ended.send(sender=Match, match_id=match_id, tournament_id=tournament_id[0])


def match_play(
    *, match_id: int, worker: str, release_on: tuple[type[BaseException], ...] = ()
) -> str:
    """Claim, play and store one match. Returns what happened, for the task's log:
    'skipped' (not ours), 'finished', 'superseded', 'failed', 'released'.
    InfrastructureError propagates after the match is released, for the task to retry;
    `release_on` errors (the task's time limit) release it without a retry (the stale sweep
    sends it again later, and the attempt budget ends it)."""
    from matches.runner import match_play_engine

    claim = match_start(match_id=match_id, worker=worker)
    if claim is None:
        return "skipped"
    match, token = claim
    try:
        with lease_kept(match_id=match_id, token=token):
            played = match_play_engine(match=match)
    except InfrastructureError as error:
        match_release(match_id=match_id, token=token, error=f"infrastructure: {error}")
        raise
    except release_on as error:
        match_release(match_id=match_id, token=token, error=f"{type(error).__name__}")
        return "released"
    except Exception as error:
        logger.exception("match %s failed", match_id)
        match_fail(match_id=match_id, token=token, error=f"{type(error).__name__}: {error}")
        return "failed"
    try:
        stored = match_finish(match_id=match_id, token=token, replay=played.replay,
                              stderr=played.stderr, play_ms=played.play_ms,
                              decisions=played.decisions, times=played.times)
    except ReplayUnavailable as error:  # the store is down: the server's failure, retried
        match_release(match_id=match_id, token=token, error=f"replay store: {error}")
        raise InfrastructureError(f"replay store: {error}") from error
    return "finished" if stored else "superseded"


def matches_requeue_stale() -> dict[str, int]:
    """Give matches whose worker died to another one (or void them once the retry budget is
    spent), and send again matches whose broker message seems lost."""
    now = timezone.now()
    counts = {"requeued": 0, "voided": 0, "redispatched": 0}
    stale = list(Match.objects.filter(status=Match.Status.RUNNING, lease_expires__lt=now)
                 .values_list("pk", "attempts"))
    for match_id, attempts in stale:
        with transaction.atomic():
            held = Match.objects.filter(pk=match_id, status=Match.Status.RUNNING,
                                        lease_expires__lt=now)
            MatchAttempt.objects.filter(match_id=match_id, outcome=MatchAttempt.Outcome.RUNNING,
                                        started__lt=now).update(
                outcome=MatchAttempt.Outcome.LOST, ended=now, error="the worker stopped renewing")
            if attempts >= max_attempts():
                counts["voided"] += bool(_void(held, error=f"worker lost {attempts} times"))
            elif held.update(status=Match.Status.QUEUED, lease_token="", lease_expires=None,
                             dispatched=now):
                counts["requeued"] += 1
                matches_pages_changed([match_id])
                transaction.on_commit(lambda m=match_id: _enqueue(m))
    lost_before = now - timedelta(seconds=setting_int("KAISER_DISPATCH_LOST_SECONDS", 900))
    counts["redispatched"] = Match.objects.filter(
        status=Match.Status.QUEUED, dispatched__lt=lost_before
    ).update(dispatched=None)
    matches_dispatch()
    return counts


def replays_prune(*, now: datetime | None = None, batch: int = 500) -> int:
    """Drop the replays of matches finished more than KAISER_REPLAY_RETENTION_DAYS ago (0, the
    default: keep every replay), writing each first to the archive (STORAGES["replay_archive"]:
    KAISER_REPLAY_ARCHIVE_DIR ..., as <match id>.json.gz) when there is one. The Match row, its
    result, its rating changes and the replay's hash stay: the key (or replay_gz) goes, then
    the object, and a finished match without a replay reads as "replay pruned". Returns how
    many."""
    days = setting_int("KAISER_REPLAY_RETENTION_DAYS", 0)
    if days <= 0:
        return 0
    archive = archive_storage()
    cutoff = (now or timezone.now()) - timedelta(days=days)
    old = Match.objects.filter(HAS_REPLAY, status=Match.Status.FINISHED, finished__lt=cutoff)
    pruned, after = 0, 0
    while rows := list(old.filter(pk__gt=after).order_by("pk")
                       .only("pk", "times_key", *REPLAY_FIELDS)[:batch]):
        after = rows[-1].pk
        for match in rows:
            pruned += _replay_prune(match, archive)
    return pruned


def _replay_prune(match: Match, archive: Storage | None) -> int:
    """One match's replay: archived (written anew whole by the next run if this one is cut
    short: the row still has it), dropped from the row by an update guarded by the key it had,
    then its object deleted (a prune stopped before that leaves an orphan for replays_orphans,
    never a key without its object)."""
    if archive is not None:
        try:
            blob = match.replay_stored()
        except ReplayUnavailable as error:  # kept, and said, rather than dropped unarchived
            logger.error("match %s: replay not archived, so not pruned: %s", match.pk, error)
            return 0
        name = f"{match.pk}.json.gz"
        if archive.exists(name):
            archive.delete(name)
        archive.save(name, ContentFile(blob or b""))
    held = Match.objects.filter(pk=match.pk, replay_key=match.replay_key)
    if not match.replay_key:
        held = held.filter(replay_gz__isnull=False)
    # The decision times go with it: the fair-play check reads them against the replay.
    if not held.update(replay_key="", replay_gz=None, times_key="", times_sha256=""):
        return 0
    for key in (match.replay_key, match.times_key):
        if key:
            replay_delete(key)
    return 1


def replays_to_store(*, batch: int = 200, limit: int | None = None,
                     progress: Callable[[str], None] | None = None) -> int:
    """Move the replays still in the database (replay_gz) to the replay store, oldest match
    first; returns how many were moved. Safe to stop anywhere and run again: each match's
    object is written and read back against its hash, then one update guarded by the row's old
    state (a replay still in replay_gz, no key) records the key and hash and clears replay_gz.
    Stopped before the update, the row is as it was and the next run finds the object already
    there (same bytes, same key); a replay is never lost, and never moved twice."""
    waiting = Match.objects.filter(replay_gz__isnull=False)
    total = waiting.count() if limit is None else min(limit, waiting.count())
    moved, after = 0, 0
    while limit is None or moved < limit:
        size = batch if limit is None else min(batch, limit - moved)
        rows = list(waiting.filter(pk__gt=after).order_by("pk")
                    .values_list("pk", "replay_gz")[:size])
        if not rows:
            break
        for match_id, blob in rows:
            stored = replay_put(match_id=match_id, blob=bytes(blob))
            moved += Match.objects.filter(pk=match_id, replay_gz__isnull=False,
                                          replay_key="").update(
                replay_key=stored.key, replay_sha256=stored.sha256, replay_gz=None)
        after = rows[-1][0]
        if progress is not None:
            progress(f"{moved} of {total} replays moved to the store (up to match {after})")
    return moved


def replays_orphans(*, delete: bool = False, min_age: timedelta = timedelta(hours=1)
                    ) -> list[str]:
    """Objects of the replay store that no match's key names: written by an attempt that then
    lost its lease, or left by a prune stopped halfway. Only objects older than `min_age`, of
    matches not running and not waiting to be moved (replays_to_store), so an object whose key
    is about to be recorded is never taken. Deleted with `delete`; returns their keys."""
    storage = replay_storage()
    cutoff = timezone.now() - min_age
    orphans = []
    for key in storage_walk(storage):
        match_id = key_match_id(key)
        if match_id is None or _key_in_use(match_id, key):
            continue
        if storage.get_modified_time(key) > cutoff:
            continue
        orphans.append(key)
        if delete:
            storage.delete(key)
    return orphans


def _key_in_use(match_id: int, key: str) -> bool:
    """Whether the key is (or may soon be) a match's replay."""
    row = Match.objects.filter(pk=match_id).values("status", "replay_key", "times_key").first()
    if row is None:
        return False
    moving = Match.objects.filter(pk=match_id, replay_gz__isnull=False).exists()
    return key in (row["replay_key"], row["times_key"]) or row["status"] in OPEN or moving


def match_walkover(*, match_id: int, withdrawn: Collection[int],
                   reason: str = "withdrawn") -> bool:
    """A queued match that will never be played, because the versions `withdrawn` left (a
    tournament's entrant whose bot was retired): a walkover, scored without a replay. The
    sides still in share the match (two sides: the one left wins it), those who left get
    nothing and `reason` as their fault; if all left, all share it. Each side's points are
    its share of the match's games. False if the match is no longer queued or no side left.
    A tournament advances itself after (no match_ended: it makes walkovers while advancing)."""
    sides = list(MatchSide.objects.filter(match_id=match_id).order_by("order"))
    out = [side for side in sides if side.version_id in withdrawn]
    if not out:
        return False
    staying = [side for side in sides if side not in out] or sides
    total = float(Match.objects.values_list("games_per_match", flat=True).get(pk=match_id))
    share = {side.letter: 1 / len(staying) if side in staying else 0.0 for side in sides}
    with transaction.atomic():
        # The result is on the sides (the match's own columns of sides are going: issue 42).
        if not Match.objects.filter(pk=match_id, status=Match.Status.QUEUED).update(
                status=Match.Status.WALKOVER, finished=timezone.now(), score=share["A"],
                lease_token="", lease_expires=None,
                error=f"walkover: side {out[0].letter} {reason}"):
            return False
        for side in sides:
            side.points, side.fault = share[side.letter] * total, reason if side in out else ""
        MatchSide.objects.bulk_update(sides, ["points", "fault"])
    matches_pages_changed([match_id])
    return True
